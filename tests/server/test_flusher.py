"""server.net.flusher: queued connections written together, after the loop's current callbacks."""

from __future__ import annotations

import asyncio

from server.net.flusher import BATCH, Flusher


class _Conn:
    def __init__(self, name: str, written: list[str], fail: bool = False) -> None:
        self.name = name
        self.written = written
        self.fail = fail

    def flush_due(self) -> None:
        if self.fail:
            raise RuntimeError("broken")
        self.written.append(self.name)


async def test_one_callback_writes_every_connection_after_the_current_callbacks() -> None:
    written: list[str] = []
    flusher = Flusher()
    loop = asyncio.get_running_loop()
    scheduled = []
    real_call_soon = loop.call_soon

    def call_soon(*args: object, **kwargs: object) -> asyncio.Handle:
        scheduled.append(args[0])
        return real_call_soon(*args, **kwargs)  # type: ignore[arg-type]

    loop.call_soon = call_soon  # type: ignore[method-assign]
    try:
        for name in "abc":
            flusher.add(_Conn(name, written))
    finally:
        loop.call_soon = real_call_soon  # type: ignore[method-assign]
    assert written == []
    assert len(scheduled) == 1  # one handle for the three
    await asyncio.sleep(0)
    assert written == ["a", "b", "c"]
    await asyncio.sleep(0)
    assert written == ["a", "b", "c"]  # each once


async def test_reads_in_one_turn_of_the_loop_are_written_together_after_them() -> None:
    """Two read callbacks that the loop runs in one turn: neither's connections are
    written before both ran (the writes then go out back to back)."""
    written: list[str] = []
    seen_by_second_read: list[str] = []
    flusher = Flusher()
    loop = asyncio.get_running_loop()

    def read(name: str) -> None:
        seen_by_second_read.extend(written)
        flusher.add(_Conn(name, written))

    loop.call_soon(read, "a")
    loop.call_soon(read, "b")
    await asyncio.sleep(0)  # runs both reads; the flush they scheduled comes after them
    await asyncio.sleep(0)
    assert seen_by_second_read == []
    assert written == ["a", "b"]


async def test_a_full_batch_is_written_at_once_and_the_rest_soon() -> None:
    written: list[str] = []
    flusher = Flusher()
    names = [f"c{i}" for i in range(BATCH + 2)]
    for name in names[:BATCH]:
        flusher.add(_Conn(name, written))
    assert written == names[:BATCH]  # no waiting for the turn to end
    for name in names[BATCH:]:
        flusher.add(_Conn(name, written))
    assert written == names[:BATCH]
    await asyncio.sleep(0)
    assert written == names


async def test_flushing_early_leaves_nothing_for_the_scheduled_callback() -> None:
    written: list[str] = []
    flusher = Flusher()
    flusher.add(_Conn("a", written))  # a callback is scheduled
    flusher.flush()
    assert written == ["a"]
    await asyncio.sleep(0)
    assert written == ["a"]


async def test_one_failing_connection_does_not_hold_up_the_others() -> None:
    written: list[str] = []
    flusher = Flusher()
    flusher.add(_Conn("a", written, fail=True))
    flusher.add(_Conn("b", written))
    await asyncio.sleep(0)
    assert written == ["b"]
