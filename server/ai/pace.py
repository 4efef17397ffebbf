"""A shared pace for the moves of tables where nobody plays (AI only).

An AI-only table at ``ai_delay`` 0 moves as fast as the AI pool answers;
a few of them would fill the event loop with their updates, and every
human's move would queue behind theirs.  :class:`Pacer` grants such moves
at most ``rate`` per second over all those tables together, in the order
they ask (each table has one move waiting at most, so the tables take
turns).  Tables where a human plays are never paced.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable


class Pacer:
    """At most ``rate`` grants per second (bursts of ``burst``), first come first served.

    Each caller reserves the next free slot and sleeps until it; ``rate`` 0
    grants at once.
    """

    def __init__(
        self, rate: float, burst: int = 1, clock: Callable[[], float] = time.monotonic
    ) -> None:
        if rate < 0 or burst < 1:
            raise ValueError("rate must not be negative and burst must be at least 1")
        self.rate = rate
        self.burst = burst
        self.clock = clock
        self._next = 0.0  # the next free slot

    def reserve(self) -> float:
        """Take the next slot; the seconds until it comes (0: now)."""
        if self.rate == 0:
            return 0.0
        now = self.clock()
        interval = 1.0 / self.rate
        slot = max(self._next, now - (self.burst - 1) * interval)
        self._next = slot + interval
        return max(0.0, slot - now)

    async def wait(self) -> None:
        """Wait for the next slot."""
        delay = self.reserve()
        if delay > 0:
            await asyncio.sleep(delay)
