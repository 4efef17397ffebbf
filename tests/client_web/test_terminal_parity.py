"""The browser matches the terminal: every string follows a language switch (the move
badges too), seats and deals are named and numbered as `cardavia play` names them, Dou
Dizhu selects on click and plays on one explicit act (saying why a selection is no
play), the favicon, the rules, the AI level, ``hint``, labelled chips, the turn's tab
title and optional sound, and a font stack that falls back to the system's CJK fonts.

A real headless chromium against a real server, as in ``test_browser.py``.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest

from client_cli.hint import hint as terminal_hint
from client_cli.lang import language
from client_cli.render.base import seat_name
from client_cli.render.scopa import ScopaRenderer
from engine.codec import to_plain
from server.app import CardaviaServer
from tests.client_web.pages import (
    TIMEOUT_MS,
    create_table,
    fill,
    open_page,
    page_url,
    page_version,
    play_one,
    strings,
    wait_turn_or_end,
)

pytestmark = pytest.mark.asyncio(loop_scope="module")  # one chromium for the module


def _view(server: CardaviaServer, table: str, seat: int | None) -> dict[str, Any]:
    core = server.lobby.tables[table].core
    return dict(to_plain(core.game.view(core.state, seat)))


async def _my_ddz_turn(page: Any, server: CardaviaServer, table: str) -> dict[str, Any]:
    """Bid 3 at the page's first auction turn (or pass, once someone has), then wait
    until the page's seat is to play cards; that seat's view."""
    while True:
        await page.wait_for_function(
            "() => { const t = window.cardavia.table; return t && t.view &&"
            " (t.view.to_act || []).includes(t.seat) && (t.view.legal || []).length &&"
            " Number(document.querySelector('.table-view').dataset.version) === t.version }",
            timeout=TIMEOUT_MS,
        )
        view = _view(server, table, 0)
        if view["phase"] != "bidding":
            return view
        before = await page_version(page)
        bids = [a for a in view["legal"] if a.get("bid")]
        label = fill(strings("en")["action"]["bid"], value=3) if bids else None
        button = page.locator(".moves button.move", has_text=label or "Pass")
        await button.first.click()
        await page.wait_for_function(
            "v => Number(document.querySelector('.table-view').dataset.version) > v",
            arg=before,
            timeout=TIMEOUT_MS,
        )


async def test_switching_language_redraws_the_move_badges(
    server: CardaviaServer, browser: Any
) -> None:
    page = await open_page(browser, page_url(server), "Wang", locale="en-US")
    await create_table(page, "doudizhu", ai=True)
    badge = page.locator(".seat-move .move-text").first
    while not await badge.count():  # the AI's bids or passes show beside their seats
        await page.locator(".moves button.move, .seat-move .move-text").first.wait_for(
            timeout=TIMEOUT_MS
        )
        if not await badge.count():
            await page.locator(".moves button.move").first.click()
            await page.wait_for_timeout(300)
    for lang in ("de", "zh", "en"):
        await page.select_option("#lang", lang)
        table = strings(lang)
        words = {table["action"]["pass"]} | {
            fill(table["action"]["bid"], value=v) for v in (1, 2, 3)
        }
        await page.wait_for_function(
            "words => [...document.querySelectorAll('.seat-move .move-text')]"
            ".every((n) => words.includes(n.textContent))",
            arg=sorted(words),
            timeout=TIMEOUT_MS,
        )
    assert page.errors == []


async def test_seats_and_deals_are_named_and_numbered_as_the_terminal_says_them(
    server: CardaviaServer, browser: Any
) -> None:
    page = await open_page(browser, page_url(server), "Nina", locale="en-US")
    table = await create_table(page, "scopa", ai=True)
    await wait_turn_or_end(page)
    info = server.lobby.tables[table].core.info()
    view = _view(server, table, 0)
    deal = strings("en")["fields"]["deal_no"]
    deal_row = page.locator(".details tr").filter(
        has=page.locator("th", has_text=re.compile(f"^{deal}$"))
    )
    for lang in ("en", "de", "zh"):
        await page.select_option("#lang", lang)
        terminal = seat_name(info.seats[1], lang=language(lang))
        await page.wait_for_function(
            "name => document.querySelector('.seat[data-seat=\"1\"] .who').textContent === name",
            arg=terminal,
            timeout=TIMEOUT_MS,
        )
    assert seat_name(info.seats[1], lang=language("en")) == "AI 1 (hard)"
    await page.select_option("#lang", "en")
    await deal_row.wait_for(timeout=TIMEOUT_MS)
    shown = await deal_row.locator("td").inner_text()
    head = ScopaRenderer(lang=language("en")).game_view(view)[0]  # "Deal 1, dealer …"
    assert head.startswith(f"Deal {shown},") and shown == str(view["deal_no"] + 1) == "1"
    assert page.errors == []


async def test_doudizhu_selects_on_click_plays_on_one_act_and_says_why_not(
    server: CardaviaServer, browser: Any
) -> None:
    page = await open_page(browser, page_url(server), "Li", locale="en-US")
    table = await create_table(page, "doudizhu", ai=True)
    view = await _my_ddz_turn(page, server, table)
    why = strings("en")["why"]
    hand = view["hand"]
    legal_ranks = {
        tuple(sorted(c[0] + (c[1] == "J") * "J" for c in a["cards"]))
        for a in view["legal"]
        if a.get("cards")
    }
    last = view["last"]["cards"] if view["last"] and view["last_seat"] != 0 else None
    plain = [c for c in hand if c[1] != "J"]
    if last is not None and len(last) != 1:  # one card: no play against a combination
        picks = [plain[0]]
    else:  # two cards of two ranks (no jokers): never a combination
        picks = [plain[0], next(c for c in plain if c[0] != plain[0][0])]
    assert tuple(sorted(c[0] + (c[1] == "J") * "J" for c in picks)) not in legal_ranks
    before = await page_version(page)
    sent = await page.evaluate("() => window.cardavia.nextId")
    for card in picks:  # each click selects, nothing is sent
        await page.locator(f'.my-hand button.card[data-card="{card}"]').click()
        assert await page.locator(f'.my-hand [data-card="{card}"].selected').count() == 1
    assert await page.evaluate("() => window.cardavia.nextId") == sent
    assert await page_version(page) == before
    assert await page.locator(".play-selected").is_disabled()
    expected = (
        why["not_a_combination"]
        if last is None
        else fill(
            why["must_beat"],
            combo=strings("en")["terms"]["doudizhu"][view["last"]["combo"]],
            n=len(last),
        )
    )
    assert await page.locator(".selection-why").inner_text() == expected
    for card in picks:  # a second click takes the card out again
        await page.locator(f'.my-hand button.card[data-card="{card}"]').click()
    assert await page.locator(".my-hand .selected").count() == 0
    plays = [a for a in view["legal"] if a.get("cards")]
    if plays:
        for card in plays[0]["cards"]:
            await page.locator(f'.my-hand button.card[data-card="{card}"]').click()
        assert await page.locator(".selection-why").count() == 0
        await page.locator(".play-selected").click()  # the one act that plays
    else:
        await page.locator(".moves button.move").first.click()
    await page.wait_for_function(
        "v => Number(document.querySelector('.table-view').dataset.version) > v",
        arg=before,
        timeout=TIMEOUT_MS,
    )
    assert page.errors == []


async def test_a_load_logs_no_error_and_the_favicon_is_there(
    server: CardaviaServer, browser: Any
) -> None:
    ctx = await browser.new_context()
    page = await ctx.new_page()
    logged: list[str] = []
    page.on("console", lambda m: logged.append(m.text) if m.type == "error" else None)
    await page.goto(page_url(server))
    await page.locator("#name").wait_for(timeout=TIMEOUT_MS)
    await page.wait_for_timeout(500)  # the browser asks for the icon after the load
    assert logged == []
    icon = await page.evaluate(
        "async () => { const r = await fetch(document.querySelector('link[rel=icon]').href);"
        " return [r.status, r.headers.get('content-type')]; }"
    )
    assert icon == [200, "image/svg+xml"]


async def test_the_rules_of_each_game_show_in_the_page(
    server: CardaviaServer, browser: Any
) -> None:
    page = await open_page(browser, page_url(server), "Rosa", locale="de-DE")
    button = page.locator("form.game[data-game=doudizhu] .rules-button")
    await button.click()
    rules = page.locator("section.rules[data-game=doudizhu]")
    await rules.locator("table").first.wait_for(timeout=TIMEOUT_MS)
    assert await rules.locator("h2").first.inner_text() == strings("de")["rules"]
    assert await rules.locator("h2").nth(1).inner_text() == "Dou Dizhu (Fight the Landlord)"
    assert await rules.get_attribute("lang") == "en"  # no German rules yet: English, said so
    assert await rules.locator(".rules-note").inner_text() == strings("de")["rules_in_english"]
    assert "#" not in await rules.locator("h3").first.inner_text()
    assert await rules.locator("code").count() > 5
    await page.evaluate("() => { window.__rules = document.querySelector('section.rules'); }")
    await create_table(page, "doudizhu", ai=True)  # the table's drawing leaves the rules alone
    await page.locator(".my-hand .card").first.wait_for(timeout=TIMEOUT_MS)
    assert await page.evaluate("() => window.__rules === document.querySelector('section.rules')")
    await rules.locator(".rules-close").click()
    assert await page.locator("section.rules").count() == 0
    # the text goes in as text: markup in a rules file never becomes an element
    made = await page.evaluate(
        """async () => {
            const m = await import("/static/markdown.js");
            const box = document.createElement("div");
            box.append(m.renderMarkdown("# <img src=x onerror=alert(1)>\\n\\n"
                + "a **<b>bold</b>** `<script>x</script>` [link](javascript:alert(1))\\n"
                + "- <i>item</i>\\n\\n| <u>a</u> | b |\\n|---|---|\\n| 1 | 2 |"));
            return [box.querySelectorAll("img, b, script, i, u, a").length, box.textContent];
        }"""
    )
    assert made[0] == 0 and "<img src=x" in made[1] and "<script>" in made[1]
    assert page.errors == []


async def test_the_ai_level_the_hint_and_the_labelled_chips(
    server: CardaviaServer, browser: Any
) -> None:
    page = await open_page(browser, page_url(server), "Tom", locale="en-US")
    form = page.locator("form.game[data-game=scopa]")
    await form.wait_for(timeout=TIMEOUT_MS)
    await form.locator("select[name=level]").select_option("greedy")
    table = await create_table(page, "scopa", ai=True)
    core = server.lobby.tables[table].core
    assert [s.level for s in core.info().seats] == [None, "greedy"]
    await wait_turn_or_end(page)
    assert await page.locator('.seat[data-seat="0"] .score').inner_text() == "Score: 0"
    view = _view(server, table, 0)
    await page.locator(".moves button.hint").click()
    line = page.locator(".hint-line")
    await line.wait_for(timeout=TIMEOUT_MS)
    peers = tuple(s.level for s in core.info().seats)
    index, _ = await asyncio.to_thread(terminal_hint, "scopa", view, None, peers)
    assert await line.get_attribute("data-index") == str(index)
    action = view["legal"][index]
    assert await page.locator(f'.my-hand [data-card="{action["card"]}"].hinted').count() == 1
    assert await page.locator(".my-hand .hinted").count() == 1
    assert (await line.inner_text()).startswith("Hint: ")
    assert await page_version(page) == core.version  # a hint plays nothing
    assert page.errors == []


async def test_a_table_created_without_hints_offers_none(
    server: CardaviaServer, browser: Any
) -> None:
    page = await open_page(browser, page_url(server), "Vera", locale="en-US")
    form = page.locator("form.game[data-game=scopa]")
    await form.wait_for(timeout=TIMEOUT_MS)
    assert await form.locator("input[name=hints]").is_checked()  # on, as in the terminal
    await form.locator("input[name=hints]").set_checked(False)  # cardavia play --no-hints
    table = await create_table(page, "scopa", ai=True)
    assert server.lobby.tables[table].core.setup.options.hints is False
    await page.locator(".my-hand button.card.playable").first.wait_for(timeout=TIMEOUT_MS)
    assert await page.locator(".moves button.hint").count() == 0
    assert page.errors == []


async def test_the_turn_shows_in_the_tab_title_and_sounds_when_asked(
    server: CardaviaServer, browser: Any
) -> None:
    page = await open_page(browser, page_url(server), "Uma", locale="en-US")
    sound = page.locator("#sound")
    assert await sound.get_attribute("aria-pressed") == "false"  # off by default
    await create_table(page, "scopa", ai=True)
    await wait_turn_or_end(page)
    assert await page.title() == "▶ Your turn · Cardavia"
    beeps = "async () => (await import('/static/turn.js')).beep.count"
    assert await page.evaluate(beeps) == 0  # sound is off: the turn began in silence
    await sound.click()
    assert await sound.get_attribute("aria-pressed") == "true"
    await play_one(page)
    await page.locator(".my-hand button.card.playable").first.wait_for(timeout=TIMEOUT_MS)
    assert await page.title() == "▶ Your turn · Cardavia"
    assert await page.evaluate(beeps) == 1  # the next turn began with the tone
    await page.reload()  # the choice is kept
    assert await page.locator("#sound").get_attribute("aria-pressed") == "true"
    assert page.errors == []


async def test_the_font_stack_falls_back_to_the_system_s_cjk_fonts(
    server: CardaviaServer, browser: Any
) -> None:
    page = await open_page(browser, page_url(server), "Mei", locale="zh-CN")
    family = await page.evaluate("() => getComputedStyle(document.body).fontFamily")
    for font in ("PingFang SC", "Microsoft YaHei", "Noto Sans CJK SC"):
        assert font in family
    assert family.rstrip().endswith("sans-serif")
    assert page.errors == []
