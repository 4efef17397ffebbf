"""Fixtures for every test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import structlog


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
