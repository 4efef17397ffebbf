"""The table actor: one asyncio task per table drains a queue of commands.

Every change to a table — a human's action, an AI move, a timer expiry, a
join, a chat line — is a command on the table's queue; the actor applies
them one at a time through :class:`~server.table_core.TableCore`, persists
what the store needs, and only then sends the messages.  AI moves are
computed off the loop (:mod:`server.ai`) and come back as commands, so they
pass the very same validation as a human's.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from engine.codec import to_plain
from protocol.errors import ErrorCode
from protocol.server_messages import Error, Joined, Left, Ok, TableClosed
from server.ai import AiRunner
from server.logs import get_logger
from server.metrics import Metrics
from server.replay import build_replay
from server.sessions import Player, Sessions
from server.store import Store
from server.table_core import AiTurn, Effects, TableCore
from server.table_options import RequestError

_SILENT = frozenset({"tick", "disconnect", "reconnect", "forget", "ai_move", "stop", "close"})
"""Commands that have no requester waiting for a reply."""


@dataclass(frozen=True)
class Command:
    """A request from a player: ``kind`` names it, ``ref`` is echoed in the reply."""

    kind: str
    player: Player | None = None
    ref: int | None = None
    args: Any = None


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
    ) -> None:
        self.core = core
        self.metrics = metrics or Metrics()
        self.store = store
        self.sessions = sessions
        self.ai = ai
        self.on_close = on_close
        self.clock = clock
        self.queue: asyncio.Queue[Command] = asyncio.Queue()
        self.pending_joins = 0
        self.closed = False
        self._inflight: dict[tuple[int, int], asyncio.Task[None]] = {}
        self._task: asyncio.Task[None] | None = None
        self._log = get_logger(table=core.id, game=core.game.id)

    @property
    def id(self) -> str:
        """The table id."""
        return self.core.id

    def start(self) -> None:
        """Start draining the queue."""
        self._task = asyncio.create_task(self._run(), name=f"table-{self.id}")

    def submit(self, command: Command) -> None:
        """Queue a command (never blocks)."""
        self.queue.put_nowait(command)

    async def wait_closed(self) -> None:
        """Wait until the actor has stopped."""
        if self._task is not None:
            await asyncio.gather(self._task, return_exceptions=True)

    # -- the loop ------------------------------------------------------------
    async def _run(self) -> None:
        try:
            while not self.closed:
                wake = self.core.next_wakeup(self.clock())
                timeout = None if wake is None else max(0.0, wake - self.clock())
                try:
                    command = await asyncio.wait_for(self.queue.get(), timeout)
                except TimeoutError:
                    command = Command("tick")
                await self._handle(command)
                if not self.closed:
                    try:
                        self._schedule_ai()
                    except Exception as exc:  # an engine bug: log it, keep the table
                        self._log.exception("ai_schedule_failed", error=repr(exc))
        finally:
            for task in self._inflight.values():
                task.cancel()
            self._inflight.clear()
            self._refuse_queued()

    def _refuse_queued(self) -> None:
        """Answer the requests still queued at a table that has stopped."""
        while not self.queue.empty():
            command = self.queue.get_nowait()
            if command.player is not None and command.kind not in _SILENT:
                command.player.send(
                    Error(
                        ref=command.ref,
                        code=ErrorCode.NOT_FOUND,
                        message=f"table {self.id!r} has closed",
                        table=self.id,
                    )
                )

    async def _handle(self, command: Command) -> None:
        handler = getattr(self, "_on_" + command.kind)
        try:
            await handler(command)
        except RequestError as exc:
            if command.player is not None:
                command.player.send(
                    Error(
                        ref=command.ref,
                        code=exc.code,
                        message=exc.message,
                        detail=exc.detail,
                        table=self.id,
                    )
                )
        except Exception as exc:  # one bad command must not kill the table
            self._log.exception("command_failed", command=command.kind, error=repr(exc))
            if command.player is not None:
                command.player.send(
                    Error(
                        ref=command.ref,
                        code=ErrorCode.INTERNAL_ERROR,
                        message="the server failed on this request; it had no effect",
                        table=self.id,
                    )
                )

    async def _commit(self, eff: Effects) -> None:
        """Persist first, then send; close the table if nobody is left."""
        game = self.core.game.id
        if eff.started is not None:
            game_no, seed = eff.started
            await self.store.start_game(self.id, game_no, seed)
            self.metrics.inc("cardavia_games_started_total", game=game)
            self._log.info("game_started", game_no=game_no, version=self.core.version)
        if eff.applied is not None:
            await self.store.append(self.id, eff.applied)
            self.metrics.inc("cardavia_actions_total", game=game, by=eff.applied.by)
            self._log.debug(
                "applied", seat=eff.applied.seat, by=eff.applied.by, version=self.core.version
            )
        for pid, message in eff.outs:
            self._send(pid, message)
        if self.core.status == "finished" and eff.applied is not None:
            self.metrics.inc("cardavia_games_finished_total", game=game)
            self._log.info("game_over", game_no=self.core.game_no, version=self.core.version)
        if eff.closed:
            await self._close(eff.close_reason or "everybody left")

    def _send(self, player_id: str, message: BaseModel) -> None:
        player = self.sessions.get(player_id)
        if player is not None:
            player.send(message)

    def _reply(self, command: Command, message: BaseModel) -> None:
        if command.player is not None:
            command.player.send(message)

    async def _close(self, reason: str) -> None:
        for pid in self.core.members():
            player = self.sessions.get(pid)
            if player is not None:
                player.tables.pop(self.id, None)
                player.send(TableClosed(table=self.id, reason=reason))
        self.closed = True
        await self.store.delete(self.id)
        self.on_close(self.id)
        self._log.info("table_closed", reason=reason)

    # -- commands ------------------------------------------------------------
    async def _on_tick(self, command: Command) -> None:
        await self._commit(self.core.tick(self.clock()))

    async def _on_join(self, command: Command) -> None:
        self.pending_joins = max(0, self.pending_joins - 1)
        player = command.player
        assert player is not None
        eff = self.core.join(player.player_id, player.name, command.args, self.clock())
        seat = self.core.seat_of(player.player_id)
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
        await self._commit(eff)

    async def _on_spectate(self, command: Command) -> None:
        player = command.player
        assert player is not None
        eff = self.core.spectate(player.player_id, player.name, self.clock())
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
        await self._commit(eff)

    async def _on_leave(self, command: Command) -> None:
        player = command.player
        assert player is not None
        eff = self.core.leave(player.player_id, self.clock())
        player.tables.pop(self.id, None)
        self._reply(command, Left(ref=command.ref, table=self.id))
        self._log.info("left", player=player.player_id)
        await self._commit(eff)

    async def _on_forget(self, command: Command) -> None:
        """A session expired: like a leave, without a reply."""
        player = command.player
        assert player is not None
        if self.core.is_member(player.player_id):
            await self._commit(self.core.leave(player.player_id, self.clock()))

    async def _on_disconnect(self, command: Command) -> None:
        assert command.player is not None
        await self._commit(self.core.disconnect(command.player.player_id, self.clock()))

    async def _on_reconnect(self, command: Command) -> None:
        assert command.player is not None
        await self._commit(self.core.reconnect(command.player.player_id, self.clock()))

    async def _on_start(self, command: Command) -> None:
        assert command.player is not None
        eff = self.core.request_start(command.player.player_id, self.clock())
        self._reply(command, Ok(ref=command.ref))
        await self._commit(eff)

    async def _on_act(self, command: Command) -> None:
        assert command.player is not None
        seat, version, action = command.args
        eff = self.core.act(command.player.player_id, seat, version, action, "human", self.clock())
        await self._commit(eff)
        self._reply(command, Ok(ref=command.ref))

    async def _on_chat(self, command: Command) -> None:
        assert command.player is not None
        eff = self.core.chat(command.player.player_id, command.args, self.clock())
        await self._commit(eff)
        self._reply(command, Ok(ref=command.ref))

    async def _on_rematch(self, command: Command) -> None:
        assert command.player is not None
        eff = self.core.rematch(command.player.player_id, self.clock())
        self._reply(command, Ok(ref=command.ref))
        await self._commit(eff)

    async def _on_replay(self, command: Command) -> None:
        game_no: int | None = command.args
        archive = self.core.archive
        if not archive:
            raise RequestError(ErrorCode.GAME_IN_PROGRESS, "no game has ended at this table yet")
        wanted = archive[-1] if game_no is None else None
        for finished in archive:
            if finished.game_no == game_no:
                wanted = finished
        if wanted is None:
            raise RequestError(ErrorCode.NOT_FOUND, f"no replay of game {game_no} is kept here")
        replay = build_replay(self.id, self.core.game, self.core.setup.game_options, wanted)
        self._reply(command, replay.model_copy(update={"ref": command.ref}))

    async def _on_ai_move(self, command: Command) -> None:
        turn, action = command.args
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
        await self._commit(eff)

    async def _on_close(self, command: Command) -> None:
        await self._close(command.args or "the table was closed")

    async def _on_stop(self, command: Command) -> None:
        """Stop the actor; the record stays in the store (server shutdown)."""
        self.closed = True

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
                core.game.id, turn.level, core.setup.fallback, view, legal, table=self.id
            )
            if turn.by == "ai":
                pause = core.ai_delay - (self.clock() - started)
                if pause > 0:
                    await asyncio.sleep(pause)
            if core.ai_only():
                await self.ai.pace()  # nobody plays here: the shared pace (server.ai_pace)
            self.submit(Command("ai_move", args=(turn, to_plain(action))))
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            self._inflight.pop((turn.seat, turn.version), None)
            self._log.exception("ai_turn_failed", seat=turn.seat, error=repr(exc))
