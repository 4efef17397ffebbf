"""What every benchmark reports the same way: progress on stderr and nearest-rank quantiles.

The benchmarks' convention (docs/benchmarks.md): progress goes to stderr, the
last line of stdout is one JSON object with the figures.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence


def log(text: str) -> None:
    """One line of progress on stderr."""
    print(text, file=sys.stderr, flush=True)


def percentile(samples: Sequence[float], q: float) -> float:
    """The ``q`` quantile (0..1) of ``samples`` by nearest rank; 0 for none."""
    if not samples:
        return 0.0
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))]
