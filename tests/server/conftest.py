"""Fixtures: a real server on an ephemeral port with fast AI, short waits and timers."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from server.app import CardaviaServer, running_server
from server.config import ServerConfig

FAST = ServerConfig(
    port=0,
    ai_delay=0.0,
    ai_think=0.02,
    ai_deadline=5.0,
    ai_workers=2,
    quick_fill_wait=0.3,
    disconnect_grace=0.3,
    rate_per_s=10_000.0,
    rate_burst=10_000,
)


@pytest.fixture
async def server() -> AsyncIterator[CardaviaServer]:
    """A started server with the fast test settings."""
    async with running_server(FAST) as srv:
        yield srv
