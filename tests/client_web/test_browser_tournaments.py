"""The tournaments page in the browser (issue 56), against a real server: a Swiss made
from the page's form, registering, the round's table opened by the pushed
``tournament_table`` on the tournaments page, and the standings after it; elsewhere the
notice waits as a banner (and as "my next table" on the page) until the player goes to
the table, which then shows everything it was sent meanwhile."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any

import pytest

from client_cli.client import Client
from protocol import client_messages as cm
from server.app import CardaviaServer
from tests.client_web.pages import TIMEOUT_MS, fill, play_first_legal, strings
from tests.client_web.test_browser_duplicate import fresh_page, play_board
from tests.client_web.test_browser_ratings import PASSWORD

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.heavy]

EN = strings("en")
START_IN = 4.0  # seconds from making a tournament to its first round


def fast(server: CardaviaServer) -> None:
    """Passes often (a round starts within a tenth of a second of its time)."""
    server.tournaments.period = 0.1


async def test_a_duplicate_swiss_made_in_the_page_takes_the_player_to_the_table(
    server: CardaviaServer, browser: Any
) -> None:
    fast(server)
    tia = await fresh_page(browser, server, "Tia", timezone_id="UTC")
    await tia.click("#open-tournaments")
    await tia.locator("#tourney-list p.empty").wait_for(timeout=TIMEOUT_MS)
    await tia.fill("#tourney-name", "Monday Cicera")
    await tia.select_option("#tourney-game", "cicera")
    await tia.select_option("#tourney-kind", "arena")
    assert await tia.locator("#tourney-minutes").is_visible()
    assert not await tia.locator("#tourney-rounds").is_visible()
    await tia.select_option("#tourney-kind", "duplicate-swiss")
    await tia.fill("#tourney-rounds", "1")
    await tia.fill("#tourney-timer", "30")
    when = datetime.fromtimestamp(time.time() + START_IN + 2, UTC)  # the page's zone: UTC
    start = when.strftime("%Y-%m-%dT%H:%M:%S")
    await tia.fill("#tourney-start", start)
    await tia.click("#tourney-create")
    row = tia.locator(".tourney-row[data-status=scheduled]")
    await row.wait_for(timeout=TIMEOUT_MS)
    made = str(await row.get_attribute("data-tournament"))
    stored = await server.tournaments.store.get(made)
    assert (stored.game, stored.kind.value, stored.rounds, stored.turn_timer) == (
        "cicera",
        "duplicate-swiss",
        1,
        30.0,
    )
    assert stored.duration_s is None
    assert abs(stored.starts_at - (time.time() + START_IN + 2)) < 3
    await row.locator("button.register").click()
    await tia.locator(f".tourney-row[data-tournament='{made}'] .badge.mine").wait_for(
        timeout=TIMEOUT_MS
    )
    detail = tia.locator(f"#tourney-detail[data-tournament='{made}']")
    await detail.locator("tr[data-name='Tia']").wait_for(timeout=TIMEOUT_MS)
    # the round starts: the notice takes Tia from the page straight to the table
    table = tia.locator(f".table-view[data-table^='{made}-r1-t']")
    await table.wait_for(timeout=15_000)
    assert not await tia.locator(".tourney-call").count()
    await play_board(tia)
    assert not await tia.locator(".result button.rematch").count()
    await tia.click(".result button.to-tournament")
    final = tia.locator(f"#tourney-detail[data-tournament='{made}'][data-status=finished]")
    await final.wait_for(timeout=15_000)
    line = final.locator("tr[data-name='Tia']")
    assert await line.locator("td.rank").inner_text() == "1"
    assert await line.locator("td:nth-child(8)").inner_text() == "1"  # one game played
    viewer = await Client.connect(server.url, "viewer")
    standings = (await viewer.standings(made)).standings
    await viewer.close()
    # a Duplicate Swiss ranks by matchpoints across the round's tables: shown first
    assert standings[0].matchpoints is not None
    assert await line.locator("td.mp").inner_text() == str(standings[0].matchpoints)
    assert await line.locator("td.points").inner_text() == f"{round(standings[0].points, 2):g}"
    await tia.check("#tourney-finished")
    await tia.locator(f".tourney-row[data-tournament='{made}'][data-status=finished]").wait_for(
        timeout=TIMEOUT_MS
    )
    assert tia.errors == []


async def test_away_from_the_page_the_notice_is_a_banner_until_the_player_goes(
    server: CardaviaServer, browser: Any
) -> None:
    fast(server)
    uma = await fresh_page(browser, server, "Uma")
    host = await Client.connect(server.url, "x")
    await host.register("Host", PASSWORD)
    made = await host.create_tournament(
        cm.CreateTournament(
            name="Tuesday", game="scopa", kind="swiss", starts_at=time.time() + START_IN, rounds=1
        )
    )
    await host.close()
    await uma.click("#open-tournaments")
    row = uma.locator(f".tourney-row[data-tournament='{made.id}']")
    await row.locator("button.register").click()
    await row.locator("button.withdraw").click()  # changed her mind, then back in
    await row.locator("button.register").wait_for(timeout=TIMEOUT_MS)
    entries = await server.tournaments.store.entries(made.id)
    assert [e.withdrawn for e in entries] == [True]
    await row.locator("button.register").click()
    await row.locator("button.withdraw").wait_for(timeout=TIMEOUT_MS)
    await uma.click("#close-tournaments")  # to the lobby: the round finds Uma there
    banner = uma.locator(".tourney-call[role=alert]")
    await banner.wait_for(timeout=15_000)
    assert await banner.locator("strong").inner_text() == fill(
        EN["tournaments"]["call"], round=1, name=made.id
    )
    assert not await uma.locator(".table-view").count()
    # the page's "my next table" offers the same table
    await uma.click("#open-tournaments")
    await uma.locator(f".tourney-row[data-tournament='{made.id}'] button.standings-button").click()
    go = uma.locator("#go-next-table")
    await go.wait_for(timeout=TIMEOUT_MS)
    await uma.locator(".tourney-call").wait_for(timeout=TIMEOUT_MS)  # still there
    await go.focus()
    await uma.keyboard.press("Enter")  # reachable from the keyboard
    table = uma.locator(f".table-view[data-table^='{made.id}-r1-t']")
    await table.wait_for(timeout=TIMEOUT_MS)
    assert not await uma.locator(".tourney-call").count()
    # what the table sent while Uma was away is shown: the deal, and Uma can play
    await uma.wait_for_selector(".my-hand button.card.playable, .result", timeout=TIMEOUT_MS)
    table_id = str(await table.get_attribute("data-table"))
    core = server.lobby.tables[table_id].core
    assert int(await table.get_attribute("data-version") or 0) == core.version
    if await uma.locator(".my-hand button.card.playable").count():
        await play_first_legal(uma)
    assert uma.errors == []
