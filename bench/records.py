"""Game records at scale: history and profile reads over 100,000 stored games, and the
write of a finished game.

    python -m bench.records [--games 100000] [--requests 500] [--writes 300]

For each database (SQLite, the default, and a throw-away PostgreSQL,
:mod:`bench.postgres`) a ``cardavia-server`` runs as a subprocess on it (its
migrations make the schema); one account registers through it, then
``--games`` stored games are bulk-inserted (each a real Scopa game's log, two
seats: the bench account in one game out of ``--share``, the others among
``--accounts`` accounts and the AI; profile counts to match).  Then, through
the server and a real socket:

* ``history_p99_ms``: the ``history`` round trip, a first page and the pages
  after it by cursor, with and without a ``game`` filter (20 games a page);
* ``profile_p99_ms``: the ``profile`` round trip (own and by name);
* ``ping_p99_ms``, the yardstick: a ``ping`` round trip to the same server,
  alternating with the reads, so that what the machine's load adds shows in
  it as well (a history's own cost is roughly its p99 less the ping's);
* ``record_write_ms_p99``: one finished game stored
  (:meth:`server.persist.db.records.GameRecords.write`, what the server's
  background writer runs after a game ends: never on the move path), for
  ``--writes`` new games, while the server runs on the same database.

Progress goes to stderr; the last line of stdout is one JSON object,
``{"sqlite": {...}, "postgres": {...}}``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import insert, select

from bench.accounts import p
from bench.postgres import on_each_database
from bench.procstat import ServerProcess, cardavia_argv
from client_cli.client import Client
from engine.codec import to_plain
from engine.registry import GAMES
from protocol.models import TableOptions
from server.persist.db.engine import Database
from server.persist.db.game_record import GameRecord
from server.persist.db.models import AccountRow, GameRecordRow, GameSeatRow, ProfileCountRow
from server.persist.db.records import GameRecords
from server.players.names import skeleton
from server.tables.core import TableCore
from server.tables.options import check_options
from server.tables.record import game_record

PASSWORD = "bench password 1"
NAME = "Bench Player"
CHUNK = 5_000
"""Games per bulk insert."""


def played_game(seed: int = 7) -> GameRecord:
    """A real Scopa game to 1 point, played by the first legal move (its log is stored)."""
    setup = check_options(GAMES["scopa"], TableOptions(game={"target": 1}))
    core = TableCore(
        "bench",
        setup,
        seed_source=lambda: seed,
        owner=None,
        quick=False,
        invite=None,
        ai_delay=0.0,
        disconnect_grace=5.0,
    )
    core.join("p0", "A", 0, 0.0)
    core.join("p1", "B", 1, 0.0)
    while core.status == "playing":
        seat = next(i for i in range(2) if core.game.legal_actions(core.state, i))
        action = core.game.legal_actions(core.state, seat)[0]
        core.act(f"p{seat}", seat, core.version, to_plain(action), "human", 0.0)
    return game_record(core)


async def fill(url: str, games: int, accounts: int, share: int, seed: int) -> None:
    """Bulk-insert ``games`` stored games and the accounts and counts they name."""
    rng = random.Random(seed)
    template = played_game()
    log = [[a.seat, a.action, a.by] for a in template.log]
    db = Database(url)
    now = datetime.now(UTC)
    try:
        async with db.session() as session:
            bench_id = await session.scalar(
                select(AccountRow.account_id).where(AccountRow.skeleton == skeleton(NAME))
            )
            assert bench_id is not None, "the bench account registers first"
            others = [f"a_bench{i:06d}" for i in range(accounts)]
            await session.execute(
                insert(AccountRow),
                [
                    {
                        "account_id": a,
                        "name": f"Filler {i}",
                        "skeleton": skeleton(f"Filler {i}"),
                        "password_hash": None,
                        "bot": False,
                        "owner_id": None,
                        "created_at": now,
                    }
                    for i, a in enumerate(others)
                ],
            )
        counts: dict[tuple[str, str], list[int]] = {}
        base = int(time.time() * 1_000_000) - games * 60_000_000
        for start in range(0, games, CHUNK):
            records: list[dict[str, Any]] = []
            seats: list[dict[str, Any]] = []
            for n in range(start, min(games, start + CHUNK)):
                gid = f"b{n:07d}.1"
                game = "scopa" if n % 4 else "cicera"
                when = base + n * 60_000_000 + rng.randrange(1000)
                first = bench_id if n % share == 0 else rng.choice(others)
                second = rng.choice(others) if rng.random() < 0.7 else None
                won = rng.randrange(2)
                records.append(
                    {
                        "game_id": gid,
                        "table_id": f"b{n:07d}",
                        "game_no": 1,
                        "game": game,
                        "private": n % 10 == 0,
                        "options": template.options,
                        "seed": rng.randrange(2**63),
                        "log": log,
                        "result": template.result,
                        "finished_us": when,
                    }
                )
                for seat, account in enumerate((first, second)):
                    seats.append(
                        {
                            "game_id": gid,
                            "seat": seat,
                            "account_id": account,
                            "name": "someone" if account else None,
                            "kind": "human" if account else "ai",
                            "level": None if account else "normal",
                            "left": False,
                            "score": int(seat == won),
                            "won": seat == won,
                            "game": game,
                            "finished_us": when,
                        }
                    )
                    if account is not None:
                        tally = counts.setdefault((account, game), [0, 0])
                        tally[0] += 1
                        tally[1] += int(seat == won)
            async with db.session() as session:
                await session.execute(insert(GameRecordRow), records)
                await session.execute(insert(GameSeatRow), seats)
            print(f"records: {start + len(records)} games stored", file=sys.stderr)
        async with db.session() as session:
            rows = [
                {"account_id": a, "game": g, "played": t[0], "won": t[1]}
                for (a, g), t in counts.items()
            ]
            for start in range(0, len(rows), CHUNK):
                await session.execute(insert(ProfileCountRow), rows[start : start + CHUNK])
        if db.backend == "postgresql":  # fresh statistics, as autovacuum would gather
            async with db.engine.connect() as conn:
                await conn.execution_options(isolation_level="AUTOCOMMIT")
                await conn.exec_driver_sql("ANALYZE")
    finally:
        await db.close()


async def timed(samples: list[float], request: Any) -> Any:
    began = time.perf_counter()
    answer = await request
    samples.append(time.perf_counter() - began)
    return answer


async def reads(url: str, requests: int) -> dict[str, Any]:
    """The history and profile round trips through the server."""
    client = await Client.connect(url, "bench guest")
    await client.login(NAME, PASSWORD)
    history: list[float] = []
    profile: list[float] = []
    ping: list[float] = []  # the yardstick: a round trip that reads nothing
    try:
        for _ in range(20):  # warm the connection and the caches
            await client.history()
            await client.profile()
        cursor: str | None = None
        for n in range(requests):
            game = "cicera" if n % 3 == 0 else None
            page = await timed(history, client.history(game=game, cursor=None if game else cursor))
            cursor = page.cursor if game is None else cursor
            await timed(profile, client.profile(None if n % 2 else "Filler 7"))
            await timed(ping, client.ping())
        shown = len(page.games)
    finally:
        await client.close()
    return {
        "history_p50_ms": p(history, 0.50),
        "history_p99_ms": p(history, 0.99),
        "profile_p50_ms": p(profile, 0.50),
        "profile_p99_ms": p(profile, 0.99),
        "ping_p50_ms": p(ping, 0.50),
        "ping_p99_ms": p(ping, 0.99),
        "requests": requests,
        "page_games": shown,
    }


async def writes(url: str, count: int) -> dict[str, Any]:
    """Store ``count`` new finished games, one at a time, as the server's writer does."""
    db = Database(url)
    records = GameRecords(db)
    template = played_game()
    async with db.session() as session:
        bench_id = await session.scalar(
            select(AccountRow.account_id).where(AccountRow.skeleton == skeleton(NAME))
        )
    seats = tuple(
        replace(s, account_id=bench_id if s.seat == 0 else "a_bench000001") for s in template.seats
    )
    samples: list[float] = []
    try:
        for n in range(count):
            record = replace(template, table_id=f"w{n:06d}", seats=seats, finished_at=time.time())
            began = time.perf_counter()
            assert await records.write(record)
            samples.append(time.perf_counter() - began)
    finally:
        await db.close()
    return {"record_write_ms_p50": p(samples, 0.50), "record_write_ms_p99": p(samples, 0.99)}


async def measure(url: str, database_url: str, args: argparse.Namespace) -> dict[str, Any]:
    async with await Client.connect(url, "bench register") as client:
        await client.register(NAME, PASSWORD)
    began = time.perf_counter()
    await fill(database_url, args.games, args.accounts, args.share, args.seed)
    filled = round(time.perf_counter() - began, 1)
    out = await reads(url, args.requests)
    out.update(await writes(database_url, args.writes))
    out.update({"games": args.games, "fill_s": filled})
    return out


def run_one(database_url: str, args: argparse.Namespace) -> dict[str, Any]:
    """Start a server on ``database_url`` and measure it."""
    server = ServerProcess(
        cardavia_argv(10, None, ["--database-url", database_url]), ready_path="/readyz", timeout=60
    )
    try:
        return asyncio.run(measure(f"ws://127.0.0.1:{server.port}", database_url, args))
    finally:
        server.stop()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.records", description=__doc__)
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--accounts", type=int, default=1_000)
    parser.add_argument(
        "--share", type=int, default=10, help="the bench account plays one game in this many"
    )
    parser.add_argument("--requests", type=int, default=500)
    parser.add_argument("--writes", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--only", choices=("sqlite", "postgres"), help="measure one database only")
    args = parser.parse_args(argv)
    out = on_each_database(lambda url: run_one(url, args), "records", args.only)
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
