"""The browser client in a real headless chromium against a real server."""

from __future__ import annotations

from typing import Any

import pytest

from engine.codec import to_plain
from server.app import CardaviaServer
from tests.client_web.pages import (
    TIMEOUT_MS,
    check_no_leak,
    create_table,
    dom_cards,
    my_turn,
    open_page,
    page_url,
    page_version,
    play_first_legal,
    play_one,
    wait_turn_or_end,
)

# one chromium for the module; tens of seconds: run first (tests/conftest.py)
pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.heavy]


async def test_scopa_against_the_ai_to_the_end_then_rematch(
    server: CardaviaServer, browser: Any
) -> None:
    page = await open_page(browser, page_url(server), "Ann")
    table = await create_table(page, "scopa", ai=True, target="1")
    moves = 0
    while True:
        await wait_turn_or_end(page)
        if await page.locator(".result").count():
            break
        drawn = await check_no_leak(page, server, table, 0)
        hand = await page.eval_on_selector_all(
            ".my-hand [data-card]", "els => els.map(e => e.dataset.card)"
        )
        assert hand and set(hand) <= set(drawn)
        await play_one(page)
        moves += 1
        assert moves < 200
    assert moves >= 5  # a deal at least
    result = server.lobby.tables[table].core
    assert result.status == "finished"
    assert "Game over" in await page.locator(".result").inner_text()
    assert await page.locator(".deal-score").count() == 1  # the deal's scoring is shown
    await page.locator(".result button.rematch").click()  # the AI agrees: a new game
    await page.wait_for_function(
        "() => !document.querySelector('.result') && document.querySelector('.my-hand .card')",
        timeout=TIMEOUT_MS,
    )
    assert page.errors == []


async def test_reload_mid_game_takes_the_seat_back(server: CardaviaServer, browser: Any) -> None:
    page = await open_page(browser, page_url(server), "Bea")
    await page.locator("form.game[data-game=scopa] button.quick").click()
    await page.locator(".my-hand button.card.playable").first.wait_for(timeout=TIMEOUT_MS)
    table = str(await page.locator(".table-view").get_attribute("data-table"))
    await play_one(page)
    await wait_turn_or_end(page)
    player = next(iter(server.sessions)).player_id
    await page.reload()
    await page.locator(".my-hand .card").first.wait_for(timeout=TIMEOUT_MS)
    assert await page.locator(".table-view").get_attribute("data-table") == table
    assert await page.locator(".seat.me").count() == 1
    assert [p.player_id for p in server.sessions] == [player]  # the same session, resumed
    await wait_turn_or_end(page)
    assert await my_turn(page)  # a quick-play game goes to 11: far from over
    core = server.lobby.tables[table].core
    hand = await page.eval_on_selector_all(
        ".my-hand [data-card]", "els => els.map(e => e.dataset.card)"
    )
    assert sorted(hand) == sorted(to_plain(core.game.view(core.state, 0))["hand"])
    await check_no_leak(page, server, table, 0)
    await play_one(page)
    assert page.errors == []


async def test_two_pages_at_one_private_table_see_each_others_moves(
    server: CardaviaServer, browser: Any
) -> None:
    ann = await open_page(browser, page_url(server), "Ann")
    table = await create_table(ann, "scopa", ai=False, private=True, target="1")
    link = await ann.locator(".invite-link").input_value()
    assert f"table={table}" in link and "invite=" in link
    bob = await open_page(browser, link, "Bob")
    await bob.locator(".my-hand .card").first.wait_for(timeout=TIMEOUT_MS)
    await ann.locator(".my-hand .card").first.wait_for(timeout=TIMEOUT_MS)
    for _ in range(3):
        mover, watcher = (ann, bob) if await ann.locator(".turn-line.mine").count() else (bob, ann)
        await mover.locator(".my-hand button.card.playable").first.wait_for(timeout=TIMEOUT_MS)
        card = await mover.locator(".my-hand button.card.playable").first.get_attribute("data-card")
        before = await page_version(watcher)
        await play_one(mover)
        await watcher.wait_for_function(
            "v => Number(document.querySelector('.table-view').dataset.version) > v",
            arg=before,
            timeout=TIMEOUT_MS,
        )
        assert card in await dom_cards(watcher)  # on the table or as the last play
        for page, seat in ((ann, 0), (bob, 1)):
            await page.wait_for_function(
                "v => Number(document.querySelector('.table-view').dataset.version) >= v",
                arg=server.lobby.tables[table].core.version,
                timeout=TIMEOUT_MS,
            )
            await check_no_leak(page, server, table, seat)
    await ann.fill(".chat-input", "ciao Bob!")
    await ann.locator(".chat button[type=submit]").click()
    await bob.locator(".chat li", has_text="ciao Bob!").wait_for(timeout=TIMEOUT_MS)
    assert "Ann" in await bob.locator(".chat li").last.inner_text()
    assert ann.errors == [] and bob.errors == []


async def test_phone_sized_screen_shows_hand_and_moves(
    server: CardaviaServer, browser: Any
) -> None:
    page = await open_page(
        browser, page_url(server), "Cleo", viewport={"width": 360, "height": 640}, is_mobile=True
    )
    await page.locator("form.game[data-game=scopa] button.quick").click()
    first = page.locator(".my-hand button.card.playable").first
    await first.wait_for(timeout=TIMEOUT_MS)
    width = await page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 360
    for card in await page.locator(".my-hand .card").all():
        box = await card.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 360
        assert box["width"] >= 36  # large enough to tap
    await play_one(page)
    assert page.errors == []


async def _deal_with_bids(server: CardaviaServer, browser: Any, game: str, **opts: str) -> None:
    """Play deals against the AI by buttons (bids, passes, contracts) and cards until
    the page has used both (the AI may win the auction before the page's turn: then
    rematch, at most four games)."""
    page = await open_page(browser, page_url(server), "Dora")
    table = await create_table(page, game, ai=True, **opts)
    buttons = cards = 0
    for _ in range(4):
        while True:
            await page.wait_for_selector(
                ".my-hand button.card.playable, .moves button.move, .result", timeout=TIMEOUT_MS
            )
            if await page.locator(".result").count():
                break
            await check_no_leak(page, server, table, 0)
            if await page.locator(".moves button.move").count():
                buttons += 1
            else:
                cards += 1
            await play_first_legal(page)
            assert buttons + cards < 600
        assert server.lobby.tables[table].core.status == "finished"
        if buttons and cards:
            break
        await page.locator(".result button.rematch").click()
        await page.locator(".result").wait_for(state="detached", timeout=TIMEOUT_MS)
    assert buttons >= 1 and cards >= 1  # bid or passed with buttons, played cards
    assert page.errors == []


async def test_schafkopf_deal_with_bids(server: CardaviaServer, browser: Any) -> None:
    await _deal_with_bids(server, browser, "schafkopf", deals="1")


async def test_doudizhu_deal_with_bids(server: CardaviaServer, browser: Any) -> None:
    await _deal_with_bids(server, browser, "doudizhu")


async def test_dropped_connection_reconnects_and_plays_on(
    server: CardaviaServer, browser: Any
) -> None:
    page = await open_page(browser, page_url(server), "Eve")
    table = await create_table(page, "scopa", ai=True, target="1", timer="60")
    await wait_turn_or_end(page)
    timer = await page.locator(".seat.me .timer").inner_text()  # the turn timer runs
    assert timer.endswith(" s") and 50 <= int(timer.split()[0]) <= 60
    for conn in list(server.connections):  # the network drops every connection
        conn.ws.transport.abort()
    await page.wait_for_function(
        "() => document.getElementById('status').textContent.includes('reconnecting')",
        timeout=TIMEOUT_MS,
    )
    await page.wait_for_function(
        "() => document.getElementById('status').textContent === 'Eve'", timeout=TIMEOUT_MS
    )
    await wait_turn_or_end(page)
    assert await page.locator(".table-view").get_attribute("data-table") == table
    assert len(server.sessions) == 1 and next(iter(server.sessions)).connected
    await check_no_leak(page, server, table, 0)
    await play_one(page)
    assert page.errors == []


async def test_watch_a_public_table_from_the_lobby(server: CardaviaServer, browser: Any) -> None:
    ann = await open_page(browser, page_url(server), "Ann")
    table = await create_table(ann, "scopa", ai=True, target="1")
    await wait_turn_or_end(ann)
    carl = await open_page(browser, page_url(server), "Carl")
    row = carl.locator(f'.table-row[data-table="{table}"]')
    await row.wait_for(timeout=TIMEOUT_MS)
    await row.locator("button", has_text="Watch").click()
    await carl.locator(".table-cards .card").first.wait_for(timeout=TIMEOUT_MS)
    assert await carl.locator(".my-hand").count() == 0  # a watcher has no hand
    await check_no_leak(carl, server, table, None)
    assert carl.errors == []
