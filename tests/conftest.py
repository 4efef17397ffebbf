"""Fixtures for every test."""

from __future__ import annotations

import os
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


@pytest.fixture(autouse=True, scope="session")
def _own_data_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Servers started by the tests (in-process or as commands) keep their default
    SQLite database (server.config.default_data_dir) in a folder of this test
    session, never in the user's own ``~/.local/share/cardavia`` (whose accounts
    would make a test's display name taken)."""
    saved = os.environ.get("XDG_DATA_HOME")
    os.environ["XDG_DATA_HOME"] = str(tmp_path_factory.mktemp("xdg-data"))
    yield
    if saved is None:
        os.environ.pop("XDG_DATA_HOME", None)
    else:
        os.environ["XDG_DATA_HOME"] = saved


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
