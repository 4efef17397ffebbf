"""The table actor: one asyncio task per table drains a queue of commands.

Every change to a table — a human's action, an AI move, a timer expiry, a
join, a chat line — is a command on the table's queue; the actor applies
them one at a time through :class:`~server.tables.core.TableCore`, persists
what the store needs, and only then sends the messages.  AI moves are
computed off the loop (:mod:`server.ai.pool`) and come back as commands, so they
pass the very same validation as a human's.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Callable
from typing import Any, Final

from pydantic import BaseModel

from engine.codec import to_plain
from protocol.codec import Frame, unchecked
from protocol.errors import ErrorCode
from protocol.server_messages import ChatLine, Error, Joined, Left, Ok, Reason, Replay, TableClosed
from server.ai.pool import AiRunner
from server.duplicate.boards import ai_decision_seed
from server.ops.logs import get_logger
from server.ops.metrics import Metrics
from server.persist.db.game_record import GameRecord, record_to_plain
from server.persist.db.records import RecordWriter
from server.persist.store import LeaseLost, Store, StoreUnavailable
from server.players.quotas import Quotas
from server.players.sessions import Player, Sessions
from server.tables.at_once import run_at_once
from server.tables.commands import (
    PRESENCE,
    REQUESTS,
    AiMove,
    Chat,
    Close,
    Disconnect,
    Forget,
    GetReplay,
    Join,
    Kick,
    Leave,
    Lost,
    Move,
    Reconnect,
    Rematch,
    Request,
    Spectate,
    Start,
    Stop,
    TableCommand,
    Tick,
    unhandled,
)
from server.tables.core import TableCore
from server.tables.options import RequestError
from server.tables.record import game_record
from server.tables.replay import build_replay, finished_to_plain, table_meta
from server.tables.summary_hold import SummaryHold
from server.tables.values import AiTurn, Effects, Out

_perf_counter: Final = time.perf_counter
"""Read on every move (a Final name: compiled, a C static, not two lookups)."""
_MOVE: Final = Move
_AT_ONCE: Final = (Move, Rematch)
"""Commands handled in the caller's turn when the table is idle (:meth:`TableActor.submit`):
the moves, and the rematch vote every seated human sends after each game."""
_REQUESTS: Final = REQUESTS
_PRESENCE: Final = PRESENCE
_SEATING: Final = (Join, Spectate)
"""Requests that seat the player or let them watch: undone in their session too when
the store fails."""


def _time_up(waiter: asyncio.Future[bool]) -> None:
    if not waiter.done():
        waiter.set_result(True)


TIMER_SLACK_S: Final = 0.002
"""Added to each wait for the core's next wakeup: uvloop counts a timer's delay and its
clock in whole milliseconds, so the timer may fire a millisecond or two before
``time.monotonic`` reaches the moment, and the tick would find nothing due yet (the
core keeps that wakeup, :meth:`TableCore.next_wakeup`: the actor would tick again at once)."""
STORE_RETRY_S: Final = 1.0
"""After the store failed, the table retries what is due (timers, AI turns) this much later."""
RETRY_AFTER: Final = 1.0
"""Seconds a client refused with ``table_moving`` is told to wait before sending again."""


def table_moving(ref: int | None, table_id: str) -> Error:
    """The answer to a request that was not applied because its table is moving to
    another server process (issue 53): the client sends it again after ``detail``
    seconds; ``not_found`` would tell it the table does not exist."""
    return Error(
        ref=ref,
        code=ErrorCode.TABLE_MOVING,
        message="the table is moving to another server process; send it again soon",
        detail=f"{RETRY_AFTER:.1f}",
        table=table_id,
    )


class TableActor:
    """Owns one :class:`TableCore`; see the module docstring."""

    def __init__(
        self,
        core: TableCore,
        *,
        store: Store,
        sessions: Sessions,
        ai: AiRunner,
        on_close: Callable[[str], None],
        clock: Callable[[], float] = time.monotonic,
        metrics: Metrics | None = None,
        quotas: Quotas | None = None,
    ) -> None:
        self.core = core
        self.quotas = quotas
        self.metrics = metrics or Metrics()
        game = core.game.id
        self._latency = self.metrics.histogram("cardavia_action_latency_seconds", game=game)
        self._store_append = self.metrics.histogram("cardavia_store_seconds", op="append")
        self._actions = {
            by: self.metrics.counter("cardavia_actions_total", game=game, by=by)
            for by in ("human", "ai", "timer")
        }
        """The series the action path records into (kept: no lookup per move)."""
        self.store = store
        self.sessions = sessions
        self.ai = ai
        self.on_close = on_close
        self.clock = clock
        self._replay: Replay | None = None
        """The replay last built here (:meth:`_on_replay`)."""
        self.queue: deque[TableCommand] = deque()
        self._waiter: asyncio.Future[bool] | None = None
        """Set while the actor waits for a command (True: its wakeup came)."""
        self._waiting_until: float | None = None
        """The wakeup it waits for meanwhile (None: none)."""
        self.pending_joins = 0
        self.closed = False
        self.moved = False
        """Whether the actor stopped with the table still recorded (another process took
        it, or this one is stopping): the requests it did not handle are ``table_moving``."""
        self._inflight: dict[tuple[int, int], asyncio.Task[None]] = {}
        self._task: asyncio.Task[None] | None = None
        self._retry_at: float | None = None
        self._saved_meta: dict[str, Any] | None = None
        self._unarchived: tuple[int, dict[str, Any]] | None = None
        self.recorder: RecordWriter | None = None
        """Stores each finished game (game records); ``None``: not stored."""
        self._record: GameRecord | None = None
        """The record of the game just finished, archived with it (:meth:`_persist`)."""
        self.on_lost: Callable[[str], None] | None = None
        """Called (instead of ``on_close``) when another process took the table over."""
        self._log = get_logger(table=core.id, game=core.game.id)
        self._summaries = SummaryHold()
        """Sends what commands produced, summary-only changes briefly held."""

    @property
    def id(self) -> str:
        """The table id."""
        return self.core.id

    def start(self) -> None:
        """Start draining the queue."""
        self._task = asyncio.create_task(self._run(), name=f"table-{self.id}")

    def submit(self, command: TableCommand) -> None:
        """Queue a command (never blocks); a move or a rematch vote at an idle table is
        handled at once (:meth:`_handle_now`)."""
        waiter = self._waiter
        if (
            isinstance(command, _AT_ONCE)
            and waiter is not None
            and not waiter.done()
            and not self.queue
            and self.store.completes_at_once
            and self._retry_at is None
        ):
            self._handle_now(command, waiter)
            return
        self.queue.append(command)
        if waiter is not None and not waiter.done():
            waiter.set_result(False)

    def _handle_now(self, command: Move | Rematch, waiter: asyncio.Future[bool]) -> None:
        """Handle ``command`` in the caller's turn of the event loop, as the actor would in
        its own, sparing the actor's wake-up per move (or rematch vote).

        Only while the actor waits with nothing queued, so commands still run one at
        a time and in order, and on a store whose writes complete without waiting
        (``Store.completes_at_once``), so the handler runs to its end in this one
        step.  The actor is woken after all when the table closed or its next wakeup
        (a timer, say) moved before the one it waits for.
        """
        run_at_once(self._handle(command), "the table's store completes at once")
        if not self.closed:
            self._after_command()
        wake = None if self.closed else self.core.next_wakeup(self.clock())
        parked = self._waiting_until
        if self.closed or (wake is not None and (parked is None or wake < parked)):
            waiter.set_result(False)  # it looks again (_next_command returns None)

    async def wait_closed(self) -> None:
        """Wait until the actor has stopped."""
        if self._task is not None:
            await asyncio.gather(self._task, return_exceptions=True)

    # -- the loop ------------------------------------------------------------
    async def _run(self) -> None:
        loop = asyncio.get_running_loop()  # once: each call asks the OS for the pid (3.11)
        try:
            while not self.closed:
                command = await self._next_command(loop)
                if command is None:  # woken to look again: the table changed meanwhile
                    continue
                await self._handle(command)
                if not self.closed:
                    self._after_command()
        finally:
            for task in self._inflight.values():
                task.cancel()
            self._inflight.clear()
            self._refuse_queued()

    def _after_command(self) -> None:
        """What follows every command: the AI's turns that are now due."""
        if self._retry_at is None or self._retry_at <= self.clock():
            try:
                self._schedule_ai()
            except Exception as exc:  # an engine bug: log it, keep the table
                self._log.exception("ai_schedule_failed", error=repr(exc))

    async def _next_command(self, loop: asyncio.AbstractEventLoop) -> TableCommand | None:
        """The next queued command, or a ``tick`` when the core's next wakeup comes first;
        None when woken with nothing queued (a move was handled at once meanwhile:
        the wakeup is to be worked out again).

        One future per wait and a timer handle only when the core has a wakeup
        due (cheaper than ``asyncio.wait_for`` on a queue for every command).
        """
        now = self.clock()
        wake = self.core.next_wakeup(now)
        if self._retry_at is not None:  # the store failed: try what is due again then
            wake = self._retry_at if wake is None else min(wake, self._retry_at)
        while True:
            if wake is not None and wake <= now:
                return Tick()
            if self.queue:
                return self.queue.popleft()
            self._waiter = waiter = loop.create_future()
            self._waiting_until = wake
            timer = (
                None
                if wake is None
                else loop.call_later(wake - now + TIMER_SLACK_S, _time_up, waiter)
            )
            try:
                timed_out = await waiter
            finally:
                self._waiter = None
                if timer is not None:
                    timer.cancel()
            if timed_out and not self.queue:
                return Tick()
            if not self.queue:
                return None
            # ``wake`` still holds, or is early at worst (costing a tick): a move handled
            # at once meanwhile that brought the wakeup forward has woken us to look again
            now = self.clock()

    def _refuse_queued(self) -> None:
        """Answer the requests still queued at a table that has stopped: ``not_found``
        where it closed, ``table_moving`` where it lives on in the store (:attr:`moved`):
        none was applied, so each may be sent again."""
        while self.queue:
            command = self.queue.popleft()
            if isinstance(command, Join):  # not coming after all: nobody waits for it
                self.pending_joins = max(0, self.pending_joins - 1)
            if not isinstance(command, _REQUESTS):
                continue
            if self.moved:
                command.player.send(table_moving(command.ref, self.id))
            else:
                command.player.send(
                    Error(
                        ref=command.ref,
                        code=ErrorCode.NOT_FOUND,
                        message=f"table {self.id!r} has closed",
                        table=self.id,
                    )
                )

    async def _handle(self, command: TableCommand) -> None:
        """Apply ``command`` through its handler; on a store failure put the core back as
        it was (:meth:`TableCore.checkpoint`) and refuse it; refuse a bad request."""
        checkpoint = self.core.checkpoint() if self.store.may_fail else None
        try:
            # one class a handler, the moves first (most commands are)
            if isinstance(command, _MOVE):
                await self._on_move(command)
            elif isinstance(command, AiMove):
                await self._on_ai_move(command)
            elif isinstance(command, Tick):
                await self._commit(self.core.tick(self.clock()))
            elif isinstance(command, Rematch):
                await self._on_rematch(command)
            elif isinstance(command, Join):
                await self._on_join(command)
            elif isinstance(command, Spectate):
                await self._on_spectate(command)
            elif isinstance(command, Leave):
                await self._on_leave(command)
            elif isinstance(command, Chat):
                await self._on_chat(command)
            elif isinstance(command, Start):
                await self._on_start(command)
            elif isinstance(command, Kick):
                await self._on_kick(command)
            elif isinstance(command, GetReplay):
                self._on_replay(command)
            elif isinstance(command, Disconnect):
                await self._on_disconnect(command)
            elif isinstance(command, Reconnect):
                await self._commit(self.core.reconnect(command.player.player_id, self.clock()))
            elif isinstance(command, Forget):
                await self._on_forget(command)
            elif isinstance(command, Close):
                await self._close(command.reason or "the table was closed")
            elif isinstance(command, Lost):
                self._lose("another process owns the table now")
            elif isinstance(command, Stop):
                self.closed = self.moved = True  # the record stays in the store (shutdown)
            else:
                unhandled(command)
        except StoreUnavailable as exc:
            if checkpoint is not None:
                self.core.restore(checkpoint)
            self._retry_at = self.clock() + STORE_RETRY_S
            self._log.warning("store_unavailable", command=command.kind, error=str(exc))
            if isinstance(command, _REQUESTS):
                if isinstance(command, _SEATING):
                    command.player.tables.pop(self.id, None)
                self._refuse(
                    command,
                    ErrorCode.STORE_UNAVAILABLE,
                    "the table's store is unavailable; nothing changed, retry soon",
                )
            if isinstance(command, _SEATING) and not self.core.members() and not self.pending_joins:
                await self._close("nobody could sit down")  # its creator could not
        except LeaseLost as exc:  # fenced out: another process drives the table now
            if checkpoint is not None:  # whoever the request would have seated is not
                self.core.restore(checkpoint)  # closed with the members (_lose) ...
            if isinstance(command, _REQUESTS):  # ... but told to send it again, to the new
                if isinstance(command, _SEATING):  # owner (a move carries its version)
                    command.player.tables.pop(self.id, None)
                command.player.send(table_moving(command.ref, self.id))
            self._lose(str(exc))
        except RequestError as exc:
            self._refuse(command, exc.code, exc.message, exc.detail, exc.reason)
        except Exception as exc:  # one bad command must not kill the table
            self._log.exception("command_failed", command=command.kind, error=repr(exc))
            self._refuse(
                command,
                ErrorCode.INTERNAL_ERROR,
                "the server failed on this request; it had no effect",
            )

    def _refuse(
        self,
        command: TableCommand,
        code: ErrorCode,
        message: str,
        detail: str | None = None,
        reason: Reason | None = None,
    ) -> None:
        """Answer ``command``'s player (a request's, with its ``ref``; a session
        event's, without) with an error about this table; the ``reason`` only to a
        connection that asked for it (the ``reasons`` feature), null for the others,
        whose clients say the English ``message`` as before."""
        if isinstance(command, _REQUESTS):
            player, ref = command.player, command.ref
        elif isinstance(command, _PRESENCE):
            player, ref = command.player, None
        else:
            return
        link = player.link
        if reason is not None and (link is None or "reasons" not in link.features):
            reason = None
        player.send(
            Error(ref=ref, code=code, message=message, detail=detail, table=self.id, reason=reason)
        )

    async def _commit(self, eff: Effects, *, seating: bool = True) -> None:
        """Persist first, then send; close the table if nobody is left."""
        await self._persist(eff, seating=seating, asked=False)
        await self._deliver(eff)

    async def _persist(self, eff: Effects, *, seating: bool = True, asked: bool = True) -> None:
        """Write what the store needs (raises :class:`StoreUnavailable`: nothing is sent).

        ``seating`` False: the command was a move, which changes no seating; the
        table's meta is then only looked at when the game's status changed.
        ``asked``: a request that changes the seating (join, leave, start …) is
        answered only once that seating is stored, else refused (nothing acknowledged
        is lost: a join answered but not stored was a seat lost to a failover); a
        tick's or a presence change's seating is written again with a later command.
        """
        core = self.core
        if self._unarchived is not None:  # before a new game may reset the log
            await self.store.archive(self.id, self._unarchived[0], self._unarchived[1])
            self._unarchived = None
        if eff.started is not None:
            # the seating that starts a game is stored before the game: a process that
            # dies between the two writes leaves a full table waiting, which the process
            # taking it over starts (a tick).  Stored after it, the last joiners' seats
            # were restored empty in a game under way: the AI played them and the game
            # counted for nobody in them (a tournament round lost for two players)
            await self._save_meta(strict=True)
            game_no, seed = eff.started
            began = _perf_counter()
            try:
                await self.store.start_game(self.id, game_no, seed, core.version - len(core.log))
            except StoreUnavailable:
                self._saved_meta = None  # the core goes back: its seating is written again
                raise
            self.metrics.observe("cardavia_store_seconds", _perf_counter() - began, op="start_game")
        if eff.applied is not None:
            began = _perf_counter()
            await self.store.append(self.id, eff.applied, time.time())
            self._store_append.observe(_perf_counter() - began)
            if core.status == "finished" and core.archive:
                last = core.archive[-1]
                finished = finished_to_plain(last)
                finished["start_version"] = core.version - len(core.log)
                if self.recorder is not None:  # kept with the game until it is written
                    try:
                        self._record = game_record(core, self.clock())
                    except Exception as exc:  # an engine bug: the last move still goes out
                        self._log.exception("record_not_built", error=repr(exc))
                    else:
                        finished["record"] = record_to_plain(self._record)
                try:
                    await self.store.archive(self.id, last.game_no, finished)
                except StoreUnavailable:  # the move is durable; keep its replay for later
                    self._unarchived = (last.game_no, finished)
                    self._retry_at = self.clock() + STORE_RETRY_S
                    return
        self._retry_at = None
        if eff.closed:
            return
        saved = self._saved_meta
        if (
            seating
            or saved is None
            or saved["status"] != core.status
            or saved["game_no"] != core.game_no
        ):
            await self._save_meta(strict=asked)

    async def _save_meta(self, *, strict: bool = False) -> None:
        """Record the seating when it changed; a failure is retried with the next command
        (``strict``: raised, for a request's and a game's start, see :meth:`_persist`).

        The lobby summary saved with it, for a store that lists the tables to
        every process (``Store.lists_tables``), is the one the lobby lists
        (:meth:`TableCore.listed_info`): a change of seating or status has just
        built it for the ``table`` message; otherwise it is at most
        :data:`~server.tables.core.LISTING_TTL` old, as listed.
        """
        now = self.clock()
        core = self.core
        meta = table_meta(core, now, time.time())
        key = {**meta, "fill_at": core.fill_at, "status": core.status, "game_no": core.game_no}
        if key == self._saved_meta:
            return
        if self.store.lists_tables:  # for the other processes' lobbies
            info = core.listed_info(now).model_dump(mode="json")
            members = core.members()
            meta["summary"] = {"info": info, "members": members, "fill_level": core.fill_level}
        try:
            await self.store.save_meta(self.id, meta)
        except StoreUnavailable as exc:
            self._saved_meta = None
            if strict:
                raise
            self._retry_at = now + STORE_RETRY_S
            self._log.warning("meta_not_saved", error=str(exc))
            return
        self._saved_meta = key

    async def _deliver(self, eff: Effects) -> None:
        """Send what a persisted command produced."""
        game = self.core.game.id
        if eff.started is not None:
            self.metrics.inc("cardavia_games_started_total", game=game)
            self._log.info("game_started", game_no=eff.started[0], version=self.core.version)
        if eff.applied is not None:
            by = eff.applied.by
            series = self._actions.get(by) or self.metrics.counter(
                "cardavia_actions_total", game=game, by=by
            )
            series.inc()
            self._log.debug(
                "applied", seat=eff.applied.seat, by=eff.applied.by, version=self.core.version
            )
        self._summaries.send(eff.outs, self._send_now)
        if self.core.status == "finished" and eff.applied is not None:
            self.metrics.inc("cardavia_games_finished_total", game=game)
            self._log.info("game_over", game_no=self.core.game_no, version=self.core.version)
            record, self._record = self._record, None  # built with the archive (_persist)
            if self.recorder is not None and record is not None:  # stored in the background
                self.recorder.submit(record)
        if eff.closed:
            await self._close(eff.close_reason or "everybody left")

    def _send_now(self, outs: list[Out]) -> None:
        """Send each message to its player, encoding each message object only once
        (an update comes encoded already)."""
        frames: dict[int, Frame] = {}
        for pid, message in outs:
            player = self.sessions.get(pid)
            if player is None or player.link is None:
                continue
            if isinstance(message, Frame):
                player.send(message)
                continue
            if type(message) is ChatLine and self._ignored(player, message):
                continue  # muted or blocked: for that session only (server.players.relations)
            frame = frames.get(id(message))
            if frame is None:
                frame = frames[id(message)] = Frame.of(message)
            player.send(frame)

    def _ignored(self, player: Player, line: ChatLine) -> bool:
        """Whether ``player`` mutes or blocks the chat line's sender (by account, when the
        sender is logged in; else by the sender's session)."""
        relations = player.relations
        if not relations.muted and not relations.blocked:
            return False
        sender = self.sessions.get(line.player_id)
        return player.ignores(line.player_id if sender is None else sender.key)

    def _send(self, player_id: str, message: BaseModel) -> None:
        player = self.sessions.get(player_id)
        if player is not None:
            player.send(message)

    def _reply(self, command: Request, message: BaseModel) -> None:
        command.player.send(message)

    async def _close(self, reason: str) -> None:
        self._summaries.drop()
        for pid in self.core.members():
            player = self.sessions.get(pid)
            if player is not None:
                player.tables.pop(self.id, None)
                player.send(TableClosed(table=self.id, reason=reason))
        self.closed = True
        try:
            await self.store.delete(self.id)
        except (StoreUnavailable, LeaseLost) as exc:  # the record is cleaned up on a later pass
            self._log.warning("table_record_kept", error=str(exc))
        self.on_close(self.id)
        self._log.info("table_closed", reason=reason)

    def _lose(self, reason: str) -> None:
        """Another process owns the table now: stop, and send its people to reconnect."""
        self.closed = self.moved = True
        self._summaries.drop()
        for pid in self.core.members():
            player = self.sessions.get(pid)
            if player is not None:
                player.tables.pop(self.id, None)
                if player.link is not None:
                    player.link.close(1012, "the table moved to another server; reconnect")
        (self.on_lost or self.on_close)(self.id)
        self._log.warning("table_lost", reason=reason)

    # -- commands (dispatched by :meth:`_handle`) -----------------------------
    async def _on_join(self, command: Join) -> None:
        self.pending_joins = max(0, self.pending_joins - 1)
        player = command.player
        account = player.account
        eff = self.core.join(
            player.player_id,
            player.name,
            command.seat,
            self.clock(),
            present=player.connected,
            bot=account is not None and account.bot,
            account=None if account is None else account.account_id,
        )
        await self._persist(eff)
        seat = self.core.seat_of(player.player_id)
        if seat is None:  # gone before it was seated (a quick-play table does not seat them)
            eff.closed = eff.closed and not self.pending_joins  # not if somebody is coming
            await self._deliver(eff)
            return
        player.tables[self.id] = seat
        self._reply(
            command,
            Joined(
                ref=command.ref,
                table=self.core.info(self.clock()),
                seat=seat,
                invite=self.core.invite,
            ),
        )
        self._log.info("joined", player=player.player_id, seat=seat)
        await self._deliver(eff)

    async def _on_spectate(self, command: Spectate) -> None:
        player = command.player
        if self.quotas is not None and self.id not in player.tables:
            self.quotas.check_watch(player)
        eff = self.core.spectate(player.player_id, player.name, self.clock())
        await self._persist(eff)
        player.tables[self.id] = None
        self._reply(
            command,
            Joined(
                ref=command.ref,
                table=self.core.info(self.clock()),
                seat=None,
                invite=self.core.invite,
            ),
        )
        self._log.info("spectating", player=player.player_id)
        await self._deliver(eff)

    async def _on_leave(self, command: Leave) -> None:
        player = command.player
        eff = self.core.leave(player.player_id, self.clock())
        await self._persist(eff)
        player.tables.pop(self.id, None)
        self._reply(command, Left(ref=command.ref, table=self.id))
        self._log.info("left", player=player.player_id)
        await self._deliver(eff)

    async def _on_forget(self, command: Forget) -> None:
        """A session expired: like a leave, without a reply."""
        player_id = command.player.player_id
        if self.core.is_member(player_id):
            await self._commit(self.core.leave(player_id, self.clock()))

    async def _on_disconnect(self, command: Disconnect) -> None:
        player = command.player
        seated = self.core.seat_of(player.player_id) is not None
        await self._commit(self.core.disconnect(player.player_id, self.clock()))
        if seated and not self.core.is_member(player.player_id):
            # a waiting quick-play seat given up; a player back already (their resume
            # came before this) is told, as their welcome still listed the table
            player.tables.pop(self.id, None)
            player.send(Left(table=self.id))

    async def _on_start(self, command: Start) -> None:
        eff = self.core.request_start(command.player.player_id, self.clock())
        await self._persist(eff)
        self._reply(command, Ok(ref=command.ref))
        await self._deliver(eff)

    async def _on_move(self, command: Move) -> None:
        player = command.player
        link = player.link
        eff = self.core.act(
            player.player_id,
            command.seat,
            command.version,
            command.action,
            "human",
            self.clock(),
            answer=link is not None and "update_ref" in link.features,
            ref=command.ref,
        )
        await self._commit(eff, seating=False)
        if not eff.answered:  # else the player's own update carries the ref
            self._reply(command, unchecked(Ok, {"type": "ok", "ref": command.ref}))  # a valid ref
        self._latency.observe(_perf_counter() - command.received)

    async def _on_chat(self, command: Chat) -> None:
        eff = self.core.chat(command.player.player_id, command.text, self.clock())
        await self._commit(eff)
        self._reply(command, Ok(ref=command.ref))

    async def _on_kick(self, command: Kick) -> None:
        """The owner removes a player before the game begins (:meth:`TableCore.kick`)."""
        target = command.target
        eff = self.core.kick(command.player.player_id, target, self.clock())
        await self._persist(eff)
        gone = self.sessions.get(target)
        if gone is not None:
            gone.tables.pop(self.id, None)
        self._reply(command, Ok(ref=command.ref))
        self._log.info("kicked", player=target, by=command.player.player_id)
        await self._deliver(eff)

    async def _on_rematch(self, command: Rematch) -> None:
        eff = self.core.rematch(command.player.player_id, self.clock())
        await self._persist(eff)
        self._reply(command, Ok(ref=command.ref))
        await self._deliver(eff)

    def _on_replay(self, command: GetReplay) -> None:
        game_no = command.game_no
        archive = self.core.archive
        if not archive:
            raise RequestError(ErrorCode.GAME_IN_PROGRESS, "no game has ended at this table yet")
        wanted = archive[-1] if game_no is None else None
        for finished in archive:
            if finished.game_no == game_no:
                wanted = finished
        if wanted is None:
            raise RequestError(ErrorCode.NOT_FOUND, f"no replay of game {game_no} is kept here")
        replay = self._replay
        if replay is None or replay.game_no != wanted.game_no:
            # kept: a finished game does not change, and rebuilding it replays every move
            # of the match, where a kept one is only copied and encoded
            replay = build_replay(self.id, self.core.game, self.core.setup.game_options, wanted)
            self._replay = replay
        self._reply(command, replay.model_copy(update={"ref": command.ref}))

    async def _on_ai_move(self, command: AiMove) -> None:
        turn, action = command.turn, command.action
        self._inflight.pop((turn.seat, turn.version), None)
        try:
            eff = self.core.act(None, turn.seat, turn.version, action, turn.by, self.clock())
        except RequestError as exc:
            if exc.code in (ErrorCode.STALE_VERSION, ErrorCode.FORBIDDEN, ErrorCode.NOT_PLAYING):
                return  # the turn was played meanwhile, or the human is back: drop it
            self._log.error("ai_illegal_move", seat=turn.seat, code=exc.code, detail=exc.detail)
            legal = self.core.game.legal_actions(self.core.state, turn.seat)
            eff = self.core.act(
                None, turn.seat, turn.version, to_plain(legal[0]), turn.by, self.clock()
            )
        await self._commit(eff, seating=False)

    # -- AI --------------------------------------------------------------------
    def _schedule_ai(self) -> None:
        for turn in self.core.ai_due(self.clock()):
            key = (turn.seat, turn.version)
            if key not in self._inflight:
                self._inflight[key] = asyncio.create_task(self._ai_turn(turn))

    async def _ai_turn(self, turn: AiTurn) -> None:
        core = self.core
        started = self.clock()
        try:
            view = core.game.view(core.state, turn.seat)
            legal = core.game.legal_actions(core.state, turn.seat)
            action = await self.ai.choose(
                core.game.id,
                turn.level,
                core.setup.fallback,
                view,
                legal,
                table=self.id,
                peers=core.peers(),
                seed=None
                if core.setup.options.duplicate is None
                else ai_decision_seed(core.seed, turn.seat, len(core.log)),
            )
            if turn.by == "ai":
                pause = core.ai_delay - (self.clock() - started)
                if pause > 0:
                    await asyncio.sleep(pause)
            if core.ai_only():
                await self.ai.pace()  # nobody plays here: the shared pace (server.ai.pace)
            self.submit(AiMove(turn, to_plain(action)))
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            self._inflight.pop((turn.seat, turn.version), None)
            self._log.exception("ai_turn_failed", seat=turn.seat, error=repr(exc))
