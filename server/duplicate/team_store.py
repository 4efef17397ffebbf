"""Team matches in the database (tables ``team_matches``, ``team_match_members``,
``team_match_tables``, ``team_match_results``; migration 0007).

A roster changes in one transaction that first locks the match's row, so two people
taking the last slot at once cannot both get it, and the match starts exactly once.
A board's result at a table is written by :func:`record_table` inside the game's own
write (:meth:`server.persist.db.records.GameRecords.write`): the key makes a repeated
write (the table finished again after moving process) a no-op, and the write that
stores a board's last table adds the board's IMPs to the match's total in the same
transaction, so a board is never lost and never counted twice.
"""

from __future__ import annotations

import enum
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import delete, func, insert, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncConnection

from engine.game import Result
from protocol.errors import ErrorCode
from server.duplicate.boards import BOARD_OPTIONS, MAX_BOARDS
from server.duplicate.errors import DuplicateError
from server.duplicate.teams import MatchTable, Team, board_net, layout, team_size
from server.persist.db.engine import Database
from server.persist.db.game_record import TeamResult
from server.persist.db.locks import lock_row
from server.persist.db.models import (
    AccountRow,
    GameSeatRow,
    TeamMatchRow,
    TeamMemberRow,
    TeamResultRow,
    TeamTableRow,
)
from server.ratings.levels import RATED_LEVELS as LEVELS


class MatchStatus(enum.StrEnum):
    """Where a match is: rosters open, boards being played, all boards played."""

    FORMING = "forming"
    PLAYING = "playing"
    FINISHED = "finished"


@dataclass(frozen=True, slots=True)
class TeamMatch:
    """One match as stored."""

    match_id: str
    game: str
    level: str
    boards: int
    private: bool
    status: MatchStatus
    creator: str | None
    auto_start: bool = True
    """The match starts when its last slot is taken (else at its creator's start)."""
    imps_a: int = 0
    imps_b: int = 0
    boards_done: int = 0
    started_at: datetime | None = None
    """When it started (None: forming, or started before it was stored)."""

    @property
    def tables(self) -> tuple[MatchTable, ...]:
        """The match's tables (:func:`server.duplicate.teams.layout`)."""
        return layout(self.game)


@dataclass(frozen=True, slots=True)
class Member:
    """A roster slot taken: ``account`` holds member ``slot`` of ``team``."""

    team: Team
    slot: int
    account: str


@dataclass(frozen=True, slots=True)
class TableResult:
    """Board ``board``'s result at table ``table``: each seat's score, its stored game."""

    board: int
    table: int
    scores: tuple[int, ...]
    record_id: str
    finished_at: datetime | None = None
    """When its game ended (UTC): a table's next board waits for absent members from then."""


def unknown_match(match_id: str) -> DuplicateError:
    """No match has this id (a private match's id is its invite)."""
    return DuplicateError(ErrorCode.UNKNOWN_MATCH, f"no team match {match_id!r}", match_id)


def match_started(match_id: str) -> DuplicateError:
    """The rosters are closed once the match starts."""
    return DuplicateError(
        ErrorCode.MATCH_STARTED, f"the team match {match_id} has started", match_id
    )


def new_match(
    game: str, level: str, boards: int, private: bool, creator: str, auto_start: bool = True
) -> TeamMatch:
    """A match ``creator`` makes (``bad_options``/``unknown_game`` for bad values).

    The id is random and long enough to be a private match's invite: nobody finds a
    private match they were not given the id of."""
    if game not in BOARD_OPTIONS:
        raise DuplicateError(ErrorCode.UNKNOWN_GAME, f"no team duplicate of {game!r}")
    if not 1 <= boards <= MAX_BOARDS:
        raise DuplicateError(ErrorCode.BAD_OPTIONS, f"a match has 1 to {MAX_BOARDS} boards")
    if level not in LEVELS:
        raise DuplicateError(ErrorCode.BAD_OPTIONS, f"the AI level is one of {', '.join(LEVELS)}")
    return TeamMatch(
        match_id=f"M{secrets.token_hex(8)}",
        game=game,
        level=level,
        boards=boards,
        private=private,
        status=MatchStatus.FORMING,
        creator=creator,
        auto_start=auto_start,
    )


def table_id(match_id: str, board: int, table: int) -> str:
    """The id of the table of ``board`` at match table ``table``: one per board and
    table, the same on every process (a claim in the database makes it live once)."""
    return f"{match_id}-b{board}-t{table}"


def parse_table_id(value: str) -> tuple[str, int, int] | None:
    """``(match_id, board, table)`` of a match table's id, else ``None``."""
    head, _, tail = value.rpartition("-t")
    match_id, _, board = head.rpartition("-b")
    if not (match_id.startswith("M") and board.isdigit() and tail.isdigit()):
        return None
    return match_id, int(board), int(tail)


def seat_of(game: str, member: Member) -> tuple[int, int]:
    """The (table, seat) ``member`` holds at every board (each member plays at one table)."""
    for table in layout(game):
        for seat, sitter in enumerate(table.seats):
            if sitter.team is member.team and sitter.member == member.slot:
                return table.index, seat
    raise ValueError(f"{game} has no member {member.slot} of team {member.team.value}")


def _match_of(row: Any) -> TeamMatch:
    """A stored match (an ORM row or a core row: the same columns)."""
    return TeamMatch(
        match_id=row.match_id,
        game=row.game,
        level=row.level,
        boards=row.boards,
        private=row.private,
        status=MatchStatus(row.status),
        creator=row.creator,
        auto_start=row.auto_start,
        imps_a=row.imps_a,
        imps_b=row.imps_b,
        boards_done=row.boards_done,
        started_at=_utc(row.started_at),
    )


def _free_slot(game: str, roster: Sequence[Member], team: Team | None, slot: int | None) -> Member:
    """The slot a joiner takes: the one asked if free, else the first free one of the
    team asked (or of the emptier team); ``slot_taken`` when none is."""
    size = team_size(game)
    taken = {(m.team, m.slot) for m in roster}
    if slot is not None and not 0 <= slot < size:
        raise DuplicateError(ErrorCode.BAD_OPTIONS, f"a {game} team has slots 0 to {size - 1}")
    teams = (
        [team]
        if team is not None
        else sorted(Team, key=lambda t: sum(1 for m in roster if m.team is t))
    )
    for t in teams:
        for s in [slot] if slot is not None else range(size):
            if (t, s) not in taken:
                return Member(t, s, "")
    raise DuplicateError(ErrorCode.SLOT_TAKEN, "that slot is taken (or the team is full)")


class TeamStore:
    """The team matches on one :class:`Database`."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self._dialect: Any = postgresql if db.backend == "postgresql" else sqlite

    async def create(self, match: TeamMatch, now: datetime, max_open: int = 0) -> None:
        """Store a new match with its creator in the first slot of team A; with
        ``max_open``, ``quota_exceeded`` when the creator has that many forming or
        playing already (counted under the account's row lock: at once, they count
        each other)."""
        async with self.db.begin() as conn:
            if match.creator is not None and max_open:
                await lock_row(conn, AccountRow.account_id, match.creator)
                open_now = await conn.scalar(
                    select(func.count())
                    .select_from(TeamMatchRow)
                    .where(
                        TeamMatchRow.creator == match.creator,
                        TeamMatchRow.status.in_(
                            [MatchStatus.FORMING.value, MatchStatus.PLAYING.value]
                        ),
                    )
                )
                if (open_now or 0) >= max_open:
                    raise DuplicateError(
                        ErrorCode.QUOTA_EXCEEDED,
                        f"you have {max_open} team matches forming or playing already",
                        "max_team_matches_per_account",
                    )
            await conn.execute(
                insert(TeamMatchRow).values(
                    match_id=match.match_id,
                    game=match.game,
                    level=match.level,
                    boards=match.boards,
                    private=match.private,
                    auto_start=match.auto_start,
                    status=match.status.value,
                    creator=match.creator,
                    created_at=now,
                    imps_a=0,
                    imps_b=0,
                    boards_done=0,
                )
            )
            if match.creator is not None:
                await conn.execute(
                    insert(TeamMemberRow).values(
                        match_id=match.match_id, team="a", slot=0, account_id=match.creator
                    )
                )

    async def get(self, match_id: str) -> TeamMatch:
        """The match ``match_id``, or :func:`unknown_match`."""
        async with self.db.session() as session:
            row = await session.get(TeamMatchRow, match_id)
        if row is None:
            raise unknown_match(match_id)
        return _match_of(row)

    async def listed(self, game: str | None) -> tuple[TeamMatch, ...]:
        """The public matches forming or playing, newest first."""
        stmt = select(TeamMatchRow).where(
            TeamMatchRow.private.is_(False),
            TeamMatchRow.status != MatchStatus.FINISHED.value,
        )
        if game is not None:
            stmt = stmt.where(TeamMatchRow.game == game)
        async with self.db.session() as session:
            rows = await session.scalars(
                stmt.order_by(TeamMatchRow.created_at.desc(), TeamMatchRow.match_id).limit(100)
            )
            return tuple(_match_of(r) for r in rows)

    async def roster(self, match_id: str) -> tuple[Member, ...]:
        """The members, team A first, by slot."""
        return (await self.rosters([match_id]))[match_id]

    async def rosters(self, match_ids: Sequence[str]) -> dict[str, tuple[Member, ...]]:
        """Each match's members (:meth:`roster`), read in one query."""
        out: dict[str, list[Member]] = {m: [] for m in match_ids}
        async with self.db.session() as session:
            rows = await session.scalars(
                select(TeamMemberRow)
                .where(TeamMemberRow.match_id.in_(list(out)))
                .order_by(TeamMemberRow.team, TeamMemberRow.slot)
            )
            for r in rows:
                out[r.match_id].append(Member(Team(r.team), r.slot, r.account_id))
        return {m: tuple(members) for m, members in out.items()}

    async def _locked(self, conn: AsyncConnection, match_id: str) -> TeamMatch:
        """The match, its row locked until the transaction ends: roster changes and
        the board totals go one at a time."""
        await lock_row(conn, TeamMatchRow.match_id, match_id)
        row = (
            await conn.execute(select(TeamMatchRow).where(TeamMatchRow.match_id == match_id))
        ).one_or_none()
        if row is None:
            raise unknown_match(match_id)
        return _match_of(row)

    @staticmethod
    async def _roster(conn: AsyncConnection, match_id: str) -> list[Member]:
        rows = await conn.execute(
            select(TeamMemberRow.team, TeamMemberRow.slot, TeamMemberRow.account_id).where(
                TeamMemberRow.match_id == match_id
            )
        )
        return [Member(Team(t), s, a) for t, s, a in rows.all()]

    async def join(self, match_id: str, account: str, team: Team | None, slot: int | None) -> bool:
        """Put ``account`` in a free slot (moving a member to the slot asked); whether
        the match started (its rosters are full and it starts by itself)."""
        async with self.db.begin() as conn:
            match = await self._locked(conn, match_id)
            if match.status is not MatchStatus.FORMING:
                raise match_started(match_id)
            roster = [m for m in await self._roster(conn, match_id) if m.account != account]
            place = _free_slot(match.game, roster, team, slot)
            await conn.execute(
                delete(TeamMemberRow).where(
                    TeamMemberRow.match_id == match_id, TeamMemberRow.account_id == account
                )
            )
            await conn.execute(
                insert(TeamMemberRow).values(
                    match_id=match_id, team=place.team.value, slot=place.slot, account_id=account
                )
            )
            full = len(roster) + 1 == 2 * team_size(match.game)
            if full and match.auto_start:
                await self._start(conn, match_id)
            return full and match.auto_start

    async def leave(self, match_id: str, account: str) -> None:
        """Take ``account`` off the roster of a match not started."""
        async with self.db.begin() as conn:
            match = await self._locked(conn, match_id)
            if match.status is not MatchStatus.FORMING:
                raise match_started(match_id)
            gone = await conn.execute(
                delete(TeamMemberRow).where(
                    TeamMemberRow.match_id == match_id, TeamMemberRow.account_id == account
                )
            )
            if not gone.rowcount:
                raise DuplicateError(ErrorCode.NOT_A_MEMBER, "you are not in this match")

    async def start(self, match_id: str, account: str) -> None:
        """Start a match whose rosters are full: its creator only."""
        async with self.db.begin() as conn:
            match = await self._locked(conn, match_id)
            if match.creator != account:
                raise DuplicateError(ErrorCode.FORBIDDEN, "only the match's creator starts it")
            if match.status is not MatchStatus.FORMING:
                raise match_started(match_id)
            if len(await self._roster(conn, match_id)) < 2 * team_size(match.game):
                raise DuplicateError(ErrorCode.ROSTER_NOT_FULL, "both teams must be full")
            await self._start(conn, match_id)

    @staticmethod
    async def _start(conn: AsyncConnection, match_id: str) -> None:
        await conn.execute(
            update(TeamMatchRow)
            .where(TeamMatchRow.match_id == match_id)
            .values(status=MatchStatus.PLAYING.value, started_at=datetime.now(UTC))
        )

    async def claim(self, match_id: str, board: int, table: int, now: datetime) -> bool:
        """Claim the making of board ``board``'s table ``table``: ``True`` for the one
        caller (of any process) that gets it; the others join the table it makes."""
        stmt = (
            self._dialect.insert(TeamTableRow)
            .values(
                match_id=match_id,
                board=board,
                table_no=table,
                table_id=table_id(match_id, board, table),
                claimed_at=now,
            )
            .on_conflict_do_nothing(index_elements=["match_id", "board", "table_no"])
        )
        async with self.db.begin() as conn:
            done = await conn.execute(stmt)
        return bool(done.rowcount)

    async def reclaim(
        self, match_id: str, board: int, table: int, before: datetime, now: datetime
    ) -> bool:
        """Claim again a table claimed before ``before`` (it closed before its game
        began): ``True`` for the one caller whose update moves the claim on; a claim
        newer than that is a table being made now."""
        async with self.db.begin() as conn:
            done = await conn.execute(
                update(TeamTableRow)
                .where(
                    TeamTableRow.match_id == match_id,
                    TeamTableRow.board == board,
                    TeamTableRow.table_no == table,
                    TeamTableRow.claimed_at < before,
                )
                .values(claimed_at=now)
            )
        return bool(done.rowcount)

    async def results(self, match_id: str) -> tuple[TableResult, ...]:
        """Every board's stored result at every table, by board and table."""
        return (await self.results_of([match_id]))[match_id]

    async def results_of(self, match_ids: Sequence[str]) -> dict[str, tuple[TableResult, ...]]:
        """Each match's :meth:`results`, read in one query."""
        out: dict[str, list[TableResult]] = {m: [] for m in match_ids}
        async with self.db.session() as session:
            rows = await session.scalars(
                select(TeamResultRow)
                .where(TeamResultRow.match_id.in_(list(out)))
                .order_by(TeamResultRow.board, TeamResultRow.table_no)
            )
            for r in rows:
                out[r.match_id].append(
                    TableResult(
                        r.board,
                        r.table_no,
                        tuple(int(s) for s in r.scores),
                        r.record_id,
                        _utc(r.finished_at),
                    )
                )
        return {m: tuple(results) for m, results in out.items()}

    async def playing(self) -> tuple[TeamMatch, ...]:
        """Every match being played (public or private): their tables may wait for
        absent members (:meth:`server.duplicate.team_requests.TeamRequests.fill_absent`)."""
        async with self.db.session() as session:
            rows = await session.scalars(
                select(TeamMatchRow)
                .where(TeamMatchRow.status == MatchStatus.PLAYING.value)
                .order_by(TeamMatchRow.match_id)
            )
            return tuple(_match_of(r) for r in rows)

    async def ai_seats(self, record_id: str) -> frozenset[int]:
        """The seats the AI played from the start to the end of the stored game
        ``record_id`` (a member who came mid-board or left holds a human seat there)."""
        async with self.db.session() as session:
            rows = await session.scalars(
                select(GameSeatRow.seat).where(
                    GameSeatRow.game_id == record_id, GameSeatRow.kind == "ai"
                )
            )
            return frozenset(rows)

    async def claimed(self, match_id: str) -> frozenset[tuple[int, int]]:
        """The (board, table) pairs whose table was claimed (made, or being made)."""
        async with self.db.session() as session:
            rows = await session.execute(
                select(TeamTableRow.board, TeamTableRow.table_no).where(
                    TeamTableRow.match_id == match_id
                )
            )
            return frozenset((b, t) for b, t in rows.all())


def _utc(value: datetime | None) -> datetime | None:
    """A stored time as UTC (SQLite gives it back without its zone)."""
    if value is None or value.tzinfo is not None:
        return value
    return value.replace(tzinfo=UTC)


def next_board(match: TeamMatch, table: int, results: Sequence[TableResult]) -> int | None:
    """The board ``table`` plays next (boards in order), ``None``: all played."""
    done = {r.board for r in results if r.table == table}
    return next((b for b in range(1, match.boards + 1) if b not in done), None)


def as_result(scores: Sequence[int]) -> Result:
    """A stored table result as the engine's :class:`Result` (the scoring reads scores)."""
    return Result(tuple(scores), frozenset())


async def record_table(
    conn: AsyncConnection, dialect: Any, team: TeamResult, record_id: str, finished_at: float
) -> bool:
    """Store a match table's board result in the game's write transaction ``conn``;
    whether it was new.  The match's row is locked first, so the write that stores a
    board's last table sees the others and adds the board's IMPs once (module docstring)."""
    await conn.execute(
        update(TeamMatchRow)
        .where(TeamMatchRow.match_id == team.match_id)
        .values(boards_done=TeamMatchRow.boards_done)
    )
    row = (
        await conn.execute(
            select(TeamMatchRow.game, TeamMatchRow.boards, TeamMatchRow.boards_done).where(
                TeamMatchRow.match_id == team.match_id
            )
        )
    ).one_or_none()
    if row is None:  # the match was deleted (its creator's account with it)
        return False
    game, boards, boards_done = row
    inserted = await conn.execute(
        dialect.insert(TeamResultRow)
        .values(
            match_id=team.match_id,
            board=team.board,
            table_no=team.table,
            scores=list(team.scores),
            record_id=record_id,
            finished_at=datetime.fromtimestamp(finished_at, UTC),
        )
        .on_conflict_do_nothing(index_elements=["match_id", "board", "table_no"])
    )
    if not inserted.rowcount:
        return False
    found = await conn.execute(
        select(TeamResultRow.table_no, TeamResultRow.scores)
        .where(TeamResultRow.match_id == team.match_id, TeamResultRow.board == team.board)
        .order_by(TeamResultRow.table_no)
    )
    scores = [s for _, s in found.all()]
    if len(scores) < len(layout(game)):
        return True
    net = board_net(game, team.board, [as_result(s) for s in scores])
    done = boards_done + 1
    await conn.execute(
        update(TeamMatchRow)
        .where(TeamMatchRow.match_id == team.match_id)
        .values(
            imps_a=TeamMatchRow.imps_a + max(net.imps, 0),
            imps_b=TeamMatchRow.imps_b + max(-net.imps, 0),
            boards_done=done,
            status=MatchStatus.FINISHED.value if done >= boards else MatchStatus.PLAYING.value,
        )
    )
    return True
