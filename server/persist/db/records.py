"""Game records: every finished game, stored once, and what is read back from them
(an account's history, its profile, a stored game's replay) (issue 54).

A game is written by its table's owner when it finishes (:class:`RecordWriter`,
off the move path), keyed by :func:`game_id` (the table id and the game's
number): a table rebuilt on another process that finishes the same game again,
or a retry after a failure, inserts nothing new (``ON CONFLICT DO NOTHING``),
and the profile counts move only with the insert that happened, in its
transaction.  Only finished games are stored, so nothing here can show a game
in progress or a deal's seed before its end.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import time
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import and_, delete, insert, or_, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import DBAPIError, IntegrityError, InterfaceError, OperationalError
from sqlalchemy.ext.asyncio import AsyncSession

from protocol.errors import ErrorCode
from server.duplicate.team_store import record_table
from server.ops.logs import get_logger
from server.persist.db.engine import Database
from server.persist.db.game_record import GameRecord, SeatKind, SeatRecord
from server.persist.db.models import (
    AccountRow,
    DuplicateResultRow,
    GameRecordRow,
    GameSeatRow,
    ProfileCountRow,
)
from server.persist.store import LoggedAction
from server.players.names import skeleton
from server.ratings.store import RatingStore, rating_keys
from server.tables.options import RequestError

HISTORY_PAGE_MAX = 50
"""Games in one page of history at most (the request's ``limit`` is capped here)."""
DELETED_NAME = "deleted player"
"""The name a deleted account's seats show in the other players' records."""
CURSOR_MAX = 200
"""Longest cursor accepted, in characters (a cursor this server made is far shorter)."""


@dataclass(frozen=True)
class HistoryEntry:
    """One game of an account's history: the game, when, and every seat."""

    game_id: str
    game: str
    finished_at: float
    private: bool
    seats: tuple[SeatRecord, ...]
    seat: int
    """The account's own seat."""


@dataclass(frozen=True)
class HistoryPage:
    """A page of history, newest first; ``cursor`` asks for the next one (``None``: no more)."""

    games: tuple[HistoryEntry, ...]
    cursor: str | None


@dataclass(frozen=True)
class GameCount:
    """Games of one kind an account played and won."""

    game: str
    played: int
    won: int


@dataclass(frozen=True)
class Profile:
    """An account's public profile: its name, since when it exists, its games per game."""

    account_id: str
    name: str
    bot: bool
    member_since: float
    games: tuple[GameCount, ...]


# -- cursors ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Cursor:
    """Where a page of history ends: the last entry's sort key (time, game id, seat: an
    account may hold two seats of one game, from two devices)."""

    finished_us: int
    game_id: str
    seat: int = 0


def encode_cursor(cursor: Cursor) -> str:
    """The opaque text a client sends back for the next page."""
    raw = f"{cursor.finished_us}:{cursor.seat}:{cursor.game_id}".encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(text: str) -> Cursor:
    """The cursor ``text`` stands for; ``bad_options`` (detail ``cursor``) for anything
    this server did not make."""
    bad = RequestError(ErrorCode.BAD_OPTIONS, "not a history cursor", "cursor")
    if len(text) > CURSOR_MAX:
        raise bad
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)).decode()
    except (binascii.Error, UnicodeDecodeError, ValueError):
        raise bad from None
    micros, _, rest = raw.partition(":")
    seat, _, gid = rest.partition(":")
    if not gid or len(gid) > 80 or not micros.isdigit() or not seat.isdigit() or len(seat) > 3:
        raise bad
    return Cursor(int(micros), gid, int(seat))


# -- the database -----------------------------------------------------------------------


def _micros(seconds: float) -> int:
    return round(seconds * 1_000_000)


_SEAT_COLUMNS = (
    GameSeatRow.game_id,
    GameSeatRow.seat,
    GameSeatRow.kind,
    GameSeatRow.name,
    GameSeatRow.account_id,
    GameSeatRow.level,
    GameSeatRow.left,
    GameSeatRow.score,
    GameSeatRow.won,
)
"""What a history shows of each seat (plain rows: no ORM objects to build)."""


def _seat(row: GameSeatRow) -> SeatRecord:
    return SeatRecord(
        seat=row.seat,
        kind=SeatKind(row.kind),
        name=row.name,
        account_id=row.account_id,
        level=row.level,
        left=row.left,
        score=row.score,
        won=row.won,
    )


class GameRecords:
    """The stored games on one :class:`Database` (its schema migrated by the accounts)."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self.ratings = RatingStore(db)
        """The ratings a rated game's write updates (issue 55)."""
        dialect = postgresql if db.backend == "postgresql" else sqlite
        self._dialect = dialect
        # the write's statements, made once: each write only binds its values
        self._new_game = (
            dialect.insert(GameRecordRow)
            .on_conflict_do_nothing(index_elements=["game_id"])
            .returning(GameRecordRow.game_id)
        )
        self._new_seats = insert(GameSeatRow)
        duplicate = dialect.insert(DuplicateResultRow)
        self._duplicate = duplicate.on_conflict_do_update(
            index_elements=["set_id", "board", "account_id"],
            set_={"record_id": duplicate.excluded.record_id},
            where=DuplicateResultRow.record_id.is_(None),
        )
        """A duplicate board's result, in the game's write (issue 56): once, as the game; a
        result written first from the finished game Redis keeps (its table gone, this
        write late: :mod:`server.duplicate.requests`) stands, and gains the record."""
        counted = dialect.insert(ProfileCountRow)
        self._counted = counted.on_conflict_do_update(
            index_elements=["account_id", "game"],
            set_={
                "played": ProfileCountRow.played + 1,
                "won": ProfileCountRow.won + counted.excluded.won,
            },
        )

    async def write(self, record: GameRecord) -> bool:
        """Store ``record`` unless it is stored already; whether this call stored it.

        Seats name accounts that still exist: the write assumes they all do (the
        foreign key checks it); when one was deleted meanwhile the transaction
        rolls back and the write is made again with that seat as ``deleted
        player``.  Each account's profile counts move in the same transaction, and a
        rated game's ratings (:meth:`server.ratings.store.RatingStore.update`): once,
        with the insert that happened, whichever process writes the game.
        """
        named = {s.account_id for s in record.seats if s.account_id is not None}
        if record.rated:
            named |= rating_keys(record)  # the AI levels' accounts too
        try:
            return await self._write(record, None)
        except IntegrityError:  # an account of a seat is gone: nothing was written
            async with self.db.session() as session:
                alive = await self._existing(session, named)
            return await self._write(record, alive)

    async def _write(self, record: GameRecord, alive: set[str] | None) -> bool:
        """One try of :meth:`write`; ``alive``: the seats' accounts that exist (``None``:
        all of them)."""
        gid = record.game_id
        finished = _micros(record.finished_at)
        game = {
            "game_id": gid,
            "table_id": record.table_id,
            "game_no": record.game_no,
            "game": record.game,
            "private": record.private,
            "options": record.options,
            "seed": record.seed,
            "log": [[a.seat, a.action, a.by] for a in record.log],
            "result": record.result,
            "finished_us": finished,
            "rated": record.rated,
        }
        async with self.db.begin() as conn:  # core: no ORM session to keep
            inserted = await conn.execute(self._new_game, game)
            if inserted.scalar_one_or_none() is None:
                return False
            seats = [self._seat_row(gid, record, s, finished, alive) for s in record.seats]
            await conn.execute(self._new_seats, seats)
            won: dict[str, bool] = {}  # an account at two seats (two devices) played once
            for row in seats:
                account = row["account_id"]
                if account is not None:
                    won[account] = won.get(account, False) or bool(row["won"])
            if won:
                counts = [
                    {"account_id": a, "game": record.game, "played": 1, "won": int(w)}
                    for a, w in sorted(won.items())
                ]
                await conn.execute(self._counted, counts)
            if record.rated:
                await self.ratings.update(conn, record, alive)
            dup = record.duplicate
            if dup is not None and (alive is None or dup.account_id in alive):
                await conn.execute(
                    self._duplicate,
                    {
                        "set_id": dup.set_id,
                        "board": dup.board,
                        "account_id": dup.account_id,
                        "score": dup.score,
                        "record_id": gid,
                        "finished_at": datetime.fromtimestamp(record.finished_at, UTC),
                    },
                )
            if record.team is not None:  # a team match table's board, once, as the game
                await record_table(conn, self._dialect, record.team, gid, record.finished_at)
        return True

    @staticmethod
    def _seat_row(
        gid: str, record: GameRecord, seat: SeatRecord, finished: int, alive: set[str] | None
    ) -> dict[str, Any]:
        gone = seat.account_id is not None and alive is not None and seat.account_id not in alive
        return {
            "game_id": gid,
            "seat": seat.seat,
            "account_id": None if gone else seat.account_id,
            "name": DELETED_NAME if gone else seat.name,
            "kind": seat.kind.value,
            "level": seat.level,
            "left": seat.left,
            "score": seat.score,
            "won": seat.won,
            "game": record.game,
            "finished_us": finished,
        }

    @staticmethod
    async def _existing(session: AsyncSession, account_ids: set[str]) -> set[str]:
        if not account_ids:
            return set()
        found = await session.scalars(
            select(AccountRow.account_id).where(AccountRow.account_id.in_(account_ids))
        )
        return set(found)

    async def history(
        self, account_id: str, *, game: str | None = None, cursor: str | None = None, limit: int
    ) -> HistoryPage:
        """``account_id``'s stored games, newest first, ``limit`` (at most
        :data:`HISTORY_PAGE_MAX`) after ``cursor``, of ``game`` only when given."""
        limit = max(1, min(limit, HISTORY_PAGE_MAX))
        mine = (
            select(
                GameSeatRow.game_id,
                GameSeatRow.seat,
                GameSeatRow.finished_us,
                GameSeatRow.game,
                GameRecordRow.private,
            )
            .join(GameRecordRow, GameRecordRow.game_id == GameSeatRow.game_id)
            .where(GameSeatRow.account_id == account_id)
        )
        if game is not None:
            mine = mine.where(GameSeatRow.game == game)
        if cursor is not None:
            after = decode_cursor(cursor)
            mine = mine.where(
                or_(
                    GameSeatRow.finished_us < after.finished_us,
                    and_(
                        GameSeatRow.finished_us == after.finished_us,
                        or_(
                            GameSeatRow.game_id < after.game_id,
                            and_(
                                GameSeatRow.game_id == after.game_id,
                                GameSeatRow.seat < after.seat,
                            ),
                        ),
                    ),
                )
            )
        mine = mine.order_by(
            GameSeatRow.finished_us.desc(), GameSeatRow.game_id.desc(), GameSeatRow.seat.desc()
        )
        async with self.db.session() as session:
            rows = (await session.execute(mine.limit(limit + 1))).all()
            page = rows[:limit]
            seats: dict[str, list[SeatRecord]] = {}
            if page:
                found = await session.execute(
                    select(*_SEAT_COLUMNS)
                    .where(GameSeatRow.game_id.in_([r.game_id for r in page]))
                    .order_by(GameSeatRow.game_id, GameSeatRow.seat)
                )
                for gid, seat, kind, name, account, level, left, score, won in found:
                    seats.setdefault(gid, []).append(
                        SeatRecord(seat, SeatKind(kind), name, account, level, left, score, won)
                    )
        entries = tuple(
            HistoryEntry(
                game_id=r.game_id,
                game=r.game,
                finished_at=r.finished_us / 1_000_000,
                private=r.private,
                seats=tuple(seats.get(r.game_id, ())),
                seat=r.seat,
            )
            for r in page
        )
        more = None
        if len(rows) > limit:
            last = page[-1]
            more = encode_cursor(Cursor(last.finished_us, last.game_id, last.seat))
        return HistoryPage(entries, more)

    async def profile(self, *, account_id: str | None = None, name: str | None = None) -> Profile:
        """The profile of the account ``account_id``, or of the one named ``name`` (or a
        look-alike of it); ``not_found`` when there is none."""
        who = (
            AccountRow.account_id == account_id
            if account_id is not None
            else AccountRow.skeleton == skeleton(name or "")
        )
        query = (
            select(
                AccountRow.account_id,
                AccountRow.name,
                AccountRow.bot,
                AccountRow.created_at,
                ProfileCountRow.game,
                ProfileCountRow.played,
                ProfileCountRow.won,
            )
            .outerjoin(ProfileCountRow, ProfileCountRow.account_id == AccountRow.account_id)
            .where(who)
            .order_by(ProfileCountRow.game)
        )
        async with self.db.session() as session:  # one query: the account and its counts
            rows = (await session.execute(query)).all()
        if not rows:
            raise RequestError(ErrorCode.NOT_FOUND, "no account has this name")
        first = rows[0]
        since = first.created_at  # SQLite gives it back without its zone: UTC, as stored
        since = since if since.tzinfo is not None else since.replace(tzinfo=UTC)
        games = tuple(GameCount(r.game, r.played, r.won) for r in rows if r.game is not None)
        return Profile(first.account_id, first.name, first.bot, first.created_at.timestamp(), games)

    async def stored(self, gid: str, account_id: str | None) -> GameRecord:
        """The stored game ``gid`` for its replay: seen by everyone when its table was
        public, else only by the accounts that sat at it; ``not_found`` otherwise (a
        private game's existence is not told either)."""
        async with self.db.session() as session:
            row = await session.get(GameRecordRow, gid)
            seats = (
                []
                if row is None
                else list(
                    await session.scalars(
                        select(GameSeatRow)
                        .where(GameSeatRow.game_id == gid)
                        .order_by(GameSeatRow.seat)
                    )
                )
            )
        if row is None or (
            row.private and (account_id is None or all(s.account_id != account_id for s in seats))
        ):
            raise RequestError(ErrorCode.NOT_FOUND, "no stored game with this id for you")
        return GameRecord(
            table_id=row.table_id,
            game_no=row.game_no,
            game=row.game,
            private=row.private,
            options=row.options,
            seed=row.seed,
            log=tuple(LoggedAction(seat=s, action=a, by=b) for s, a, b in row.log),
            seats=tuple(_seat(s) for s in seats),
            result=row.result,
            finished_at=row.finished_us / 1_000_000,
            rated=row.rated,
        )


async def anonymise(session: AsyncSession, account_ids: Sequence[str]) -> None:
    """In ``session`` (the deletion's transaction): the seats of ``account_ids`` in stored
    games become ``deleted player`` with no account; their profile counts go.  The other
    seats, and the games, stay whole."""
    if not account_ids:
        return
    await session.execute(
        update(GameSeatRow)
        .where(GameSeatRow.account_id.in_(account_ids))
        .values(account_id=None, name=DELETED_NAME)
    )
    await session.execute(
        delete(ProfileCountRow).where(ProfileCountRow.account_id.in_(account_ids))
    )


# -- writing, off the move path ---------------------------------------------------------


WRITE_QUEUE_MAX = 10_000
"""Finished games waiting to be written at most; past it the oldest is dropped (logged)."""
RETRY_FIRST_S = 0.5
"""The first wait after a failed write; doubled at each failure in a row."""
RETRY_MAX_S = 30.0
"""The longest wait between retries."""
UNWRITABLE_TRIES = 3
"""Failures in a row, none of them the database being away, after which a game is
given up as never writable (logged as an error): it must not hold the games behind it
up for ever, here or, through the unwritten-records list, on every process."""


def _away(exc: Exception) -> bool:
    """Whether a failed write failed because the database is away (retried for as long
    as it is), not because of the game itself."""
    if isinstance(exc, OSError | TimeoutError | OperationalError | InterfaceError):
        return True
    return isinstance(exc, DBAPIError) and bool(exc.connection_invalidated)


class RecordWriter:
    """Writes finished games in the background, one at a time, in order.

    :meth:`submit` only queues: the table that finished a game has already stored
    and sent its last move, and never waits for (or fails with) the database.  A
    failed write is logged and retried with exponential backoff; as writes are
    idempotent, a retry after a write that did land stores nothing twice.
    """

    def __init__(
        self,
        records: GameRecords,
        *,
        retry_first: float = RETRY_FIRST_S,
        retry_max: float = RETRY_MAX_S,
        on_written: Callable[[float], None] | None = None,
    ) -> None:
        self.records = records
        self.retry_first = retry_first
        self.retry_max = retry_max
        self.on_written = on_written
        """Called with each write's seconds (metrics)."""
        self.on_stored: Callable[[GameRecord], None] | None = None
        """Called with each game once its write is done (team matches: the next table)."""
        self.after_write: Callable[[str], Awaitable[None]] | None = None
        """Awaited with each game's id once its write is done (Redis: no longer listed
        as unwritten, :meth:`server.persist.redis_store.RedisStore.record_written`)."""
        self._queue: deque[GameRecord] = deque()
        self._queued: set[str] = set()
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._idle = asyncio.Event()
        self._idle.set()
        self._log = get_logger(component="records")

    def start(self) -> None:
        """Start the writing task (on the running loop)."""
        self._task = asyncio.create_task(self._run())

    def submit(self, record: GameRecord) -> None:
        """Queue ``record`` for writing (unless it is queued already); returns at once."""
        if record.game_id in self._queued:
            return
        if len(self._queue) >= WRITE_QUEUE_MAX:
            dropped = self._queue.popleft()
            self._queued.discard(dropped.game_id)
            self._log.error("record_dropped", game_id=dropped.game_id)
        self._queue.append(record)
        self._queued.add(record.game_id)
        self._idle.clear()
        self._wake.set()

    @property
    def pending(self) -> int:
        """Games queued and not written yet."""
        return len(self._queue)

    async def drain(self) -> None:
        """Wait until every queued game is written."""
        await self._idle.wait()

    async def _run(self) -> None:
        delay = self.retry_first
        failed = 0  # failures in a row of the game at the head, the database answering
        while True:
            if not self._queue:
                self._idle.set()
                self._wake.clear()
                await self._wake.wait()
                continue
            record = self._queue[0]
            began = time.perf_counter()
            try:
                written = await self.records.write(record)
            except Exception as exc:  # the database is away: keep it, retry later
                failed = 0 if _away(exc) else failed + 1
                if failed < UNWRITABLE_TRIES:
                    self._log.warning(
                        "record_not_written", game_id=record.game_id, error=type(exc).__name__
                    )
                    await asyncio.sleep(delay)
                    delay = min(self.retry_max, delay * 2)
                    continue
                self._log.error("record_unwritable", game_id=record.game_id, error=repr(exc))
                written = False  # given up: off the queue and off the unwritten list
            delay, failed = self.retry_first, 0
            if self._queue and self._queue[0] is record:
                self._queue.popleft()
                self._queued.discard(record.game_id)
            if self.after_write is not None:
                try:
                    await self.after_write(record.game_id)
                except Exception as exc:  # listed still: written again later, harmlessly
                    self._log.warning(
                        "record_not_unlisted", game_id=record.game_id, error=repr(exc)
                    )
            if self.on_written is not None:
                self.on_written(time.perf_counter() - began)
            if written and self.on_stored is not None:  # once, by the write that stored it
                self.on_stored(record)

    async def close(self, timeout: float = 5.0) -> None:
        """Write what is queued (for at most ``timeout`` seconds), then stop."""
        if self._task is None:
            return
        try:
            await asyncio.wait_for(self.drain(), timeout)
        except TimeoutError:
            self._log.error("records_not_written_at_stop", pending=len(self._queue))
        self._task.cancel()
        await asyncio.gather(self._task, return_exceptions=True)
        self._task = None
