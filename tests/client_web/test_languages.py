"""The page's languages in a real headless chromium: the browser's language by default,
the switch in the header (kept across reloads, redrawing the table without losing the
seat) and the server's errors shown by code in the chosen language."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import client_web
from engine.cards import PATTERNS
from server.app import CardaviaServer
from tests.client_web.pages import TIMEOUT_MS, create_table, open_page, page_url, strings

pytestmark = pytest.mark.asyncio(loop_scope="module")  # one chromium for the module

I18N = Path(client_web.__file__).parent / "i18n"


def card_name(lang: str, pattern_id: str, code: str) -> str:
    """A card's name in ``lang`` (as cards.js builds it)."""
    table = strings(lang)
    pattern = PATTERNS[pattern_id]
    rank, suit = code[0], code[1]
    ranks = table["rank_names"].get(pattern_id) or table["rank_names"][pattern.family.name]
    suits = table["suit_names"].get(pattern_id) or table["suit_names"][pattern.family.name]
    return str(table["card_format"]).replace("{rank}", ranks[rank]).replace("{suit}", suits[suit])


async def test_the_browser_s_language_is_the_default_and_a_choice_is_kept(
    server: CardaviaServer, browser: Any
) -> None:
    page = await open_page(browser, page_url(server), "Lia", locale="it-IT")
    quick = page.locator("form.game[data-game=scopa] button.quick")
    await quick.wait_for(timeout=TIMEOUT_MS)
    assert await quick.inner_text() == strings("it")["quick_play"]
    assert await page.locator("html").get_attribute("lang") == "it"
    assert await page.locator("#lang").input_value() == "it"
    assert await page.locator("#lang").get_attribute("aria-label") == "Lingua"
    labels = await page.eval_on_selector_all("#lang option", "os => os.map(o => o.textContent)")
    assert labels == ["English", "Italiano", "Deutsch", "Magyar", "Türkçe", "中文"]
    await page.select_option("#lang", "tr")  # the lobby is redrawn in Turkish at once
    await page.locator("button.quick", has_text=strings("tr")["quick_play"]).first.wait_for(
        timeout=TIMEOUT_MS
    )
    await page.reload()  # the choice outlives the browser's language
    await page.locator("button.quick", has_text=strings("tr")["quick_play"]).first.wait_for(
        timeout=TIMEOUT_MS
    )
    assert await page.locator("#lang").input_value() == "tr"
    assert page.errors == []


async def test_switching_language_at_a_schafkopf_table_renames_the_cards(
    server: CardaviaServer, browser: Any
) -> None:
    page = await open_page(browser, page_url(server), "Sepp", locale="en-US")
    table = await create_table(page, "schafkopf", ai=True)
    first = page.locator(".my-hand .card").first
    await first.wait_for(timeout=TIMEOUT_MS)
    code = str(await first.get_attribute("data-card"))
    pattern = server.lobby.tables[table].core.setup.game_options.pattern
    assert pattern == "bavarian"
    card = page.locator(f".my-hand [data-card='{code}']")
    assert await card.get_attribute("aria-label") == card_name("en", pattern, code)
    sessions = [p.player_id for p in server.sessions]
    for lang in ("de", "hu", "en"):
        await page.select_option("#lang", lang)
        await page.wait_for_function(
            "([code, name]) => document.querySelector(`.my-hand [data-card='${code}']`)"
            "?.getAttribute('aria-label') === name",
            arg=[code, card_name(lang, pattern, code)],
            timeout=TIMEOUT_MS,
        )
        assert await card.get_attribute("title") == card_name(lang, pattern, code)
        assert await page.locator(".details summary").inner_text() == strings(lang)["details"]
        # still at the table, in the same seat, with the same session: nothing was sent
        assert await page.locator(".table-view").get_attribute("data-table") == table
        assert await page.locator(".seat.me").count() == 1
        assert [p.player_id for p in server.sessions] == sessions
    assert card_name("de", pattern, "AG") == "Gras-Sau"  # what a Bavarian player says
    assert card_name("hu", pattern, "OE") == "Makk felső"
    assert page.errors == []


async def test_a_server_error_is_shown_in_the_page_s_language(
    server: CardaviaServer, browser: Any
) -> None:
    page = await open_page(browser, page_url(server) + "#table=NOSUCH", "Ildi", locale="hu-HU")
    toast = page.locator("#toast")
    await toast.wait_for(timeout=TIMEOUT_MS)  # joining the table of the link failed
    assert await toast.inner_text() == strings("hu")["errors"]["not_found"]
    # a code this page does not know: the server's own message, in the page's frame
    shown = await page.evaluate(
        """async () => {
            const m = await import("/static/i18n.js");
            const s = await m.loadStrings("hu");
            return m.errorMessage(s, {code: "brand_new_code", message: "the server says no"});
        }"""
    )
    assert shown == "Hiba: the server says no"
    # a string a language lacks is shown in English: the language is laid over English
    merged = await page.evaluate(
        """async () => {
            const m = await import("/static/i18n.js");
            return m.deepMerge({a: {b: "en b", c: "en c"}, d: "en d"}, {a: {b: "hu b"}});
        }"""
    )
    assert merged == {"a": {"b": "hu b", "c": "en c"}, "d": "en d"}
    assert page.errors == []
