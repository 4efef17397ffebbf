"""Background loops stop between their passes (server.ops.passes), so that a shutdown
never closes the database under a pass still inside a transaction."""

from __future__ import annotations

import asyncio
from datetime import datetime
from pathlib import Path

import pytest

from server.app import CardaviaServer
from server.config import ServerConfig
from server.duplicate.requests import DuplicateRequests
from server.ops.passes import Passes


async def test_a_pass_in_progress_ends_and_a_sleeping_loop_stops_at_once() -> None:
    passes = Passes()
    began, ended = asyncio.Event(), []

    async def busy() -> None:
        while await passes.pause(0):
            began.set()
            await asyncio.sleep(0.2)  # the pass: not to be cut off
            ended.append(True)

    async def asleep() -> None:
        while await passes.pause(3600):
            pass

    working = passes.spawn(busy(), "busy")
    sleeping = passes.spawn(asleep(), "asleep")
    await began.wait()
    loop = asyncio.get_running_loop()
    started = loop.time()
    await passes.stop(5.0)
    assert ended == [True]
    assert not working.cancelled() and not sleeping.cancelled()
    assert loop.time() - started < 1.0  # the sleeper did not wait out its hour
    assert passes.stopping and not await passes.pause(10)


async def test_a_pass_past_the_grace_is_cancelled() -> None:
    passes = Passes()
    began = asyncio.Event()

    async def stuck() -> None:
        while await passes.pause(0):
            began.set()
            await asyncio.sleep(3600)

    task = passes.spawn(stuck(), "stuck")
    await began.wait()
    await passes.stop(0.1)
    assert task.cancelled()


async def test_shutdown_lets_the_daily_sets_pass_finish_before_the_database_closes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The daily sets are written at start; a shutdown at that moment used to cancel
    the write mid-transaction and close the database under its rollback (a test
    server's teardown then hung for ever)."""
    real = DuplicateRequests.make_daily
    began, ended = asyncio.Event(), []

    async def slow_make_daily(self: DuplicateRequests, now: datetime) -> None:
        began.set()
        await asyncio.sleep(0.3)
        await real(self, now)
        ended.append(now)

    monkeypatch.setattr(DuplicateRequests, "make_daily", slow_make_daily)
    server = CardaviaServer(ServerConfig(port=0, data_dir=str(tmp_path)))
    await server.start()
    await asyncio.wait_for(began.wait(), 10)
    await server.shutdown()
    assert len(ended) == 1  # the pass ran to its end, then the database closed
    left = [
        t
        for t in asyncio.all_tasks()
        if t is not asyncio.current_task() and t.get_name() in {"daily-sets", "ban-poll"}
    ]
    assert left == []
