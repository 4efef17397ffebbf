"""Fixtures: a real server on an ephemeral port with fast AI, short waits and timers."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from server.app import CardaviaServer, running_server
from tests.server.helpers import FAST, duplicate_server
from tests.server.postgres_fixture import (  # noqa: F401 (fixtures)
    database,
    database_url,
    postgres_server,
)
from tests.server.redis_fixture import redis_server, servers  # noqa: F401 (fixtures)


@pytest.fixture
async def server() -> AsyncIterator[CardaviaServer]:
    """A started server with the fast test settings."""
    async with running_server(FAST) as srv:
        yield srv


@pytest.fixture
async def dup_server(tmp_path: Path) -> AsyncIterator[CardaviaServer]:
    """A started server with the fast test settings, its own SQLite database, a fixed
    duplicate secret and fast password hashing (duplicate sets, team matches)."""
    async with duplicate_server(tmp_path) as srv:
        yield srv
