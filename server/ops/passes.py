"""Background loops that stop between their passes, never inside one.

A loop cancelled in the middle of a database pass (the daily duplicate sets, the ban
poll, a tournament director's pass) unwinds inside a transaction: its rollback then
races the shutdown that closes the database, and either hangs on the closed
connection or is cut off half way. So a shutdown asks the loops to stop, lets the
pass in progress end, and cancels only the loops that are still sleeping or that
outlast the grace.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any


class Passes:
    """The background loops of one owner: each loop runs ``while await passes.pause(s)``
    (or checks :attr:`stopping`), so that :meth:`stop` ends it at a pause."""

    def __init__(self) -> None:
        self._stopping = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []

    @property
    def stopping(self) -> bool:
        """True once :meth:`stop` began: a loop returns instead of starting a pass."""
        return self._stopping.is_set()

    def spawn(self, loop: Coroutine[Any, Any, None], name: str) -> asyncio.Task[None]:
        """Run ``loop`` until it returns at a pause after :meth:`stop`."""
        task = asyncio.create_task(loop, name=name)
        self._tasks.append(task)
        return task

    def died(self) -> list[str]:
        """The names of the loops that ended although nobody stopped them: an error
        escaped a pass (an audit checks this)."""
        return [t.get_name() for t in self._tasks if t.done() and not self.stopping]

    async def pause(self, seconds: float) -> bool:
        """Wait ``seconds``; False (at once) when the loops are to stop."""
        if self._stopping.is_set():
            return False
        if seconds <= 0:
            await asyncio.sleep(0)
            return not self._stopping.is_set()
        try:
            await asyncio.wait_for(self._stopping.wait(), seconds)
        except TimeoutError:
            return True
        return False

    async def stop(self, grace: float) -> None:
        """End every loop: the passes in progress get ``grace`` seconds to finish, then
        what is left is cancelled (and waited for, as a cancelled pass unwinds)."""
        self._stopping.set()
        tasks = [t for t in self._tasks if not t.done()]
        self._tasks.clear()
        if not tasks:
            return
        _, late = await asyncio.wait(tasks, timeout=grace)
        for task in late:
            task.cancel()
        if late:
            await asyncio.wait(late, timeout=grace)
        for task in tasks:  # an error of a loop was logged where it happened
            if task.done() and not task.cancelled():
                task.exception()
