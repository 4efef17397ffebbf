"""One WebSocket connection: frames in, validated messages to the app, messages out.

A task reads, except that a move read while that task has nothing to do is
handled in the callback that read it (both take :meth:`Connection._handle`; a
message that :meth:`~Connection.may_run_now` is taken in the callback); the
rest of the server only queues messages
(:meth:`Connection.send` never blocks).  Everything queued for a connection
while the event loop runs its current callbacks is written once they are
done, in order and with one ``transport.write`` (no writer task, no await
per message).  A client that does not read is disconnected rather than
allowed to hold memory.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Coroutine
from typing import Any, Final

from pydantic import BaseModel
from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed

from protocol.base import PROTOCOL_VERSION, known_features
from protocol.client_messages import Act, ClientMessage, Hello, Ping, Rematch
from protocol.codec import (
    Frame,
    FrameError,
    decode_client,
    decode_client_json,
    decode_server,
    encode,
    encode_json,
)
from protocol.errors import ErrorCode
from protocol.server_messages import Error, Pong, TableChanged, Welcome
from server.net.batching import OPEN, BatchingServerConnection
from server.net.frames import BINARY, TEXT, frame
from server.net.host import Host
from server.net.outbox import Queued, drop_superseded, kind_of, summarised_table
from server.net.static import is_json
from server.net.view_changes import FEATURE as VIEW_CHANGES
from server.net.view_changes import ViewsSent
from server.net.websockets_adapter import (
    OUTPUT_QUEUED,
    SENDING_FRAGMENT,
    STATE_OF,
    write_queued,
)
from server.ops.logs import get_logger
from server.ops.metric_series import CounterSeries
from server.players.ratelimit import Strikes, TokenBucket
from server.players.sessions import NameError_, Player, validate_name
from server.tables.options import RequestError
from server.tables.reach import TableReach

# Final names, read on every move: see compiled.modules.HOT_PATH.
_PING: Final = Ping
_HELLO: Final = Hello
_AT_ONCE: Final = (Act, Rematch)
"""Requests for a table handled without waiting, when the table is here
(:meth:`Connection.may_run_now`)."""
_ERROR: Final = Error
_TABLE_CHANGED: Final = TableChanged
_BATCHING: Final = BatchingServerConnection
_OPEN: Final = OPEN
# websockets' internals, or their public fallbacks (server.net.websockets_adapter)
_STATE_OF: Final = STATE_OF
_OUTPUT_QUEUED: Final = OUTPUT_QUEUED
_SENDING_FRAGMENT: Final = SENDING_FRAGMENT
_WRITE_QUEUED: Final = write_queued

OUTBOX_LIMIT: Final = 2000
"""Messages queued for a client before it counts as too slow and is dropped."""
WRITE_BUFFER_LIMIT = 4 * 2**20
"""Bytes the client has not read yet before it counts as too slow and is dropped."""


class Connection:
    """A client connection; implements :class:`server.players.sessions.Link`.

    ``app`` is the server that accepted it, as far as a connection needs it
    (:class:`server.net.host.Host`)."""

    def __init__(self, ws: ServerConnection, app: Host) -> None:
        self.ws = ws
        self.app = app
        self.player: Player | None = None
        self._loop = asyncio.get_running_loop()
        self._outbox: list[Queued] = []
        self._flush_pending = False
        """Whether the app's flusher is to write this connection (server.net.flusher)."""
        self._closing: asyncio.Task[None] | None = None
        self._bucket = TokenBucket(rate=app.config.rate_per_s, burst=app.config.rate_burst)
        config = app.config
        self._strikes = Strikes(config.rate_strikes, config.rate_strike_decay * config.rate_per_s)
        self._depth = app.metrics.histogram("cardavia_send_queue_depth")
        self._superseded = app.metrics.counter("cardavia_summaries_superseded_total")
        self._messages_in: dict[str, CounterSeries] = {}
        """``cardavia_messages_in_total`` by message type (kept: no lookup per message)."""
        self.address = str(ws.remote_address[0]) if ws.remote_address else ""
        """The client's address (the app sets it from a trusted proxy's header)."""
        self._close: tuple[int, str] | None = None
        self.json = is_json(ws.subprotocol)
        """Whether the client speaks JSON text frames (``cardavia.json``), not msgpack."""
        self._features: tuple[str, ...] = ()
        self._views_sent: ViewsSent | None = None
        """With the ``view_changes`` feature: the views sent (server.net.view_changes)."""
        self._busy = False
        """Whether :meth:`run` is handling a message (it may wait meanwhile)."""
        self._log = get_logger(remote=str(ws.remote_address[0]) if ws.remote_address else "")
        self._reach: TableReach = app.reach
        """How a move reaches its table (compiled: no call into the app's code)."""
        self._flusher = app.flusher
        self._protocol = ws.protocol
        self._transport = ws.transport
        """websockets' protocol state machine and socket of ``ws`` (both set before the
        handshake, the same objects all along): looked up once, not at every write."""
        self._hand_framed = (
            ws if isinstance(ws, BatchingServerConnection) and not ws.protocol.extensions else None
        )
        """``ws`` where :meth:`flush_due` frames messages itself: websockets' connection
        is the server's own subclass and the handshake agreed no extension (both
        fixed from now on: looked up once, not at every write); else None."""

    @property
    def features(self) -> tuple[str, ...]:
        """The optional protocol features its ``hello`` asked for (of :data:`FEATURES`)."""
        return self._features

    @features.setter
    def features(self, features: tuple[str, ...]) -> None:
        self._features = features
        if VIEW_CHANGES not in features:
            self._views_sent = None
        elif self._views_sent is None:
            self._views_sent = ViewsSent()

    # -- Link ----------------------------------------------------------------
    def send(self, message: BaseModel | Frame) -> None:
        """Queue ``message`` (or an already encoded frame, sent as is); a client too
        slow to read is disconnected."""
        if self._close is not None:
            return
        kind = kind_of(message)
        if kind is _ERROR:  # counted (a frame's message is made: never an update's)
            error = message.message if isinstance(message, Frame) else message
            if isinstance(error, Error):
                self.app.metrics.inc("cardavia_errors_total", code=str(error.code))
        views = self._views_sent
        if views is not None:  # only what changed in an update's view
            message = views.outgoing(message, kind)
        outbox = self._outbox
        if kind is _TABLE_CHANGED and outbox:  # the newest summary only (server.net.outbox)
            table = summarised_table(message)
            if table is not None and drop_superseded(outbox, table):
                self._superseded.inc()
        if len(outbox) >= OUTBOX_LIMIT:
            self.close(1008, "too slow to read its messages")
            return
        outbox.append(message)
        if not self._flush_pending:
            self._flush_pending = True
            self._flusher.add(self)

    def close(self, code: int, reason: str) -> None:
        """Send what is queued, then close with ``code``."""
        if self._close is None:
            self._close = (code, reason)
            self._flush()
            self._closing = self._loop.create_task(self.ws.close(code, reason))

    # -- writing -------------------------------------------------------------
    def _flush(self) -> None:
        """Write what is queued now (see :meth:`flush_due`)."""
        self._flush_pending = True
        self.flush_due()

    def flush_due(self) -> None:
        """Write every queued message, in order, with one write; drop them if the
        connection is no longer open (it is closing: nothing more can be sent).

        The app's flusher calls it (server.net.flusher) once this connection has
        something queued; nothing is left to do if :meth:`_flush` wrote it meanwhile.
        """
        if not self._flush_pending:
            return
        self._flush_pending = False
        queued = self._outbox
        if not queued:
            return
        ws = self.ws
        transport = self._transport
        if (
            self._close is None
            and transport is not None
            and transport.get_write_buffer_size() > WRITE_BUFFER_LIMIT  # bytes not read yet
        ):
            self.close(1008, "too slow to read its messages")  # sends what is queued first
            return
        self._outbox = []
        protocol = self._protocol
        if _STATE_OF(protocol) is not _OPEN:
            return
        self._depth.observe_count(len(queued))
        try:
            # frames built by hand (see BatchingServerConnection): open (checked
            # above), no extension, no fragmented message under way
            hand_framed = self._hand_framed
            if hand_framed is not None and not _SENDING_FRAGMENT(protocol):
                if self.json:  # a browser: JSON text, encoded for this connection
                    frames = [frame(TEXT, self._json(m)) for m in queued]
                else:
                    frames = [
                        frame(BINARY, m.data if isinstance(m, Frame) else encode(m)) for m in queued
                    ]
                if transport is not None and not _OUTPUT_QUEUED(protocol):
                    # websockets has nothing of its own queued: straight to the socket
                    transport.write(frames[0] if len(frames) == 1 else b"".join(frames))
                else:
                    hand_framed.send_data(frames)
                return
            for message in queued:  # websockets frames them
                if self.json:
                    ws.protocol.send_text(self._json(message))
                else:
                    ws.protocol.send_binary(
                        message.data if isinstance(message, Frame) else encode(message)
                    )
            _WRITE_QUEUED(protocol, ws.transport)
        except Exception as exc:  # the socket failed: end the connection, as websockets does
            self._log.warning("write_failed", error=repr(exc))
            ws.transport.abort()

    @staticmethod
    def _json(message: BaseModel | Frame) -> bytes:
        """The JSON text of ``message`` (a shared :class:`Frame` holds msgpack bytes:
        its message is encoded again, for this connection only)."""
        if not isinstance(message, Frame):
            return encode_json(message).encode()
        plain = message.message  # None: relayed from another process as msgpack
        return encode_json(plain if plain is not None else decode_server(message.data)).encode()

    # -- reading -------------------------------------------------------------
    async def run(self) -> None:
        """Serve the connection until it closes.

        A message websockets queues is read here; a move read while nothing is
        queued or being handled here is handled at once, in the callback that
        read it (:meth:`_receive_now`), which spares a wake-up of this task.
        """
        doorman = asyncio.create_task(self._expect_hello(self.app.config.hello_timeout))
        ws = self.ws
        batching = ws if isinstance(ws, BatchingServerConnection) and not self.json else None
        if batching is not None:
            batching.on_message = self._receive_now
        try:
            async for frame in ws:
                if batching is not None:
                    batching.pending_messages -= 1
                self._busy = True
                try:
                    await self._receive(frame)
                finally:
                    self._busy = False
        except ConnectionClosed:
            pass
        finally:
            if batching is not None:
                batching.on_message = None
            # the socket is closed or closing: nothing more can be sent
            self._close = self._close or (1000, "")
            self._flush_pending = False
            self._outbox.clear()
            doorman.cancel()
            if self.player is not None:
                self.app.detach(self.player, self)

    async def _expect_hello(self, timeout: float) -> None:
        await asyncio.sleep(timeout)
        if self.player is None:
            self.close(1008, "no hello in time")

    # -- incoming ------------------------------------------------------------
    async def _receive(self, frame: bytes | str) -> None:
        if self._close is not None:
            # this side is closing it (e.g. 1012, the table moved): a request read now
            # could change things without any answer reaching the client; it is dropped
            return
        limited = not self._bucket.allow(time.monotonic())
        try:
            msg = decode_client_json(frame) if self.json else decode_client(frame)
        except FrameError as exc:
            code = ErrorCode.RATE_LIMITED if limited else exc.code
            message = "too many messages; slow down" if limited else exc.message
            self._refuse(limited, Error(ref=exc.ref, code=code, message=message))
            return
        waiting = self._handle(msg, limited)
        if waiting is not None:
            await waiting

    def _receive_now(self, payload: bytes) -> bool:
        """Handle a binary message in the callback that read it, if it
        :meth:`may run now <may_run_now>` (a move, a rematch vote, a ping) and nothing
        is ahead of it; else decline it (False): websockets queues it for :meth:`run`."""
        if self._busy or self._close is not None or self.player is None:
            return False
        assert isinstance(self.ws, _BATCHING)
        if self.ws.pending_messages:
            return False
        try:
            msg = decode_client(payload)
        except FrameError:
            return False  # answered by _receive, in turn
        if not self.may_run_now(msg):
            return False
        self._handle(msg, not self._bucket.allow(time.monotonic()))  # None: it ran
        return True

    def may_run_now(self, msg: ClientMessage) -> bool:
        """Whether :meth:`_handle` handles ``msg`` without waiting: a ping, or a move or
        rematch vote whose table is this process's
        (:meth:`server.tables.reach.TableReach.here`: the table handles it at once or
        queues it, :meth:`server.tables.actor.TableActor.submit`)."""
        return isinstance(msg, _PING) or (isinstance(msg, _AT_ONCE) and self._reach.here(msg.table))

    def _handle(self, msg: ClientMessage, limited: bool) -> Coroutine[Any, Any, None] | None:
        """The one way every message takes: count it, refuse it over the rate (``limited``),
        confirm the spare token (the client uses this connection), then handle it now;
        what waits (a hello, a request for the lobby or another process's table) is
        returned, for the reading task to await.  None: ``msg`` is handled, as it
        always is when it :meth:`may run now <may_run_now>`."""
        counter = self._messages_in.get(msg.type)
        if counter is None:
            counter = self._messages_in[msg.type] = self.app.metrics.counter(
                "cardavia_messages_in_total", type=msg.type
            )
        counter.inc()
        if limited:
            message = "too many messages; slow down"
            self._refuse(True, Error(ref=msg.id, code=ErrorCode.RATE_LIMITED, message=message))
            return None
        try:
            player = self.player
            if player is not None and player.spare_token is not None:
                self.app.sessions.confirm(player)  # the welcome (new token) arrived
            if isinstance(msg, _PING):
                self.send(Pong(ref=msg.id))
            elif isinstance(msg, _HELLO):
                return self._greet(msg)
            elif player is None:
                raise RequestError(ErrorCode.HELLO_REQUIRED, "send hello first")
            elif isinstance(msg, _AT_ONCE) and self._reach.here(msg.table):
                self._reach.request(player, msg)
            else:
                return self._dispatch(player, msg)
        except Exception as exc:
            self._failed(msg, exc)
        return None

    async def _greet(self, msg: Hello) -> None:
        """A hello: open or resume the session (:meth:`_hello`), recorded before the
        connection's next request is read."""
        try:
            if self.player is None:
                await self.app.before_hello(msg.token)
            self._hello(msg)
            await self.app.after_hello(self.player)
        except Exception as exc:
            self._failed(msg, exc)

    async def _dispatch(self, player: Player, msg: ClientMessage) -> None:
        """A request the server handles (:meth:`server.net.host.Host.dispatch`)."""
        try:
            await self.app.dispatch(player, msg)
        except Exception as exc:
            self._failed(msg, exc)

    def _failed(self, msg: ClientMessage, exc: Exception) -> None:
        """Answer a request that failed: its :class:`RequestError`, or (a bug, logged)
        that it had no effect."""
        if isinstance(exc, RequestError):
            self.send(Error(ref=msg.id, code=exc.code, message=exc.message, detail=exc.detail))
            return
        self._log.exception("request_failed", type=msg.type, error=repr(exc))
        self.send(
            Error(
                ref=msg.id,
                code=ErrorCode.INTERNAL_ERROR,
                message="the server failed on this request; it had no effect",
            )
        )

    def _refuse(self, limited: bool, error: Error) -> None:
        """Answer ``error``; a connection rate-limited too often is closed (1008)."""
        if limited and self._strikes.add(time.monotonic()):
            self.close(1008, "rate limit exceeded")
        self.send(error)

    def _hello(self, msg: Hello) -> None:
        if self.player is not None:
            raise RequestError(ErrorCode.HELLO_REQUIRED, "this connection already has a session")
        if msg.version != PROTOCOL_VERSION:
            raise RequestError(
                ErrorCode.UNSUPPORTED_VERSION,
                f"this server speaks protocol version {PROTOCOL_VERSION}, not {msg.version}",
            )
        sessions = self.app.sessions
        if msg.token is not None:
            player = sessions.resume(msg.token)
            if player is None:
                raise RequestError(
                    ErrorCode.BAD_TOKEN, "unknown session token; say hello without one"
                )
            sessions.rotate(player, msg.token)  # the token just sent is spent
            old = sessions.attach(player, self)
            if old is not None and old is not self:
                old.close(4000, "the session was resumed on another connection")
            self.player = player
            self.features = known_features(msg.features)
            self._log = self._log.bind(player=player.player_id)
            self.send(self._welcome(msg, player, resumed=True))
            self._log.info("session_resumed")
            self.app.resumed(player)
            return
        try:
            name = validate_name(msg.name)
        except NameError_ as exc:
            raise RequestError(ErrorCode.BAD_NAME, str(exc)) from None
        quotas = self.app.quotas
        quotas.check_session(self.address)
        player = sessions.open(name, self, self.address)
        quotas.add_session(player)
        self.player = player
        self.features = known_features(msg.features)
        self._log = self._log.bind(player=player.player_id)
        self.send(self._welcome(msg, player, resumed=False))
        self._log.info("session_opened", name=name)

    def _welcome(self, msg: Hello, player: Player, *, resumed: bool) -> Welcome:
        return Welcome(
            ref=msg.id,
            version=PROTOCOL_VERSION,
            player_id=player.player_id,
            name=player.name,
            token=player.token,
            resumed=resumed,
            tables=tuple(player.tables),
            features=self.features,
        )
