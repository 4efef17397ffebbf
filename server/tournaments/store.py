"""The tournaments' state in the database (issue 56, migration 0006).

Every change that the director makes is one transaction that checks the state it
read: a round is paired only from the round the database still holds
(:meth:`TournamentStore.pair_round`), so two directors (one that lost its lease
while paused, one that took over) cannot both pair it, and a director that died
after pairing finds the round's tables stored and creates them again by their
derived ids.  Results are read from the game records of the round's tables
(:meth:`TournamentStore.collect_results`), which the tables write themselves.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from engine.registry import GAMES
from protocol.errors import ErrorCode
from server.persist.db.engine import Database
from server.persist.db.locks import lock_row
from server.persist.db.models import (
    AccountRow,
    GameRecordRow,
    GameSeatRow,
    TournamentEntryRow,
    TournamentRow,
    TournamentTableRow,
)
from server.ratings.levels import RATED_LEVELS
from server.tables.options import RequestError, game_named
from server.tournaments.pairing import GameResult, PairedTable, SeatResult, table_id

MAX_ROUNDS = 50
"""The most rounds a Swiss may have."""
MAX_DURATION_S = 24 * 3600
"""The longest arena, in seconds."""


class Kind(StrEnum):
    """How a tournament pairs (``docs/tournaments.md``)."""

    SWISS = "swiss"
    ARENA = "arena"
    DUPLICATE_SWISS = "duplicate-swiss"


class Status(StrEnum):
    """Where a tournament is: before its start, under way, over."""

    SCHEDULED = "scheduled"
    RUNNING = "running"
    FINISHED = "finished"


@dataclass(frozen=True)
class NewTournament:
    """What creating a tournament asks for (checked by :func:`check_new`)."""

    name: str
    game: str
    kind: Kind
    starts_at: float
    """Seconds since the epoch."""
    rounds: int | None = None
    duration_s: int | None = None
    turn_timer: float | None = None
    level: str = "normal"
    """The rated AI level that fills the seats the players leave over."""


@dataclass(frozen=True)
class CreationLimits:
    """How many tournaments one account may create (``docs/tournaments.md``, "Quotas"):
    the server settings of the same names; 0 is no cap."""

    max_tournaments_per_account: int = 0
    """Scheduled or running tournaments the account created."""
    tournaments_created_per_hour: int = 0
    """Tournaments the account created in the last hour (finished ones too)."""


NO_LIMITS = CreationLimits()
"""No cap on creating tournaments (the store's tests, tools)."""


@dataclass(frozen=True)
class Tournament:
    """A tournament as stored (never its secret: see :meth:`TournamentStore.secret`)."""

    tournament_id: str
    name: str
    game: str
    kind: Kind
    status: Status
    starts_at: float
    rounds: int | None
    duration_s: int | None
    turn_timer: float | None
    level: str
    round: int
    finished_at: float | None
    players: int

    @property
    def seats(self) -> int:
        """The seats of one of its tables (the game's default)."""
        game = GAMES[self.game]
        return int(game.num_seats(game.options()))

    @property
    def duplicate_game(self) -> str | None:
        """The game whose results a Duplicate Swiss compares across its round's tables
        (None: the other kinds rank by placement points)."""
        return self.game if self.kind is Kind.DUPLICATE_SWISS else None

    @property
    def ends_at(self) -> float | None:
        """When an arena stops pairing (None: a Swiss)."""
        return None if self.duration_s is None else self.starts_at + self.duration_s


@dataclass(frozen=True)
class Entry:
    """A registered player: in registration order, withdrawn or not."""

    account_id: str
    name: str
    entry_no: int
    withdrawn: bool


@dataclass(frozen=True)
class RoundTable:
    """A stored table of a round: who sits at which seat (None: the AI), its results."""

    tournament_id: str
    round: int
    number: int
    table_id: str
    seats: tuple[str | None, ...]
    created_at: float
    results: tuple[SeatResult, ...] | None

    @property
    def players(self) -> tuple[str, ...]:
        """The people at the table."""
        return tuple(p for p in self.seats if p is not None)

    def game_result(self) -> GameResult | None:
        """Its finished game, for the standings (None: still playing)."""
        return None if self.results is None else GameResult(self.round, self.number, self.results)


def check_new(spec: NewTournament, now: float) -> NewTournament:
    """``spec`` if it makes a tournament, else ``bad_options`` / ``unknown_game`` saying why."""
    game_named(spec.game)
    if not 1 <= len(spec.name.strip()) <= 64:
        raise RequestError(ErrorCode.BAD_OPTIONS, "a tournament's name has 1 to 64 characters")
    if spec.level not in RATED_LEVELS:
        raise RequestError(
            ErrorCode.BAD_OPTIONS, f"the AI level is one of {', '.join(RATED_LEVELS)}"
        )
    if spec.kind is Kind.ARENA:
        if spec.rounds is not None or spec.duration_s is None:
            raise RequestError(ErrorCode.BAD_OPTIONS, "an arena has a duration, not rounds")
        if not 10 <= spec.duration_s <= MAX_DURATION_S:
            raise RequestError(ErrorCode.BAD_OPTIONS, f"an arena lasts 10 to {MAX_DURATION_S} s")
    else:
        if spec.duration_s is not None or spec.rounds is None:
            raise RequestError(ErrorCode.BAD_OPTIONS, "a Swiss has rounds, not a duration")
        if not 1 <= spec.rounds <= MAX_ROUNDS:
            raise RequestError(ErrorCode.BAD_OPTIONS, f"a Swiss has 1 to {MAX_ROUNDS} rounds")
    if spec.turn_timer is not None and not 5 <= spec.turn_timer <= 600:
        raise RequestError(ErrorCode.BAD_OPTIONS, "the time per turn is 5 to 600 seconds")
    if spec.starts_at < now - 60:
        raise RequestError(ErrorCode.BAD_OPTIONS, "the start time has passed")
    return spec


def _us(t: float) -> int:
    return int(t * 1_000_000)


def _closed(detail: str) -> RequestError:
    return RequestError(ErrorCode.FORBIDDEN, detail)


def _not_found(tournament_id: str) -> RequestError:
    return RequestError(ErrorCode.NOT_FOUND, f"no tournament {tournament_id!r}")


class TournamentStore:
    """Tournaments, entries and round tables (see the module docstring)."""

    def __init__(self, db: Database) -> None:
        self.db = db

    # -- reading -------------------------------------------------------------
    async def get(self, tournament_id: str) -> Tournament:
        """The tournament, or ``not_found``."""
        found = await self._read([tournament_id])
        if not found:
            raise _not_found(tournament_id)
        return found[0]

    async def listing(self, statuses: Collection[Status] = tuple(Status)) -> tuple[Tournament, ...]:
        """The tournaments in ``statuses``, soonest start first."""
        async with self.db.session() as s:
            ids = (
                await s.scalars(
                    select(TournamentRow.tournament_id)
                    .where(TournamentRow.status.in_([st.value for st in statuses]))
                    .order_by(TournamentRow.starts_us, TournamentRow.tournament_id)
                )
            ).all()
        return await self._read(list(ids))

    async def _read(self, ids: list[str]) -> tuple[Tournament, ...]:
        if not ids:
            return ()
        async with self.db.session() as s:
            rows = (
                await s.scalars(select(TournamentRow).where(TournamentRow.tournament_id.in_(ids)))
            ).all()
            tally = await s.execute(
                select(TournamentEntryRow.tournament_id, func.count())
                .where(
                    TournamentEntryRow.tournament_id.in_(ids),
                    TournamentEntryRow.withdrawn.is_(False),
                )
                .group_by(TournamentEntryRow.tournament_id)
            )
            counts = {tid: int(n) for tid, n in tally.all()}
        by_id = {r.tournament_id: r for r in rows}
        return tuple(_tournament(by_id[i], counts.get(i, 0)) for i in ids if i in by_id)

    async def secret(self, tournament_id: str) -> bytes:
        """The tournament's secret (Duplicate Swiss seeds): the director's alone."""
        async with self.db.session() as s:
            value = await s.scalar(
                select(TournamentRow.secret).where(TournamentRow.tournament_id == tournament_id)
            )
        if value is None:
            raise _not_found(tournament_id)
        return bytes.fromhex(value)

    async def entries(self, tournament_id: str) -> tuple[Entry, ...]:
        """Every entry, in registration order (withdrawn ones too)."""
        async with self.db.session() as s:
            rows = (
                await s.scalars(
                    select(TournamentEntryRow)
                    .where(TournamentEntryRow.tournament_id == tournament_id)
                    .order_by(TournamentEntryRow.entry_no)
                )
            ).all()
        return tuple(Entry(r.account_id, r.name, r.entry_no, r.withdrawn) for r in rows)

    async def tables(
        self, tournament_id: str, round_no: int | None = None
    ) -> tuple[RoundTable, ...]:
        """The stored tables of ``round_no`` (None: of every round), in order."""
        query = select(TournamentTableRow).where(TournamentTableRow.tournament_id == tournament_id)
        if round_no is not None:
            query = query.where(TournamentTableRow.round == round_no)
        async with self.db.session() as s:
            rows = (
                await s.scalars(query.order_by(TournamentTableRow.round, TournamentTableRow.number))
            ).all()
        return tuple(_round_table(r) for r in rows)

    async def pending(self) -> tuple[RoundTable, ...]:
        """The tables still playing of every running tournament (the seat keepers' pass)."""
        async with self.db.session() as s:
            rows = (
                await s.scalars(
                    select(TournamentTableRow)
                    .join(
                        TournamentRow,
                        TournamentRow.tournament_id == TournamentTableRow.tournament_id,
                    )
                    .where(
                        TournamentRow.status == Status.RUNNING.value,
                        TournamentTableRow.results.is_(None),
                    )
                )
            ).all()
        return tuple(_round_table(r) for r in rows)

    async def table(self, table_id: str) -> RoundTable | None:
        """The tournament table ``table_id`` (None: no tournament's)."""
        async with self.db.session() as s:
            row = await s.scalar(
                select(TournamentTableRow).where(TournamentTableRow.table_id == table_id)
            )
        return None if row is None else _round_table(row)

    async def entry(self, tournament_id: str, account_id: str) -> Entry | None:
        """``account_id``'s entry in the tournament (None: never registered)."""
        async with self.db.session() as s:
            r = await s.get(TournamentEntryRow, (tournament_id, account_id))
        return None if r is None else Entry(r.account_id, r.name, r.entry_no, r.withdrawn)

    # -- changes -------------------------------------------------------------
    async def create(
        self,
        spec: NewTournament,
        created_by: str | None,
        now: float | None = None,
        limits: CreationLimits = NO_LIMITS,
    ) -> Tournament:
        """Store a new tournament (checked) and return it; ``quota_exceeded`` (nothing
        stored) if ``created_by`` is at one of ``limits``."""
        now = time.time() if now is None else now
        check_new(spec, now)
        tournament_id = "T" + secrets.token_hex(5)
        async with self.db.session() as s:
            if created_by is not None:
                await _within_limits(s, created_by, limits, now)
            s.add(
                TournamentRow(
                    tournament_id=tournament_id,
                    name=spec.name.strip(),
                    game=spec.game,
                    kind=spec.kind.value,
                    status=Status.SCHEDULED.value,
                    starts_us=_us(spec.starts_at),
                    rounds=spec.rounds,
                    duration_s=spec.duration_s,
                    turn_timer=spec.turn_timer,
                    level=spec.level,
                    options={},
                    secret=secrets.token_hex(16),
                    created_by=created_by,
                    created_us=_us(now),
                    round=0,
                    finished_us=None,
                )
            )
        return await self.get(tournament_id)

    async def register(self, tournament_id: str, account_id: str, name: str) -> Entry:
        """Enter ``account_id`` (again, after a withdrawal), before the end; ``forbidden``
        once the tournament is over."""
        async with self.db.session() as s:
            await lock_row(s, TournamentRow.tournament_id, tournament_id)
            row = await s.get(TournamentRow, tournament_id)
            if row is None:
                raise _not_found(tournament_id)
            if row.status == Status.FINISHED.value:
                raise _closed("the tournament is over")
            entry = await s.get(TournamentEntryRow, (tournament_id, account_id))
            if entry is not None:
                entry.withdrawn = False
                return Entry(entry.account_id, entry.name, entry.entry_no, False)
            last = await s.scalar(
                select(func.max(TournamentEntryRow.entry_no)).where(
                    TournamentEntryRow.tournament_id == tournament_id
                )
            )
            entry = TournamentEntryRow(
                tournament_id=tournament_id,
                account_id=account_id,
                name=name,
                entry_no=(last or 0) + 1,
                withdrawn=False,
            )
            s.add(entry)
            return Entry(account_id, name, entry.entry_no, False)

    async def withdraw(self, tournament_id: str, account_id: str) -> None:
        """Withdraw ``account_id``: no more pairings (their table under way plays on);
        ``not_found`` if they are not registered, ``forbidden`` once it is over."""
        async with self.db.session() as s:
            row = await s.get(TournamentRow, tournament_id)
            if row is None:
                raise _not_found(tournament_id)
            if row.status == Status.FINISHED.value:
                raise _closed("the tournament is over")
            entry = await s.get(TournamentEntryRow, (tournament_id, account_id))
            if entry is None or entry.withdrawn:
                raise RequestError(ErrorCode.NOT_FOUND, "you are not registered")
            entry.withdrawn = True

    async def start(self, tournament_id: str) -> bool:
        """Move a scheduled tournament to running; whether this call moved it."""
        return await self._move(tournament_id, Status.SCHEDULED, Status.RUNNING, None)

    async def finish(self, tournament_id: str, now: float) -> bool:
        """Move a running tournament to finished; whether this call moved it."""
        return await self._move(tournament_id, Status.RUNNING, Status.FINISHED, _us(now))

    async def _move(
        self, tournament_id: str, old: Status, new: Status, finished: int | None
    ) -> bool:
        async with self.db.session() as s:
            result = await s.execute(
                update(TournamentRow)
                .where(
                    TournamentRow.tournament_id == tournament_id, TournamentRow.status == old.value
                )
                .values(status=new.value, finished_us=finished)
            )
            return bool(result.rowcount)  # type: ignore[attr-defined]

    async def pair_round(
        self,
        tournament_id: str,
        expected: int,
        tables: Sequence[PairedTable],
        seat_orders: Sequence[Sequence[str | None]],
        now: float,
    ) -> bool:
        """Store round ``expected + 1``'s tables (seats in ``seat_orders``) and move the
        tournament's round on, if the database still holds round ``expected``; whether
        this call paired it (False: another director did first, or the round is stored)."""
        round_no = expected + 1
        try:
            async with self.db.session() as s:
                moved = await s.execute(
                    update(TournamentRow)
                    .where(
                        TournamentRow.tournament_id == tournament_id,
                        TournamentRow.round == expected,
                        TournamentRow.status == Status.RUNNING.value,
                    )
                    .values(round=round_no)
                )
                if not moved.rowcount:  # type: ignore[attr-defined]
                    return False
                for table, seats in zip(tables, seat_orders, strict=True):
                    s.add(
                        TournamentTableRow(
                            tournament_id=tournament_id,
                            round=round_no,
                            number=table.number,
                            table_id=table_id(tournament_id, round_no, table.number),
                            seats=list(seats),
                            created_us=_us(now),
                            results=None,
                        )
                    )
        except IntegrityError:
            return False
        return True

    async def set_results(self, table_id: str, results: list[list[Any]]) -> bool:
        """Store the results of table ``table_id`` (per seat ``[won, score, present]``) if
        none are stored yet; whether this call stored them."""
        async with self.db.session() as s:
            done = await s.execute(
                update(TournamentTableRow)
                .where(
                    TournamentTableRow.table_id == table_id,
                    TournamentTableRow.results.is_(None),
                )
                .values(results=results)
            )
            return bool(done.rowcount)  # type: ignore[attr-defined]

    async def collect_results(self, tournament_id: str, round_no: int | None = None) -> int:
        """Copy the results of the finished games of its tables still playing from the
        game records (each table's first game); how many tables finished now."""
        async with self.db.session() as s:
            query = select(TournamentTableRow).where(
                TournamentTableRow.tournament_id == tournament_id,
                TournamentTableRow.results.is_(None),
            )
            if round_no is not None:
                query = query.where(TournamentTableRow.round == round_no)
            open_rows = {r.table_id: r for r in (await s.scalars(query)).all()}
            if not open_rows:
                return 0
            seats = (
                await s.execute(
                    select(
                        GameRecordRow.table_id,
                        GameRecordRow.game_no,
                        GameSeatRow.seat,
                        GameSeatRow.won,
                        GameSeatRow.score,
                        GameSeatRow.kind,
                    )
                    .join(GameSeatRow, GameSeatRow.game_id == GameRecordRow.game_id)
                    .where(GameRecordRow.table_id.in_(list(open_rows)))
                    .order_by(GameRecordRow.table_id, GameRecordRow.game_no, GameSeatRow.seat)
                )
            ).all()
            first: dict[str, int] = {}
            found: dict[str, list[list[Any]]] = {}
            for tid, game_no, _seat, won, score, kind in seats:
                if first.setdefault(tid, game_no) != game_no:
                    continue
                found.setdefault(tid, []).append([bool(won), int(score), kind != "ai"])
            for tid, results in found.items():
                open_rows[tid].results = results
            return len(found)


async def _within_limits(
    s: AsyncSession, account_id: str, limits: CreationLimits, now: float
) -> None:
    """``quota_exceeded`` (``detail``: the setting) if ``account_id`` may not create one
    more tournament now.  The account's row is locked first, so that two creations for
    one account at once, in any processes, count each other."""
    if not (limits.max_tournaments_per_account or limits.tournaments_created_per_hour):
        return
    await lock_row(s, AccountRow.account_id, account_id)
    mine = TournamentRow.created_by == account_id
    cap = limits.max_tournaments_per_account
    if cap:
        open_now = await s.scalar(
            select(func.count())
            .select_from(TournamentRow)
            .where(
                mine,
                TournamentRow.status.in_([Status.SCHEDULED.value, Status.RUNNING.value]),
            )
        )
        if (open_now or 0) >= cap:
            raise RequestError(
                ErrorCode.QUOTA_EXCEEDED,
                f"you have {cap} scheduled or running tournaments already",
                "max_tournaments_per_account",
            )
    rate = limits.tournaments_created_per_hour
    if rate:
        recent = await s.scalar(
            select(func.count())
            .select_from(TournamentRow)
            .where(mine, TournamentRow.created_us > _us(now - 3600))
        )
        if (recent or 0) >= rate:
            raise RequestError(
                ErrorCode.QUOTA_EXCEEDED,
                f"you created {rate} tournaments in the last hour; wait a while",
                "tournaments_created_per_hour",
            )


def _tournament(row: TournamentRow, players: int) -> Tournament:
    return Tournament(
        tournament_id=row.tournament_id,
        name=row.name,
        game=row.game,
        kind=Kind(row.kind),
        status=Status(row.status),
        starts_at=row.starts_us / 1_000_000,
        rounds=row.rounds,
        duration_s=row.duration_s,
        turn_timer=row.turn_timer,
        level=row.level,
        round=row.round,
        finished_at=None if row.finished_us is None else row.finished_us / 1_000_000,
        players=players,
    )


def _round_table(row: TournamentTableRow) -> RoundTable:
    seats = tuple(row.seats)
    results = None
    if row.results is not None:
        results = tuple(
            SeatResult(seats[i] if present and i < len(seats) else None, bool(won), int(score))
            for i, (won, score, present) in enumerate(row.results)
        )
    return RoundTable(
        row.tournament_id,
        row.round,
        row.number,
        row.table_id,
        seats,
        row.created_us / 1_000_000,
        results,
    )
