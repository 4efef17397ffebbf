"""websockets' server connection, batching its writes and reading moves at once.

Kept apart from :mod:`server.net.connection` and plain Python: it extends
websockets' own connection class, and compiled (``python -m compiled.build``) it
crashed in the garbage collector; the rest of the hot path is compiled.

What it uses of websockets' internals (the hooks it overrides, the protocol's
attributes it reads) is probed at import in :mod:`server.net.websockets_adapter`;
where a hook does not hold, the server runs websockets' own connection class
instead (:data:`SERVER_CONNECTION`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from websockets.asyncio.server import ServerConnection
from websockets.frames import DATA_OPCODES
from websockets.frames import Frame as WsFrame
from websockets.protocol import Event, State

from server.net import keepalive
from server.net.frames import FrameSplitter
from server.net.websockets_adapter import (
    HOOKS,
    MESSAGE_LIMIT,
    READ_AT_ONCE,
    READING_FRAGMENT,
    STATE_OF,
    write_queued,
)

_monotonic = time.monotonic
"""The clock of :attr:`BatchingServerConnection.heard_at` (a global: read on every read)."""
OPEN = State.OPEN


_state_of = STATE_OF
_reading_fragment = READING_FRAGMENT
"""websockets' internals read on every read (server.net.websockets_adapter), as globals."""


class BatchingServerConnection(ServerConnection):
    """websockets' server connection that writes all its pending frames at once, and
    hands whole binary messages to :attr:`on_message` in the callback that reads them.

    Writing: websockets makes one ``transport.write`` (one system call) per
    frame; :meth:`send_data` joins what is pending into one, and also takes
    frames already built by :func:`server.net.frames.frame` (cheaper than websockets' own
    framing, for the messages the server pushes), which :class:`server.net.connection.Connection`
    uses while the connection is open, without extensions (no compression)
    and with no fragmented message under way.

    Reading: once the handshake is over, :meth:`data_received` cuts the bytes
    into frames itself (:class:`server.net.frames.FrameSplitter`).  A final, masked binary frame
    within the size limit, read while the connection is open and no
    fragmented message is under way, goes to :attr:`on_message`, which
    handles it there and then or declines it.  Every other frame, and a
    declined one, goes to websockets whole, as it came, so websockets' parser
    always stands between two frames: control frames, text, fragments, bad
    frames and the closing handshake stay websockets' own.  This is only done
    when nothing followed the handshake request before the handshake ended
    (a client may not send frames before the answer, RFC 6455 4.1), so that
    websockets' parser is known to stand between two frames when it starts.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.on_message: Callable[[bytes], bool] | None = None
        """Handles one whole binary message at once (True) or declines it (False)."""
        self.pending_messages = 0
        """Whole messages websockets has queued that the reader has not taken yet."""
        self._splitter: FrameSplitter | None = None
        self._handshake: bytearray | None = bytearray()
        """What was read before the handshake ended (None: websockets reads it all)."""
        self.heard_at = _monotonic()
        """When the peer last sent anything (:mod:`server.net.keepalive`)."""
        self.pinged_at: float | None = None
        """When the keepalive's outstanding ping went out (None: none is)."""

    def data_received(self, data: bytes) -> None:
        """Feed ``data`` to websockets, or, after the handshake, cut it into frames."""
        self.heard_at = _monotonic()
        splitter = self._splitter or self._split_from_now()
        if splitter is None:
            self._note_handshake(data)
            super().data_received(data)
            return
        protocol = self.protocol
        for whole, payload in splitter.frames(data):
            handler = self.on_message  # read per frame: a handler may close the connection
            if (  # the conditions of the class docstring (inline: a call less per message)
                payload is None
                or handler is None
                or _state_of(protocol) is not OPEN
                or _reading_fragment(protocol) is not None  # a client's fragments under way
                or not handler(payload)
            ):
                super().data_received(whole)
        if splitter.broken:  # websockets has had the rest and fails the connection
            self._splitter = None

    def _split_from_now(self) -> FrameSplitter | None:
        """At the first bytes after the handshake: the splitter, if websockets' parser
        stands between two frames (nothing came after the request), else None for good."""
        handshake = self._handshake
        if handshake is None or self.protocol.state is not State.OPEN:
            return None
        self._handshake = None
        size = MESSAGE_LIMIT(self.protocol)
        if not READ_AT_ONCE or not handshake.endswith(b"\r\n\r\n") or size is None:
            return None
        self._splitter = FrameSplitter(size)
        return self._splitter

    def _note_handshake(self, data: bytes) -> None:
        """Keep the handshake's bytes; give up splitting when frames came with it."""
        handshake = self._handshake
        if handshake is not None:
            handshake += data
            end = handshake.find(b"\r\n\r\n")
            if 0 <= end < len(handshake) - 4 or len(handshake) > _HANDSHAKE_BYTES:
                self._handshake = None  # websockets alone reads this connection

    def eof_received(self) -> None:
        """Give websockets an unfinished frame's bytes first (it reports the cut frame)."""
        splitter = self._splitter
        if splitter is not None and splitter.rest:
            rest, splitter.rest = splitter.rest, bytearray()
            super().data_received(bytes(rest))
        super().eof_received()

    def process_event(self, event: Event) -> None:
        """Count the whole messages websockets queues for the reader (see
        :class:`server.net.connection.Connection`)."""
        if isinstance(event, WsFrame) and event.fin and event.opcode in DATA_OPCODES:
            self.pending_messages += 1
        super().process_event(event)

    def keepalive_ping(self) -> None:
        """Ping the peer (:mod:`server.net.keepalive`): anything it sends answers."""
        if self.protocol.state is State.OPEN:
            self.protocol.send_ping(b"")
            self.send_data()

    def keepalive_drop(self) -> None:
        """The peer stayed silent after a ping: fail the connection at once (1011), as
        websockets' own keepalive does, without waiting for a closing handshake."""
        if self.transport.is_closing():
            return
        if self.protocol.state is State.OPEN:
            self.protocol.fail(keepalive.CLOSE_CODE, keepalive.CLOSE_REASON)
            self.send_data()
        self.transport.abort()

    def send_data(self, frames: list[bytes] | None = None) -> None:
        """Write every pending frame, then ``frames``, with one ``transport.write``
        (:func:`server.net.websockets_adapter.write_queued`)."""
        write_queued(self.protocol, self.transport, frames)


_HANDSHAKE_BYTES = 65536
"""Handshake bytes kept to find the request's end; a longer one is left to websockets."""

SERVER_CONNECTION: type[ServerConnection] = BatchingServerConnection if HOOKS else ServerConnection
"""The class of the server's connections: websockets' own where a hook this one
overrides did not hold (``server.net.websockets_adapter.HOOKS``), with its own
keepalive (``server.app``)."""
