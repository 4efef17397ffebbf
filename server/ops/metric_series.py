"""One labelled series of a counter or a histogram, as :mod:`server.ops.metrics` keeps them.

A sample is an addition (and, for a histogram, a bisection): the action path
records several a move.  Compiled with the hot path (``python -m compiled.build``).
"""

from __future__ import annotations

import threading
from bisect import bisect_left
from typing import Final

# Final names, read on every move: see compiled.modules.HOT_PATH.
_bisect_left: Final = bisect_left

SMALL_COUNTS: Final = 64
"""Whole numbers below this find their bucket by :meth:`HistogramSeries.observe_count`'s table."""


class CounterSeries:
    """One labelled counter series."""

    __slots__ = ("_lock", "value")

    def __init__(self, lock: threading.Lock) -> None:
        self._lock = lock
        self.value = 0.0

    def inc(self, amount: float = 1.0) -> None:
        """Add ``amount`` (not negative)."""
        if amount < 0:
            raise ValueError("counters only go up")
        self.value += amount


class HistogramSeries:
    """One labelled histogram series: a count per bucket (the last one ``+Inf``) and the sum."""

    __slots__ = ("_lock", "_small", "bounds", "counts", "sum")

    def __init__(self, lock: threading.Lock, bounds: tuple[float, ...]) -> None:
        self._lock = lock
        self.bounds = bounds
        self.counts = [0] * (len(bounds) + 1)
        self.sum = 0.0
        self._small = [_bisect_left(bounds, n) for n in range(SMALL_COUNTS)]
        """The bucket of each count below :data:`SMALL_COUNTS` (:meth:`observe_count`)."""

    def observe(self, amount: float) -> None:
        """Record one sample (in the first bucket whose bound is at least ``amount``)."""
        self.counts[_bisect_left(self.bounds, amount)] += 1
        self.sum += amount

    def observe_count(self, count: int) -> None:
        """:meth:`observe` for a whole number (a queue's depth, written at every flush):
        a small one finds its bucket in a table, without comparing it with the bounds."""
        small = self._small
        at = small[count] if 0 <= count < len(small) else _bisect_left(self.bounds, count)
        self.counts[at] += 1
        self.sum += count
