"""Ratings at scale (issue 55): a rated game's write with its rating update, and
leaderboard pages, over 100,000 rated accounts.

    python -m bench.rating_store [--accounts 100000] [--database-url URL] [--postgres]

A fresh database (a temporary SQLite file; with ``--postgres`` also a
throw-away PostgreSQL, :mod:`bench.postgres`; or the one ``--database-url``
names) is migrated, then ``--accounts`` accounts with a Scopa and a Schafkopf
rating each are bulk-inserted (one in 50 a bot; most established and active,
some provisional or idle, as a live server's are).  Then:

* ``update_p99_ms``: the rating update of a finished rated Schafkopf game of
  four of those accounts (:meth:`server.ratings.store.RatingStore.update`:
  reading and locking the players' and the role's rows, rating, writing them
  and the graph's points), timed inside the write that runs it;
  ``rated_write_p99_ms`` that whole write
  (:meth:`server.persist.db.records.GameRecords.write`: the record, its seats,
  the profile counts and the rating update in one transaction, as the server's
  background writer runs it after a game ends: never on the move path),
  ``--updates`` new games one after the other; ``unrated_write_p99_ms``, the
  yardstick, is the same game's write unrated, alternating with them;
* ``leaderboard_p99_ms``: :meth:`server.ratings.store.RatingStore.leaderboard`
  on random pages of the people's and the bots' Scopa boards, ``--requests``
  of them.

Progress goes to stderr; the last line of stdout is one JSON object, by
database.  :func:`measure` is what :mod:`bench.ratings` calls.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import insert

from bench.accounts import p
from bench.postgres import on_each_database
from engine.codec import to_plain
from engine.registry import GAMES
from protocol.models import TableOptions
from server.persist.db.engine import Database, sqlite_url
from server.persist.db.game_record import GameRecord
from server.persist.db.models import AccountRow, RatingRow
from server.persist.db.records import GameRecords
from server.players.names import skeleton
from server.ratings.model import Rating
from server.tables.core import TableCore
from server.tables.options import check_options
from server.tables.record import game_record

CHUNK = 5_000
"""Accounts per bulk insert."""
BOT_SHARE = 50
"""One account in this many is a bot."""
GAMES_RATED = ("scopa", "schafkopf")
"""The games every filled account has a rating at."""


def rated_schafkopf(seed: int = 3) -> GameRecord:
    """A real rated Schafkopf game (the standard four deals), played by random legal moves,
    with at least one deal played out (a contest to rate)."""
    setup = check_options(GAMES["schafkopf"], TableOptions(rated=True))
    rng = random.Random(seed)
    while True:
        core = TableCore(
            "bench",
            setup,
            seed_source=lambda: rng.randrange(2**63),
            owner=None,
            quick=False,
            invite=None,
            ai_delay=0.0,
            disconnect_grace=5.0,
        )
        for seat in range(4):
            core.join(f"p{seat}", f"P{seat}", seat, 0.0, account=f"a_x{seat}")
        game = core.game
        while core.status == "playing":
            seat = game.to_act(core.state)[0]
            action = rng.choice(game.legal_actions(core.state, seat))
            core.act(f"p{seat}", seat, core.version, to_plain(action), "human", 0.0)
        record = game_record(core)
        if record.contests:
            return record


def _rating_row(account: str, game: str, rng: random.Random, now_us: int) -> dict[str, Any]:
    games = rng.choice((3, 8, 20, 40, 80, 200))
    rating = Rating(mu=rng.gauss(25.0, 4.0), sigma=max(1.5, 8.33 - games * 0.05), games=games)
    idle = rng.random() < 0.1  # a tenth have not played for longer than the boards show
    last = now_us - rng.randrange(1, (200 if idle else 80) * 86_400) * 1_000_000
    return {
        "account_id": account,
        "game": game,
        "mu": rating.mu,
        "sigma": rating.sigma,
        "games": rating.games,
        "points": rating.points,
        "deviation": rating.deviation,
        "provisional": rating.provisional,
        "bot": False,
        "last_us": last,
        "change": rng.randrange(-20, 21),
    }


async def fill(db: Database, accounts: int, seed: int) -> list[str]:
    """Bulk-insert ``accounts`` accounts with their ratings; their ids."""
    rng = random.Random(seed)
    now = datetime.now(UTC)
    now_us = int(now.timestamp() * 1_000_000)
    ids = [f"a_r{i:08d}" for i in range(accounts)]
    for start in range(0, accounts, CHUNK):
        chunk = ids[start : start + CHUNK]
        rows = []
        ratings = []
        for i, account in enumerate(chunk, start):
            bot = i % BOT_SHARE == 0
            name = f"Rated {i}"
            rows.append(
                {
                    "account_id": account,
                    "name": name,
                    "skeleton": skeleton(name),
                    "password_hash": None,
                    "bot": bot,
                    "owner_id": None,
                    "created_at": now,
                }
            )
            for game in GAMES_RATED:
                ratings.append({**_rating_row(account, game, rng, now_us), "bot": bot})
        async with db.begin() as conn:
            await conn.execute(insert(AccountRow), rows)
            await conn.execute(insert(RatingRow), ratings)
        print(f"rating_store: {start + len(chunk)} accounts rated", file=sys.stderr)
    if db.backend == "postgresql":  # statistics and visibility, as autovacuum keeps them
        async with db.engine.connect() as conn:
            await conn.execution_options(isolation_level="AUTOCOMMIT")
            await conn.exec_driver_sql("VACUUM ANALYZE")
    return ids


async def updates(
    records: GameRecords, ids: Sequence[str], count: int, rng: random.Random, label: str
) -> tuple[list[float], list[float], list[float]]:
    """Store ``count`` rated Schafkopf games of four random filled accounts (tables
    ``LABEL…``), each followed by the same game unrated (the yardstick: a record's
    write without its rating update, under the same load); the seconds of each
    write, rated and unrated, and of each rating update within its write."""
    template = rated_schafkopf()
    people = [a for i, a in enumerate(ids) if i % BOT_SHARE]
    rated: list[float] = []
    plain: list[float] = []
    own: list[float] = []
    store = records.ratings
    update = store.update

    async def timed_update(*args: Any, **kwargs: Any) -> Any:
        began = time.perf_counter()
        try:
            return await update(*args, **kwargs)
        finally:
            own.append(time.perf_counter() - began)

    store.update = timed_update  # type: ignore[method-assign]
    for n in range(count):
        for samples, is_rated in ((rated, True), (plain, False)):
            four = rng.sample(people, 4)
            seats = tuple(
                replace(s, account_id=four[s.seat], name=f"R{four[s.seat]}") for s in template.seats
            )
            record = replace(
                template,
                table_id=f"{label}{int(is_rated)}{n:06d}",
                seats=seats,
                finished_at=time.time(),
                rated=is_rated,
            )
            began = time.perf_counter()
            assert await records.write(record)
            samples.append(time.perf_counter() - began)
    store.update = update  # type: ignore[method-assign]
    return rated, plain, own


async def boards(records: GameRecords, count: int, rng: random.Random) -> dict[str, Any]:
    """``count`` random leaderboard pages, people's and bots' alternately."""
    store = records.ratings
    pages = {
        bots: max(1, (await store.leaderboard("scopa", 1, bots=bots)).pages)
        for bots in (False, True)
    }
    samples: list[float] = []
    listed = 0
    for n in range(count):
        bots = n % 2 == 1
        page = rng.randint(1, pages[bots])
        began = time.perf_counter()
        board = await store.leaderboard("scopa", page, bots=bots)
        samples.append(time.perf_counter() - began)
        listed += len(board.entries)
    return {
        "leaderboard_p50_ms": p(samples, 0.50),
        "leaderboard_p99_ms": p(samples, 0.99),
        "leaderboard_pages_people": pages[False],
        "leaderboard_pages_bots": pages[True],
        "leaderboard_entries_per_page": round(listed / max(1, count), 1),
    }


async def measure(
    database_url: str,
    *,
    accounts: int = 100_000,
    updates_n: int = 300,
    requests: int = 500,
    seed: int = 1,
) -> dict[str, float]:
    """Fill the (empty) database at ``database_url`` with ``accounts`` rated accounts, then
    time ``updates_n`` rated games' writes and ``requests`` leaderboard pages."""
    db = Database(database_url)
    try:
        await db.open()
        began = time.perf_counter()
        ids = await fill(db, accounts, seed)
        filled = time.perf_counter() - began
        records = GameRecords(db)
        rng = random.Random(seed + 1)
        await updates(records, ids, 20, rng, "warm")  # warm the connections and the caches
        written, plain, own = await updates(records, ids, updates_n, rng, "timed")
        out: dict[str, float] = {
            "update_p50_ms": p(own, 0.50),
            "update_p99_ms": p(own, 0.99),
            "rated_write_p50_ms": p(written, 0.50),
            "rated_write_p99_ms": p(written, 0.99),
            "unrated_write_p50_ms": p(plain, 0.50),
            "unrated_write_p99_ms": p(plain, 0.99),
        }
        out.update(await boards(records, requests, rng))
        out.update({"accounts": accounts, "fill_s": round(filled, 1)})
        return out
    finally:
        await db.close()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.rating_store", description=__doc__)
    parser.add_argument("--accounts", type=int, default=100_000)
    parser.add_argument("--updates", type=int, default=300)
    parser.add_argument("--requests", type=int, default=500)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--database-url", help="an empty database to fill (else a temporary one)")
    parser.add_argument(
        "--postgres", action="store_true", help="a throw-away PostgreSQL too, beside SQLite"
    )
    args = parser.parse_args(argv)

    def run(url: str) -> dict[str, Any]:
        return asyncio.run(
            measure(
                url,
                accounts=args.accounts,
                updates_n=args.updates,
                requests=args.requests,
                seed=args.seed,
            )
        )

    if args.database_url:
        out: dict[str, Any] = {"given": run(args.database_url)}
    elif args.postgres:
        out = on_each_database(run, "rating_store")
    else:
        with tempfile.TemporaryDirectory(prefix="cardavia-bench-ratings-") as folder:
            out = {"sqlite": run(sqlite_url(Path(folder) / "cardavia.db"))}
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
