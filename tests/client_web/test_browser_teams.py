"""The team matches page in the browser (issue 56, docs/duplicate.md Team matches),
against a real server: a private one-board Scopa match made from the page, joined by
its invite link, a slot left and taken again from the keyboard, filled by two headless
members and started by its creator; the pushed ``team_match_table`` opens the table at
once on the page and as a banner elsewhere; the two pages' members face each other at
table 1 while the headless pair plays table 2; a board not played yet is refused in
words (no card), the other table's result and replay show once one's own table played
the board, and the board's IMPs and the total show on both pages."""

from __future__ import annotations

import asyncio
from typing import Any, Literal

import pytest

from client_cli.client import Client, random_chooser
from client_cli.team_play import play_match
from client_cli.tournament import bot_player
from server.app import CardaviaServer
from tests.client_web.pages import TIMEOUT_MS, dom_cards, fill, open_page, page_url, strings
from tests.client_web.test_browser_accounts import registered
from tests.client_web.test_browser_duplicate import fresh_page, play_board
from tests.client_web.test_browser_ratings import PASSWORD

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.heavy]

EN = strings("en")
REFRESH_MS = 8000  # the page asks for the match every 3 s while it shows


def signed(value: int) -> str:
    """A number as the page's ``signed(value, 0)`` writes it."""
    return f"+{value}" if value > 0 else str(value)


async def member(
    server: CardaviaServer, name: str, match_id: str, team: Literal["a", "b"]
) -> Client:
    """A headless member ``name`` at slot 1 of ``team`` (table 2 of a Scopa match)."""
    client = await Client.connect(server.url, "x")
    await client.register(name, PASSWORD)
    await client.join_team_match(match_id, team, 1)
    return client


async def test_a_scopa_team_match_made_joined_played_and_scored_in_two_pages(
    server: CardaviaServer, browser: Any
) -> None:
    ann = await fresh_page(browser, server, "Ann")
    await ann.click("#open-teams")
    await ann.locator("#team-list p.empty").wait_for(timeout=TIMEOUT_MS)
    await ann.select_option("#team-game", "scopa")
    await ann.fill("#team-boards", "1")
    await ann.select_option("#team-level", "easy")
    await ann.check("#team-private")
    await ann.uncheck("#team-auto")
    await ann.click("#team-create")
    shown = ann.locator("#team-match[data-status=forming]")
    await shown.wait_for(timeout=TIMEOUT_MS)
    match_id = str(await shown.get_attribute("data-match"))
    assert await shown.locator(".team-slot.me[data-team=a][data-slot='0']").count() == 1
    invite = await ann.locator("#team-invite").input_value()
    assert invite == f"{page_url(server)}#team={match_id}"
    assert await ann.locator("#team-list p.empty").count() == 1  # private: not listed
    # Bob opens the invite link: the page joins him (the emptier team, its first slot)
    bob = await fresh_page(browser, server, "Bob")
    await bob.goto(invite)
    mine = bob.locator(f"#team-match[data-match='{match_id}'] .team-slot.me")
    await mine.wait_for(timeout=TIMEOUT_MS)
    assert (await mine.get_attribute("data-team"), await mine.get_attribute("data-slot")) == (
        "b",
        "0",
    )
    # he leaves, then takes the same slot back from the keyboard
    await bob.click("#team-leave")
    take = bob.locator(".team-slot[data-team=b][data-slot='0'] button.take-slot")
    await take.wait_for(timeout=TIMEOUT_MS)
    assert await bob.locator(".team-slot.me").count() == 0
    await take.focus()
    await bob.keyboard.press("Enter")
    await mine.wait_for(timeout=TIMEOUT_MS)
    # the other two members join from headless clients; only the creator may start
    cy = await member(server, "Cy", match_id, "a")
    di = await member(server, "Di", match_id, "b")
    await bob.click("#close-teams")  # Bob waits in the lobby: the notice finds him there
    start = ann.locator("#team-start")
    await start.wait_for(timeout=REFRESH_MS)
    assert (
        await ann.locator(".team-slot[data-team=b][data-slot='1']").get_attribute("data-name")
        == "Di"
    )
    # someone outside the match, not logged in, follows the invite link: only the match
    eve = await open_page(browser, page_url(server) + f"#team={match_id}", "Eve")
    await eve.locator(f"#team-match[data-match='{match_id}']").wait_for(timeout=TIMEOUT_MS)
    assert await eve.locator(".team-create").count() == 0
    assert await eve.locator(".note", has_text=EN["teams"]["login_to_play"]).count() == 1
    await start.click()
    # on the page the table opens at once; in the lobby a banner offers it
    table = f".table-view[data-table='{match_id}-b1-t0']"
    await ann.locator(table).wait_for(timeout=TIMEOUT_MS)
    banner = bob.locator(".team-call[role=alert]")
    await banner.wait_for(timeout=TIMEOUT_MS)
    assert await banner.locator("strong").inner_text() == fill(
        EN["teams"]["call"], board=1, id=match_id
    )
    await bob.locator("#go-team-call").focus()
    await bob.keyboard.press("Enter")
    await bob.locator(table).wait_for(timeout=TIMEOUT_MS)
    assert not await bob.locator(".team-call").count()
    await asyncio.gather(play_board(ann), play_board(bob))
    assert not await ann.locator(".result button.rematch").count()  # a board is played once
    # Eve is not in the match: board 1 is refused in words while table 2 has not played it
    button = eve.locator(".team-board-button[data-board='1']")
    await button.wait_for(timeout=REFRESH_MS)
    await button.click()
    refused = eve.locator(".team-board-view[data-board='1'] p.refusal")
    await refused.wait_for(timeout=TIMEOUT_MS)
    assert await refused.inner_text() == EN["errors"]["board_not_played"]
    assert await dom_cards(eve) == []
    # Ann back on the match: her table's totals show, the other table is still to play
    await ann.click(".result button.to-team-match")
    line = ann.locator(f"#team-match[data-match='{match_id}'] .team-board-line[data-board='1']")
    await line.locator("td.team-table.mine[data-done=true]").wait_for(timeout=TIMEOUT_MS)
    assert (
        await line.locator("td.team-table[data-table='1']").inner_text() == EN["teams"]["playing"]
    )
    await line.locator("button.team-board-button").click()
    early = ann.locator(".team-board-view[data-board='1'] ul.team-board-tables")
    await early.wait_for(timeout=TIMEOUT_MS)
    assert not await ann.locator(".team-board-view button.replay-button").count()
    # the headless pair plays table 2; the match ends and both pages show its IMPs
    bot = bot_player(random_chooser(7))
    await asyncio.gather(play_match(cy, match_id, bot), play_match(di, match_id, bot))
    final = await cy.team_match(match_id)
    assert final.status == "finished"
    board = final.results[0]
    assert board.imps is not None and board.net is not None
    await bob.click(".result button.to-team-match")
    for page in (ann, bob):
        done = page.locator(f"#team-match[data-match='{match_id}'][data-status=finished]")
        await done.wait_for(timeout=REFRESH_MS)
        row = done.locator(".team-board-line[data-board='1']")
        assert await row.get_attribute("data-imps") == str(board.imps)
        assert await row.locator("td.imps").inner_text() == signed(board.imps)
        assert await row.locator("td.net").inner_text() == signed(board.net)
        total = fill(EN["teams"]["score"], a=final.imps_a, b=final.imps_b)
        assert (await done.locator(".team-score").inner_text()).startswith(total)
        assert await done.locator("tr.team-total td.total").inner_text() == (
            f"A {final.imps_a} – B {final.imps_b}"
        )
    # now table 2's play of the board is there to replay, stepped with the arrow keys
    await ann.locator(".team-board-line[data-board='1'] button.team-board-button").click()
    replay = ann.locator(f".team-board-view button.replay-button[data-table='{match_id}-b1-t1']")
    await replay.click()
    view = ann.locator(".replay-view")
    await view.wait_for(timeout=TIMEOUT_MS)
    assert await view.get_attribute("data-step") == "0"
    await ann.keyboard.press("ArrowRight")
    await ann.locator(".replay-view[data-step='1']").wait_for(timeout=TIMEOUT_MS)
    for client in (cy, di):
        await client.close()
    assert ann.errors == [] and bob.errors == [] and eve.errors == []


async def test_at_phone_width_in_german_a_listed_match_is_joined_from_the_keyboard(
    server: CardaviaServer, browser: Any
) -> None:
    host = await Client.connect(server.url, "x")
    await host.register("Hal", PASSWORD)
    made = await host.create_team_match("cicera", 2, "normal")
    await host.close()
    de = strings("de")
    ida = await fresh_page(
        browser, server, "Ida", viewport={"width": 360, "height": 640}, is_mobile=True
    )
    await ida.select_option("#lang", "de")
    await ida.locator("#open-teams", has_text=de["teams"]["open"]).click()
    row = ida.locator(f".team-row[data-match='{made.match_id}'][data-status=forming]")
    await row.wait_for(timeout=TIMEOUT_MS)
    assert await row.locator(".status").inner_text() == de["teams"]["statuses"]["forming"]
    await row.locator("button.join-match").focus()
    await ida.keyboard.press("Enter")
    mine = ida.locator(f"#team-match[data-match='{made.match_id}'] .team-slot.me")
    await mine.wait_for(timeout=TIMEOUT_MS)
    assert (await mine.get_attribute("data-team"), await mine.get_attribute("data-slot")) == (
        "b",
        "0",
    )
    assert await ida.locator(".team-slot").count() == 8  # two teams of two pairs
    width = await ida.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 360
    # an invite link to no match: the refusal in the page's words, nothing else
    await ida.goto(page_url(server) + "#team=M0000000000000000")
    refused = ida.locator("#team-match[data-match='M0000000000000000'] p.refusal")
    await refused.wait_for(timeout=TIMEOUT_MS)
    assert await refused.inner_text() == de["errors"]["unknown_match"]
    assert ida.errors == []


async def test_an_invite_opened_logged_out_is_joined_once_its_reader_registers(
    server: CardaviaServer, browser: Any
) -> None:
    """Eve follows an invite link before she has an account: the page shows the match
    and asks her to log in; once she registers on that page it joins her to the match
    (the emptier team, its first slot), as it would have at once."""
    ann = await Client.connect(server.url, "x")
    await ann.register("Ann", PASSWORD)
    made = await ann.create_team_match("scopa", boards=1, level="easy", private=True)
    match_id = made.match_id
    eve = await open_page(browser, page_url(server) + f"#team={match_id}", "Guest Eve")
    await eve.locator(f"#team-match[data-match='{match_id}']").wait_for(timeout=TIMEOUT_MS)
    assert await eve.locator(".note", has_text=EN["teams"]["login_to_play"]).count() == 1
    assert [m.name for m in (await ann.team_match(match_id)).roster] == ["Ann"]
    await registered(eve, "Eve")
    mine = eve.locator(f"#team-match[data-match='{match_id}'] .team-slot.me")
    await mine.wait_for(timeout=TIMEOUT_MS)
    assert (await mine.get_attribute("data-team"), await mine.get_attribute("data-slot")) == (
        "b",
        "0",
    )
    members = (await ann.team_match(match_id)).roster
    assert sorted((m.name, m.team, m.slot) for m in members) == [("Ann", "a", 0), ("Eve", "b", 0)]
    await ann.close()
    assert eve.errors == []
