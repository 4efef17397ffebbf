"""``run_at_once``: a coroutine that must finish in the caller's turn of the loop."""

from __future__ import annotations

import asyncio

import pytest

from server.tables.at_once import run_at_once


def test_a_coroutine_that_does_not_wait_runs_to_its_end() -> None:
    done: list[str] = []

    async def inner() -> None:
        done.append("inner")

    async def outer() -> None:
        await inner()  # awaiting what does not wait does not suspend
        done.append("outer")

    run_at_once(outer(), "it never waits")
    assert done == ["inner", "outer"]


def test_one_that_waits_is_cut_short_and_said_to_be_a_bug() -> None:
    cleaned: list[bool] = []

    async def waits() -> None:
        try:
            await asyncio.sleep(0)  # yields to the loop: not at once
        finally:
            cleaned.append(True)

    with pytest.raises(RuntimeError, match="waited, though the store is quick"):
        run_at_once(waits(), "the store is quick")
    assert cleaned == [True]  # closed: its finally ran, nothing is left pending
