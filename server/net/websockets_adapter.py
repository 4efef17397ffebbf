"""websockets' internals, used in this one place: each probed once, at import, with a
public path as the fallback.

The server reads and writes its hot path's frames itself
(:class:`server.net.batching.BatchingServerConnection`,
:class:`server.net.connection.Connection`), which leans on what websockets does not
document and a release may change (``pyproject.toml`` bounds websockets below its
next major version for that):

* attributes of its sans-I/O protocol, read at every message in and every write
  out: the state (``_state``, without the ``state`` property's Python call), its
  own queued output (``writes``), whether a fragmented message is being sent
  (``expect_continuation_frame``) or read (``current_size``), and its message size
  limit (``max_message_size``);
* hooks of its asyncio connection that the server's subclass overrides: the
  bytes in (``data_received``), the end of them (``eof_received``), each parsed
  event (``process_event``) and the write of what the protocol queued
  (``send_data``).

Each is tried here on a real :class:`~websockets.server.ServerProtocol` (opened by
a real handshake) or through websockets' own code; one that is missing or behaves
otherwise is listed in :data:`FELL_BACK`, and its public path is bound instead
(:func:`choose`): the ``state`` property; nothing framed by hand (websockets frames
each message, ``send_binary``); nothing read at once (websockets reads every
frame); and, when a hook fails, websockets' own connection class and keepalive
(:data:`HOOKS`, read by :mod:`server.app`).  Slower, the same messages.
``tests/server/test_websockets_adapter.py`` fails when anything fell back on the
installed websockets, so that an upgrade is noticed, and serves a game on the
fallbacks.

The chosen paths are bound to module names once (:class:`Paths`); the compiled
connection reads them into Final names of its own (``compiled.modules.HOT_PATH``):
an attribute getter each, no Python call per message.
"""

from __future__ import annotations

import contextlib
import enum
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from operator import attrgetter
from typing import Any, Final

from websockets.asyncio.server import ServerConnection
from websockets.frames import Frame, Opcode
from websockets.protocol import State
from websockets.server import ServerProtocol

Read = Callable[[ServerProtocol], Any]
"""Reads one thing off a protocol (an :func:`operator.attrgetter`, or a public fallback)."""


class WsProbe(enum.Enum):
    """A use of websockets' internals (the value: what it uses)."""

    STATE = "ServerProtocol._state"
    OUTPUT = "ServerProtocol.writes"
    SENDING_FRAGMENTS = "ServerProtocol.expect_continuation_frame"
    READING_FRAGMENTS = "ServerProtocol.current_size"
    MESSAGE_LIMIT = "ServerProtocol.max_message_size"
    DATA_RECEIVED = "ServerConnection.data_received"
    EOF_RECEIVED = "ServerConnection.eof_received"
    PROCESS_EVENT = "ServerConnection.process_event"
    SEND_DATA = "ServerConnection.send_data"


HOOK_PROBES: Final = frozenset(
    {WsProbe.DATA_RECEIVED, WsProbe.EOF_RECEIVED, WsProbe.PROCESS_EVENT, WsProbe.SEND_DATA}
)
"""The hooks :class:`server.net.batching.BatchingServerConnection` overrides: one
failing, and the server runs websockets' own connection class."""

_REQUEST: Final = (
    b"GET / HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
)
"""A client's opening handshake (RFC 6455 1.3's example key)."""


def _client_frame(opcode: Opcode, data: bytes, *, fin: bool = True) -> bytes:
    """A frame as a client sends it (masked)."""
    return Frame(opcode, data, fin).serialize(mask=True, extensions=[])


def open_protocol(protocol_class: type[ServerProtocol] = ServerProtocol) -> ServerProtocol:
    """A server protocol that has read a handshake and answered it (OPEN), through
    websockets' public sans-I/O API, with nothing left to send."""
    protocol = protocol_class(max_size=4096)
    protocol.receive_data(_REQUEST)
    (request,) = protocol.events_received()
    protocol.send_response(protocol.accept(request))  # type: ignore[arg-type]
    protocol.data_to_send()
    if protocol.state is not State.OPEN:
        raise RuntimeError(f"the probe's handshake left the protocol {protocol.state}")
    return protocol


def _state_in_slot(protocol_class: type[ServerProtocol]) -> bool:
    """``_state`` is what the ``state`` property returns, and follows it."""
    protocol = open_protocol(protocol_class)
    if protocol._state is not protocol.state:
        return False
    protocol.state = State.CLOSED
    return protocol._state is State.CLOSED


def _output_in_list(protocol_class: type[ServerProtocol]) -> bool:
    """``writes`` is the list ``data_to_send`` hands over and empties, and a frame
    websockets queues (a ping) lands there."""
    protocol = open_protocol(protocol_class)
    writes = protocol.writes
    if type(writes) is not list or writes:
        return False
    protocol.send_ping(b"p")
    if not protocol.writes:
        return False
    return len(protocol.data_to_send()) == 1 and protocol.writes == []


def _sending_fragments_flagged(protocol_class: type[ServerProtocol]) -> bool:
    """``expect_continuation_frame`` is true exactly while a fragmented message is
    being sent."""
    protocol = open_protocol(protocol_class)
    if protocol.expect_continuation_frame is not False:
        return False
    protocol.send_binary(b"a", fin=False)
    if protocol.expect_continuation_frame is not True:
        return False
    protocol.send_continuation(b"b", fin=True)
    return protocol.expect_continuation_frame is False


def _reading_fragments_sized(protocol_class: type[ServerProtocol]) -> bool:
    """``current_size`` is None except while a client's fragmented message is being
    read (and a message's frames are not taken for the start of another)."""
    protocol = open_protocol(protocol_class)
    if protocol.current_size is not None:
        return False
    protocol.receive_data(_client_frame(Opcode.BINARY, b"ab", fin=False))
    if protocol.current_size is None:
        return False
    protocol.receive_data(_client_frame(Opcode.CONT, b"c"))
    return protocol.current_size is None and len(protocol.events_received()) == 2


def _message_limit_kept(protocol_class: type[ServerProtocol]) -> bool:
    """``max_message_size`` is the ``max_size`` the protocol was made with."""
    return protocol_class(max_size=1234).max_message_size == 1234


class _Hooked:
    """Stands for the connection in websockets' own connection code: records the
    hooks that code calls on it (``process_event``, ``send_data``) and what it
    writes, so that the probes see that code call what the server's subclass
    overrides."""

    def __init__(self, protocol: Any) -> None:
        self.protocol = protocol
        self.events: list[object] = []
        self.sends = 0
        self.written: list[bytes] = []
        self.eof = False
        self.debug = False
        self.close_timeout = None
        self.close_deadline = None
        self.transport = self

    # the connection's hooks, as websockets' code calls them
    def process_event(self, event: object) -> None:
        self.events.append(event)

    def send_data(self) -> None:
        self.sends += 1

    # the transport, as websockets' send_data writes to it
    def write(self, data: bytes) -> None:
        self.written.append(bytes(data))

    def can_write_eof(self) -> bool:
        return True

    def write_eof(self) -> None:
        self.eof = True


def _takes(method: object, *names: str) -> bool:
    """Whether ``method`` is a function taking exactly ``self`` and ``names``."""
    if not callable(method):
        return False
    return tuple(inspect.signature(method).parameters) == ("self", *names)


def _data_received_hooks(connection_class: type[ServerConnection]) -> bool:
    """websockets' ``data_received(data)`` feeds the protocol, then calls
    ``self.send_data()`` and ``self.process_event(event)`` for each event parsed."""
    method = connection_class.data_received
    if not _takes(method, "data"):
        return False
    hooked = _Hooked(ServerProtocol())
    method(hooked, _REQUEST)  # type: ignore[arg-type]
    return hooked.sends == 1 and [type(e).__name__ for e in hooked.events] == ["Request"]


def _eof_received_hooks(connection_class: type[ServerConnection]) -> bool:
    """websockets' ``eof_received()`` feeds the end of the stream to the protocol and
    writes what that queued through ``self.send_data()``."""
    method = connection_class.eof_received
    if not _takes(method):
        return False
    hooked = _Hooked(open_protocol())
    method(hooked)  # type: ignore[arg-type]
    return hooked.sends == 1 and hooked.protocol.state is State.CLOSED


def _process_event_hooks(connection_class: type[ServerConnection]) -> bool:
    """``process_event(event)`` is websockets' handler of each event (the server
    counts whole messages there before handing them on)."""
    return _takes(connection_class.process_event, "event") and _data_received_hooks(
        connection_class
    )


class _Queued:
    """A protocol with output queued: a frame, then the end of the stream."""

    def data_to_send(self) -> list[bytes]:
        return [b"frame", b""]


def _send_data_writes(connection_class: type[ServerConnection]) -> bool:
    """websockets' ``send_data()`` writes each chunk the protocol hands over, an
    empty one meaning the end of the stream, as the server's override does."""
    method = connection_class.send_data
    if not _takes(method):
        return False
    hooked = _Hooked(_Queued())
    method(hooked)  # type: ignore[arg-type]
    return hooked.written == [b"frame"] and hooked.eof


_PROTOCOL_PROBES: Final[dict[WsProbe, Callable[[type[ServerProtocol]], bool]]] = {
    WsProbe.STATE: _state_in_slot,
    WsProbe.OUTPUT: _output_in_list,
    WsProbe.SENDING_FRAGMENTS: _sending_fragments_flagged,
    WsProbe.READING_FRAGMENTS: _reading_fragments_sized,
    WsProbe.MESSAGE_LIMIT: _message_limit_kept,
}
_CONNECTION_PROBES: Final[dict[WsProbe, Callable[[type[ServerConnection]], bool]]] = {
    WsProbe.DATA_RECEIVED: _data_received_hooks,
    WsProbe.EOF_RECEIVED: _eof_received_hooks,
    WsProbe.PROCESS_EVENT: _process_event_hooks,
    WsProbe.SEND_DATA: _send_data_writes,
}


def _holds(check: Callable[[Any], bool], subject: type) -> bool:
    """Whether ``check(subject)`` answers True (an exception: it does not)."""
    try:
        return check(subject)
    except Exception:
        return False


def probe(
    protocol_class: type[ServerProtocol] = ServerProtocol,
    connection_class: type[ServerConnection] = ServerConnection,
) -> frozenset[WsProbe]:
    """The uses of websockets' internals that do not hold for these classes (empty:
    all hold)."""
    failed = {p for p, check in _PROTOCOL_PROBES.items() if not _holds(check, protocol_class)}
    failed |= {p for p, check in _CONNECTION_PROBES.items() if not _holds(check, connection_class)}
    return frozenset(failed)


def _unknown(protocol: ServerProtocol) -> bool:
    """A fallback's answer to "may something be under way or queued?": it may (True),
    so the caller takes websockets' public path."""
    return True


def _no_limit(protocol: ServerProtocol) -> None:
    """The fallback of the message size limit: unknown (nothing is read at once)."""
    return None


@dataclass(frozen=True, slots=True)
class Paths:
    """What the server binds for each use, the internal or its public fallback."""

    state_of: Read
    """The protocol's :class:`~websockets.protocol.State`."""
    output_queued: Read
    """Truthy while the protocol may have output of its own queued."""
    sending_fragment: Read
    """Truthy while a fragmented message may be being sent (no frame is then built by hand)."""
    reading_fragment: Read
    """Not None while a client's fragmented message may be being read."""
    message_limit: Read
    """The largest message the protocol takes (None: unknown, nothing is read at once)."""
    read_at_once: bool
    """Whether a client's frames may be cut and read in the callback that reads them
    (the message limit and the reading of fragments are known)."""
    hooks: bool
    """Whether the server's own connection class (its overridden hooks) may be used."""


def choose(fell_back: frozenset[WsProbe]) -> Paths:
    """The paths for a websockets on which the ``fell_back`` uses do not hold."""

    def read(use: WsProbe, name: str, fallback: Read) -> Read:
        return fallback if use in fell_back else attrgetter(name)

    return Paths(
        state_of=read(WsProbe.STATE, "_state", attrgetter("state")),
        output_queued=read(WsProbe.OUTPUT, "writes", _unknown),
        sending_fragment=read(WsProbe.SENDING_FRAGMENTS, "expect_continuation_frame", _unknown),
        reading_fragment=read(WsProbe.READING_FRAGMENTS, "current_size", _unknown),
        message_limit=read(WsProbe.MESSAGE_LIMIT, "max_message_size", _no_limit),
        read_at_once=not fell_back & {WsProbe.READING_FRAGMENTS, WsProbe.MESSAGE_LIMIT},
        hooks=not fell_back & HOOK_PROBES,
    )


def write_queued(
    protocol: ServerProtocol, transport: Any, frames: list[bytes] | None = None
) -> None:
    """Write what ``protocol`` queued (``data_to_send``, websockets' public sans-I/O
    API), then ``frames``, with one ``transport.write``; an empty chunk asks to
    half-close the stream, after which nothing is written (as websockets'
    ``send_data`` does, one write per frame)."""
    writes = protocol.data_to_send()  # most often nothing is pending
    chunks = [w for w in writes if w] if writes else writes
    eof = len(chunks) < len(writes)
    if frames and not eof:
        chunks = chunks + frames if chunks else frames
    if chunks:
        transport.write(chunks[0] if len(chunks) == 1 else b"".join(chunks))
    if eof:
        if transport.can_write_eof():
            with contextlib.suppress(Exception):  # uvloop may raise RuntimeError here
                transport.write_eof()
        else:
            transport.close()


FELL_BACK: Final[frozenset[WsProbe]] = probe()
"""The uses of websockets' internals that did not hold on the installed websockets."""

PATHS: Final[Paths] = choose(FELL_BACK)
STATE_OF: Final[Read] = PATHS.state_of
OUTPUT_QUEUED: Final[Read] = PATHS.output_queued
SENDING_FRAGMENT: Final[Read] = PATHS.sending_fragment
READING_FRAGMENT: Final[Read] = PATHS.reading_fragment
MESSAGE_LIMIT: Final[Read] = PATHS.message_limit
READ_AT_ONCE: Final[bool] = PATHS.read_at_once
HOOKS: Final[bool] = PATHS.hooks
"""The chosen paths (:class:`Paths`), as names to import."""
