"""Quick play from the browser: a page that reloads right after asking holds no seat,
and the next quick player's game starts after the wait with nobody away (issue 53)."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio

from server.app import CardaviaServer, running_server
from tests.client_web.conftest import CONFIG
from tests.client_web.pages import TIMEOUT_MS, open_page, page_url

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.heavy]

WAIT = 1.0
"""The quick-play fill wait of this server."""

STARTED = (
    "() => document.querySelector('.table-view') &&"
    " !document.querySelector('.table-view .waiting') &&"
    " document.querySelector('.my-hand')"
)
"""The page shows a game under way at its table (no longer "Waiting for players…")."""


@pytest_asyncio.fixture(loop_scope="module")
async def quick_server() -> AsyncIterator[CardaviaServer]:
    """The browser tests' server with a quick-play wait long enough to reload in."""
    async with running_server(CONFIG.replace(quick_fill_wait=WAIT)) as srv:
        yield srv


async def quick_play(page: Any, game: str) -> float:
    """Click the game's quick play; when it was clicked."""
    await page.locator(f"form.game[data-game={game}] button.quick").click()
    return time.monotonic()


async def game_started_in_time(page: Any, server: CardaviaServer, asked: float) -> str:
    """Wait for the page to show its game; check it started within the wait plus a
    second of the click, with nobody away at the table; the table id."""
    await page.wait_for_function(STARTED, timeout=TIMEOUT_MS)
    took = time.monotonic() - asked
    assert took <= WAIT + 1.0, f"the game showed {took:.2f} s after quick play"
    table = str(await page.locator(".table-view").get_attribute("data-table"))
    core = server.lobby.tables[table].core
    assert all(s.connected for s in core.seats if s.kind == "human")
    assert "away" not in await page.locator(".seats").inner_text()
    return table


async def test_reload_right_after_quick_play_holds_no_seat(
    quick_server: CardaviaServer, browser: Any
) -> None:
    url = page_url(quick_server)
    ann = await open_page(browser, url, "Ann")
    await quick_play(ann, "doudizhu")
    await ann.locator(".table-view").wait_for(timeout=TIMEOUT_MS)  # seated, waiting
    await ann.reload()  # at once: her seat is given up, her table closes
    bob = await open_page(browser, url, "Bob")
    asked = await quick_play(bob, "doudizhu")
    table = await game_started_in_time(bob, quick_server, asked)
    ann_id = next(p.player_id for p in quick_server.sessions if p.name == "Ann")
    assert not quick_server.lobby.tables[table].core.is_member(ann_id)
    # Ann, back in the lobby, quick plays again: her game starts in time as well
    await ann.locator("form.game[data-game=doudizhu] button.quick").wait_for(timeout=TIMEOUT_MS)
    asked = await quick_play(ann, "doudizhu")
    await game_started_in_time(ann, quick_server, asked)
    assert ann.errors == [] and bob.errors == []
