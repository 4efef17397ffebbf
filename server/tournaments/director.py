"""The tournament director: starts tournaments, pairs rounds, seats tables, finishes.

Each process runs a :class:`Director`; every :data:`PERIOD` seconds it looks at the
tournaments due and directs each one whose lease it holds (:class:`RedisLease`:
one process per tournament; it expires :data:`LEASE_TTL` seconds after its holder
stops renewing, and another process takes it over).  Everything it decides is in
the database first (:mod:`server.tournaments.store`): a round is stored with its
tables before any table exists, and each table's id is derived from the
tournament, round and table number, so the director that takes over after a
crash creates the same tables again (or finds them) and pairs no round twice.
"""

from __future__ import annotations

import contextlib
import random
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from redis import asyncio as aioredis

from server.ops.logs import get_logger
from server.persist.store import StoreUnavailable
from server.tournaments.pairing import (
    Entrant,
    Met,
    PairedTable,
    Waiting,
    arena_pairing,
    round_seed,
    standings,
    swiss_round,
)
from server.tournaments.store import Kind, RoundTable, Status, Tournament, TournamentStore

PERIOD = 1.0
"""Seconds between two passes of the director."""
LEASE_TTL = 6.0
"""Seconds a tournament's lease outlives its holder's last renewal."""
ARENA_MIN_WAIT = 2.0
"""Seconds an arena player waits after a game before being paired, so that others who
finish at about the same time join the pool (lichess pairs every few seconds)."""
ARENA_AI_WAIT = 30.0
"""Seconds after which an arena player still alone is seated with the AI."""


class Lease(Protocol):
    """One director per tournament across processes."""

    async def hold(self, key: str) -> bool:
        """Take or renew the lease on ``key``; whether this process holds it now."""

    async def release(self, key: str) -> None:
        """Give the lease up (a graceful stop)."""


class LocalLease:
    """The lease of a single process (memory store): it always holds it."""

    async def hold(self, key: str) -> bool:
        """This process is the only one."""
        return True

    async def release(self, key: str) -> None:
        """Nothing to give up."""


RENEW = """
local held = redis.call('GET', KEYS[1])
if held == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
if not held then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
return 0
"""
"""Take the lease if nobody holds it, renew it if this node does (one atomic step)."""

RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""


class RedisLease:
    """Tournament leases in the shared Redis (see the module docstring)."""

    def __init__(
        self, redis: aioredis.Redis, prefix: str, node: str, ttl: float = LEASE_TTL
    ) -> None:
        self.redis = redis
        self.prefix = prefix
        self.node = node
        self.ttl_ms = int(ttl * 1000)
        self._renew = redis.register_script(RENEW)
        self._release = redis.register_script(RELEASE)

    def _key(self, key: str) -> str:
        return f"{self.prefix}:lease:{key}"

    async def hold(self, key: str) -> bool:
        """Take or renew ``key``'s lease."""
        try:
            return bool(await self._renew(keys=[self._key(key)], args=[self.node, self.ttl_ms]))
        except (aioredis.RedisError, OSError) as exc:
            raise StoreUnavailable(str(exc)) from exc

    async def release(self, key: str) -> None:
        """Give ``key``'s lease up if this node holds it."""
        with contextlib.suppress(aioredis.RedisError, OSError):
            await self._release(keys=[self._key(key)], args=[self.node])


class Seating(Protocol):
    """Makes a round's table live and seats its people (:mod:`server.tournaments.seating`)."""

    async def ensure(
        self, tournament: Tournament, table: RoundTable, seed: int | None
    ) -> list[list[Any]] | None:
        """Create ``table`` if it does not exist (by its id); or, if it existed and played
        its game already, that game's results (per seat ``[won, score, present]``)."""


@dataclass(frozen=True)
class Paired:
    """What one pass of the director did to a tournament (for logs and tests)."""

    tournament_id: str
    round: int
    tables: int


def seat_order(secret: bytes, round_no: int, table: PairedTable) -> tuple[str | None, ...]:
    """The seats of ``table``: its people and AI seats (None) in an order drawn from the
    tournament's secret (no one always deals first; the same again after a takeover)."""
    seats: list[str | None] = [*table.players, *([None] * table.ai_seats)]
    random.Random(round_seed(secret, round_no * 10_000 + table.number)).shuffle(seats)
    return tuple(seats)


def byes_of(tables: Iterable[RoundTable]) -> dict[str, int]:
    """How many tables with AI seats each person sat at."""
    out: dict[str, int] = {}
    for t in tables:
        if None in t.seats:
            for p in t.players:
                out[p] = out.get(p, 0) + 1
    return out


class Director:
    """Directs the tournaments whose lease this process holds (module docstring)."""

    def __init__(
        self,
        store: TournamentStore,
        seating: Seating,
        lease: Lease,
        *,
        clock: Callable[[], float] = time.time,
        period: float = PERIOD,
        arena_min_wait: float = ARENA_MIN_WAIT,
        arena_ai_wait: float = ARENA_AI_WAIT,
    ) -> None:
        self.store = store
        self.seating = seating
        self.lease = lease
        self.clock = clock
        self.period = period
        self.arena_min_wait = arena_min_wait
        self.arena_ai_wait = arena_ai_wait
        self._ensured: set[str] = set()
        """Tables this process made live or found: a director that took over has none."""
        self._free_since: dict[tuple[str, str], float] = {}
        self._held: set[str] = set()
        self._log = get_logger(component="tournaments")

    async def stop(self) -> None:
        """Give the leases up (the passes are run by the tournament service)."""
        for key in self._held:
            await self.lease.release(key)

    async def run_pass(self) -> list[Paired]:
        """Direct every due tournament this process holds the lease of, once."""
        now = self.clock()
        done: list[Paired] = []
        for t in await self.store.listing([Status.SCHEDULED, Status.RUNNING]):
            if t.status is Status.SCHEDULED and now < t.starts_at:
                continue
            key = f"tournament:{t.tournament_id}"
            if not await self.lease.hold(key):
                self._held.discard(key)
                continue
            self._held.add(key)
            paired = await self.step(t, now)
            if paired is not None:
                done.append(paired)
        return done

    async def step(self, t: Tournament, now: float) -> Paired | None:
        """One pass over ``t``: start it, seat its tables, pair its next round or finish."""
        if t.status is Status.SCHEDULED:
            if await self.store.start(t.tournament_id):
                self._log.info("tournament_started", tournament=t.tournament_id, players=t.players)
            t = await self.store.get(t.tournament_id)
        if t.status is not Status.RUNNING:
            return None
        if t.kind is Kind.ARENA:
            return await self._arena(t, now)
        return await self._swiss(t, now)

    def _forget(self, tournament_id: str) -> None:
        """Drop what this process kept of a finished tournament."""
        prefix = tournament_id + "-"
        self._ensured = {x for x in self._ensured if not x.startswith(prefix)}
        self._free_since = {k: v for k, v in self._free_since.items() if k[0] != tournament_id}

    async def _ensure(self, t: Tournament, tables: Sequence[RoundTable], secret: bytes) -> None:
        for table in tables:
            if table.results is not None or table.table_id in self._ensured:
                continue
            seed = round_seed(secret, table.round) if t.kind is Kind.DUPLICATE_SWISS else None
            played = await self.seating.ensure(t, table, seed)
            if played is not None:  # its record was lost with its process: not dealt again
                await self.store.set_results(table.table_id, played)
                self._log.warning("tournament_results_from_store", table=table.table_id)
            self._ensured.add(table.table_id)

    async def _swiss(self, t: Tournament, now: float) -> Paired | None:
        tid = t.tournament_id
        secret = await self.store.secret(tid)
        if t.round > 0:
            await self.store.collect_results(tid, t.round)
            pending = [x for x in await self.store.tables(tid, t.round) if x.results is None]
            if pending:
                await self._ensure(t, pending, secret)
                return None
        entries = await self.store.entries(tid)
        active = [e for e in entries if not e.withdrawn]
        if t.round >= (t.rounds or 0) or not active:
            if await self.store.finish(tid, now):
                self._log.info("tournament_finished", tournament=tid, rounds=t.round)
            self._forget(tid)
            return None
        history = await self.store.tables(tid)
        games = [g for g in (x.game_result() for x in history) if g is not None]
        table = standings(
            [e.account_id for e in entries],
            games,
            [e.account_id for e in entries if e.withdrawn],
            duplicate_game=t.duplicate_game,
        )
        points = {s.player_id: s.score for s in table}  # matchpoints in a Duplicate Swiss
        byes = byes_of(history)
        entrants = [
            Entrant(
                e.account_id, points.get(e.account_id, 0.0), byes.get(e.account_id, 0), e.entry_no
            )
            for e in active
        ]
        self._ensured -= {x.table_id for x in history}  # every one has finished
        paired = swiss_round(entrants, t.seats, Met.of(x.players for x in history))
        round_no = t.round + 1
        orders = [seat_order(secret, round_no, p) for p in paired]
        if not await self.store.pair_round(tid, t.round, paired, orders, now):
            return None  # another director paired it: it seats them
        self._log.info("round_paired", tournament=tid, round=round_no, tables=len(paired))
        await self._ensure(t, await self.store.tables(tid, round_no), secret)
        return Paired(tid, round_no, len(paired))

    async def _arena(self, t: Tournament, now: float) -> Paired | None:
        tid = t.tournament_id
        secret = await self.store.secret(tid)
        await self.store.collect_results(tid)
        history = await self.store.tables(tid)
        pending = [x for x in history if x.results is None]
        self._ensured -= {x.table_id for x in history if x.results is not None}
        await self._ensure(t, pending, secret)
        ends = t.ends_at or now
        if now >= ends:
            if not pending and await self.store.finish(tid, now):
                self._log.info("tournament_finished", tournament=tid, tables=len(history))
                self._forget(tid)
            return None
        entries = await self.store.entries(tid)
        games = [g for g in (x.game_result() for x in history) if g is not None]
        points = {s.player_id: s.points for s in standings([e.account_id for e in entries], games)}
        playing = {p for x in pending for p in x.players}
        last: dict[str, frozenset[str]] = {}
        for x in history:
            for p in x.players:
                last[p] = frozenset(o for o in x.players if o != p)
        waiting = []
        for e in entries:
            key = (tid, e.account_id)
            if e.withdrawn or e.account_id in playing:
                self._free_since.pop(key, None)
                continue
            since = self._free_since.setdefault(key, now)
            waiting.append(
                Waiting(
                    e.account_id,
                    points.get(e.account_id, 0.0),
                    since,
                    last.get(e.account_id, frozenset()),
                )
            )
        result = arena_pairing(
            waiting, now, t.seats, min_wait=self.arena_min_wait, ai_wait=self.arena_ai_wait
        )
        if not result.tables:
            return None
        round_no = t.round + 1
        orders = [seat_order(secret, round_no, p) for p in result.tables]
        if not await self.store.pair_round(tid, t.round, result.tables, orders, now):
            return None
        for made in result.tables:
            for seated in made.players:
                self._free_since.pop((tid, seated), None)
        await self._ensure(t, await self.store.tables(tid, round_no), secret)
        return Paired(tid, round_no, len(result.tables))
