"""The browser plays every game fully: Cicera with AI partners, the capture choice, what
the other seats just did, hands sorted the way players sort them, every deck pattern.

A real headless chromium against a real server, as in ``test_browser.py``; the DOM is
checked against the engine's view (``check_no_leak``) every few moves.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from engine.cards import PATTERNS, Card
from engine.codec import to_plain
from engine.registry import GAMES
from engine.schafkopf.rules import SUITS, mode_of
from server.app import CardaviaServer
from tests.client_web.pages import (
    TIMEOUT_MS,
    check_no_leak,
    create_table,
    hand_order,
    open_page,
    page_url,
    page_version,
    play_first_legal,
    wait_turn_or_end,
    watch_fresh_moves,
)

# one chromium for the module; tens of seconds: run first (tests/conftest.py)
pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.heavy]


def _view(server: CardaviaServer, table: str, seat: int | None) -> dict[str, Any]:
    core = server.lobby.tables[table].core
    return dict(to_plain(core.game.view(core.state, seat)))


async def test_cicera_deal_to_the_end_with_ai_partners(
    server: CardaviaServer, browser: Any
) -> None:
    seed = _cicera_choice_seed()  # the first move has a capture to choose, so one is offered
    server.lobby.seed_source = lambda: seed
    page = await open_page(  # on a phone: four seats with their moves still fit
        browser, page_url(server), "Ada", viewport={"width": 360, "height": 740}, is_mobile=True
    )
    table = await create_table(page, "cicera", ai=True)
    await watch_fresh_moves(page)
    moves = choices = 0
    while True:
        await wait_turn_or_end(page)
        if await page.locator(".result").count():
            break
        assert await page.locator(".seat").count() == 4
        partner = page.locator('.seat[data-seat="2"] .role')
        assert "partner" in await partner.inner_text()  # seats 0 and 2 against 1 and 3
        assert await page.locator('.seat[data-seat="1"] .role').get_attribute("data-team") == "1"
        if moves % 3 == 0:
            await check_no_leak(page, server, table, 0)
            assert await page.evaluate("() => document.documentElement.scrollWidth") <= 360
        legal = _view(server, table, 0)["legal"]
        count = Counter(a["card"] for a in legal)
        card = next((c for c, n in count.items() if n > 1), None)  # a choice when there is one
        if card is None:
            playable = page.locator(".my-hand button.card.playable").first
            card = await playable.get_attribute("data-card")
        ways = [a for a in legal if a["card"] == card]
        before = await page_version(page)
        await page.locator(f'.my-hand button.card[data-card="{card}"]').click()
        if len(ways) > 1:  # capturing is optional in Cicera: every way is offered
            offered = page.locator(".moves .choice")
            assert await offered.count() == len(ways)
            choices += 1
            await offered.nth(moves % len(ways)).click()
        await page.wait_for_function(
            "v => Number(document.querySelector('.table-view').dataset.version) > v",
            arg=before,
            timeout=TIMEOUT_MS,
        )
        moves += 1
        assert moves <= 12
    assert moves == 12  # twelve cards each, the whole deal
    assert server.lobby.tables[table].core.status == "finished"
    scoring = await page.locator(".deal-score").inner_text()
    assert "Team" in scoring and "La Mata" in scoring  # awards go to teams, by their terms
    assert "Game over" in await page.locator(".result").inner_text()
    fresh = await page.evaluate("() => window.__fresh")
    assert {m["seat"] for m in fresh} == {"1", "2", "3"}  # every other seat's moves were marked
    assert choices >= 1
    assert page.errors == []


def _cicera_choice_seed() -> int:
    """A Cicera seed whose first move is seat 0's, holding a card that captures two ways."""
    game = GAMES["cicera"]
    options = game.options({})
    for seed in range(10_000):
        state = game.new_state(options, seed)
        if game.to_act(state) != (0,):
            continue
        cards = Counter(a["card"] for a in to_plain(game.legal_actions(state, 0)))
        if max(cards.values()) > 1:
            return seed
    raise AssertionError("no seed with a capture choice")


def _choice_seed() -> tuple[int, str, list[dict[str, Any]]]:
    """A Scopa seed whose first move is the page's, with a card that captures two ways."""
    game = GAMES["scopa"]
    options = game.options({"target": 1})
    for seed in range(10_000):
        state = game.new_state(options, seed)
        if game.to_act(state) != (0,):
            continue
        legal = [dict(a) for a in to_plain(game.legal_actions(state, 0))]
        count = Counter(a["card"] for a in legal)
        for card, n in count.items():
            if n > 1:
                return seed, card, [a for a in legal if a["card"] == card]
    raise AssertionError("no seed with a capture choice")


async def test_scopa_capture_choice_is_offered_and_the_chosen_one_applied(
    server: CardaviaServer, browser: Any
) -> None:
    seed, card, ways = _choice_seed()
    server.lobby.seed_source = lambda: seed
    page = await open_page(browser, page_url(server), "Bruno")
    table = await create_table(page, "scopa", ai=True, target="1")
    await wait_turn_or_end(page)
    await check_no_leak(page, server, table, 0)
    await page.locator(f'.my-hand button.card[data-card="{card}"]').click()
    offered = page.locator(".moves .choice")
    await offered.first.wait_for(timeout=TIMEOUT_MS)
    assert await offered.count() == len(ways)
    for i, way in enumerate(ways):  # each button shows the cards that way takes
        shown = (
            await offered.nth(i)
            .locator(".cards [data-card]")
            .evaluate_all("els => els.map(e => e.dataset.card)")
        )
        assert sorted(shown) == sorted(way["capture"])
    assert await page.locator(".my-hand .card.playable").count() >= 1  # nothing sent yet
    core = server.lobby.tables[table].core
    assert core.log == []
    before = await page_version(page)
    await offered.nth(len(ways) - 1).click()  # not the first way: the one the player picked
    await page.wait_for_function(
        "v => Number(document.querySelector('.table-view').dataset.version) > v",
        arg=before,
        timeout=TIMEOUT_MS,
    )
    first = core.log[0]
    assert first.seat == 0 and first.by == "human"
    assert first.action["card"] == card
    assert sorted(first.action["capture"]) == sorted(ways[-1]["capture"])
    assert page.errors == []


async def test_the_other_seat_s_move_is_marked_for_a_moment(
    server: CardaviaServer, browser: Any
) -> None:
    page = await open_page(browser, page_url(server), "Carla")
    table = await create_table(page, "scopa", ai=True, target="1", timer="60")
    await watch_fresh_moves(page)
    core = server.lobby.tables[table].core
    for _ in range(2):  # the AI has moved once at least after two of the page's moves
        await wait_turn_or_end(page)
        await play_first_legal(page)
    await wait_turn_or_end(page)
    timer = await page.locator(".turn-line.mine .turn-timer").inner_text()  # whose turn, how long
    assert timer.endswith(" s") and 40 <= int(timer.split()[0]) <= 60
    await check_no_leak(page, server, table, 0)
    theirs = [step for step in core.log if step.seat == 1][-1].action
    marker = page.locator('.seat[data-seat="1"] .seat-move')
    played = await marker.locator(".played [data-card]").evaluate_all(
        "els => els.map(e => e.dataset.card)"
    )
    taken = await marker.locator(".taken [data-card]").evaluate_all(
        "els => els.map(e => e.dataset.card)"
    )
    assert played == [theirs["card"]]
    assert sorted(taken) == sorted(theirs["capture"])
    fresh = await page.evaluate("() => window.__fresh")
    assert any(m["seat"] == "1" and theirs["card"] in m["cards"] for m in fresh)
    assert await page.locator('.seat[data-seat="0"] .seat-move').count() == 0  # not my own
    await page.emulate_media(reduced_motion="reduce")  # a still mark, no animation
    await page.evaluate("() => { window.cardavia.table.recent[1].at = Date.now(); }")
    await play_first_legal(page)
    await page.locator('.seat[data-seat="1"] .seat-move.just').first.wait_for(timeout=TIMEOUT_MS)
    # found and read in one step: an update drawn in between (the AI's next move)
    # replaces the element, and a detached one has no computed style
    style = await page.evaluate(
        """() => {
            const e = document.querySelector('.seat[data-seat="1"] .seat-move.just');
            return e && [getComputedStyle(e).animationName, getComputedStyle(e).outlineStyle];
        }"""
    )
    assert style == ["none", "solid"]
    assert page.errors == []


def _schafkopf_order(hand: list[str], contract: dict[str, Any]) -> list[str]:
    """The rules' order: the contract's trumps high to low, then each plain suit
    (Eichel, Gras, Herz, Schellen) high to low."""
    mode = mode_of(contract["kind"], contract["suit"])
    cards = [Card(c[0], c[1]) for c in hand]
    trumps = [str(c) for c in mode.trumps if c in cards]
    plain = sorted(
        (c for c in cards if str(c) not in trumps),
        key=lambda c: (SUITS.index(c.suit), -mode.power[c]),
    )
    return trumps + [str(c) for c in plain]


async def test_schafkopf_hand_sorted_trumps_first_once_the_contract_is_known(
    server: CardaviaServer, browser: Any
) -> None:
    page = await open_page(browser, page_url(server), "Dieter")
    table = await create_table(page, "schafkopf", ai=True, deals="1")
    sorted_in_play = bids_seen = 0
    for _ in range(6):  # the AI may end a deal before the page plays a card: then rematch
        while True:
            await page.wait_for_selector(
                ".my-hand button.card.playable, .moves button.move, .result", timeout=TIMEOUT_MS
            )
            if await page.locator(".result").count():
                break
            view = _view(server, table, 0)
            shown = await hand_order(page)
            if view["contract"] is None:  # the auction: grouped by suit
                suits = [c[1] for c in shown]
                assert suits == sorted(suits, key=SUITS.index)
                for bid in view["bids"]:
                    if bid["seat"] != 0:  # each other seat shows its pass or its contract
                        kind = "pass" if bid["contract"] is None else "bid"
                        marker = page.locator(f'.seat[data-seat="{bid["seat"]}"] .seat-move')
                        assert await marker.get_attribute("data-kind") == kind
                        bids_seen += 1
            else:
                assert shown == _schafkopf_order(view["hand"], view["contract"])
                declarer = view["contract"]["declarer"]
                role = page.locator(f'.seat[data-seat="{declarer}"] .role')
                assert (
                    (await role.inner_text())
                    .lower()
                    .startswith(view["contract"]["kind"].split("_")[0])
                )
                sorted_in_play += 1
            await check_no_leak(page, server, table, 0)
            await play_first_legal(page)
        view = _view(server, table, 0)
        if view["tricks"]:  # else everybody passed: the deal ended without a trick
            last = view["tricks"][-1]  # the last trick, seat by seat, its winner marked
            box = page.locator(".last-trick")
            assert await box.get_attribute("open") is not None  # open: nothing else on the table
            figures = box.locator(".trick-card")
            assert await figures.count() == 4
            seats = [int(await f.get_attribute("data-seat") or -1) for f in await figures.all()]
            assert seats == [(last["leader"] + i) % 4 for i in range(4)]
            winner = box.locator(".trick-card.winner")
            assert await winner.get_attribute("data-seat") == str(last["winner"])
        if sorted_in_play and bids_seen:
            break
        await page.locator(".result button.rematch").click()
        await page.locator(".result").wait_for(state="detached", timeout=TIMEOUT_MS)
    assert sorted_in_play >= 1 and bids_seen >= 1
    assert page.errors == []


# The pictures each real deck's suits carry (cards.md): French pips, Italian cups,
# coins, swords and batons, German acorns, leaves, hearts and bells.
SUIT_PICTURES = {
    "french": {"S": "spade", "H": "heart", "D": "diamond", "C": "club"},
    "napoletane": {"S": "sword", "H": "cup", "D": "coin", "C": "baton"},
    "bresciane": {"S": "sword", "C": "cup", "D": "coin", "B": "baton"},
    "german": {"E": "acorn", "G": "leaf", "H": "heart", "S": "bell"},
}


async def test_every_pattern_draws_its_deck_s_suits_legibly_at_360_px(
    server: CardaviaServer, browser: Any
) -> None:
    page = await open_page(
        browser, page_url(server), "Eli", viewport={"width": 360, "height": 640}, is_mobile=True
    )
    await page.locator("form.game").first.wait_for(timeout=TIMEOUT_MS)
    decks = {
        pid: [str(c) for c in p.family.cards() if c.suit != "J"] for pid, p in PATTERNS.items()
    }
    drawn = await page.evaluate(
        """async decks => {
            const cards = await import("/static/cards.js");
            const S = await (await fetch("/static/i18n/en.json")).json();
            const main = document.getElementById("main");
            main.replaceChildren();
            const out = {};
            for (const [pattern, codes] of Object.entries(decks)) {
                const row = document.createElement("div");
                row.className = "cards";
                main.append(row);
                out[pattern] = codes.map((code) => {
                    const node = cards.cardElement(code, S, pattern, { clickable: true });
                    row.append(node);
                    const box = node.getBoundingClientRect();
                    const rank = node.querySelector(".rank");
                    return {
                        code,
                        shape: node.querySelector("svg.suit").dataset.shape,
                        colour: rank.style.color,
                        name: node.getAttribute("aria-label"),
                        width: box.width,
                        right: box.right,
                        font: parseFloat(getComputedStyle(rank).fontSize),
                    };
                });
            }
            return out;
        }""",
        decks,
    )
    for pattern, cards in drawn.items():
        pictures = SUIT_PICTURES.get(pattern) or SUIT_PICTURES[PATTERNS[pattern].family.name]
        colours: dict[str, set[str]] = {}
        for card in cards:
            assert card["shape"] == pictures[card["code"][1]], (pattern, card)
            colours.setdefault(card["code"][1], set()).add(card["colour"])
            assert card["width"] >= 36 and card["right"] <= 360, (pattern, card)  # tappable
            assert card["font"] >= 14, (pattern, card)  # a legible rank
            assert card["name"] and card["code"] not in card["name"], (pattern, card)
        assert all(len(c) == 1 for c in colours.values())  # one colour per suit
    assert page.errors == []


async def test_hands_sort_the_way_players_sort_them(server: CardaviaServer, browser: Any) -> None:
    page = await open_page(browser, page_url(server), "Fede")
    await page.locator("form.game").first.wait_for(timeout=TIMEOUT_MS)
    deck = [str(c) for c in PATTERNS["bavarian"].family.cards()]
    contracts = [
        {"kind": kind, "suit": suit}
        for kind, suit in (("rufer", "E"), ("wenz", None), ("solo", "G"), ("solo_tout", "S"))
    ] + [{"kind": "sie", "suit": None}, {"kind": "wenz_tout", "suit": None}]
    sorted_by_page = await page.evaluate(
        """async ([deck, contracts]) => {
            const { sortHand } = await import("/static/cards.js");
            const shuffled = [...deck].reverse();
            return {
                schafkopf: contracts.map((c) => sortHand(shuffled, "bavarian", "schafkopf", c)),
                doudizhu: sortHand(
                    ["2S", "3H", "BJ", "AS", "3S", "RJ", "TD", "2C"], "french", "doudizhu"
                ),
            };
        }""",
        [deck, contracts],
    )
    for contract, shown in zip(contracts, sorted_by_page["schafkopf"], strict=True):
        assert shown == _schafkopf_order(deck, contract), contract
    # Dou Dizhu: by rank alone, 3 lowest, then the 2s, then the jokers
    assert sorted_by_page["doudizhu"] == ["3S", "3H", "TD", "AS", "2S", "2C", "BJ", "RJ"]
    assert page.errors == []
