"""Writing what the connections have queued: all of them at once, not one callback each.

A move sends an update to every seat.  Each connection queues its messages
and writes them with one ``transport.write`` (``Connection.flush_due``);
the :class:`Flusher` decides when.  While a read callback holds it
(:meth:`Flusher.hold`, :meth:`Flusher.release`: a move read and handled in
the callback that read it), the connections written to wait until the
callback ends and are written then, each once, whatever the move sent them.
Otherwise (a move handled by a table's task, a timer, the AI) one callback
that the event loop runs soon writes every connection that has something
queued by then: one handle per turn of the loop instead of one per
connection.
"""

from __future__ import annotations

import asyncio
from typing import Protocol

from server.logs import get_logger


class Writable(Protocol):
    """A connection with messages queued (see ``server.connection.Connection``)."""

    def flush_due(self) -> None:
        """Write what is queued, if it was not written meanwhile."""


class Flusher:
    """The connections that have messages queued, written soon (see the module docstring)."""

    __slots__ = ("_due", "_handle", "_held")

    def __init__(self) -> None:
        self._due: list[Writable] = []
        self._handle: asyncio.Handle | None = None
        self._held = 0

    def add(self, conn: Writable) -> None:
        """``conn`` queued a first message: write it soon (at the latest when the
        event loop next runs its ready callbacks)."""
        self._due.append(conn)
        if not self._held and self._handle is None:
            self._handle = asyncio.get_running_loop().call_soon(self.flush)

    def hold(self) -> None:
        """A read callback starts: what it queues is written when it ends."""
        self._held += 1

    def release(self) -> None:
        """The read callback ends: write what it queued."""
        self._held -= 1
        if not self._held and self._due:
            self.flush()

    def flush(self) -> None:
        """Write every connection added since the last flush, in the order added."""
        handle = self._handle
        if handle is not None:
            handle.cancel()
            self._handle = None
        due = self._due
        if not due:
            return
        self._due = []
        for conn in due:
            try:
                conn.flush_due()
            except Exception as exc:  # one connection's bug must not hold up the others
                get_logger().exception("flush_failed", error=repr(exc))
