"""Ratings in the browser (issue 55), against a real server: the "rated" checkbox (house
rules hidden, only the rated AI levels, no hints) and the rated badge; the server's
ratings in the profile (the graph the page draws itself) and the leaderboard; rated
quick play's banner, told again after a reload, and leaving the queue. What a server
with a handful of accounts does not show (two pages of people, a long history, a
provisional rating) comes from answers a WebSocket route lays over the real session
(the page's other messages go to the server)."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from itertools import pairwise
from typing import Any

import pytest

from client_cli.client import Client
from client_cli.rating_view import change_text, rating_text
from server.app import CardaviaServer
from server.persist.db.game_record import SeatKind
from tests.client_web.pages import TIMEOUT_MS, fill, page_url, play_first_legal, strings
from tests.server.test_rating_store import one_on_one
from tests.server.test_rating_store import rated as rated_record

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.heavy]

PASSWORD = "correct horse battery"
EN = strings("en")
DAY = 1_796_601_600.0  # 2026-12-07 00:00 UTC

Answer = Callable[[dict[str, Any]], dict[str, Any] | None]
"""What the route answers a message of the page with (None: the server answers it)."""


async def routed_page(browser: Any, server: CardaviaServer, answer: Answer) -> Any:
    """A fresh page whose WebSocket goes to ``server`` except for the messages ``answer``
    answers itself; ``page.sent`` keeps every message the page sent."""
    ctx = await browser.new_context()
    page = await ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.errors = errors
    page.sent = []

    def route(ws: Any) -> None:
        upstream = ws.connect_to_server()

        def from_page(message: str | bytes) -> None:
            msg = json.loads(message)
            page.sent.append(msg)
            reply = answer(msg)
            if reply is None:
                upstream.send(message)
            else:
                ws.send(json.dumps({**reply, "ref": msg.get("id")}))

        ws.on_message(from_page)
        upstream.on_message(lambda message: ws.send(message))

    await page.route_web_socket(re.compile(r"^wss?://"), route)
    await page.goto(page_url(server))
    return page


async def register(page: Any, name: str) -> None:
    """Register ``name`` from the first page (a guest session opens first)."""
    await page.locator("form.account").wait_for(timeout=TIMEOUT_MS)
    await page.fill("#account-name", name)
    await page.fill("#account-password", PASSWORD)
    await page.click("#register")
    signed_in = fill(EN["account"]["signed_in"], name=name)
    await page.locator("#status", has_text=signed_in).wait_for(timeout=TIMEOUT_MS)


def history(points: list[int]) -> list[dict[str, Any]]:
    return [
        {"at": DAY + i * 3600, "rating": p, "deviation": 200 - 5 * i} for i, p in enumerate(points)
    ]


# -- the rated checkbox, the badge ---------------------------------------------------------
async def test_a_rated_table_hides_house_rules_and_shows_its_badge(
    server: CardaviaServer, browser: Any
) -> None:
    page = await routed_page(browser, server, lambda msg: None)
    await register(page, "Rita")
    form = page.locator("form.game[data-game=scopa]")
    target, hints = form.locator("#opt-scopa-target"), form.locator("input[name=hints]")
    level = form.locator("select[name=level]")
    assert await target.is_visible() and await hints.is_visible()
    await level.select_option("random")
    await form.locator("input[name=rated]").check()
    assert not await target.is_visible() and not await hints.is_visible()
    assert await form.locator("select[name=pattern]").is_visible()  # the cards stay a choice
    offered = await level.locator("option:not([disabled])").evaluate_all(
        "os => os.map(o => o.value)"
    )
    assert offered == ["easy", "normal", "hard"]
    assert await level.input_value() == "hard"  # "random" cannot sit at a rated table
    await form.locator("input[name=rated]").uncheck()
    assert await target.is_visible() and await hints.is_visible()
    await form.locator("input[name=rated]").check()
    await form.locator("button.create").click()
    await page.locator(".table-view .badge.rated").wait_for(timeout=TIMEOUT_MS)
    created = next(m for m in page.sent if m["type"] == "create_table")
    options = created["options"]
    assert options["rated"] is True and options["hints"] is False
    assert set(options["game"]) <= {"pattern"}  # the standard rules
    assert [a["level"] for a in options["ai"]] == ["hard"]
    table = str(await page.locator(".table-view").get_attribute("data-table"))
    assert server.lobby.tables[table].core.info().rated
    # a guest sees the table marked rated in the lobby, and no rated choices for itself
    guest = await routed_page(browser, server, lambda msg: None)
    await guest.fill("#name", "Gus")
    await guest.click("#save-name")
    row = guest.locator(f"li.table-row[data-table='{table}']")
    await row.wait_for(timeout=TIMEOUT_MS)
    assert await row.locator(".badge.rated").inner_text() == EN["rated_badge"].upper()
    assert await guest.locator("input[name=rated], button.rated-quick").count() == 0
    # a rated table waiting for people: a guest may watch it, not join it (accounts only)
    async with await Client.connect(server.url, login=("Rita", PASSWORD)) as rita:
        waiting = await rita.create_table("cicera", {"seat": 0, "rated": True, "hints": False})
        row = guest.locator(f"li.table-row[data-table='{waiting.table.id}']")
        await row.wait_for(timeout=TIMEOUT_MS)
        texts = await row.locator("button").all_inner_texts()
        assert EN["watch"] in texts and EN["join"] not in texts
        await rita.leave(waiting.table.id)
    assert page.errors == [] and guest.errors == []


# -- the profile's ratings and graph --------------------------------------------------------
async def test_the_profile_shows_ratings_and_draws_their_graph(
    server: CardaviaServer, browser: Any
) -> None:
    scopa = [1500, 1540, 1520, 1580, 1612]
    ratings = [
        {"game": "scopa", "rating": 1612, "deviation": 94, "provisional": False, "games": 23,
         "change": 32, "history": history(scopa)},
        {"game": "doudizhu", "rating": 1488, "deviation": 240, "provisional": True, "games": 1,
         "change": -12, "history": history([1488])},
    ]  # fmt: skip

    def answer(msg: dict[str, Any]) -> dict[str, Any] | None:
        if msg["type"] != "profile":
            return None
        return {"type": "profile", "name": "Gina", "member_since": DAY, "games": [],
                "ratings": ratings}  # fmt: skip

    page = await routed_page(browser, server, answer)
    await register(page, "Gina")
    await page.click("#profile")
    row = page.locator("table.profile-ratings tr[data-game=scopa] td")
    await row.first.wait_for(timeout=TIMEOUT_MS)
    assert await row.all_inner_texts() == ["Scopa", "1612 ± 94", "23", "+32"]
    dou = page.locator("table.profile-ratings tr[data-game=doudizhu] td")
    assert await dou.all_inner_texts() == ["Dou Dizhu", "1488?", "1", "-12"]
    assert await page.locator(".ratings .note").inner_text() == EN["ratings"]["provisional"]
    graph = page.locator("figure.rating-history[data-game=scopa] svg.rating-graph")
    label = fill(EN["ratings"]["graph"], game="Scopa")
    assert await graph.get_attribute("aria-label") == label
    dots = await graph.locator("circle.point").evaluate_all(
        "cs => cs.map(c => [Number(c.getAttribute('cx')), Number(c.getAttribute('cy')),"
        " Number(c.dataset.rating)])"
    )
    assert [r for _, _, r in dots] == scopa  # a dot per rated game, oldest first
    xs = [x for x, _, _ in dots]
    assert xs == sorted(xs) and len(set(xs)) == len(xs)
    for (_, ya, ra), (_, yb, rb) in pairwise(dots):
        assert (ra < rb) == (ya > yb)  # higher ratings are drawn higher
    assert await graph.locator("polyline.line").count() == 1
    assert await graph.locator("polygon.band").count() == 1  # ± deviation
    edges = await graph.locator("text.edge").evaluate_all("ts => ts.map(t => t.textContent)")
    low, high = sorted(int(e) for e in edges)
    assert low <= 1500 - 200 and high >= 1612 + 180  # the band fits in
    one = page.locator("figure.rating-history[data-game=doudizhu] svg circle.point")
    assert await one.count() == 1  # a single game: one dot, no line
    assert page.errors == []


# -- the leaderboard ---------------------------------------------------------------------------
def leaderboard_answer(msg: dict[str, Any]) -> dict[str, Any] | None:
    """Two pages of people and one of bots for Scopa; none for other games."""
    if msg["type"] != "leaderboard":
        return None
    game, page, bots = msg["game"], msg.get("page", 1), msg.get("bots", False)
    if game != "scopa":
        return {"type": "leaderboard", "game": game, "bots": bots, "page": 1, "pages": 0,
                "entries": []}  # fmt: skip
    if bots:
        names = [("AI hard", True), ("Robo", True)]
        pages = 1
    else:
        names = [("Lena", False), ("Ann", False)] if page == 1 else [("Zed", False)]
        pages = 2
    first = 1 if page == 1 else 3
    entries = [
        {"rank": first + i, "name": n, "bot": b, "rating": 1700 - 10 * (first + i),
         "deviation": 80, "games": 30, "last_played": DAY}
        for i, (n, b) in enumerate(names)
    ]  # fmt: skip
    return {"type": "leaderboard", "game": game, "bots": bots, "page": page, "pages": pages,
            "entries": entries}  # fmt: skip


async def rows(page: Any) -> list[list[str]]:
    cells = page.locator("table.leaderboard tr[data-rank]")
    return [
        (await cells.nth(i).locator("td").all_inner_texts()) for i in range(await cells.count())
    ]


async def test_the_leaderboard_lists_people_and_bots_page_by_page(
    server: CardaviaServer, browser: Any
) -> None:
    page = await routed_page(browser, server, leaderboard_answer)
    await register(page, "Lena")
    await page.locator("form.game[data-game=scopa] button.leaderboard").click()
    await page.locator("table.leaderboard").wait_for(timeout=TIMEOUT_MS)
    assert await page.locator("h2").inner_text() == fill(EN["leaderboard"]["title"], game="Scopa")
    listed = await rows(page)
    assert [r[:4] for r in listed] == [
        ["1", "Lena", "1690 ± 80", "30"],
        ["2", "Ann", "1680 ± 80", "30"],
    ]
    assert await page.locator("tr.me").count() == 1  # the reader's own row
    assert "Lena" in await page.locator("tr.me").inner_text()
    paging = fill(EN["leaderboard"]["page"], page=1, pages=2)
    assert await page.locator(".paging .page").inner_text() == paging
    assert await page.locator("#leaderboard-prev").is_disabled()
    await page.click("#leaderboard-next")
    await page.locator("table.leaderboard tr[data-rank='3']").wait_for(timeout=TIMEOUT_MS)
    assert await page.locator("#leaderboard-next").is_disabled()
    await page.click("#leaderboard-prev")
    await page.locator("table.leaderboard tr[data-rank='1']").wait_for(timeout=TIMEOUT_MS)
    await page.click("#leaderboard-bots")
    await page.locator(".leaderboard-page[data-bots=true] table.leaderboard").wait_for(
        timeout=TIMEOUT_MS
    )
    names = [r[1] for r in await rows(page)]
    bot = EN["seat_bot"]
    assert names == [fill(bot, name="AI hard"), fill(bot, name="Robo")]  # always labelled
    assert await page.locator("#leaderboard-bots").get_attribute("aria-pressed") == "true"
    asked = [m for m in page.sent if m["type"] == "leaderboard"]
    assert [(m["page"], m["bots"]) for m in asked] == [
        (1, False),
        (2, False),
        (1, False),
        (1, True),
    ]
    await page.select_option("#leaderboard-game", "cicera")  # another game, nobody listed
    await page.locator(".leaderboard-page[data-game=cicera] p.empty").wait_for(timeout=TIMEOUT_MS)
    assert await page.locator("p.empty").inner_text() == EN["leaderboard"]["empty"]
    await page.click("#close-leaderboard")
    await page.locator("form.game[data-game=scopa]").wait_for(timeout=TIMEOUT_MS)
    assert page.errors == []


# -- against the server's own ratings ------------------------------------------------------------
async def rated_games(server: CardaviaServer, account_id: str, count: int) -> None:
    """``count`` rated Scopa games of the account against the easy AI, written as the
    server writes a finished game's record (it rates them in the same transaction)."""
    seats = ((account_id, SeatKind.HUMAN, False), (None, SeatKind.AI, False))
    now = time.time()
    for i in range(count):
        record = rated_record(
            f"{account_id[-6:]}{i}", seats, one_on_one(i % 3), when=now - 100 + i,
            levels=(None, "easy"),
        )  # fmt: skip
        assert await server.records.write(record)


async def test_the_server_s_ratings_in_the_profile_graph_and_the_leaderboard(
    server: CardaviaServer, browser: Any
) -> None:
    page = await routed_page(browser, server, lambda msg: None)
    await register(page, "Rhea")
    account = await page.evaluate("() => window.cardavia.account.account_id")
    await rated_games(server, account, 20)
    async with await Client.connect(server.url, "reader") as reader:
        [rating] = (await reader.profile("Rhea")).ratings
    await page.click("#profile")
    row = page.locator("table.profile-ratings tr[data-game=scopa] td")
    await row.first.wait_for(timeout=TIMEOUT_MS)
    shown = rating_text(rating.rating, rating.deviation, False)
    assert await row.all_inner_texts() == ["Scopa", shown, "20", change_text(rating.change)]
    dots = page.locator("figure.rating-history[data-game=scopa] circle.point")
    drawn = await dots.evaluate_all("cs => cs.map(c => Number(c.dataset.rating))")
    assert drawn == [p.rating for p in rating.history] and len(drawn) == 20
    await page.click("#close-profile")
    await page.locator("form.game[data-game=scopa] button.leaderboard").click()
    mine = page.locator("table.leaderboard tr.me")
    await mine.wait_for(timeout=TIMEOUT_MS)
    cells = await mine.locator("td").all_inner_texts()
    assert cells[1:4] == ["Rhea", shown, "20"]
    await page.click("#leaderboard-bots")
    ai = page.locator("table.leaderboard td.name", has_text=fill(EN["seat_bot"], name="AI easy"))
    await ai.wait_for(timeout=TIMEOUT_MS)
    assert page.errors == []


async def test_after_a_rated_game_the_result_says_the_new_rating(
    server: CardaviaServer, browser: Any
) -> None:
    """A whole rated Dou Dizhu deal against two easy AIs, played from the page: once the
    server has rated it, the result says the player's rating and its change."""
    page = await routed_page(browser, server, lambda msg: None)
    await register(page, "Dora")
    form = page.locator("form.game[data-game=doudizhu]")
    await form.locator("input[name=rated]").check()
    await form.locator("select[name=level]").select_option("easy")
    await form.locator("button.create").click()
    await page.locator(".table-view .badge.rated").wait_for(timeout=TIMEOUT_MS)
    while True:
        await page.wait_for_selector(
            ".result, .moves button.move, .my-hand button.card.playable", timeout=TIMEOUT_MS
        )
        if await page.locator(".result").count():
            break
        await play_first_legal(page)
    line = page.locator(".result .rating-after")
    await line.wait_for(timeout=3 * TIMEOUT_MS)
    async with await Client.connect(server.url, "reader") as reader:
        [rating] = (await reader.profile("Dora")).ratings
    assert rating.games == 1
    change = change_text(rating.change)  # the page writes them as the terminal does
    shown = rating_text(rating.rating, rating.deviation, rating.provisional)
    expected = fill(EN["ratings"]["after"], game="Dou Dizhu", rating=shown, change=change)
    assert await line.inner_text() == expected
    assert page.errors == []


# -- the rated queue ------------------------------------------------------------------------------
async def test_rated_quick_play_waits_in_the_queue_then_seats_at_a_rated_table(
    server: CardaviaServer, browser: Any
) -> None:
    server.rated.fill_wait = 4.0  # nobody else comes: the closest AI level fills
    page = await routed_page(browser, server, lambda msg: None)
    await register(page, "Quinn")
    form = page.locator("form.game[data-game=scopa]")
    await form.locator("button.rated-quick").click()
    banner = page.locator("section.queue[data-game=scopa]")
    await banner.wait_for(timeout=TIMEOUT_MS)
    text = await banner.inner_text()
    assert fill(EN["queue"]["waiting"], game="Scopa", rating=1500) in text
    assert fill(EN["queue"]["fill"], wait=4) in text
    assert await form.locator("button.rated-quick").is_disabled()  # one queue at a time
    asked = next(m for m in page.sent if m["type"] == "quick_play")
    assert asked["rated"] is True and asked["with_bots"] is False and "level" not in asked
    await page.reload()  # the session resumes: the server says it still waits
    await banner.wait_for(timeout=TIMEOUT_MS)
    await page.locator(".table-view .badge.rated").wait_for(timeout=TIMEOUT_MS)
    assert await page.locator("section.queue").count() == 0
    seats = await page.locator(".seats .who").all_inner_texts()
    assert any("AI" in s for s in seats)
    assert page.errors == []


async def test_leaving_the_rated_queue_takes_the_player_out(
    server: CardaviaServer, browser: Any
) -> None:
    server.rated.fill_wait = 60.0
    page = await routed_page(browser, server, lambda msg: None)
    await register(page, "Leah")
    account = await page.evaluate("() => window.cardavia.account.account_id")
    form = page.locator("form.game[data-game=cicera]")
    await form.locator("input[name=with_bots]").check()
    await form.locator("button.rated-quick").click()
    banner = page.locator("section.queue[data-game=cicera]")
    await banner.wait_for(timeout=TIMEOUT_MS)
    assert fill(EN["queue"]["fill_bots"], wait=60) in await banner.inner_text()
    assert await server.rated.queue.find(account) is not None
    await page.wait_for_function(  # the time waited counts up
        "() => /[1-9]/.test(document.querySelector('.queue-waited').textContent)",
        timeout=TIMEOUT_MS,
    )
    await page.click("#leave-queue")
    await banner.wait_for(state="detached", timeout=TIMEOUT_MS)
    assert await server.rated.queue.find(account) is None
    left = next(m for m in page.sent if m["type"] == "leave_queue")
    assert left["game"] == "cicera"
    assert await form.locator("button.rated-quick").is_enabled()
    # logging out while queued ends the session: the page forgets the queue with it
    await form.locator("button.rated-quick").click()
    await banner.wait_for(timeout=TIMEOUT_MS)
    await page.click("#logout")
    await page.locator("#save-name").wait_for(timeout=TIMEOUT_MS)
    assert await page.evaluate("() => window.cardavia.queue") is None
    await page.fill("#name", "Leah again")
    await page.click("#save-name")
    await page.locator("form.game[data-game=cicera]").wait_for(timeout=TIMEOUT_MS)
    assert await page.locator("section.queue").count() == 0
    assert page.errors == []
