"""The server: WebSocket endpoint, /healthz, request dispatch, graceful shutdown.

:func:`running_server` runs one in-process (tests, ``cardavia play`` without
``--url``); :mod:`server.main` is the ``cardavia-server`` command.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from http import HTTPStatus
from typing import Any

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from protocol import client_messages as cm
from protocol.base import PROTOCOL_VERSION
from protocol.errors import ErrorCode
from protocol.server_messages import Shutdown
from server.ai import AiRunner
from server.config import ServerConfig
from server.connection import Connection
from server.lobby import Lobby
from server.logs import configure, get_logger
from server.metrics import Metrics
from server.sessions import Player, Sessions
from server.store import Store, make_store
from server.table import Command
from server.table_options import RequestError

_TABLE_COMMANDS: dict[type[Any], str] = {
    cm.Leave: "leave",
    cm.Start: "start",
    cm.Chat: "chat",
    cm.Rematch: "rematch",
    cm.GetReplay: "replay",
}


class CardaviaServer:
    """Sessions, lobby and tables behind one WebSocket endpoint."""

    def __init__(
        self,
        config: ServerConfig,
        *,
        store: Store | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.config = config
        self.clock = clock
        self.sessions = Sessions()
        self.metrics = Metrics()
        self.store = store if store is not None else make_store(config.store)
        self.ai = AiRunner(
            config.ai_workers,
            config.ai_think,
            config.ai_deadline,
            self.metrics,
            config.ai_mode,
            queue_limit=config.ai_queue_limit,
            ai_only_rate=config.ai_only_moves_per_s,
        )
        self.lobby = Lobby(config, self.store, self.sessions, self.ai, clock, metrics=self.metrics)
        self.connections: set[Connection] = set()
        self.port = 0
        self._server: Server | None = None
        self._sweeper: asyncio.Task[None] | None = None
        self._started = time.time()
        self._stopping = False
        self._log = get_logger(component="server")

    @property
    def url(self) -> str:
        """The WebSocket URL clients connect to."""
        return f"ws://{self.config.host}:{self.port}"

    # -- lifecycle -----------------------------------------------------------
    async def start(self) -> None:
        """Listen (on ``config.port``, or any free port when it is 0)."""
        self._server = await serve(
            self._handler,
            self.config.host,
            self.config.port,
            process_request=self._http,
            max_size=self.config.max_frame,
            compression=None,
        )
        sock = next(iter(self._server.sockets))
        self.port = sock.getsockname()[1]
        await self.ai.warm()  # spawn the AI workers now, not on the first decisions
        self._sweeper = asyncio.create_task(self._sweep())
        self._log.info("listening", url=self.url, protocol=PROTOCOL_VERSION)

    async def shutdown(self, reason: str = "the server is shutting down") -> None:
        """Tell every client, close their connections with 1001, stop the tables."""
        if self._stopping:
            return
        self._stopping = True
        self._log.info("shutting_down", connections=len(self.connections))
        if self._sweeper is not None:
            self._sweeper.cancel()
        if self._server is not None:
            self._server.close(close_connections=False)
        for conn in list(self.connections):
            conn.send(Shutdown(reason=reason))
            conn.close(1001, "server shutting down")
        if self._server is not None:
            try:
                await asyncio.wait_for(self._server.wait_closed(), 5.0)
            except TimeoutError:
                self._log.warning("connections_did_not_close")
        await self.lobby.stop_all()
        self.ai.shutdown()
        self._log.info("stopped")

    async def _sweep(self) -> None:
        """Forget sessions that stayed away past ``session_ttl``."""
        period = min(60.0, self.config.session_ttl / 2)
        while True:
            await asyncio.sleep(period)
            for player in self.sessions.expired(self.clock(), self.config.session_ttl):
                self.lobby.forget(player)
                self.sessions.forget(player)
                self._log.info("session_expired", player=player.player_id)

    # -- HTTP and WebSocket ----------------------------------------------------
    def _http(self, connection: ServerConnection, request: Request) -> Response | None:
        path = request.path.split("?")[0]
        if path == "/metrics":
            text = self.metrics.render(
                {
                    "cardavia_tables": len(self.lobby.tables),
                    "cardavia_sessions": len(self.sessions),
                    "cardavia_connections": len(self.connections),
                }
            )
            headers = Headers([("Content-Type", "text/plain; version=0.0.4")])
            return Response(HTTPStatus.OK.value, "OK", headers, text.encode())
        if path == "/healthz":
            body = json.dumps(
                {
                    "status": "ok",
                    "protocol": PROTOCOL_VERSION,
                    "tables": len(self.lobby.tables),
                    "sessions": len(self.sessions),
                    "connections": len(self.connections),
                    "uptime_s": round(time.time() - self._started, 1),
                }
            ).encode()
            headers = Headers([("Content-Type", "application/json")])
            return Response(HTTPStatus.OK.value, "OK", headers, body)
        return None

    async def _handler(self, ws: ServerConnection) -> None:
        conn = Connection(ws, self)
        self.connections.add(conn)
        try:
            await conn.run()
        finally:
            self.connections.discard(conn)

    def detach(self, player: Player, conn: Connection) -> None:
        """A connection ended: if it was the player's, their tables start the grace period."""
        if self.sessions.detach(player, conn, self.clock()):
            self.lobby.disconnected(player)

    # -- requests --------------------------------------------------------------
    async def dispatch(self, player: Player, msg: Any) -> None:
        """Handle one validated request of a player with an open session."""
        lobby = self.lobby
        if isinstance(msg, cm.ListGames):
            player.send(lobby.games(msg.id))
        elif isinstance(msg, cm.ListTables):
            player.send(lobby.list_tables(player, msg.game, msg.id))
        elif isinstance(msg, cm.CreateTable):
            await lobby.create(player, msg)
        elif isinstance(msg, cm.QuickPlay):
            await lobby.quick_play(player, msg)
        elif isinstance(msg, cm.JoinTable):
            actor = lobby.find(player, msg.table, msg.invite)
            if msg.table not in player.tables:
                lobby.check_room(player)
            actor.pending_joins += 1
            actor.submit(Command("join", player, msg.id, msg.seat))
        elif isinstance(msg, cm.Spectate):
            actor = lobby.find(player, msg.table, msg.invite)
            if msg.table not in player.tables:
                lobby.check_room(player)
            lobby.check_ai_tables(player, actor)
            actor.submit(Command("spectate", player, msg.id))
        elif isinstance(msg, cm.Act):
            actor = lobby.find(player, msg.table)
            actor.submit(Command("act", player, msg.id, (msg.seat, msg.version, msg.action)))
        elif type(msg) in _TABLE_COMMANDS:
            actor = lobby.find(player, msg.table)
            args = msg.text if isinstance(msg, cm.Chat) else getattr(msg, "game_no", None)
            actor.submit(Command(_TABLE_COMMANDS[type(msg)], player, msg.id, args))
        else:  # pragma: no cover - every message type is handled above
            raise RequestError(ErrorCode.BAD_MESSAGE, f"unexpected message {msg.type!r}")


@asynccontextmanager
async def running_server(
    config: ServerConfig | None = None, *, log_level: str | None = None
) -> AsyncIterator[CardaviaServer]:
    """A started server for the duration of the ``async with`` block; ``server.url`` is its URL.

    ``config`` defaults to 127.0.0.1 on a free port with the usual settings.
    ``log_level`` (e.g. ``"error"``) configures JSON logs on stderr at that
    level first; leave it ``None`` to keep the process's logging as it is.
    """
    if log_level is not None:
        configure(log_level)
    server = CardaviaServer(config or ServerConfig(port=0))
    await server.start()
    try:
        yield server
    finally:
        await server.shutdown()
