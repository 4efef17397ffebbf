"""websockets' server connection, batching its writes and reading moves at once.

Kept apart from :mod:`server.net.connection` and plain Python: it extends
websockets' own connection class, and compiled (``python -m compiled.build``) it
crashed in the garbage collector; the rest of the hot path is compiled.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from typing import Any

from websockets.asyncio.server import ServerConnection
from websockets.frames import DATA_OPCODES
from websockets.frames import Frame as WsFrame
from websockets.protocol import Event, State
from websockets.server import ServerProtocol

from server.net import keepalive
from server.net.frames import FrameSplitter

_monotonic = time.monotonic
"""The clock of :attr:`BatchingServerConnection.heard_at` (a global: read on every read)."""
OPEN = State.OPEN


def _state_kept_in_slot() -> bool:
    """Whether websockets' protocol keeps its state in its ``_state`` attribute, which
    its own methods read (its ``state`` property returns it, a Python call): tried
    on a protocol object, so that another version keeping it elsewhere is noticed."""
    protocol = ServerProtocol()
    try:
        if protocol._state is not protocol.state:
            return False
        protocol.state = State.CLOSED
        return protocol._state is State.CLOSED
    except AttributeError:
        return False


STATE_IN_SLOT = _state_kept_in_slot()
"""Whether a protocol's state may be read as ``protocol._state`` (checked once, at
import), without the property's Python call: it is read at every message in and
every write out, as ``protocol._state if STATE_IN_SLOT else protocol.state``."""


def _writes_kept_in_list() -> bool:
    """Whether websockets' protocol queues its output in its ``writes`` list, which
    ``data_to_send`` hands over and empties: tried on a protocol object, so that
    another version keeping it elsewhere is noticed."""
    protocol = ServerProtocol()
    try:
        writes = protocol.writes
        if type(writes) is not list or writes:
            return False
        writes.append(b"x")
        return protocol.data_to_send() == [b"x"] and protocol.writes == []
    except AttributeError:
        return False


WRITES_IN_LIST = _writes_kept_in_list()
"""Whether a protocol with nothing of its own to send (pings' answers, a close)
can be told by an empty ``protocol.writes`` (checked once, at import): the
connection then writes the frames it built by hand straight to the transport,
without :meth:`BatchingServerConnection.send_data`'s Python call and
``data_to_send``'s new list at every write."""


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
                or (protocol._state if STATE_IN_SLOT else protocol.state) is not OPEN
                or protocol.expect_continuation_frame
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
        size = self.protocol.max_message_size
        if not handshake.endswith(b"\r\n\r\n") or size is None:
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
        """Write every pending frame with one ``transport.write``; an empty chunk is EOF."""
        writes = self.protocol.data_to_send()  # most often nothing is pending
        chunks = [w for w in writes if w] if writes else writes
        eof = len(chunks) < len(writes)  # websockets asks to half-close the TCP connection
        if frames and not eof:  # after an EOF nothing may be written
            chunks = chunks + frames if chunks else frames
        if chunks:
            self.transport.write(chunks[0] if len(chunks) == 1 else b"".join(chunks))
        if eof:
            if self.transport.can_write_eof():
                with contextlib.suppress(Exception):  # uvloop may raise RuntimeError here
                    self.transport.write_eof()
            else:
                self.transport.close()


_HANDSHAKE_BYTES = 65536
"""Handshake bytes kept to find the request's end; a longer one is left to websockets."""
