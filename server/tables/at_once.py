"""Running a coroutine to its end in the caller's turn of the event loop."""

from __future__ import annotations

from collections.abc import Coroutine
from typing import Any


def run_at_once(coro: Coroutine[Any, Any, None], why: str) -> None:
    """Run ``coro``, which must finish without waiting, here and now.

    For work the caller knows completes at once (a move at a table whose store
    writes complete at once, handled in the callback that read it): it spares a
    task and a turn of the event loop.  If ``coro`` waits after all, that is a
    bug: it is cut short and :class:`RuntimeError` says ``why`` it should not have.
    """
    try:
        coro.send(None)
    except StopIteration:
        return
    coro.close()
    raise RuntimeError(f"waited, though {why}")
