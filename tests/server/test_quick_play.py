"""Quick play against a real server process on uvloop (its default loop), from raw JSON
and msgpack clients, some of which close or reload right after asking (issue 53).

Every game must start within the fill wait plus a second of its request, and no
table may start with a seat held by somebody who is gone.  The server runs as
``cardavia-server`` would (uvloop: its timers count milliseconds, which once lost
the fill of about a third of the tables).
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import msgpack  # type: ignore[import-untyped]
import pytest
import websockets
from websockets.typing import Subprotocol

from bench.procstat import answers_ok
from engine.registry import GAMES
from tests.server.redis_fixture import free_port

WAIT = 1.0
"""The server's ``--quick-fill-wait`` here."""
LATE = WAIT + 1.0
"""The longest a quick play may take to start its game (the requirement)."""
ROUNDS = 5
"""Rounds per lane (each: a client that closes, one that reloads, one that waits)."""


@dataclass(frozen=True)
class Served:
    """A running server process and its address."""

    port: int
    proc: subprocess.Popen[bytes]

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def waiting_tables(self) -> float:
        """Tables waiting for players, from /metrics."""
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/metrics", timeout=2) as r:
            text = r.read().decode()
        return sum(
            float(line.rsplit(" ", 1)[1])
            for line in text.splitlines()
            if line.startswith("cardavia_tables_by_state{") and 'state="waiting"' in line
        )


@pytest.fixture(scope="module")
def served() -> Iterator[Served]:
    """``python -m server.main`` on uvloop with a 1 s quick-play wait and the usual graces
    (an away player's 15 s, a waiting table's 30 s: a fill lost shows)."""
    port = free_port()
    log = tempfile.TemporaryFile()  # noqa: SIM115 (closed below)
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "server.main",
            "--port",
            str(port),
            "--loop",
            "uvloop",
            "--quick-fill-wait",
            str(WAIT),
            "--ai-mode",
            "thread",
            "--ai-workers",
            "1",
            "--ai-delay",
            "0",
            "--ai-think",
            "0.02",
            # every client here comes from 127.0.0.1
            "--connect-rate-per-address",
            "1000",
            "--max-sessions-per-address",
            "1000",
            "--max-created-tables-per-address",
            "1000",
            "--max-waiting-tables-per-address",
            "1000",
            "--log-level",
            "warning",
        ],
        stdout=subprocess.DEVNULL,
        stderr=log,
    )
    try:
        if not answers_ok(f"http://127.0.0.1:{port}/readyz", time.monotonic() + 30, proc):
            log.seek(0)
            pytest.fail(f"the server did not start: {log.read().decode(errors='replace')}")
        yield Served(port, proc)
    finally:
        proc.terminate()
        proc.wait(15)
        log.close()


class Raw:
    """A bare WebSocket client speaking cardavia.json or cardavia.msgpack (docs/protocol.md)."""

    def __init__(self, codec: str) -> None:
        self.codec = codec
        self.ws: Any = None
        self.ids = 0

    async def open(self, url: str) -> Raw:
        self.ws = await websockets.connect(
            url, subprotocols=[Subprotocol(f"cardavia.{self.codec}")]
        )
        return self

    async def send(self, msg: dict[str, Any]) -> None:
        self.ids += 1
        body = {**msg, "id": self.ids}
        await self.ws.send(json.dumps(body) if self.codec == "json" else msgpack.packb(body))

    async def recv(self, timeout: float) -> dict[str, Any]:
        data = await asyncio.wait_for(self.ws.recv(), timeout)
        msg: dict[str, Any] = json.loads(data) if isinstance(data, str) else msgpack.unpackb(data)
        return msg

    async def expect(self, kind: str, timeout: float = 5.0) -> dict[str, Any]:
        """The next message of type ``kind`` (an error instead fails the test)."""
        while True:
            msg = await self.recv(timeout)
            assert msg["type"] != "error", msg
            if msg["type"] == kind:
                return msg

    async def hello(self, name: str, token: str | None = None) -> dict[str, Any]:
        await self.send({"type": "hello", "version": 1, "name": name, "token": token})
        return await self.expect("welcome")

    async def close(self) -> None:
        await self.ws.close()


async def started(
    client: Raw,
    asked: float,
    game: str,
    level: str | None,
    table: str | None = None,
    *,
    watching: bool = True,
) -> None:
    """Wait for the game of the client's table (``table``, or the one it is told it
    joined) to start; check it came in time and, for a client connected all along
    (``watching``: it sees the start itself), that nobody at it was gone. Told that it
    left (its quick-play seat given up as its connection closed, before its resume was
    handled), the client quick plays again."""
    while True:
        try:
            msg = await client.recv(max(0.05, asked + LATE + 0.5 - time.monotonic()))
        except TimeoutError:
            pytest.fail(f"no game started within {LATE} s of the ask (table {table})")
        assert msg["type"] != "error", msg
        if msg["type"] == "left" and msg["table"] == table:
            asked, table = await quick(client, game, level), None
            continue
        if msg["type"] == "joined":
            table = msg["table"]["id"]
            info: dict[str, Any] = msg["table"]
        elif msg["type"] == "table" and msg["table"]["id"] == table:
            info = msg["table"]
        else:
            continue
        if info["status"] == "playing":
            took = time.monotonic() - asked
            assert took <= LATE, f"the game of {table} started {took:.2f} s after the ask"
            away = [s for s in info["seats"] if s["kind"] == "human" and not s["connected"]]
            assert not watching or away == [], f"{table} started with somebody gone: {away}"
            return


async def quick(client: Raw, game: str, level: str | None = None) -> float:
    await client.send({"type": "quick_play", "game": game, "level": level})
    return time.monotonic()


async def lane(url: str, game: str, level: str | None, tag: str) -> int:
    """Rounds of: one client asks and closes at once (before or after its welcome),
    one asks and reloads at once, one asks and waits (JSON and msgpack in turn); the
    games that started. Those of more than two seats fill after the wait."""
    games = 0
    for n in range(ROUNDS):
        codec = ("json", "msgpack")[n % 2]
        # gone right after asking: its hello, quick play and close in one go, or after
        # the welcome
        closer = await Raw(codec).open(url)
        if n % 2:
            await closer.send({"type": "hello", "version": 1, "name": f"c{tag}{n}"})
        else:
            await closer.hello(f"c{tag}{n}")
        await quick(closer, game, level)
        await closer.close()
        # reloads right after asking: the same session on a new connection
        first = await Raw(codec).open(url)
        welcome = await first.hello(f"r{tag}{n}")
        asked = await quick(first, game, level)
        await first.close()
        again = await Raw(codec).open(url)
        resumed = await again.hello("", welcome["token"])
        waiter = await Raw(codec).open(url)
        await waiter.hello(f"w{tag}{n}")
        waited = await quick(waiter, game, level)
        if not resumed["tables"]:  # its seat was given up: it may quick play again
            asked = await quick(again, game, level)
        kept = resumed["tables"][0] if resumed["tables"] else None
        await asyncio.gather(
            # the resumed one may have missed the start (it was away), not the waiter
            started(again, asked, game, level, kept, watching=False),
            started(waiter, waited, game, level),
        )
        games += 2
        await again.close()
        await waiter.close()
    return games


async def test_many_quick_plays_start_within_the_wait(served: Served) -> None:
    # a lane for each game and AI level: quick play never seats one lane with another
    pools = [(game, level) for game in GAMES for level in (None, "random")]
    lanes = [
        lane(served.url, game, level, f"{game[:2]}{i}") for i, (game, level) in enumerate(pools)
    ]
    assert sum(await asyncio.gather(*lanes)) == len(pools) * ROUNDS * 2
    # the tables of the clients that left before their game are gone, none waits on
    await asyncio.sleep(0.3)
    assert served.waiting_tables() == 0
