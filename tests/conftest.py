"""Fixtures for every test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import structlog
from hypothesis import settings

settings.register_profile("cardavia", deadline=None)
settings.load_profile("cardavia")
"""No per-example deadline: the suite runs four workers on two cores beside servers and a
browser, where an example's time says nothing about the code (a 200 ms deadline failed a
codec property at 328 ms on a loaded machine).  Slow code is found by the benchmarks."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The test files marked ``heavy`` (tens of seconds each) first, each file's tests
    and the rest in the order collected.

    The workers (``scripts/test.sh``: pytest-xdist, one file at a time, asked not
    to reorder) take files in this order: a long file started last would run on
    alone after the others are done.
    """
    items.sort(key=lambda item: item.get_closest_marker("heavy") is None)


@pytest.fixture(autouse=True)
def _logging_as_it_was() -> Iterator[None]:
    """Each test leaves structlog's configuration as it found it.

    A test that configures the server's logging (``server.main.main(["--log-level",
    ...])``) binds its logger to the stream pytest captures for that test; left
    in place, a later test in the same worker that logs wrote to that closed
    stream and failed (``ValueError: I/O operation on closed file``).
    """
    saved = structlog.get_config()
    yield
    structlog.configure(**saved)
