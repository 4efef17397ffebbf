"""A table's summaries, held back briefly so that changes in quick succession send one.

Everybody at a table gets its whole summary (``table``) at every change of
seating or status.  Changes often come in bursts: four players voting for a
rematch within milliseconds, spectators arriving at a popular table (each one
changes the count that every member is sent: n arrivals, n² messages).  A
change whose only messages are the summary is held for :data:`HOLD_S`;
a newer one in that time replaces it, so a burst costs each member one
message.  Nothing waits behind it: a change with any other message (an
update, a snapshot …) sends the held summary first, unless it carries a newer
one itself, so summaries and the game's messages keep their order.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Final

from protocol.server_messages import TableChanged
from server.tables.values import Out

# Final names, read on every move: see compiled.modules.HOT_PATH.
_TABLE_CHANGED: Final = TableChanged

HOLD_S = 0.02
"""Seconds a summary-only change waits for a newer one (well under what a person notices)."""


def _summaries_only(outs: list[Out]) -> bool:
    return type(outs[0][1]) is _TABLE_CHANGED and all(type(m) is _TABLE_CHANGED for _, m in outs)


Deliver = Callable[[list[Out]], None]
"""Sends messages to their players (the table actor's)."""


class SummaryHold:
    """Holds a table's summary-only changes (see the module docstring).

    It keeps no reference to what delivers the messages but while a summary
    waits (the timer's), so the actor that owns it makes no reference cycle.
    """

    __slots__ = ("_held", "_timer")

    def __init__(self) -> None:
        self._held: list[Out] | None = None
        self._timer: asyncio.TimerHandle | None = None

    @property
    def holding(self) -> bool:
        """Whether a summary waits to be sent."""
        return self._held is not None

    def send(self, outs: list[Out], deliver: Deliver) -> None:
        """Deliver ``outs`` now, or hold them if they are a summary and nothing else."""
        if not outs:
            return
        if _summaries_only(outs):
            self._held = outs  # a summary held already is out of date
            if self._timer is None:
                self._timer = asyncio.get_running_loop().call_later(HOLD_S, self.release, deliver)
            return
        held = self._held
        if held is not None:
            self.drop()
            if not any(type(m) is _TABLE_CHANGED for _, m in outs):
                deliver(held)
        deliver(outs)

    def release(self, deliver: Deliver) -> None:
        """Deliver the held summary now."""
        held = self._held
        self.drop()
        if held is not None:
            deliver(held)

    def drop(self) -> None:
        """Forget the held summary (the table closed)."""
        self._held = None
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
