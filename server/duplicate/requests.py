"""The duplicate requests (issue 56, docs/duplicate.md): list and make sets, play the
next board, standings and a board's results.

Every read goes through :class:`~server.duplicate.store.DuplicateStore`, which decides
what the asker may see: a board's results and replays only once they have finished
it (or the set closed), the seeds only once the set closed.  Playing a board opens a
private table (:meth:`server.lobby.Lobby.duplicate_table`) whose finished game's write
stores the result (:mod:`server.persist.db.records`), so a board in progress is a
normal table, kept across a restart, and its result is written exactly once.

A player's table of a board has one id on every process (:meth:`SeedKey.table_id`):
asked on another process (another device, a connection that moved) while the table
lives, the answer is ``already_seated`` with its id, never a second deal of the
board; once its game is over and its table closed, the finished game Redis keeps
gives the result if it is not written yet (its process may have died first).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from datetime import UTC, date, datetime, timedelta
from typing import TYPE_CHECKING

from sqlalchemy.exc import DBAPIError

from protocol import client_messages as cm
from protocol.errors import ErrorCode
from protocol.server_messages import (
    DuplicateBoard,
    DuplicateBoardResult,
    DuplicateSetInfo,
    DuplicateSets,
    DuplicateStanding,
    DuplicateStandings,
)
from server.duplicate.boards import (
    BOARD_OPTIONS,
    BoardSet,
    SeedKey,
    daily_set,
    day_start,
    on_demand_set,
)
from server.duplicate.errors import DuplicateError
from server.duplicate.scoring import seat_score
from server.duplicate.store import DuplicateStore
from server.ops.logs import get_logger
from server.persist.db.records import GameRecords
from server.persist.redis_store import RedisStore
from server.persist.store import StoreUnavailable
from server.players.record_requests import game_record_message
from server.players.sessions import Player
from server.tables.options import RequestError

if TYPE_CHECKING:
    from server.lobby import Lobby

DUPLICATE_REQUESTS = (
    cm.ListDuplicateSets,
    cm.CreateDuplicateSet,
    cm.PlayDuplicate,
    cm.GetDuplicateStandings,
    cm.GetDuplicateBoard,
)
"""The messages :meth:`DuplicateRequests.handle` answers."""

WRITE_WAIT = 5.0
"""Seconds ``play_duplicate`` waits for this process's record writer (the board just
finished here decides which board comes next)."""

_log = get_logger(component="duplicate")


def _epoch(at: datetime) -> float:
    return at.timestamp()


class DuplicateRequests:
    """Answers the duplicate requests of one process."""

    def __init__(
        self,
        lobby: Lobby,
        store: DuplicateStore,
        records: GameRecords,
        secret: str = "",
        now: type[datetime] = datetime,
    ) -> None:
        self.lobby = lobby
        self.store = store
        self.records = records
        self.secret = secret
        self._now = now
        self._daily_made: date | None = None

    def now(self) -> datetime:
        """The current UTC time."""
        return self._now.now(UTC)

    async def key(self) -> SeedKey:
        """The seed key, read (or made) once, and given to the lobby for its tables."""
        key = self.lobby.duplicate_key
        if key is None:
            key = await self.store.seed_key(self.secret)
            self.lobby.duplicate_key = key
        return key

    async def make_daily(self, now: datetime) -> tuple[BoardSet, ...]:
        """Today's daily set of every game, stored by the first process that asks (the
        day's sets exist from its start: their ids and seeds follow from the day)."""
        today = now.date()
        sets = tuple(daily_set(game, today) for game in BOARD_OPTIONS)
        if self._daily_made != today:
            for s in sets:
                await self.store.ensure_set(s)
            self._daily_made = today
        return sets

    async def run_daily(
        self, pause: Callable[[float], Awaitable[bool]], retry: float = 60.0
    ) -> None:
        """Store each day's daily sets at its start (UTC midnight) until ``pause`` says
        to stop; a database that does not answer is tried again after ``retry`` seconds
        (the requests also make the day's sets when they find them missing)."""
        wait = 0.0
        while await pause(wait):
            now = self.now()
            try:
                await self.make_daily(now)
            except (DBAPIError, OSError) as exc:
                _log.warning("daily_sets_not_made", error=type(exc).__name__)
                wait = retry
                continue
            tomorrow = day_start(now.date() + timedelta(days=1))
            wait = max((tomorrow - self.now()).total_seconds(), 0.0) + 0.5

    def _check_not_playing(self, player: Player, set_id: str) -> None:
        """One board of a set at a time: a second table of the board in progress would
        deal its cards again before its result is in (``already_seated``: that table).
        A board the player left is still theirs while the AI plays it out
        (:meth:`server.tables.core.TableCore.leave`): its result counts as played."""
        account = None if player.account is None else player.account.account_id
        for table_id, actor in self.lobby.tables.items():
            core = actor.core
            ref = core.setup.options.duplicate
            if actor.closed or ref is None or ref.set_id != set_id or core.status == "finished":
                continue
            if table_id in player.tables:
                raise RequestError(
                    ErrorCode.ALREADY_SEATED,
                    f"finish board {ref.board} first (table {table_id})",
                    table_id,
                )
            if account is not None and any(s.account == account for s in core.seats):
                raise RequestError(
                    ErrorCode.ALREADY_SEATED,
                    f"board {ref.board}, which you left, is being played out by the AI; "
                    "it counts as played",
                    table_id,
                )

    async def _stored_here(self) -> None:
        """Wait (at most :data:`WRITE_WAIT` seconds) for this process's record writer:
        a board whose game just ended here is stored in the background, and until it
        is, it would read as not played and be dealt again."""
        recorder = self.lobby.recorder
        if recorder is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(recorder.drain(), WRITE_WAIT)

    async def _next_board(
        self, board_set: BoardSet, account: str, now: datetime
    ) -> tuple[int, str]:
        """The board ``account`` plays next and its table's id; ``already_seated`` while
        its table lives on another process, ``game_in_progress`` while its finished
        game here is being stored (module docstring)."""
        key = await self.key()
        set_id = board_set.set_id
        while True:
            board = await self.store.next_board(set_id, account)
            if board is None:
                raise DuplicateError(
                    ErrorCode.BOARD_OUT_OF_ORDER, "you have played every board of this set"
                )
            table_id = key.table_id(set_id, board, account)
            actor = self.lobby.tables.get(table_id)
            if actor is not None and not actor.closed:  # finished here: being written
                raise RequestError(
                    ErrorCode.GAME_IN_PROGRESS,
                    f"board {board} is being stored; ask again",
                    table_id,
                )
            if await self.lobby.store.exists(table_id):
                raise RequestError(
                    ErrorCode.ALREADY_SEATED,
                    f"board {board} is being played at table {table_id} (another device or "
                    "server process)",
                    table_id,
                )
            scores = await self._kept_scores(table_id)
            if scores is None:
                return board, table_id
            # played to its end, its table closed, its result not read: written from the
            # finished game (the record writer's own write adds the game's record to it)
            score = seat_score(board_set.game, scores, board_set.seat)
            await self.store.record(set_id, board, account, score, None, now)
            _log.warning("duplicate_result_from_store", set_id=set_id, board=board)

    async def _kept_scores(self, table_id: str) -> list[int] | None:
        """The seats' scores of the finished game Redis keeps of ``table_id``, if any."""
        store = self.lobby.store
        if not isinstance(store, RedisStore):
            return None  # one process: its record writer was waited for (_stored_here)
        game = await store.kept_game(table_id, 1)
        if game is None:
            return None
        return [int(s) for s in (game.get("result") or {}).get("scores") or ()]

    async def handle(self, player: Player, msg: object) -> None:
        """Answer one duplicate request; typed errors for bad input, ``store_unavailable``
        when the database, or the tables' store (Redis), cannot be reached."""
        try:
            await self._handle(player, msg)
        except DuplicateError as exc:
            raise RequestError(exc.code, exc.message, exc.detail) from None
        except (DBAPIError, OSError, StoreUnavailable) as exc:
            _log.warning("database_unavailable", type=type(msg).__name__, error=type(exc).__name__)
            raise RequestError(
                ErrorCode.STORE_UNAVAILABLE, "duplicate sets cannot be reached now; retry soon"
            ) from None

    async def _info(
        self, board_set: BoardSet, account: str | None, now: datetime
    ) -> DuplicateSetInfo:
        nxt = None if account is None else await self.store.next_board(board_set.set_id, account)
        seeds: tuple[int, ...] = ()
        if board_set.seeds_shown(now):
            key = await self.key()
            seeds = tuple(
                key.board_seed(board_set.set_id, b) for b in range(1, board_set.boards + 1)
            )
        return DuplicateSetInfo(
            set_id=board_set.set_id,
            game=board_set.game,
            kind=board_set.kind.value,
            level=board_set.level,
            seat=board_set.seat,
            boards=board_set.boards,
            opens_at=_epoch(board_set.opens_at),
            closes_at=_epoch(board_set.closes_at),
            players=await self.store.players(board_set.set_id),
            next_board=nxt,
            seeds=seeds,
        )

    async def _handle(self, player: Player, msg: object) -> None:
        now = self.now()
        await self.make_daily(now)
        account = None if player.account is None else player.account.account_id
        if isinstance(msg, cm.ListDuplicateSets):
            if msg.game is not None and msg.game not in BOARD_OPTIONS:
                raise RequestError(ErrorCode.UNKNOWN_GAME, f"no duplicate play of {msg.game!r}")
            sets = [
                s for s in await self.store.open_sets(now) if msg.game is None or s.game == msg.game
            ]
            infos = tuple([await self._info(s, account, now) for s in sets])
            player.send(DuplicateSets(ref=msg.id, sets=infos))
        elif isinstance(msg, cm.CreateDuplicateSet):
            if account is None:
                raise RequestError(ErrorCode.NOT_LOGGED_IN, "log in to make a duplicate set")
            made = on_demand_set(
                msg.game,
                msg.level,
                msg.boards,
                timedelta(minutes=msg.minutes),
                account,
                now,
                seat=msg.seat,
            )
            stored = await self.store.ensure_set(made)
            player.send(DuplicateSets(ref=msg.id, sets=(await self._info(stored, account, now),)))
        elif isinstance(msg, cm.PlayDuplicate):
            if account is None:
                raise RequestError(ErrorCode.NOT_LOGGED_IN, "log in to play a duplicate set")
            board_set = await self.store.get_set(msg.set_id)
            self._check_not_playing(player, msg.set_id)
            await self._stored_here()
            board, table_id = await self._next_board(board_set, account, now)
            await self.store.start_board(msg.set_id, account, board, now)
            await self.lobby.duplicate_table(player, board_set, board, table_id, msg.id)
        elif isinstance(msg, cm.GetDuplicateStandings):
            await self.store.get_set(msg.set_id)
            table = await self.store.standings(msg.set_id)
            names = await self.store.names(s.account for s in table)
            player.send(
                DuplicateStandings(
                    ref=msg.id,
                    set_id=msg.set_id,
                    standings=tuple(
                        DuplicateStanding(
                            rank=i + 1,
                            name=names.get(s.account, "deleted player"),
                            boards=s.boards,
                            matchpoints=s.matchpoints,
                            top=s.top,
                            percent=round(s.percent, 2),
                            imps=s.imps,
                        )
                        for i, s in enumerate(table)
                    ),
                )
            )
        elif isinstance(msg, cm.GetDuplicateBoard):
            if account is None:
                raise RequestError(ErrorCode.NOT_LOGGED_IN, "log in to see a board's results")
            report = await self.store.board_report(msg.set_id, msg.board, account, now)
            names = await self.store.names(s.account for s in report.scores)
            replays = []
            for owner, record_id in report.records:
                record = await self.records.stored(record_id, owner)
                replays.append(game_record_message(record, None).replay)
            player.send(
                DuplicateBoard(
                    ref=msg.id,
                    set_id=msg.set_id,
                    board=msg.board,
                    results=tuple(
                        DuplicateBoardResult(
                            name=names.get(s.account, "deleted player"),
                            score=s.score,
                            matchpoints=s.matchpoints,
                            top=s.top,
                            imps=round(s.imps, 2),
                        )
                        for s in report.scores
                    ),
                    replays=tuple(replays),
                )
            )
        else:  # pragma: no cover - the app passes only DUPLICATE_REQUESTS here
            raise RequestError(ErrorCode.BAD_MESSAGE, "not a duplicate request")
