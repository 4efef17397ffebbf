"""Moves per second through a real server with the Redis store against the in-memory store;
with ``--failover``, the time two processes on one Redis need to carry on after one dies.

    python -m bench.store --seconds 20 [--tables 8]
    python -m bench.store --failover --seconds 20 [--tables 8] [--graceful]

Throughput: a ``redis-server`` (Debian's package) is started on a free port;
``--tables`` bots each play Scopa (to 100 points, so games do not end) at
their own table against a random AI seat, through an in-process server, in
alternating rounds with the memory store and the Redis store, so machine
noise hits both alike.  ``ratio`` is Redis moves/s over memory moves/s.

Failover: two ``cardavia-server`` processes share the Redis (the default
lease of 5 s); the bots play at tables of the first one; midway it is
SIGKILLed (``--graceful``: stopped with SIGTERM, as a rolling restart does)
and the bots resume at the second.  ``failover_s`` is the time from
the kill to the first move the new owner applied (as a bot sees it),
``all_resumed_s`` the time until every table moved again;
``lost_moves`` counts acknowledged moves missing from the log in Redis,
``doubled_moves`` logged human moves that no bot sent at that version.
Half as many more tables (at least one) of the first process have their
second seat played by a bot connected to the second process, which also
chats there after the kill: its moves and chat lines sent while the tables
move go through the second process to the dead owner.  ``window_requests``
counts the requests (moves, chat) those bots sent from the kill until a
lease TTL and 2 s after it, ``unanswered`` the requests of the whole run that
got no answer within the client's request timeout (must be 0), and
``slowest_window_answer_s`` the longest wait for an answer in the window
(a ``table_moving`` refusal sent again by the client library counts until
its final answer).

Progress goes to stderr; the last line of stdout is one JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import msgpack  # type: ignore[import-untyped]
from redis import asyncio as aioredis

from bench.loopback import NO_ADDRESS_CAPS, no_address_cap_flags
from bench.procstat import answers_ok
from client_cli.client import (
    Client,
    ClientClosed,
    RequestTimeout,
    ServerError,
    random_chooser,
    reconnect,
)
from server.app import running_server
from server.config import ServerConfig
from server.ops.logs import configure

ROUNDS = 4
LEASE_TTL = 5.0
"""The servers' default lease TTL: the window in which a killed owner's tables move."""
CHAT_EVERY = 3.1
"""Seconds between two chat lines of a remote seat (the default allows 20 a minute)."""
OPTIONS = {"seat": 0, "ai": [{"seat": 1, "level": "random"}], "game": {"target": 100}}
REMOTE_OPTIONS = {"seat": 0, "game": {"target": 100}}
"""A table whose second seat waits for a person (a bot at the other process)."""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class RedisMissing(RuntimeError):
    """Debian's ``redis-server`` is not installed."""


class RedisProcess:
    """A redis-server (append-only file on, flushed every second, like a deployment) on
    ``port`` (default: a free one) with its data in ``directory``; it may be stopped
    (SIGTERM: the file is flushed) and started again, on the same port with the same
    data.  Raises :class:`RedisMissing` without the binary.  The Redis tests' fixture
    (``tests/server/redis_fixture.py``) is one of these."""

    def __init__(self, directory: str | os.PathLike[str], port: int | None = None) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            raise RedisMissing("redis-server is not installed (apt-get install -y redis-server)")
        self.binary = binary
        self.directory = directory
        self.port = port or _free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """Its redis:// URL."""
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        """Start it and wait until it answers PING."""
        args = [self.binary, "--port", str(self.port), "--bind", "127.0.0.1"]
        args += ["--dir", os.fspath(self.directory), "--appendonly", "yes"]
        args += ["--appendfsync", "everysec", "--save", "", "--daemonize", "no"]
        args += ["--loglevel", "warning"]
        quiet = subprocess.DEVNULL
        self.proc = subprocess.Popen(args, stdout=quiet, stderr=quiet)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), 0.2) as sock:
                    sock.sendall(b"PING\r\n")
                    if sock.recv(16).startswith(b"+PONG"):
                        return
            except OSError:
                time.sleep(0.02)
        raise RuntimeError(f"redis-server did not start on port {self.port}")

    def stop(self) -> None:
        """Stop it (SIGTERM: the append-only file is flushed) and wait."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)
        self.proc = None


@contextmanager
def redis_process() -> Iterator[RedisProcess]:
    """A started :class:`RedisProcess` in a temporary directory, stopped at the end."""
    with tempfile.TemporaryDirectory() as tmp:
        try:
            redis = RedisProcess(tmp)
        except RedisMissing as exc:
            sys.exit(f"bench: {exc}")
        redis.start()
        try:
            yield redis
        finally:
            redis.stop()


@contextmanager
def redis_server() -> Iterator[str]:
    """A throw-away redis-server (:func:`redis_process`); its URL."""
    with redis_process() as redis:
        yield redis.url


@dataclasses.dataclass(frozen=True)
class Asked:
    """One request a bot sent: when (monotonic clock), how long its answer took
    (``None``: no answer within the client's request timeout)."""

    at: float
    took: float | None


@dataclasses.dataclass
class Bot:
    """One bot at one table: what it sent and what was acknowledged, by (game, version);
    its requests' answer times."""

    client: Client
    table: str
    seat: int = 0
    sent: dict[tuple[int, int], Any] = dataclasses.field(default_factory=dict)
    acked: dict[tuple[int, int], Any] = dataclasses.field(default_factory=dict)
    asked: list[Asked] = dataclasses.field(default_factory=list)

    async def timed(self, request: Any) -> bool:
        """Await ``request`` (a call of the client), noting how long its answer took;
        whether it came (a refusal is an answer: :class:`ServerError` is raised)."""
        at = time.monotonic()
        try:
            await request
        except RequestTimeout:
            self.asked.append(Asked(at, None))
            return False
        except ServerError:
            self.asked.append(Asked(at, time.monotonic() - at))
            raise
        self.asked.append(Asked(at, time.monotonic() - at))
        return True


async def play(bot: Bot, until: float, url: str | None = None, pause: float = 0.0) -> None:
    """Play the bot's seat until ``until`` (resuming at ``url`` if the connection drops)."""
    choose = random_chooser(hash(bot.table) & 0xFFFF)
    while time.monotonic() < until:
        try:
            state = bot.client.tables[bot.table]
            if state.my_turn and state.view is not None and state.result is None:
                action = choose(state.view)
                key = (state.game_no, state.version)
                bot.sent[key] = action
                try:
                    act = bot.client.act(bot.table, action, seat=state.seat, version=key[1])
                    if await bot.timed(act):
                        bot.acked[key] = action
                except ServerError as exc:
                    if exc.code not in ("stale_version", "not_your_turn", "store_unavailable"):
                        raise
                if pause:
                    await asyncio.sleep(pause)
            else:
                await bot.client.receive(max(0.01, until - time.monotonic()))
        except TimeoutError:
            continue
        except ClientClosed:
            if url is None:
                raise
            back = await reconnect(url, bot.client, bot.table)
            if back is None:
                raise
            bot.client = back


async def chat(bot: Bot, start: asyncio.Event, until: float) -> None:
    """Once ``start`` is set, say a line at the bot's table every :data:`CHAT_EVERY`
    seconds until ``until``."""
    await start.wait()
    n = 0
    while time.monotonic() < until:
        n += 1
        with contextlib.suppress(ServerError, ClientClosed):  # refused or gone: answered
            await bot.timed(bot.client.chat(bot.table, f"line {n}"))
        await asyncio.sleep(CHAT_EVERY)


def _moves(metrics: Any) -> float:
    return float(
        sum(metrics.value("cardavia_actions_total", game="scopa", by=by) for by in ("human", "ai"))
    )


async def throughput_round(config: ServerConfig, tables: int, seconds: float) -> float:
    """Moves applied per second by one in-process server with ``config``."""
    async with running_server(config) as server:
        bots = []
        for i in range(tables):
            client = await Client.connect(server.url, f"bot{i}")
            joined = await client.create_table("scopa", OPTIONS)
            bots.append(Bot(client, joined.table.id))
        await asyncio.sleep(0.1)
        before, started = _moves(server.metrics), time.perf_counter()
        until = time.monotonic() + seconds
        await asyncio.gather(*(play(b, until) for b in bots))
        rate = (_moves(server.metrics) - before) / (time.perf_counter() - started)
        for bot in bots:
            await bot.client.close()
    return rate


async def throughput(seconds: float, tables: int) -> dict[str, Any]:
    """Alternating memory and Redis rounds; figures and ratio."""
    base = ServerConfig(
        port=0,
        ai_delay=0.0,
        ai_think=0.0,
        ai_workers=2,
        ai_mode="thread",
        rate_per_s=1e4,
        **NO_ADDRESS_CAPS,  # every bot connects from 127.0.0.1
    )
    rates: dict[str, list[float]] = {"memory": [], "redis": []}
    with redis_server() as url:
        for n in range(ROUNDS):
            for store in ("memory", "redis"):
                config = base.replace(store=store, redis_url=url)
                rate = await throughput_round(config, tables, seconds / (2 * ROUNDS))
                rates[store].append(rate)
                print(f"round {n + 1}: {store} {rate:.0f} moves/s", file=sys.stderr)
    memory = sum(rates["memory"]) / ROUNDS
    redis = sum(rates["redis"]) / ROUNDS
    return {
        "bench": "store",
        "tables": tables,
        "memory_moves_per_s": round(memory, 1),
        "redis_moves_per_s": round(redis, 1),
        "ratio": round(redis / memory, 3),
    }


def _start_server(url: str) -> tuple[subprocess.Popen[bytes], int]:
    port = _free_port()
    args = [sys.executable, "-m", "server.main", "--port", str(port), "--store", "redis"]
    args += ["--redis-url", url, "--ai-delay", "0.05", "--ai-think", "0.02", "--ai-mode", "thread"]
    args += ["--disconnect-grace", "60", "--log-level", "error", *no_address_cap_flags()]
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL)
    if not answers_ok(f"http://127.0.0.1:{port}/healthz", time.monotonic() + 30, proc):
        raise RuntimeError("cardavia-server did not start")
    return proc, port


async def _logged(url: str, table: str, seat: int = 0) -> dict[tuple[int, int], Any]:
    """Human moves at ``seat`` of every game of ``table`` in Redis, by (game, version they
    were sent at)."""
    redis = aioredis.Redis.from_url(url)
    out: dict[tuple[int, int], Any] = {}
    try:
        fields = await redis.hgetall(f"cardavia:t:{table}")
        game_no, version = int(fields[b"game_no"]), int(fields[b"version"])
        games = [(game_no, version, await redis.lrange(f"cardavia:t:{table}:log", 0, -1))]
        for n in range(1, game_no):
            raw = await redis.get(f"cardavia:r:{table}:{n}")
            if raw is not None:
                old = msgpack.unpackb(raw, raw=False)
                packed = [msgpack.packb(step) for step in old["log"]]
                games.append((n, int(old["start_version"]), packed))
    finally:
        await redis.aclose()
    for number, start, log in games:
        for i, raw in enumerate(log):
            logged_seat, action, by = msgpack.unpackb(raw, raw=False)
            if logged_seat == seat and by == "human":
                out[(number, start + i)] = action
    return out


async def failover(seconds: float, tables: int, graceful: bool = False) -> dict[str, Any]:
    """Two processes, the owner of the bots' tables SIGKILLed midway (``graceful``:
    stopped with SIGTERM, as a rolling restart does)."""
    with redis_server() as url:
        first, first_port = _start_server(url)
        second, second_port = _start_server(url)
        try:
            bots, remote = [], []
            owner, other = f"ws://127.0.0.1:{first_port}", f"ws://127.0.0.1:{second_port}"
            for i in range(tables):
                client = await Client.connect(owner, f"bot{i}")
                joined = await client.create_table("scopa", OPTIONS)
                bots.append(Bot(client, joined.table.id))
            for i in range(max(1, tables // 2)):  # seat 1 played through the other process
                client = await Client.connect(owner, f"host{i}")
                joined = await client.create_table("scopa", REMOTE_OPTIONS)
                guest = await Client.connect(other, f"guest{i}")
                await guest.join(joined.table.id)
                remote += [Bot(client, joined.table.id), Bot(guest, joined.table.id, seat=1)]
            until = time.monotonic() + seconds
            kill = asyncio.Event()
            players = [asyncio.create_task(play(b, until, other, 0.02)) for b in bots + remote]
            players += [asyncio.create_task(chat(b, kill, until)) for b in remote if b.seat]
            await asyncio.sleep(seconds / 4)
            versions = {b.table: b.client.tables[b.table].version for b in bots}
            old_clients = {b.table: b.client for b in bots}
            how = signal.SIGTERM if graceful else signal.SIGKILL
            print(f"{how.name} the owner of {tables} busy tables", file=sys.stderr)
            first.send_signal(how)
            killed = time.monotonic()
            kill.set()
            resumed: dict[str, float] = {}  # table -> seconds from the kill to its first move
            while len(resumed) < len(bots) and time.monotonic() < until:
                await asyncio.sleep(0.01)
                # on a new connection, a version past the one at the kill: the new owner's
                for b in bots:
                    state = b.client.tables.get(b.table)
                    fresh = b.client is not old_clients[b.table]
                    if b.table in resumed or not fresh or state is None:
                        continue
                    if state.version > versions[b.table]:
                        resumed[b.table] = time.monotonic() - killed
            moved = min(resumed.values(), default=None)
            last = max(resumed.values()) if len(resumed) == len(bots) else None
            print(
                f"first move at the new owner {moved} s after the kill; every table moved "
                f"again after {last} s ({len(resumed)} of {len(bots)})",
                file=sys.stderr,
            )
            await asyncio.gather(*players)
            lost = doubled = moves = 0
            for b in bots + remote:
                logged = await _logged(url, b.table, b.seat)
                moves += len(logged)
                lost += sum(1 for k, a in b.acked.items() if logged.get(k) != a)
                doubled += sum(1 for k, a in logged.items() if b.sent.get(k) != a)
                await b.client.close()
            end = killed + LEASE_TTL + 2.0
            window = [a for b in remote if b.seat for a in b.asked if killed <= a.at <= end]
        finally:
            for proc in (first, second):
                if proc.poll() is None:
                    proc.send_signal(signal.SIGTERM)
                    proc.wait(20)
    return {
        "bench": "store_failover",
        "tables": tables,
        "signal": "SIGTERM" if graceful else "SIGKILL",
        "human_moves_logged": moves,
        "failover_s": None if moved is None else round(moved, 2),
        "all_resumed_s": None if last is None else round(last, 2),
        "lost_moves": lost,
        "doubled_moves": doubled,
        "window_requests": len(window),
        "unanswered": sum(1 for b in bots + remote for a in b.asked if a.took is None),
        "slowest_window_answer_s": round(max((a.took or 0.0 for a in window), default=0.0), 2),
    }


def main(argv: list[str] | None = None) -> int:
    """Entry point: progress on stderr, last line JSON."""
    parser = argparse.ArgumentParser(prog="python -m bench.store", description=__doc__)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--tables", type=int, default=8)
    parser.add_argument("--failover", action="store_true")
    parser.add_argument(
        "--graceful", action="store_true", help="with --failover: SIGTERM (a rolling restart)"
    )
    args = parser.parse_args(argv)
    configure("error")
    if args.failover:
        out = asyncio.run(failover(args.seconds, args.tables, args.graceful))
    else:
        out = asyncio.run(throughput(args.seconds, args.tables))
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
