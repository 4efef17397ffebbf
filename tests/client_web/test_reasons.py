"""A refused move says why in the page's language (issue 53: the browser matches the
terminal): the page asks for the ``reasons`` feature and fills ``reasons.<key>`` with
the cards, suits, combinations and contracts named as the page names them; a reason
it has no sentence for shows the server's own message."""

from __future__ import annotations

from typing import Any

import pytest

from server.app import CardaviaServer
from tests.client_web.pages import (
    TIMEOUT_MS,
    create_table,
    fill,
    open_page,
    page_url,
    strings,
)
from tests.client_web.test_languages import card_name

pytestmark = pytest.mark.asyncio(loop_scope="module")  # one chromium for the module

_MY_TURN = """phase => {
    const t = window.cardavia.table;
    return Boolean(t && t.view && typeof t.seat === "number"
        && (t.view.to_act || []).includes(t.seat) && (!phase || t.view.phase === phase));
}"""

_SEND_ACT = """action => {
    const app = window.cardavia;
    const t = app.table;
    app.ws.send(JSON.stringify({type: "act", table: t.info.id, seat: t.seat, version: t.version,
                                action, id: 100000 + app.nextId++}));
}"""


async def _refused(page: Any, action: dict[str, Any]) -> str:
    """Send ``action`` (one the rules refuse) as the page's seat; the toast it shows."""
    toast = page.locator("#toast")
    await page.evaluate("() => { document.getElementById('toast').hidden = true; }")
    await page.evaluate(_SEND_ACT, action)
    await toast.wait_for(state="visible", timeout=TIMEOUT_MS)
    return str(await toast.inner_text())


@pytest.mark.parametrize("lang", ["de", "it"])
async def test_a_refused_call_names_the_ace_as_the_page_names_it(
    server: CardaviaServer, browser: Any, lang: str
) -> None:
    """Schafkopf: calling the ace of hearts is refused (heart_ace_not_callable, suit H);
    the page says so with its own name of that card on the table's deck."""
    page = await open_page(browser, page_url(server), "Vroni", locale=f"{lang}-AT")
    table = await create_table(page, "schafkopf", ai=True)
    await page.wait_for_function(_MY_TURN, arg="bidding", timeout=TIMEOUT_MS)
    pattern = server.lobby.tables[table].core.setup.game_options.pattern
    said = await _refused(page, {"type": "announce", "contract": "rufer", "suit": "H"})
    ace = card_name(lang, pattern, "AH")
    assert said == fill(strings(lang)["reasons"]["heart_ace_not_callable"], ace=ace)
    heart = {"de": "Herz", "it": "Cuori"}[lang]
    assert heart in said and "hearts" not in said  # the page's suit, not the server's English
    assert said != strings(lang)["errors"]["illegal_action"]
    assert page.errors == []


@pytest.mark.parametrize("lang", ["de", "it"])
async def test_a_card_not_in_hand_is_named_with_the_page_s_suit(
    server: CardaviaServer, browser: Any, lang: str
) -> None:
    """Scopa on Neapolitan cards: playing a card of the table (not in the hand) is
    refused (not_in_hand); the page names it as its cards are named (Sette di Denari)."""
    page = await open_page(browser, page_url(server), "Tonio", locale=f"{lang}-CH")
    await create_table(page, "scopa", ai=True)
    await page.wait_for_function(_MY_TURN, arg="", timeout=TIMEOUT_MS)
    view = await page.evaluate("() => window.cardavia.table.view")
    card = str(view["table"][0])
    said = await _refused(page, {"type": "play", "card": card, "capture": []})
    name = card_name(lang, view["options"]["pattern"], card)
    assert said == fill(strings(lang)["reasons"]["not_in_hand"], cards=name)
    suit = strings(lang)["suit_names"][view["options"]["pattern"]][card[1]]
    assert suit in said and card not in said.split()
    assert page.errors == []


async def test_every_kind_of_parameter_is_put_into_the_page_s_words(
    server: CardaviaServer, browser: Any
) -> None:
    """The page's own renderer (i18n.js reasonText) on reasons of every game: a suit by
    the deck's name, captures with "or", Dou Dizhu cards by rank and combinations and
    Schafkopf contracts by their terms; an unknown key or parameter falls back to the
    server's message."""
    page = await open_page(browser, page_url(server), "Greti", locale="de-DE")
    await page.locator("form.game[data-game=scopa]").wait_for(timeout=TIMEOUT_MS)
    said = await page.evaluate(
        """async () => {
            const m = await import("/static/i18n.js");
            const de = await m.loadStrings("de");
            const it = await m.loadStrings("it");
            const say = (s, game, pattern, key, params) => m.errorMessage(
                s, {code: "illegal_action", message: "server words", reason: {key, params}},
                game, pattern);
            const sk = (s, key, params) => say(s, "schafkopf", "bavarian", key, params);
            return {
                suit_de: sk(de, "must_follow_suit", {suit: "G"}),
                suit_it: sk(it, "must_follow_suit", {suit: "G"}),
                capture: say(it, "scopa", "napoletane", "must_capture",
                             {card: "7D", choices: ["3S 4C", "7H"]}),
                beat: say(de, "doudizhu", "french", "does_not_beat",
                          {combo: "pair", cards: ["5S", "5H"],
                           last_combo: "pair", last_cards: ["TS", "TH"]}),
                higher: sk(de, "not_higher", {contract: "rufer", above: "wenz"}),
                unknown: say(de, "scopa", "napoletane", "brand_new_reason", {}),
                unfilled: m.reasonText(de, "scopa", "napoletane",
                                       {key: "must_capture", params: {}}) ?? null,
                plain: m.errorMessage(de, {code: "illegal_action", message: "server words"}),
            };
        }"""
    )
    de, it = strings("de"), strings("it")
    assert said["suit_de"] == "Du musst Gras bedienen, wenn du kannst."
    assert said["suit_it"] == "Devi rispondere a Foglie quando puoi."
    assert said["capture"] == fill(
        it["reasons"]["must_capture"],
        card="Sette di Denari",
        choices="Tre di Spade + Quattro di Bastoni oppure Sette di Coppe",
    )
    assert said["beat"] == "Paar 5 5 schlägt nicht Paar 10 10."
    assert said["higher"] == fill(de["reasons"]["not_higher"], contract="Sauspiel", above="Wenz")
    assert said["unknown"] == fill(de["error"], message="server words")
    assert said["unfilled"] is None
    assert said["plain"] == de["errors"]["illegal_action"]
    assert page.errors == []
