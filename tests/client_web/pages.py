"""Helpers that drive the page like a player and check it against the server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import client_web
from engine.codec import to_plain
from server.app import CardaviaServer

TIMEOUT_MS = 8000
I18N = Path(client_web.__file__).parent / "i18n"


def strings(lang: str) -> dict[str, Any]:
    """A language's strings table as the page has it."""
    table = json.loads((I18N / f"{lang}.json").read_text(encoding="utf-8"))
    assert isinstance(table, dict)
    return table


def fill(text: str, **args: Any) -> str:
    """A string of the table with its ``{placeholders}`` filled, as the page's ``t`` does."""
    for key, value in args.items():
        text = text.replace("{" + key + "}", str(value))
    return text


async def blank_page(browser: Any, url: str, **context: Any) -> Any:
    """A fresh browser profile on ``url``; ``page.errors`` collects its script errors."""
    ctx = await browser.new_context(**context)
    page = await ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.errors = errors
    await page.goto(url)
    return page


async def open_page(browser: Any, url: str, name: str, **context: Any) -> Any:
    """A fresh browser profile on ``url`` with a session named ``name``."""
    page = await blank_page(browser, url, **context)
    await page.fill("#name", name)
    await page.click("#save-name")
    return page


def page_url(server: CardaviaServer) -> str:
    """The page's address on the test server."""
    return f"http://127.0.0.1:{server.port}/"


async def create_table(
    page: Any, game: str, *, ai: bool, private: bool = False, timer: str = "", **opts: str
) -> str:
    """Create a table of ``game`` from the lobby; its id once the page shows it."""
    form = page.locator(f"form.game[data-game={game}]")
    await form.wait_for(timeout=TIMEOUT_MS)
    for key, value in opts.items():
        await page.fill(f"#opt-{game}-{key}", value)
    await form.locator("input[name=ai_fill]").set_checked(ai)
    await form.locator("input[name=private]").set_checked(private)
    await form.locator("input[name=turn_timer]").fill(timer)
    await form.locator("button.create").click()
    await page.locator(".table-view").wait_for(timeout=TIMEOUT_MS)
    return str(await page.locator(".table-view").get_attribute("data-table"))


async def dom_cards(page: Any) -> list[str]:
    """Every card code drawn on the page."""
    cards = await page.eval_on_selector_all("[data-card]", "els => els.map(e => e.dataset.card)")
    return [str(c) for c in cards]


def _strings(value: Any, out: set[str]) -> set[str]:
    if isinstance(value, str):
        out.add(value)
    elif isinstance(value, dict):
        for v in value.values():
            _strings(v, out)
    elif isinstance(value, list | tuple):
        for v in value:
            _strings(v, out)
    return out


async def page_version(page: Any) -> int:
    """The table version the page shows."""
    return int(await page.locator(".table-view").get_attribute("data-version") or 0)


async def check_no_leak(
    page: Any, server: CardaviaServer, table: str, seat: int | None
) -> list[str]:
    """The page (at the server's version) draws only cards the seat's engine view shows
    (computed here from the engine state, not from what the server sent); the cards
    it draws. A card another seat holds is drawn only when the view shows it publicly
    (Dou Dizhu's bottom cards)."""
    core = server.lobby.tables[table].core
    assert await page_version(page) == core.version
    view = to_plain(core.game.view(core.state, seat))
    visible = _strings(view, set())
    own = set(view.get("hand") or [])
    others: set[str] = set()
    for other in range(core.game.num_seats(core.setup.game_options)):
        if other != seat:
            others |= set(to_plain(core.game.view(core.state, other)).get("hand") or [])
    public = _strings({k: v for k, v in view.items() if k != "hand"}, set())
    drawn = await dom_cards(page)
    assert set(drawn) <= visible, sorted(set(drawn) - visible)
    assert set(drawn) & others <= public - own
    return drawn


async def my_turn(page: Any) -> bool:
    """Whether the page offers moves now."""
    return bool(await page.locator(".my-hand button.card.playable").count())


async def play_one(page: Any) -> None:
    """Click the first playable card (and the first way to play it, if asked); wait
    for the page to move past that version."""
    before = await page_version(page)
    await page.locator(".my-hand button.card.playable").first.click()
    if await page.locator(".moves .choice").count():
        await page.locator(".moves .choice").first.click()
    await page.wait_for_function(
        "v => !document.querySelector('.table-view') ||"
        " Number(document.querySelector('.table-view').dataset.version) > v ||"
        " document.querySelector('.result')",
        arg=before,
        timeout=TIMEOUT_MS,
    )


async def wait_turn_or_end(page: Any) -> None:
    """Wait until the page offers moves or shows the result."""
    await page.wait_for_selector(".my-hand button.card.playable, .result", timeout=TIMEOUT_MS)


async def play_first_legal(page: Any) -> None:
    """Make the first legal move of the page's view the way a player does: click its
    cards (then "play selected" when the page asks), or its button."""
    before = await page_version(page)
    legal = await page.evaluate("() => window.cardavia.table.view.legal")
    with_cards = [a for a in legal if a.get("card") or a.get("cards")]
    if with_cards:
        action = with_cards[0]
        for card in [action["card"]] if action.get("card") else action["cards"]:
            await page.locator(f'.my-hand button.card[data-card="{card}"]').click()
        if await page.locator(".moves .choice").count():
            await page.locator(".moves .choice").first.click()
        elif await page.locator(".play-selected").count():
            await page.locator(".play-selected:not([disabled])").click()
    else:
        await page.locator(".moves button.move").first.click()
    await page.wait_for_function(
        "v => Number(document.querySelector('.table-view').dataset.version) > v ||"
        " document.querySelector('.result')",
        arg=before,
        timeout=TIMEOUT_MS,
    )


async def hand_order(page: Any) -> list[str]:
    """The page's hand, in the order it draws it."""
    cards = await page.eval_on_selector_all(
        ".my-hand [data-card]", "els => els.map(e => e.dataset.card)"
    )
    return [str(c) for c in cards]


async def watch_fresh_moves(page: Any) -> None:
    """Record in ``window.__fresh`` every highlighted move of another seat the page draws
    (``{seat, kind, cards}``), however briefly it shows."""
    await page.evaluate(
        """() => {
            window.__fresh = [];
            const note = (node) => {
                if (!(node instanceof Element)) return;
                const sel = ".seat-move.just";
                const found = node.matches(sel) ? [node] : [...node.querySelectorAll(sel)];
                for (const m of found) window.__fresh.push({
                    seat: m.closest(".seat").dataset.seat,
                    kind: m.dataset.kind,
                    cards: [...m.querySelectorAll("[data-card]")].map((c) => c.dataset.card),
                });
            };
            new MutationObserver((records) => records.forEach((r) => r.addedNodes.forEach(note)))
                .observe(document.body, { childList: true, subtree: true });
        }"""
    )
