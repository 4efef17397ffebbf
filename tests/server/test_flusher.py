"""server.flusher: queued connections written once, at the end of a read or soon after."""

from __future__ import annotations

import asyncio

from server.flusher import Flusher


class _Conn:
    def __init__(self, name: str, written: list[str], fail: bool = False) -> None:
        self.name = name
        self.written = written
        self.fail = fail

    def flush_due(self) -> None:
        if self.fail:
            raise RuntimeError("broken")
        self.written.append(self.name)


async def test_connections_queued_during_a_read_are_written_when_it_ends() -> None:
    written: list[str] = []
    flusher = Flusher()
    flusher.hold()
    flusher.add(_Conn("a", written))
    flusher.add(_Conn("b", written))
    await asyncio.sleep(0)  # no callback was scheduled meanwhile
    assert written == []
    flusher.release()
    assert written == ["a", "b"]
    await asyncio.sleep(0)
    assert written == ["a", "b"]  # each once


async def test_nested_holds_write_at_the_outermost_release() -> None:
    written: list[str] = []
    flusher = Flusher()
    flusher.hold()
    flusher.hold()
    flusher.add(_Conn("a", written))
    flusher.release()
    assert written == []
    flusher.release()
    assert written == ["a"]


async def test_without_a_read_one_callback_writes_every_connection_soon() -> None:
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


async def test_a_read_ending_before_the_callback_writes_at_once_and_only_once() -> None:
    written: list[str] = []
    flusher = Flusher()
    flusher.add(_Conn("a", written))  # a callback is scheduled
    flusher.hold()
    flusher.add(_Conn("b", written))
    flusher.release()
    assert written == ["a", "b"]
    await asyncio.sleep(0)
    assert written == ["a", "b"]


async def test_one_failing_connection_does_not_hold_up_the_others() -> None:
    written: list[str] = []
    flusher = Flusher()
    flusher.hold()
    flusher.add(_Conn("a", written, fail=True))
    flusher.add(_Conn("b", written))
    flusher.release()
    assert written == ["b"]
