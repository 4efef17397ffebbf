"""Rated matchmaking across two processes: is everyone seated in time, with whom?

    python -m bench.matchmaking [--players 1000] [--spread 3] [--wait 10] [--seed 1]

One Redis and two ``cardavia-server`` processes on 127.0.0.1 share one SQLite
database, where ``--players`` accounts are made with a rating each at one of the
four games (drawn from a normal spread around 1500, sd 250, within 700–2400: the
shape of an established ladder; provisional players and the AI levels' own
ratings included). Each player's session is put in Redis as a login would leave
it (a password login costs an Argon2id hash per player, which is not what this
measures), and the player resumes it on one of the two processes, half on each.
Then, within ``--spread`` seconds, every player sends a rated ``quick_play`` for
their game; the bench waits until each has been told ``joined``.

Reported (last line of stdout, one JSON object):

* ``players``, ``seated``, ``tables``, ``ai_tables`` (tables where the AI took
  seats), ``cross_process_tables`` (players connected to both processes);
* ``wait_s`` (the server's fill wait), ``max_wait_s``, ``p50_wait_s``,
  ``p90_wait_s``: from a player's ``quick_play`` to its ``joined``;
  ``within_wait_plus_1s``: whether every one was seated within the wait + 1 s;
* ``median_gap``, ``p90_gap``: the rating span of each table made, all its seats
  (the AI's rating for its seats) counted; ``median_people_gap``,
  ``p90_people_gap``: the people's alone (tables of two or more people).

Progress goes to stderr. Everything listens on 127.0.0.1 and ends with the run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import secrets
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from redis import asyncio as aioredis
from sqlalchemy import insert

from bench.procstat import ServerProcess, cardavia_argv
from bench.store import RedisProcess
from client_cli.client import Client
from engine.registry import GAMES
from protocol import client_messages as cm
from protocol import server_messages as sm
from protocol.codec import encode
from protocol.models import TableInfo
from server.persist.db.engine import Database, sqlite_url
from server.persist.db.models import AccountRow, RatingRow
from server.persist.session_store import SessionStore
from server.players.accounts import Account
from server.players.names import skeleton
from server.players.sessions import Player
from server.ratings.levels import RATED_LEVELS, ai_account
from server.ratings.model import MU0, SCALE, Rating

PREFIX = "cardavia"
"""The Redis prefix both servers use (their default)."""

GAME_SHARE = {"scopa": 0.4, "cicera": 0.2, "doudizhu": 0.2, "schafkopf": 0.2}
"""Which game the players queue for."""

AI_POINTS = {"easy": 1250, "normal": 1500, "hard": 1750}
"""The AI levels' ratings at every game (what rated play against them gave them)."""

DEADLINE_AFTER = 15.0
"""Seconds past the spread and the wait after which a player not seated is given up."""


def quantile(values: Sequence[float], q: float) -> float:
    """The ``q`` quantile of ``values`` (0 when empty)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return float(ordered[min(len(ordered) - 1, int(q * len(ordered)))])


@dataclass
class Seeded:
    """One bench player: their account, game, rating and session token."""

    index: int
    account_id: str
    name: str
    game: str
    points: int
    token: str
    player_id: str
    sent: float = 0.0
    joined: float | None = None
    table: TableInfo | None = field(default=None, repr=False)


def rating_of(points: int, games: int) -> Rating:
    """A model rating that shows ``points`` (sigma: settled after ``games``)."""
    sigma = 8.333 if games == 0 else max(2.0, 8.333 / (1 + games / 10))
    return Rating(mu=MU0 + (points - 1500) / SCALE, sigma=sigma, games=games)


def draw_players(n: int, rng: random.Random) -> list[Seeded]:
    games = list(GAME_SHARE)
    weights = [GAME_SHARE[g] for g in games]
    out = []
    for i in range(n):
        points = int(min(2400, max(700, rng.gauss(1500, 250))))
        out.append(
            Seeded(
                index=i,
                account_id=f"a_bench{i:05d}",
                name=f"Bench{i:05d}",
                game=rng.choices(games, weights)[0],
                points=points,
                token=secrets.token_urlsafe(24),
                player_id=f"p_bench{i:05d}",
            )
        )
    return out


async def seed_database(url: str, players: list[Seeded], rng: random.Random) -> None:
    """Accounts and ratings (and the AI levels' ratings) in a fresh, migrated database."""
    db = Database(url)
    await db.open()
    now = time.time()
    rows = []
    ratings = []
    for p in players:
        rows.append(
            {
                "account_id": p.account_id,
                "name": p.name,
                "skeleton": skeleton(p.name),
                "password_hash": None,
                "bot": False,
                "owner_id": None,
                "created_at": datetime.now(UTC),
            }
        )
        games = rng.choice([0, 5, 20, 40, 80, 200])
        ratings.append(_rating_row(p.account_id, p.game, rating_of(p.points, games), False, now))
    for game in GAMES:
        for level in RATED_LEVELS:
            r = rating_of(AI_POINTS[level], 500)
            ratings.append(_rating_row(ai_account(level), game, r, True, now))
    async with db.begin() as conn:
        await conn.execute(insert(AccountRow), rows)
        await conn.execute(insert(RatingRow), ratings)
    await db.close()


def _rating_row(key: str, game: str, r: Rating, bot: bool, now: float) -> dict[str, Any]:
    return {
        "account_id": key,
        "game": game,
        "mu": r.mu,
        "sigma": r.sigma,
        "games": r.games,
        "points": r.points,
        "deviation": r.deviation,
        "provisional": r.provisional,
        "bot": bot,
        "last_us": int(now * 1e6),
        "change": 0,
    }


async def seed_sessions(redis_url: str, players: list[Seeded]) -> None:
    """Each player's session in Redis, logged in to its account, as a login leaves it."""
    redis = aioredis.Redis.from_url(redis_url)
    store = SessionStore(redis, PREFIX, 3600)
    for p in players:
        account = Account(p.account_id, p.name, False)
        await store.save(Player(player_id=p.player_id, name=p.name, token=p.token, account=account))
    await redis.aclose()


async def resume(url: str, p: Seeded) -> Client:
    client = await Client.connect(url, p.name, token=p.token)
    client.request_timeout = 30.0
    return client


async def queue_and_wait(client: Client, p: Seeded, at: float, deadline: float) -> None:
    """Send ``p``'s rated quick play at ``at`` (event-loop time); note its ``joined``."""
    loop = asyncio.get_running_loop()
    await asyncio.sleep(max(0.0, at - loop.time()))
    p.sent = time.monotonic()
    await client.send_raw(encode(cm.QuickPlay(id=1, game=p.game, rated=True)))
    try:
        joined = await client.wait_for(
            lambda m: isinstance(m, sm.Joined | sm.Error),
            max(0.1, deadline - loop.time()),
        )
    except TimeoutError:
        return
    if isinstance(joined, sm.Joined):
        p.joined = time.monotonic()
        p.table = joined.table
    else:
        print(f"{p.name}: {joined.code} {joined.message}", file=sys.stderr)


def table_figures(players: list[Seeded], wait: float) -> dict[str, Any]:
    """The report's figures from who was seated where."""
    by_table: dict[str, list[Seeded]] = {}
    for p in players:
        if p.table is not None:
            by_table.setdefault(p.table.id, []).append(p)
    gaps: list[float] = []
    people_gaps: list[float] = []
    ai_tables = 0
    for members in by_table.values():
        info = members[0].table
        assert info is not None
        ai = [s.level for s in info.seats if s.kind == "ai"]
        ai_points = [AI_POINTS.get(level or "", 1500) for level in ai]
        ai_tables += bool(ai)
        people = [m.points for m in members]
        seats = people + ai_points
        gaps.append(max(seats) - min(seats))
        if len(people) > 1:
            people_gaps.append(max(people) - min(people))
    waits = [p.joined - p.sent for p in players if p.joined is not None]
    return {
        "players": len(players),
        "seated": len(waits),
        "tables": len(by_table),
        "ai_tables": ai_tables,
        "wait_s": wait,
        "max_wait_s": round(max(waits, default=0.0), 3),
        "p50_wait_s": round(quantile(waits, 0.5), 3),
        "p90_wait_s": round(quantile(waits, 0.9), 3),
        "within_wait_plus_1s": len(waits) == len(players) and max(waits) <= wait + 1.0,
        "median_gap": statistics.median(gaps) if gaps else 0,
        "p90_gap": quantile(gaps, 0.9),
        "median_people_gap": statistics.median(people_gaps) if people_gaps else 0,
        "p90_people_gap": quantile(people_gaps, 0.9),
    }


async def run(n: int, spread: float, wait: float, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    players = draw_players(n, rng)
    with tempfile.TemporaryDirectory(prefix="cardavia-mm-") as tmp:
        (Path(tmp) / "redis").mkdir()
        redis = RedisProcess(Path(tmp) / "redis")
        redis.start()
        servers: list[ServerProcess] = []
        clients: list[Client] = []
        try:
            db_url = sqlite_url(Path(tmp) / "cardavia.db")
            await seed_database(db_url, players, rng)
            await seed_sessions(redis.url, players)
            print(f"seeded {n} accounts and sessions", file=sys.stderr)
            extra = [
                "--store",
                "redis",
                "--redis-url",
                redis.url,
                "--database-url",
                db_url,
                "--quick-fill-wait",
                str(wait),
                "--ai-workers",
                "1",
            ]
            for _ in range(2):
                servers.append(ServerProcess(cardavia_argv(n, None, extra), ready_path="/readyz"))
            urls = [f"ws://127.0.0.1:{s.port}" for s in servers]
            for at in range(0, n, 100):  # resumed in batches: the hello is not what is measured
                part = players[at : at + 100]
                clients += await asyncio.gather(*(resume(urls[p.index % 2], p) for p in part))
            print(f"{n} sessions resumed on two processes", file=sys.stderr)
            loop = asyncio.get_running_loop()
            start = loop.time() + 0.5
            deadline = start + spread + wait + DEADLINE_AFTER
            await asyncio.gather(
                *(
                    queue_and_wait(c, p, start + rng.uniform(0, spread), deadline)
                    for c, p in zip(clients, players, strict=True)
                )
            )
            figures = table_figures(players, wait)
            cross = 0
            by_table: dict[str, set[int]] = {}
            for p in players:
                if p.table is not None:
                    by_table.setdefault(p.table.id, set()).add(p.index % 2)
            cross = sum(1 for sides in by_table.values() if len(sides) == 2)
            figures["cross_process_tables"] = cross
            figures["spread_s"] = spread
            return figures
        finally:
            await asyncio.gather(*(c.close() for c in clients), return_exceptions=True)
            for s in servers:
                s.stop()
            redis.stop()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument("--spread", type=float, default=3.0, help="seconds the queueing spans")
    parser.add_argument("--wait", type=float, default=10.0, help="the servers' fill wait")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    figures = asyncio.run(run(args.players, args.spread, args.wait, args.seed))
    print(json.dumps(figures))
    return 0 if figures["within_wait_plus_1s"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
