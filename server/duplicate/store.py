"""Duplicate sets and results in the database (tables ``duplicate_sets``/``_results``).

A result is written once per (set, board, account) when the board's table finishes:
the key makes a repeated write (a table finished again after a restart or a move to
another process) a no-op, so nothing is counted twice and nothing acknowledged is lost
(it is in the database before the player is told).  What a player may read is decided
here, not by the caller: a board's results and replays only once the reader has
finished that board or the set has closed (docs/duplicate.md, Secrecy).
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import func, select
from sqlalchemy.dialects import postgresql, sqlite

from server.duplicate.boards import BoardSet, SeedKey, SetKind
from server.duplicate.errors import board_not_played, board_out_of_order, unknown_set
from server.duplicate.scoring import BoardScore, Played, Standing, compare_board, standings
from server.persist.db.engine import Database
from server.persist.db.models import (
    AccountRow,
    DuplicateResultRow,
    DuplicateSetRow,
    ServerSecretRow,
)

SECRET_NAME = "duplicate"


@dataclass(frozen=True, slots=True)
class BoardReport:
    """A finished board as its reader may see it: every result and its game record."""

    board: int
    scores: tuple[BoardScore, ...]
    records: tuple[tuple[str, str], ...]
    """(account, record id) of every other player's stored game of the board (replays)."""


def _utc(value: datetime) -> datetime:
    """SQLite hands back naive datetimes: they were written in UTC."""
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def _set_of(row: DuplicateSetRow) -> BoardSet:
    return BoardSet(
        set_id=row.set_id,
        game=row.game,
        kind=SetKind(row.kind),
        level=row.level,
        seat=row.seat,
        boards=row.boards,
        opens_at=_utc(row.opens_at),
        closes_at=_utc(row.closes_at),
        creator=row.creator,
    )


class DuplicateStore:
    """The sets and results of duplicate play on one :class:`Database`."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self._dialect = postgresql if db.backend == "postgresql" else sqlite

    async def seed_key(self, configured: str = "") -> SeedKey:
        """The seed key: ``configured`` (``duplicate_secret``) when given, else the one
        stored in the database, made by the first process that asks (every process of
        a cluster must derive the same boards)."""
        if configured:
            return SeedKey(configured.encode())
        stmt = (
            self._dialect.insert(ServerSecretRow)
            .values(name=SECRET_NAME, value=secrets.token_hex(32))
            .on_conflict_do_nothing(index_elements=["name"])
        )
        async with self.db.session() as session:
            await session.execute(stmt)
        async with self.db.session() as session:
            row = await session.get(ServerSecretRow, SECRET_NAME)
        assert row is not None
        return SeedKey(row.value.encode())

    async def names(self, accounts: Iterable[str]) -> dict[str, str]:
        """The display names of ``accounts`` (results show names, never account ids)."""
        wanted = sorted(set(accounts))
        if not wanted:
            return {}
        async with self.db.session() as session:
            rows = await session.execute(
                select(AccountRow.account_id, AccountRow.name).where(
                    AccountRow.account_id.in_(wanted)
                )
            )
            return {a: n for a, n in rows.all()}

    async def ensure_set(self, board_set: BoardSet) -> BoardSet:
        """Store ``board_set`` unless its id is stored already (every process makes the
        day's daily sets; the first write wins); return the stored set."""
        stmt = (
            self._dialect.insert(DuplicateSetRow)
            .values(
                set_id=board_set.set_id,
                game=board_set.game,
                kind=board_set.kind.value,
                level=board_set.level,
                seat=board_set.seat,
                boards=board_set.boards,
                opens_at=board_set.opens_at,
                closes_at=board_set.closes_at,
                creator=board_set.creator,
            )
            .on_conflict_do_nothing(index_elements=["set_id"])
        )
        async with self.db.session() as session:
            await session.execute(stmt)
        return await self.get_set(board_set.set_id)

    async def get_set(self, set_id: str) -> BoardSet:
        """The set ``set_id``, or :func:`unknown_set`."""
        async with self.db.session() as session:
            row = await session.get(DuplicateSetRow, set_id)
        if row is None:
            raise unknown_set(set_id)
        return _set_of(row)

    async def open_sets(self, now: datetime) -> tuple[BoardSet, ...]:
        """Every set open at ``now``, soonest to close first."""
        async with self.db.session() as session:
            rows = await session.scalars(
                select(DuplicateSetRow)
                .where(DuplicateSetRow.opens_at <= now, DuplicateSetRow.closes_at > now)
                .order_by(DuplicateSetRow.closes_at, DuplicateSetRow.set_id)
            )
            return tuple(_set_of(r) for r in rows)

    async def played_boards(self, set_id: str, account: str) -> frozenset[int]:
        """The boards of the set that ``account`` has finished."""
        async with self.db.session() as session:
            rows = await session.scalars(
                select(DuplicateResultRow.board).where(
                    DuplicateResultRow.set_id == set_id, DuplicateResultRow.account_id == account
                )
            )
            return frozenset(rows)

    async def next_board(self, set_id: str, account: str) -> int | None:
        """The board ``account`` plays next (boards go in order), ``None``: all played."""
        board_set = await self.get_set(set_id)
        played = await self.played_boards(set_id, account)
        for board in range(1, board_set.boards + 1):
            if board not in played:
                return board
        return None

    async def start_board(self, set_id: str, account: str, board: int, now: datetime) -> BoardSet:
        """Check that ``account`` may start ``board`` now: the set is open and it is
        their next board; return the set (its table is then made from it)."""
        board_set = await self.get_set(set_id)
        board_set.check_open(now)
        expected = await self.next_board(set_id, account)
        if board != expected:
            raise board_out_of_order(board, expected)
        return board_set

    async def record(
        self,
        set_id: str,
        board: int,
        account: str,
        score: int,
        record_id: str | None,
        now: datetime,
    ) -> bool:
        """Write ``account``'s finished ``board`` once; ``False`` when it was written
        already (the first write stands).  A board started before the set closed is
        recorded even when it finishes after."""
        board_set = await self.get_set(set_id)
        if not 1 <= board <= board_set.boards:
            raise board_out_of_order(board, None)
        stmt = (
            self._dialect.insert(DuplicateResultRow)
            .values(
                set_id=set_id,
                board=board,
                account_id=account,
                score=score,
                record_id=record_id,
                finished_at=now,
            )
            .on_conflict_do_nothing(index_elements=["set_id", "board", "account_id"])
        )
        async with self.db.session() as session:
            done = await session.execute(stmt)
        return bool(getattr(done, "rowcount", 0))

    async def _results(self, set_id: str) -> list[DuplicateResultRow]:
        async with self.db.session() as session:
            rows = await session.scalars(
                select(DuplicateResultRow).where(DuplicateResultRow.set_id == set_id)
            )
            return list(rows)

    async def standings(self, set_id: str) -> tuple[Standing, ...]:
        """The set's live standings (only totals: no board's result shows through them
        before the reader plays it, as a standing mixes every board played)."""
        board_set = await self.get_set(set_id)
        rows = await self._results(set_id)
        return standings(board_set.game, (Played(r.account_id, r.board, r.score) for r in rows))

    async def board_report(
        self, set_id: str, board: int, reader: str, now: datetime
    ) -> BoardReport:
        """Board ``board``'s results and the others' replays, for a ``reader`` who has
        finished it (or once the set closed), else :func:`board_not_played`."""
        board_set = await self.get_set(set_id)
        if not 1 <= board <= board_set.boards:
            raise board_out_of_order(board, None)
        rows = [r for r in await self._results(set_id) if r.board == board]
        if not board_set.seeds_shown(now) and all(r.account_id != reader for r in rows):
            raise board_not_played(board)
        scores = compare_board(board_set.game, board, {r.account_id: r.score for r in rows})
        records = tuple(
            sorted(
                (r.account_id, r.record_id)
                for r in rows
                if r.account_id != reader and r.record_id is not None
            )
        )
        return BoardReport(board, scores, records)

    async def players(self, set_id: str) -> int:
        """How many accounts have finished a board of the set."""
        async with self.db.session() as session:
            n = await session.scalar(
                select(func.count(func.distinct(DuplicateResultRow.account_id))).where(
                    DuplicateResultRow.set_id == set_id
                )
            )
        return int(n or 0)
