"""The cyclic garbage collector kept out of an AI's searches (issue 15).

A search allocates millions of short-lived tuples, lists and moves, and
leaves large memos (hand plans, lead indexes) alive for the next decision.
With the collector on, its young collections keep walking what the memos
gained, and its full collections walk all of them: in Dou Dizhu's compiled
search that was about a fifth of a decision's time, time the search did not
play out worlds.  The searches make no reference cycles (their objects die by
reference counting; ``tests/engine/test_collector.py`` checks every game's
``hard``), so a process that does nothing but decide (a server's AI worker
process, an arena worker) can run each decision with the collector off
(:func:`held_off`) and then *freeze* what the decision left alive
(:func:`gc.freeze`, which costs nothing and resets the collector's count),
so that no later collection walks it.

Frozen objects still die by reference counting as usual; only garbage
cycles among them would stay.  So when the frozen heap has grown
:data:`THAW_GROWTH`-fold since the last full collection, everything is
thawed and collected once.  Memos stop growing at their limits, so after the first
few decisions of a worker this rarely happens.

Only a process that does nothing else may do this: the collector is shared
by every thread of a process, and the server's own process (its event loop)
must keep collecting.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

THAW_GROWTH = 2.0
"""Thaw and collect once the frozen heap is this many times its size after the
last full collection."""
CHECK_EVERY = 25
"""Blocks between two looks at the frozen heap's size (:func:`gc.get_freeze_count`
walks all of it: milliseconds for a search's memos)."""

_baseline = 0
"""Objects frozen right after the last full collection (0: none yet)."""
_blocks = 0
"""Blocks ended since the last full collection."""


@contextmanager
def held_off(hold: bool = True) -> Iterator[None]:
    """Run the block with the collector off, then freeze what it left alive (when
    ``hold`` and the collector is on; otherwise the block runs as it is).

    The collector is on again when the block ends, however it ends.  When the
    frozen heap has outgrown :data:`THAW_GROWTH` × its size after the last full
    collection (looked at every :data:`CHECK_EVERY` blocks), the block's end
    thaws it and runs a full collection.
    """
    if not hold or not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        _freeze_or_collect()
        gc.enable()


def settle() -> None:
    """Collect fully and freeze the heap: for a deciding process once it has loaded
    what it needs, so that its first decision does not pay that collection."""
    global _baseline, _blocks
    gc.unfreeze()
    gc.collect()
    gc.freeze()
    _baseline = gc.get_freeze_count()
    _blocks = 0


def _freeze_or_collect() -> None:
    """Freeze the heap (constant time); every :data:`CHECK_EVERY` blocks, if it has
    grown too much, thaw it and collect fully."""
    global _blocks
    gc.freeze()
    _blocks += 1
    if _blocks % CHECK_EVERY == 0 and gc.get_freeze_count() > THAW_GROWTH * _baseline:
        settle()
