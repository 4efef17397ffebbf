"""The duplicate page in the browser (issue 56), against a real server: an on-demand
one-board Scopa set made from the page, its board played at the normal table view
against the AI, where the player stands after it, the set's live standings and the
board's table of results; another player's replay shown only once the asker finished
the board (before, the server's refusal in words and no card)."""

from __future__ import annotations

from typing import Any

import pytest

from client_cli.client import Client
from server.app import CardaviaServer
from tests.client_web.pages import (
    TIMEOUT_MS,
    blank_page,
    dom_cards,
    fill,
    page_url,
    play_first_legal,
    strings,
)
from tests.client_web.test_browser_ratings import PASSWORD, register

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.heavy]

EN = strings("en")
MOVES = 200  # a one-deal Scopa board is far shorter


async def fresh_page(browser: Any, server: CardaviaServer, name: str, **context: Any) -> Any:
    """A page of a new profile, registered as ``name``."""
    page = await blank_page(browser, page_url(server), **context)
    await register(page, name)
    return page


async def play_board(page: Any) -> None:
    """Play the open table to its end, the way a player does."""
    await page.locator(".table-view").wait_for(timeout=TIMEOUT_MS)
    for _ in range(MOVES):
        await page.wait_for_selector(
            ".my-hand button.card.playable, .moves button.move, .result", timeout=TIMEOUT_MS
        )
        if await page.locator(".result").count():
            return
        await play_first_legal(page)
    raise AssertionError("the board did not end")


async def open_set(page: Any, set_id: str) -> None:
    """Open the duplicate page and the set ``set_id`` in it."""
    await page.click("#open-duplicate")
    row = page.locator(f".dup-set-row[data-set='{set_id}']")
    await row.wait_for(timeout=TIMEOUT_MS)
    await row.locator("button.open-set").click()
    await page.locator(f"#dup-set[data-set='{set_id}']").wait_for(timeout=TIMEOUT_MS)


async def ask_board(page: Any, n: int) -> Any:
    """Ask for board ``n``'s results; its section once the answer is drawn."""
    await page.locator(f"#dup-set button.dup-board[data-board='{n}']").click()
    view = page.locator(f".dup-board-view[data-board='{n}']")
    await view.locator("table.dup-results, p.refusal").first.wait_for(timeout=TIMEOUT_MS)
    return view


async def test_a_one_board_set_is_made_played_and_scored_in_the_page(
    server: CardaviaServer, browser: Any
) -> None:
    dana = await fresh_page(browser, server, "Dana")
    await dana.click("#open-duplicate")
    # today's daily sets are listed, one per game with duplicate boards
    daily = dana.locator(".dup-set-row[data-kind=daily]")
    await daily.first.wait_for(timeout=TIMEOUT_MS)
    assert await dana.locator(".dup-game[data-game=scopa] .dup-set-row[data-kind=daily]").count()
    # an on-demand set of one Scopa board, from the form
    await dana.select_option("#dup-game", "scopa")
    await dana.fill("#dup-boards", "1")
    await dana.fill("#dup-minutes", "30")
    await dana.click("#dup-create")
    opened = dana.locator("#dup-set[data-set]")
    await opened.wait_for(timeout=TIMEOUT_MS)
    set_id = str(await opened.get_attribute("data-set"))
    assert (await server.duplicate.store.get_set(set_id)).boards == 1
    await dana.locator(".dup-set-row.open[data-kind=on_demand]").wait_for(timeout=TIMEOUT_MS)
    # the board not played yet: the refusal in words, no card at all
    refused = await ask_board(dana, 1)
    assert await refused.get_attribute("data-code") == "board_not_played"
    assert await refused.locator(".refusal").inner_text() == EN["errors"]["board_not_played"]
    assert await dom_cards(dana) == []
    # the board at the normal table view, then where Dana stands
    await dana.click("#dup-play")
    await play_board(dana)
    stand = dana.locator(".dup-after .dup-stand[role=status]")
    await stand.wait_for(timeout=TIMEOUT_MS)
    line = (await server.duplicate.store.standings(set_id))[0]
    assert await stand.inner_text() == fill(
        EN["duplicate"]["stand"],
        rank=1,
        players=1,
        mp=line.matchpoints,
        top=line.top,
        percent=f"{line.percent:.1f}",
        imps="0.00",
    )
    assert not await dana.locator(".result button.rematch").count()  # a board is played once
    # the board's results: the table of results, Dana's line marked
    await dana.click(".dup-results-button")
    results = dana.locator(".dup-board-view[data-board='1'] table.dup-results")
    await results.wait_for(timeout=TIMEOUT_MS)
    assert await results.locator("tr.me td.name").inner_text() == "Dana"
    assert not await results.locator("button.replay-button").count()  # nobody else yet
    standings = dana.locator("#dup-standings table.dup-standings")
    await standings.wait_for(timeout=TIMEOUT_MS)
    assert await standings.locator("tr[data-rank='1'] td.name").inner_text() == "Dana"
    assert await standings.locator("tr[data-rank='1'] td.imps").inner_text() == "0.00"
    assert not await dana.locator("#dup-play").count()  # every board played
    assert dana.errors == []


async def test_another_player_s_replay_shows_only_once_the_board_is_finished(
    server: CardaviaServer, browser: Any
) -> None:
    maker = await Client.connect(server.url, "x")
    await maker.register("Maker", PASSWORD)
    made = await maker.create_duplicate_set("scopa", "normal", 1, 30, 0)
    await maker.close()
    first = await fresh_page(browser, server, "Fay")
    await open_set(first, made.set_id)
    await first.click("#dup-play")
    await play_board(first)
    second = await fresh_page(browser, server, "Gil")
    await second.select_option("#lang", "it")  # the refusal in the page's language
    await second.locator("#open-duplicate", has_text="Duplicato").wait_for(timeout=TIMEOUT_MS)
    await open_set(second, made.set_id)
    # Fay has played: the standings say so live, but Gil sees no result of the board yet
    await second.locator("#dup-standings tr[data-name='Fay']").wait_for(timeout=TIMEOUT_MS)
    refused = await ask_board(second, 1)
    assert (
        await refused.locator(".refusal").inner_text()
        == strings("it")["errors"]["board_not_played"]
    )
    assert not await second.locator(".replay-button").count()
    assert await dom_cards(second) == []
    await second.click("#dup-play")
    await play_board(second)
    await second.locator(".dup-after .dup-stand[role=status]").wait_for(timeout=TIMEOUT_MS)
    await second.click(".dup-results-button")
    row = second.locator(".dup-results tr[data-name='Fay']")
    await row.wait_for(timeout=TIMEOUT_MS)
    await row.locator("button.replay-button").click()
    replay = second.locator("#replay-view")
    await replay.wait_for(timeout=TIMEOUT_MS)
    steps = int(await replay.get_attribute("data-steps") or 0)
    assert steps > 10
    assert await replay.get_attribute("data-step") == "0"
    dealt = await replay.locator(".replay-seat[data-seat='0'] [data-card]").count()
    assert dealt == 3  # Fay's opening hand
    seats = await replay.locator(".replay-seat .who").all_inner_texts()
    assert "Fay" in seats and "Gil" not in seats  # Fay's own game of the board
    await replay.focus()
    await second.keyboard.press("ArrowRight")
    await second.locator("#replay-view[data-step='1']").wait_for(timeout=TIMEOUT_MS)
    assert await second.locator("#replay-view .replay-move").inner_text()
    await second.click("#replay-last")
    await second.locator(f"#replay-view[data-step='{steps}']").wait_for(timeout=TIMEOUT_MS)
    await second.locator("#replay-view .replay-result").wait_for(timeout=TIMEOUT_MS)
    # and Fay, back at the board, now sees Gil's play too
    await first.click(".dup-results-button")
    await first.locator(".dup-results tr[data-name='Gil'] button.replay-button").wait_for(
        timeout=TIMEOUT_MS
    )
    assert first.errors == [] and second.errors == []
