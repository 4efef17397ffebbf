"""Moderation in the browser (issue 54): the buttons on another player's name mute,
block and report them, and the table's owner removes a player before the game."""

from __future__ import annotations

from typing import Any

import pytest

from client_cli.client import Client
from protocol import server_messages as sm
from server.app import CardaviaServer
from tests.client_web.pages import TIMEOUT_MS, create_table, fill, open_page, page_url, strings

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.heavy]

EN = strings("en")["moderation"]


async def test_mute_report_and_kick_from_the_seat_list(
    server: CardaviaServer, browser: Any
) -> None:
    page = await open_page(browser, page_url(server), "Webowner")
    table = await create_table(page, "cicera", ai=False)
    async with await Client.connect(server.url, "Bo") as bo:
        await bo.join(table)
        seat = page.locator(".seat[data-seat='1']")  # Bo's ("Webowner" holds "bo" too)
        await seat.locator("button.mute").click()
        toast = page.locator("#toast", has_text=fill(EN["mute_done"], name="Bo"))
        await toast.wait_for(timeout=TIMEOUT_MS)
        await seat.locator("button.mute", has_text=EN["unmute"]).wait_for(timeout=TIMEOUT_MS)
        owner = next(p for p in server.sessions if p.name == "Webowner")
        assert owner.relations.muted == {bo.player_id}
        await bo.chat(table, "you cannot read me")
        await page.locator(".chat").wait_for(timeout=TIMEOUT_MS)
        page.once("dialog", lambda dialog: dialog.accept("rude in chat"))
        await seat.locator("button.report").click()
        sent = page.locator("#toast", has_text=fill(EN["report_sent"], name="Bo"))
        await sent.wait_for(timeout=TIMEOUT_MS)
        (found,) = [
            r for r in await server.moderation.reports() if r.report.target_player == bo.player_id
        ]
        assert found.report.reason == "rude in chat" and found.report.table_id == table
        assert [c.text for c in found.report.chat] == ["you cannot read me"]
        assert await page.locator(".chat", has_text="you cannot read me").count() == 0
        await seat.locator("button.kick").click()
        kicked = await bo.wait_for(lambda m: isinstance(m, sm.Kicked))
        assert kicked.table == table
        gone = page.locator(f"button.kick[data-player={bo.player_id}]")
        await gone.wait_for(state="detached", timeout=TIMEOUT_MS)
    assert page.errors == []
