"""The team match requests (issue 56, docs/duplicate.md Team matches): make, list,
join, leave, start and read a match, play one's next table, and a board's results.

A member's table of a board is a normal table made through the lobby under an id
derived from the match, the board and the table (:func:`~server.duplicate.team_store.
table_id`): private, no hints, the match's AI level at the layout's AI seats, the
board's seed (the lobby derives it from the server's secret, the match id and the
board, as a set's board).  The first member to ask claims the table in the database
and makes it live in their process's lobby; the others join it there (through the bus
when it lives on another process).  Its seats are reserved (:meth:`TeamRequests.
check_join`), nobody watches it (a duplicate board's table refuses spectators), and
its finished game's write stores the table's result (:func:`~server.duplicate.
team_store.record_table`).

A member who does not come does not hold the match up (as a tournament's absent
player, :data:`server.tournaments.seating.ABSENT_FILL`): a table waits for its members
``absent_fill`` seconds (``team_absent_fill``), counted from the match's start or the
table's previous board; then the AI of the match's level takes the seats still empty,
and a table no member asked for is made anyway (:meth:`TeamRequests.fill_absent`).  The
member may still come and take their seat back (:meth:`server.tables.core.TableCore.join`);
the board counts for the team as played.  A table whose members all missed its whole
previous board is not waited for again (:meth:`TeamRequests.fill_wait`): nobody of it
would otherwise hold each of its boards up by the full wait.  What an asker may
see of another table is decided here: a board's scores and replays only once the
asker's own table has played the board.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from sqlalchemy.exc import DBAPIError

from protocol import client_messages as cm
from protocol.errors import ErrorCode
from protocol.models import AiSeat, DuplicateBoardRef, TableOptions
from protocol.server_messages import (
    Replay,
    TeamBoardLine,
    TeamMatch,
    TeamMatchBoard,
    TeamMatches,
    TeamMatchInfo,
    TeamMatchTable,
    TeamMember,
    TeamTableResult,
)
from server.duplicate.boards import BOARD_OPTIONS
from server.duplicate.errors import DuplicateError, board_not_played
from server.duplicate.store import DuplicateStore
from server.duplicate.team_store import (
    MatchStatus,
    Member,
    TableResult,
    TeamStore,
    as_result,
    new_match,
    next_board,
    parse_table_id,
    seat_of,
    table_id,
)
from server.duplicate.team_store import (
    TeamMatch as Match,
)
from server.duplicate.teams import Team, board_net, layout, table_totals, team_size
from server.ops.logs import get_logger
from server.persist.db.game_record import GameRecord
from server.persist.db.records import GameRecords
from server.persist.redis_store import RedisStore
from server.persist.store import StoreUnavailable
from server.players.record_requests import game_record_message
from server.players.sessions import Player
from server.tables.commands import Join
from server.tables.options import RequestError

if TYPE_CHECKING:
    from server.lobby import Lobby

TEAM_REQUESTS = (
    cm.CreateTeamMatch,
    cm.ListTeamMatches,
    cm.JoinTeamMatch,
    cm.LeaveTeamMatch,
    cm.StartTeamMatch,
    cm.GetTeamMatch,
    cm.PlayTeamMatch,
    cm.GetTeamMatchBoard,
)
"""The messages :meth:`TeamRequests.handle` answers."""

TURN_TIMER = 60.0
"""Seconds per turn at a match table: a member who stops acting would hold up the end
of the match forever (its last board waits for every table); past it the AI plays
their turn."""
WRITE_WAIT = 5.0
"""Seconds a ``play_team_match`` waits for this process's writer to store the board
just finished at the asker's table (its result decides which board comes next)."""

REMAKE_AFTER = 5.0
"""Seconds after its claim a table that lives nowhere and was not played is made again
(before, it is the claimer's, still being made: ``table_moving``, asked again)."""

Forward = Callable[[Player, object, str], Awaitable[None]]
"""Sends a request to the process that owns a table (:meth:`server.cluster.bus.Bus.forward`)."""
Push = Callable[[Sequence[tuple[str, TeamMatchTable]]], None]
"""Sends each notice to its account's connections, on every process
(:meth:`server.cluster.bus.Bus.push_accounts`)."""

_log = get_logger(component="team_matches")


def table_options(match: Match, board: int, table: int, absent_fill: float) -> TableOptions:
    """The options of a match table of one board (module docstring): the AI takes the
    seats still empty ``absent_fill`` seconds after it is made."""
    at = layout(match.game)[table]
    return TableOptions(
        ai=tuple(
            AiSeat(seat=s, level=match.level)
            for s, sitter in enumerate(at.seats)
            if sitter.team is None
        ),
        seat=None,
        private=True,
        hints=False,
        turn_timer=TURN_TIMER,
        fill_after=absent_fill,
        game=dict(BOARD_OPTIONS[match.game]),
        duplicate=DuplicateBoardRef(set_id=match.match_id, board=board, match_table=table),
    )


class TeamRequests:
    """Answers the team match requests of one process."""

    def __init__(
        self,
        lobby: Lobby,
        store: TeamStore,
        records: GameRecords,
        names: DuplicateStore,
        key: Callable[[], Awaitable[object]],
        absent_fill: float,
        max_open: int = 0,
    ) -> None:
        self.lobby = lobby
        self.absent_fill = absent_fill
        """Seconds a table waits for its members (``team_absent_fill``, module docstring)."""
        self.max_open = max_open
        """Matches forming or playing one account may have created
        (``max_team_matches_per_account``; 0: no cap)."""
        self.store = store
        self.records = records
        self.names = names
        self.key = key
        """Reads (or makes) the boards' seed key and gives it to the lobby."""
        self.forward: Forward | None = None
        """Set when the process is part of a cluster: a table owned elsewhere is joined there."""
        self.push: Push = self._push_here
        """Delivers the notices; in a cluster, to the members connected to any process."""
        self._tasks: set[asyncio.Task[None]] = set()
        self._seen: dict[str, datetime] = {}
        """When this process first knew each match being played (its start, at the latest)."""

    async def handle(self, player: Player, msg: object) -> None:
        """Answer one request; typed errors for bad input (nothing changes), and
        ``store_unavailable`` when the database cannot be reached."""
        try:
            await self._handle(player, msg)
        except DuplicateError as exc:
            raise RequestError(exc.code, exc.message, exc.detail) from None
        except (DBAPIError, OSError, StoreUnavailable) as exc:
            _log.warning("database_unavailable", type=type(msg).__name__, error=type(exc).__name__)
            raise RequestError(
                ErrorCode.STORE_UNAVAILABLE, "team matches cannot be reached now; retry soon"
            ) from None

    async def _handle(self, player: Player, msg: object) -> None:
        account = None if player.account is None else player.account.account_id
        ref = getattr(msg, "id", None)
        if isinstance(msg, cm.ListTeamMatches):
            if msg.game is not None and msg.game not in BOARD_OPTIONS:
                raise RequestError(ErrorCode.UNKNOWN_GAME, f"no team duplicate of {msg.game!r}")
            found = await self.store.listed(msg.game)
            player.send(TeamMatches(ref=ref, matches=await self.infos(found, account)))
            return
        if isinstance(msg, cm.GetTeamMatch):
            match = await self.store.get(msg.match_id)
            player.send(TeamMatch(ref=ref, match=await self.info(match, account)))
            return
        if isinstance(msg, cm.GetTeamMatchBoard):
            player.send(await self.board(msg, account))
            return
        if account is None:
            raise RequestError(ErrorCode.NOT_LOGGED_IN, "log in to play a team match")
        if isinstance(msg, cm.CreateTeamMatch):
            made = new_match(msg.game, msg.level, msg.boards, msg.private, account, msg.auto_start)
            await self.store.create(made, datetime.now(UTC), self.max_open)
            _log.info("team_match_created", match=made.match_id, game=made.game)
            await self._answer(player, ref, made.match_id, account)
        elif isinstance(msg, cm.JoinTeamMatch):
            team = None if msg.team is None else Team(msg.team)
            if await self.store.join(msg.match_id, account, team, msg.slot):
                self._started(msg.match_id)
            await self._answer(player, ref, msg.match_id, account)
        elif isinstance(msg, cm.LeaveTeamMatch):
            await self.store.leave(msg.match_id, account)
            await self._answer(player, ref, msg.match_id, account)
        elif isinstance(msg, cm.StartTeamMatch):
            await self.store.start(msg.match_id, account)
            self._started(msg.match_id)
            await self._answer(player, ref, msg.match_id, account)
        elif isinstance(msg, cm.PlayTeamMatch):
            await self.play(player, msg, account)
        else:  # pragma: no cover - the app passes only TEAM_REQUESTS here
            raise RequestError(ErrorCode.BAD_MESSAGE, "not a team match request")

    async def _answer(self, player: Player, ref: int | None, match_id: str, account: str) -> None:
        match = await self.store.get(match_id)
        player.send(TeamMatch(ref=ref, match=await self.info(match, account)))

    # -- playing ---------------------------------------------------------------
    async def _place(self, match: Match, account: str) -> tuple[Member, int, int]:
        """The asker's roster slot, table and seat (``not_a_member``)."""
        roster = await self.store.roster(match.match_id)
        me = next((m for m in roster if m.account == account), None)
        if me is None:
            raise DuplicateError(ErrorCode.NOT_A_MEMBER, "only the match's members play it")
        table, seat = seat_of(match.game, me)
        return me, table, seat

    async def _next(self, match: Match, table: int) -> int:
        board = next_board(match, table, await self.store.results(match.match_id))
        if board is None:
            raise DuplicateError(
                ErrorCode.BOARD_OUT_OF_ORDER,
                f"your table has played all {match.boards} boards of the match",
                str(match.boards),
            )
        return board

    async def play(self, player: Player, msg: cm.PlayTeamMatch, account: str) -> None:
        """Seat the member at their table of their next board: join it where it lives,
        or claim and make it here (module docstring)."""
        match = await self.store.get(msg.match_id)
        if match.status is MatchStatus.FORMING:
            raise DuplicateError(ErrorCode.ROSTER_NOT_FULL, "the match has not started")
        _, table, seat = await self._place(match, account)
        board = await self._next(match, table)
        tid = table_id(match.match_id, board, table)
        actor = self.lobby.tables.get(tid)
        if actor is not None and actor.core.status == "finished" and self.lobby.recorder:
            # the board was just played here: its result, being written, decides what's next
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.lobby.recorder.drain(), WRITE_WAIT)
            board = await self._next(match, table)
            tid = table_id(match.match_id, board, table)
            actor = self.lobby.tables.get(tid)
        if tid in player.tables:
            raise RequestError(ErrorCode.ALREADY_SEATED, f"you sit at board {board}'s table", tid)
        if actor is not None and not actor.closed:
            if actor.core.status == "finished":
                raise RequestError(
                    ErrorCode.GAME_IN_PROGRESS, f"board {board} is being stored; ask again", tid
                )
            self.lobby.check_room(player)
            actor.pending_joins += 1
            actor.submit(Join(player, msg.id, seat))
            return
        now = datetime.now(UTC)
        if not await self.store.claim(match.match_id, board, table, now):
            elsewhere = await self.lobby.store.exists(tid)
            if elsewhere and self.forward is not None:
                await self.forward(player, msg, tid)
                return
            if elsewhere:  # stored, not yet live: being made here now
                raise RequestError(
                    ErrorCode.TABLE_MOVING, f"board {board}'s table is being made", "0.3"
                )
            if await self._played(match, board, table, tid):
                raise RequestError(
                    ErrorCode.GAME_IN_PROGRESS, f"board {board} is being stored; ask again", tid
                )
            # claimed, yet no table lives and it was not played: being made right now,
            # or it closed before its game began (everybody left it): then make it again
            if not await self.store.reclaim(
                match.match_id, board, table, now - timedelta(seconds=REMAKE_AFTER), now
            ):
                raise RequestError(
                    ErrorCode.TABLE_MOVING, f"board {board}'s table is being made", "0.3"
                )
        await self.key()
        options = table_options(match, board, table, await self.fill_wait(match, board, table))
        await self.lobby.team_table(
            match.game, options, tid, player, seat, msg.id, level=match.level
        )
        _log.info("team_table_made", match=match.match_id, board=board, table=table)
        self._notify(match.match_id, board, table, skip=account)

    async def _lost(self, match: Match, board: int, table: int, now: datetime) -> bool:
        """Whether a claimed table lives nowhere and was not played (its members left
        it before its game began, and nobody asked again): then claimed again here, by
        one process, to be made anyway."""
        tid = table_id(match.match_id, board, table)
        if tid in self.lobby.tables or await self.lobby.store.exists(tid):
            return False
        if await self._played(match, board, table, tid):
            return False
        before = now - timedelta(seconds=REMAKE_AFTER)
        return await self.store.reclaim(match.match_id, board, table, before, now)

    async def _played(self, match: Match, board: int, table: int, tid: str) -> bool:
        """Whether board ``board`` was played at ``table`` though its result is not read
        yet: written by this process's writer meanwhile, or kept finished in Redis while
        another process's writer stores it (a table whose game is over closes once its
        people leave, before the write)."""
        if self.lobby.recorder is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.lobby.recorder.drain(), WRITE_WAIT)
        results = await self.store.results(match.match_id)
        if any(r.board == board and r.table == table for r in results):
            return True
        store = self.lobby.store
        return isinstance(store, RedisStore) and await store.kept_game(tid, 1) is not None

    async def check_join(self, player: Player, table: str, seat: int | None) -> None:
        """``forbidden`` unless ``player`` is the member of ``seat`` at the match table
        ``table`` (any other table: allowed): a match table's seats are reserved."""
        parsed = parse_table_id(table)
        if parsed is None:
            return
        match_id, _, index = parsed
        try:
            match = await self.store.get(match_id)
            roster = await self.store.roster(match_id)
        except DuplicateError:
            return  # not a match's table after all
        except (DBAPIError, OSError):
            raise RequestError(
                ErrorCode.STORE_UNAVAILABLE, "team matches cannot be reached now; retry soon"
            ) from None
        account = None if player.account is None else player.account.account_id
        for member in roster:
            if member.account == account and seat_of(match.game, member) == (index, seat):
                return
        raise RequestError(ErrorCode.FORBIDDEN, "a team match table's seats are reserved")

    # -- notices ---------------------------------------------------------------
    def _push_here(self, notices: Sequence[tuple[str, TeamMatchTable]]) -> None:
        """Send each notice to its account's sessions connected here (one process)."""
        by_account = dict(notices)
        for session in self.lobby.sessions:
            account = session.account
            if account is not None and session.connected and account.account_id in by_account:
                session.send(by_account[account.account_id])

    def _spawn(self, work: Awaitable[None]) -> None:
        async def run() -> None:
            try:
                await work
            except (DBAPIError, OSError, DuplicateError, StoreUnavailable) as exc:
                _log.warning("team_notice_failed", error=type(exc).__name__)

        task = asyncio.create_task(run())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def stop(self) -> None:
        """End the notices still being sent (the server stops: their connections are
        closing), before the database they read closes."""
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    def _started(self, match_id: str) -> None:
        """Tell the members that their first table is ready."""
        self._seen.setdefault(match_id, datetime.now(UTC))
        self._spawn(self._tell(match_id, None))

    def _notify(self, match_id: str, board: int, table: int, skip: str | None) -> None:
        self._spawn(self._tell(match_id, table, board, skip))

    def stored(self, record: GameRecord) -> None:
        """A game was stored here: if it was a match table's board, tell that table's
        members that their next table is ready (or the match is over)."""
        team = record.team
        if team is not None:
            self._spawn(self._tell(team.match_id, team.table))

    async def _tell(
        self, match_id: str, table: int | None, board: int | None = None, skip: str | None = None
    ) -> None:
        """Push ``team_match_table`` to the members of ``table`` (``None``: every table),
        wherever they are connected (:attr:`push`): their next board (``board`` when
        given), or ``None`` when the match is over."""
        match = await self.store.get(match_id)
        roster = await self.store.roster(match_id)
        results = await self.store.results(match_id)
        notices: list[tuple[str, TeamMatchTable]] = []
        over = match.status is MatchStatus.FINISHED  # every member learns the match is over
        for member in roster:
            at, seat = seat_of(match.game, member)
            if (table is not None and at != table and not over) or member.account == skip:
                continue
            nxt = board if board is not None else next_board(match, at, results)
            if over:
                nxt = None
            notice = TeamMatchTable(
                match_id=match_id,
                board=nxt,
                table=None if nxt is None else at,
                seat=None if nxt is None else seat,
            )
            notices.append((member.account, notice))
        if notices:
            self.push(notices)

    # -- absent members --------------------------------------------------------
    async def fill_wait(
        self, match: Match, board: int, table: int, results: Sequence[TableResult] = ()
    ) -> float:
        """Seconds the table of ``board`` waits for its members before the AI takes their
        empty seats: :attr:`absent_fill`, or none when every member of the table missed
        its whole previous board (the AI played each of their seats from its start to its
        end).  Not when only some did: the table's seats fill together, and a member
        who played the board before must not find the AI in their seat."""
        if board == 1:
            return self.absent_fill
        if not results:
            results = await self.store.results(match.match_id)
        before = next((r for r in results if r.board == board - 1 and r.table == table), None)
        if before is None:
            return self.absent_fill
        seats = layout(match.game)[table].seats
        members = {s for s, sitter in enumerate(seats) if sitter.team is not None}
        missed = members & await self.store.ai_seats(before.record_id)
        return 0.0 if missed == members else self.absent_fill

    async def run_absent(self, pause: Callable[[float], Awaitable[bool]]) -> None:
        """Make, every short while, the tables whose members have not come
        (:meth:`fill_absent`) until ``pause`` says the server stops."""
        period = min(5.0, max(0.1, self.absent_fill / 4))
        while await pause(period):
            try:
                await self.fill_absent(datetime.now(UTC))
            except (DBAPIError, OSError, StoreUnavailable, RequestError, DuplicateError) as exc:
                _log.warning("team_absent_pass_failed", error=type(exc).__name__)

    async def fill_absent(self, now: datetime) -> int:
        """Make the next board's table of every match table that no member has asked
        for within :attr:`absent_fill` of the match's start (stored; for a match started
        before it was, as this process first saw it) or of the table's previous board
        (:meth:`fill_wait`: none when all its members missed it): claimed once in the
        database, as a member's request claims it, and played by the AI of the match's
        level in the members' seats until they come (module docstring).  How many were
        made."""
        made = 0
        playing = await self.store.playing()
        self._seen = {m.match_id: self._seen.get(m.match_id, now) for m in playing}
        wait = timedelta(seconds=self.absent_fill)
        for match in playing:
            results = await self.store.results(match.match_id)
            claimed = await self.store.claimed(match.match_id)
            for table in range(len(layout(match.game))):
                board = next_board(match, table, results)
                if board is None:
                    continue
                before = [r.finished_at for r in results if r.table == table]
                since = max((t for t in before if t is not None), default=None)
                waited = now - (since or match.started_at or self._seen[match.match_id])
                if waited < wait and await self.fill_wait(match, board, table, results) > 0:
                    continue
                tid = table_id(match.match_id, board, table)
                if (board, table) in claimed:
                    if not await self._lost(match, board, table, now):
                        continue
                elif not await self.store.claim(match.match_id, board, table, now):
                    continue
                await self.key()
                options = table_options(match, board, table, 0.0)
                await self.lobby.team_table(match.game, options, tid, None, 0, level=match.level)
                _log.info("team_table_absent", match=match.match_id, board=board, table=table)
                self._notify(match.match_id, board, table, skip=None)
                made += 1
        return made

    # -- reading ---------------------------------------------------------------
    async def info(self, match: Match, account: str | None) -> TeamMatchInfo:
        """``match`` as ``account`` may see it (module docstring)."""
        return (await self.infos((match,), account))[0]

    async def infos(
        self, matches: Sequence[Match], account: str | None
    ) -> tuple[TeamMatchInfo, ...]:
        """Each of ``matches`` as :meth:`info` shows it, their rosters, results and
        names read in one query each (a listing shows up to a hundred)."""
        ids = [m.match_id for m in matches]
        rosters = await self.store.rosters(ids)
        results = await self.store.results_of(ids)
        people = {m.account for r in rosters.values() for m in r}
        people |= {m.creator for m in matches if m.creator is not None}
        names = await self.names.names(sorted(people))
        return tuple(
            self._info(m, account, rosters[m.match_id], results[m.match_id], names) for m in matches
        )

    @staticmethod
    def _info(
        match: Match,
        account: str | None,
        roster: Sequence[Member],
        results: Sequence[TableResult],
        names: Mapping[str, str],
    ) -> TeamMatchInfo:
        me = next((m for m in roster if m.account == account), None)
        my_table = None if me is None else seat_of(match.game, me)[0]
        lines = tuple(
            _line(match, b, results, my_table)
            for b in range(1, match.boards + 1)
            if any(r.board == b for r in results)
        )
        return TeamMatchInfo(
            match_id=match.match_id,
            game=match.game,
            boards=match.boards,
            level=match.level,
            private=match.private,
            status=match.status.value,
            creator=None if match.creator is None else names.get(match.creator),
            team_size=team_size(match.game),
            tables=len(layout(match.game)),
            roster=tuple(
                TeamMember(team=m.team.value, slot=m.slot, name=names.get(m.account, "?"))
                for m in roster
            ),
            results=lines,
            imps_a=match.imps_a,
            imps_b=match.imps_b,
            my_team=None if me is None else me.team.value,
            my_slot=None if me is None else me.slot,
            my_table=my_table,
            next_board=None
            if my_table is None or match.status is not MatchStatus.PLAYING
            else next_board(match, my_table, results),
        )

    async def board(self, msg: cm.GetTeamMatchBoard, account: str | None) -> TeamMatchBoard:
        """A board's line and the other tables' replays, once the asker may see them."""
        match = await self.store.get(msg.match_id)
        if msg.board > match.boards:
            raise DuplicateError(
                ErrorCode.BAD_OPTIONS, f"the match has {match.boards} boards", str(msg.board)
            )
        roster = await self.store.roster(match.match_id)
        me = next((m for m in roster if m.account == account), None)
        my_table = None if me is None else seat_of(match.game, me)[0]
        results = await self.store.results(match.match_id)
        line = _line(match, msg.board, results, my_table)
        if not board_shown(line, my_table):
            raise board_not_played(msg.board)
        replays: list[Replay] = []
        for r in results:
            if r.board != msg.board or r.table == my_table:
                continue
            # read as one of the table's members who sat there (the AI may have played
            # an absent member's seat to the end; a table nobody came to has no replay)
            for sitter in (m.account for m in roster if seat_of(match.game, m)[0] == r.table):
                try:
                    stored = await self.records.stored(r.record_id, sitter)
                except RequestError:
                    continue
                replays.append(game_record_message(stored, None).replay)
                break
        return TeamMatchBoard(
            ref=msg.id, match_id=match.match_id, line=line, replays=tuple(replays)
        )


def board_shown(line: TeamBoardLine, my_table: int | None) -> bool:
    """Whether a board's other tables may be shown: to a member once their own table
    (``my_table``) has played it, to anyone else once every table has (Secrecy)."""
    if my_table is None:
        return line.imps is not None
    return any(t.done for t in line.tables if t.table == my_table)


def _line(
    match: Match, board: int, results: Sequence[TableResult], my_table: int | None
) -> TeamBoardLine:
    """Board ``board``'s line: a table's totals shown to a member once their own table
    has played the board (to others once every table has), the net once every table has."""
    at = {r.table: r for r in results if r.board == board}
    tables = layout(match.game)
    complete = len(at) == len(tables)
    shown = complete if my_table is None else my_table in at
    cells = []
    for t in range(len(tables)):
        r = at.get(t)
        totals = None
        if r is not None and shown:
            totals = table_totals(match.game, t, as_result(r.scores))
        cells.append(
            TeamTableResult(
                table=t,
                done=r is not None,
                a_total=None if totals is None else totals[0],
                b_total=None if totals is None else totals[1],
            )
        )
    if not complete:
        return TeamBoardLine(board=board, tables=tuple(cells))
    net = board_net(match.game, board, [as_result(at[t].scores) for t in range(len(tables))])
    return TeamBoardLine(board=board, tables=tuple(cells), net=net.net, imps=net.imps)
