"""Writing what the connections have queued: all of them together, once a turn of the loop.

A move sends an update to every seat.  Each connection queues its messages
and writes them with one ``transport.write`` (``Connection.flush_due``);
the :class:`Flusher` decides when: one callback, run by the event loop once
it has run the read callbacks of this turn, writes every connection that has
something queued by then, each once, however many moves wrote to it.  When
:data:`BATCH` connections are due, they are written at once, so that a turn
that reads many moves (hundreds of busy tables) does not hold back the
first moves' updates until the last one is handled.

Why after the reads, not at the end of each read callback: a write to a
client that sleeps in its poll wakes it, and the wake-up is most of the
write's cost (``python -m bench.wakeup``).  Writes issued back to back find
the client's process still awake from the first, so writing after the reads
rather than after each read lowers the server's CPU a move at busy tables
and changes nothing at human pace (``python -m bench.load``; figures:
docs/performance.md, A move through the server).
"""

from __future__ import annotations

import asyncio
from typing import Final, Protocol

from server.ops.logs import get_logger

BATCH: Final = 32
"""Due connections that are written at once, without waiting for the turn to end."""


class Writable(Protocol):
    """A connection with messages queued (see ``server.net.connection.Connection``)."""

    def flush_due(self) -> None:
        """Write what is queued, if it was not written meanwhile."""


class Flusher:
    """The connections that have messages queued, written soon (see the module docstring)."""

    __slots__ = ("_due", "_handle")

    def __init__(self) -> None:
        self._due: list[Writable] = []
        self._handle: asyncio.Handle | None = None

    def add(self, conn: Writable) -> None:
        """``conn`` queued a first message: write it when the event loop next runs
        its ready callbacks, or now if :data:`BATCH` connections are due."""
        due = self._due
        due.append(conn)
        if len(due) >= BATCH:
            self.flush()
        elif self._handle is None:
            self._handle = asyncio.get_running_loop().call_soon(self.flush)

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
