"""A human's latency while all-AI tables run flat out (issue 11, "fair AI").

    python -m bench.ai_fairness --tables 6 --seconds 8 [--mode process thread]

For each AI mode a real server (:func:`server.app.running_server`) runs in
a child process; the clients run here.  Two human clients play Scopa at
full pace against each other (a short pause between moves), measuring the
ping round trip and the action→update latency (a move's ``act`` until its
reply, which the server sends after the move's updates).  First with no
other load (the yardstick, same run), then while a third client keeps
``--tables`` all-AI tables running at ``ai_delay`` 0 and watches them all
(a finished one is left, so it closes, and replaced).  Goal: the human's
p99 under AI load at most twice the idle p99.

Progress goes to stderr; the last line of stdout is one JSON object:
per mode the ``idle`` and ``load`` figures (``act_p50_ms``, ``act_p99_ms``,
``ping_p50_ms``, ``ping_p99_ms``, ``samples``), ``ratio_act_p99``,
``ratio_ping_p99``, and the AI moves per second the load produced.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import random
import sys
import time
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any

from bench.report import log
from client_cli.client import Client, ServerError
from protocol import server_messages as sm
from server.app import running_server
from server.config import ServerConfig

GAME = "scopa"


def percentile(samples: list[float], q: float) -> float:
    """The ``q`` quantile (0..1) of ``samples`` by nearest rank; 0 for none."""
    if not samples:
        return 0.0
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]


@dataclass
class Latencies:
    """Round trips measured by the human clients, in seconds."""

    act: list[float] = field(default_factory=list)
    ping: list[float] = field(default_factory=list)

    def summary(self) -> dict[str, float]:
        """p50/p99 in milliseconds and the sample count."""
        return {
            "act_p50_ms": round(percentile(self.act, 0.5) * 1000, 2),
            "act_p99_ms": round(percentile(self.act, 0.99) * 1000, 2),
            "ping_p50_ms": round(percentile(self.ping, 0.5) * 1000, 2),
            "ping_p99_ms": round(percentile(self.ping, 0.99) * 1000, 2),
            "samples": len(self.act),
        }


class HumanPair:
    """Two human clients playing each other at one table, measuring every move."""

    def __init__(self, url: str, seed: int = 1) -> None:
        self.url = url
        self.rng = random.Random(seed)
        self.clients: list[Client] = []
        self.table = ""

    async def open(self) -> None:
        """Connect both, seat them (the game starts)."""
        a = await Client.connect(self.url, "human-a")
        b = await Client.connect(self.url, "human-b")
        self.clients = [a, b]
        joined = await a.create_table(GAME, {"seat": 0})
        self.table = joined.table.id
        await b.join(self.table, 1)

    async def close(self) -> None:
        """Disconnect both."""
        for client in self.clients:
            await client.close()

    async def play(self, seconds: float, pause: float) -> Latencies:
        """Play for ``seconds``: every move's act round trip, then a ping by the mover."""
        out = Latencies()
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            states = [c.tables.get(self.table) for c in self.clients]
            if any(s is None for s in states):
                await asyncio.sleep(0.001)
                continue
            latest = max(s.version for s in states if s is not None)
            if all(s is not None and s.result is not None for s in states):
                for c in self.clients:
                    with contextlib.suppress(ServerError):
                        await c.rematch(self.table)
                await asyncio.sleep(0.01)
                continue
            mover = next(
                (
                    (c, s)
                    for c, s in zip(self.clients, states, strict=True)
                    if s is not None and s.my_turn and s.version == latest and s.result is None
                ),
                None,
            )
            if mover is None:
                await asyncio.sleep(0.001)  # the other client's update is on its way
                continue
            client, state = mover
            legal = state.legal
            action = legal[self.rng.randrange(len(legal))]
            started = time.perf_counter()
            try:
                await client.act(self.table, action, seat=state.seat, version=state.version)
            except ServerError:
                continue
            out.act.append(time.perf_counter() - started)
            started = time.perf_counter()
            await client.ping()
            out.ping.append(time.perf_counter() - started)
            await asyncio.sleep(pause)
        return out


class AiLoad:
    """One client keeping ``tables`` all-AI tables running at ``ai_delay`` 0, watching them."""

    def __init__(self, url: str, tables: int, level: str | None = None) -> None:
        self.url = url
        self.tables = tables
        self.level = level
        self.moves = 0
        self.games = 0
        self._client: Client | None = None
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Create the tables and keep them going in the background."""
        self._client = await Client.connect(self.url, "ai-watcher")
        for _ in range(self.tables):
            await self._new_table()
        self._task = asyncio.create_task(self._watch())

    async def _new_table(self) -> None:
        assert self._client is not None
        ai = [{"seat": 0, "level": self.level}, {"seat": 1, "level": self.level}]
        await self._client.create_table(GAME, {"seat": None, "ai_delay": 0.0, "ai": ai})

    async def _watch(self) -> None:
        client = self._client
        assert client is not None
        while True:
            msg = await client.receive()
            if isinstance(msg, sm.Update):
                self.moves += 1
            elif isinstance(msg, sm.GameOver):
                self.games += 1
                with contextlib.suppress(ServerError):
                    await client.leave(msg.table)  # nobody else is there: it closes
                await self._new_table()
            elif isinstance(msg, sm.TableClosed):
                await self._new_table()

    async def stop(self) -> None:
        """Stop watching and disconnect."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
        if self._client is not None:
            await self._client.close()


async def measure(
    url: str, tables: int, seconds: float, pause: float, level: str | None = None
) -> dict[str, Any]:
    """The human's latencies idle, then under ``tables`` all-AI tables (same server)."""
    pair = HumanPair(url)
    await pair.open()
    try:
        await pair.play(min(1.0, seconds), pause)  # warm up both clients and the server
        log(f"  idle: {seconds:.0f} s")
        idle = await pair.play(seconds, pause)
        load = AiLoad(url, tables, level)
        await load.start()
        try:
            await asyncio.sleep(1.0)  # the AI tables get going
            log(f"  {tables} AI tables: {seconds:.0f} s")
            before = load.moves
            started = time.perf_counter()
            loaded = await pair.play(seconds, pause)
            ai_moves_per_s = (load.moves - before) / (time.perf_counter() - started)
        finally:
            await load.stop()
    finally:
        await pair.close()
    a, b = idle.summary(), loaded.summary()
    return {
        "idle": a,
        "load": b,
        "ratio_act_p99": round(b["act_p99_ms"] / max(a["act_p99_ms"], 1e-3), 2),
        "ratio_ping_p99": round(b["ping_p99_ms"] / max(a["ping_p99_ms"], 1e-3), 2),
        "ai_moves_per_s": round(ai_moves_per_s, 1),
        "ai_tables": tables,
    }


def _serve(settings: dict[str, Any], conn: Connection) -> None:
    """The server process: run until told to stop."""

    async def main() -> None:
        async with running_server(ServerConfig(**settings), log_level="error") as srv:
            conn.send(srv.url)
            await asyncio.get_running_loop().run_in_executor(None, conn.recv)

    asyncio.run(main())


@contextlib.contextmanager
def server_process(settings: dict[str, Any]) -> Any:
    """A server in a child process; yields its URL."""
    ctx = multiprocessing.get_context("spawn")
    ours, theirs = ctx.Pipe()
    proc = ctx.Process(target=_serve, args=(settings, theirs), daemon=False)
    proc.start()
    try:
        if not ours.poll(60):
            raise RuntimeError("the server did not start")
        yield ours.recv()
    finally:
        with contextlib.suppress(OSError):
            ours.send("stop")
        proc.join(15)
        if proc.is_alive():
            log("  the server did not stop in 15 s: terminated")
            proc.terminate()
            proc.join(5)


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; the last stdout line is the JSON result."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=6, help="all-AI tables of the load")
    parser.add_argument("--seconds", type=float, default=8.0, help="length of each phase")
    parser.add_argument("--pause", type=float, default=0.01, help="seconds between human moves")
    parser.add_argument("--mode", nargs="+", default=["process", "thread"], help="AI modes")
    parser.add_argument("--workers", type=int, default=ServerConfig().ai_workers)
    parser.add_argument("--think", type=float, default=ServerConfig().ai_think)
    parser.add_argument("--level", default=None, help="AI level of the load (the strongest)")
    args = parser.parse_args(argv)
    results: dict[str, Any] = {}
    for mode in args.mode:
        settings = {
            "port": 0,
            "ai_mode": mode,
            "ai_workers": args.workers,
            "ai_think": args.think,
            "ai_delay": 0.0,
            "max_ai_tables_per_player": args.tables,
            "max_tables_per_player": args.tables + 1,
            "max_watched_tables_per_session": args.tables + 1,
            "max_watched_tables_per_address": 0,
            "max_created_tables_per_session": args.tables + 1,
            "max_created_tables_per_address": 0,
            "rate_per_s": 10_000.0,
            "rate_burst": 10_000,
        }
        log(f"mode {mode}: {args.workers} workers, think {args.think} s")
        with server_process(settings) as url:
            results[mode] = asyncio.run(
                measure(url, args.tables, args.seconds, args.pause, args.level)
            )
        log(f"  {json.dumps(results[mode])}")
    summary = {"game": GAME, "tables": args.tables, "level": args.level or "strongest"}
    print(json.dumps(summary | {"modes": results}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
