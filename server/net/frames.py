"""WebSocket frames as the server writes and reads them by hand (RFC 6455 §5.2).

The server pushes its messages as frames it builds itself (:func:`frame`),
cheaper than websockets' own framing, and cuts a client's bytes into whole
frames (:class:`FrameSplitter`) so that a move is handled in the callback
that read it; :class:`server.net.batching.BatchingServerConnection` uses both,
and leaves every other frame to websockets.  Compiled with the hot path
(``python -m compiled.build``).
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from typing import Final

try:
    from websockets.speedups import apply_mask
except ImportError:  # pragma: no cover - websockets built without its C extension
    from websockets.utils import apply_mask

_apply_mask: Final = apply_mask
"""Unmasks each client frame (a Final name: a C static when compiled, not a dict lookup)."""

BINARY: Final = 0x82
TEXT: Final = 0x81
"""The first byte of a final, unmasked binary (text) frame: FIN and the opcode."""

_HEAD16: Final = struct.Struct("!BBH").pack
"""The header of a frame of 126 to 65,535 bytes: most updates."""


def frame(first: int, payload: bytes) -> bytes:
    """A whole server-to-client WebSocket frame (RFC 6455 §5.2: never masked, no
    extension bits) of ``payload``; ``first`` is :data:`BINARY` or :data:`TEXT`."""
    n = len(payload)
    if n < 126:
        return bytes((first, n)) + payload
    if n < 65536:
        return _HEAD16(first, 126, n) + payload
    return struct.pack("!BBQ", first, 127, n) + payload


class FrameSplitter:
    """Cuts a client's byte stream into whole frames (RFC 6455, 5.2).

    :meth:`frames` yields each frame that the bytes complete, as it came, with
    its unmasked payload when it is a final, masked binary frame (else with
    None); an unfinished frame is kept for the next call.  A frame announcing
    more than ``max_size`` bytes makes the splitter *broken*: what it holds
    is yielded at once, as is, for websockets to refuse, and it is done.
    """

    __slots__ = ("broken", "max_size", "need", "rest")

    def __init__(self, max_size: int) -> None:
        self.max_size = max_size
        self.rest = bytearray()
        """The bytes of an unfinished frame."""
        self.need = 0
        """How many bytes ``rest`` must hold before a frame can end in it."""
        self.broken = False

    def frames(self, data: bytes) -> Iterator[tuple[bytes, bytes | None]]:
        """The whole frames that ``data`` completes (see the class docstring)."""
        if self.broken:
            raise RuntimeError("the splitter gave up on this stream")
        buf: bytes | bytearray = data
        if self.rest:
            self.rest += data  # amortised: a frame sent a byte at a time costs linear time
            if len(self.rest) < self.need:
                return
            buf = self.rest
        self.need = 0
        n = len(buf)
        pos = 0
        while n - pos >= 2:
            first, second = buf[pos], buf[pos + 1]
            size = second & 0x7F
            start = pos + 2
            if size == 126:
                if n - start < 2:
                    break
                size = _U16.unpack_from(buf, start)[0]
                start += 2
            elif size == 127:
                if n - start < 8:
                    break
                size = _U64.unpack_from(buf, start)[0]
                start += 8
            if size > self.max_size:
                self.broken = True
                self.rest = bytearray()
                yield bytes(buf[pos:]), None
                return
            masked = second & 0x80
            end = start + (4 if masked else 0) + size
            if end > n:
                self.need = end - pos
                break
            if first == BINARY and masked:
                yield bytes(buf[pos:end]), _apply_mask(buf[start + 4 : end], buf[start : start + 4])
            else:
                yield bytes(buf[pos:end]), None
            pos = end
        if pos == n:
            self.rest = bytearray()
        elif pos or buf is not self.rest:  # else rest holds just the unfinished frame
            self.rest = bytearray(buf[pos:])


_U16: Final = struct.Struct("!H")
_U64: Final = struct.Struct("!Q")
