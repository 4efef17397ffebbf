"""Rated tables (issue 55): the standard rules, rated AI levels and no hints; accounts
only, one seat an account; a rated game's record rates its players, a leaver included,
and the lobby says the table is rated — in the core, and through a real server."""

from __future__ import annotations

import asyncio
import signal
import time
from pathlib import Path
from typing import Any

import msgpack  # type: ignore[import-untyped]
import pytest
from sqlalchemy import select

from client_cli.client import Client, ServerError, play_table, random_chooser
from engine.codec import to_plain
from engine.registry import GAMES
from protocol import client_messages as cm
from protocol import server_messages as sm
from protocol.errors import ErrorCode
from protocol.models import AiSeat, TableOptions
from server.app import CardaviaServer
from server.persist.db.engine import Database, sqlite_url
from server.persist.db.game_record import SeatKind, game_id
from server.persist.db.models import RatingPointRow, RatingRow
from server.ratings.levels import ai_account
from server.ratings.model import rate_game
from server.tables.core import TableCore
from server.tables.options import RequestError, check_options
from server.tables.record import game_record
from tests.server.helpers import make_core
from tests.server.redis_fixture import RedisServer, ServerProcess
from tests.server.test_accounts import PASSWORD
from tests.server.test_rating_store import one_on_one
from tests.server.test_rating_store import rated as rated_record
from tests.server.test_records import Stored, record_server, stored  # noqa: F401 (fixtures)
from tests.server.test_store_restart import resume

# -- the options --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("game", "options"),
    [
        ("scopa", {}),
        ("scopa", {"pattern": "french"}),
        ("scopa", {"target": 11}),  # the standard target, said out loud
        ("schafkopf", {"pattern": "salzburg"}),
        ("doudizhu", {}),
    ],
)
def test_a_rated_table_plays_the_standard_rules(game: str, options: dict[str, Any]) -> None:
    setup = check_options(GAMES[game], TableOptions(rated=True, game=options))
    assert setup.options.rated and setup.game_options == GAMES[game].options(options)


@pytest.mark.parametrize(
    ("game", "options"),
    [("scopa", {"target": 1}), ("schafkopf", {"deals": 1}), ("scopa", {"pattern": "x"})],
)
def test_house_rules_are_not_rated(game: str, options: dict[str, Any]) -> None:
    with pytest.raises(RequestError) as caught:
        check_options(GAMES[game], TableOptions(rated=True, game=options))
    assert caught.value.code is ErrorCode.BAD_OPTIONS
    if options.get("pattern") != "x":  # house rules are for unrated tables
        check_options(GAMES[game], TableOptions(rated=False, game=options))


@pytest.mark.parametrize("level", ["random", "greedy"])
def test_only_the_rated_ai_levels_sit_at_a_rated_table(level: str) -> None:
    with pytest.raises(RequestError) as caught:
        check_options(GAMES["scopa"], TableOptions(rated=True, ai=(AiSeat(seat=1, level=level),)))
    assert caught.value.code is ErrorCode.BAD_OPTIONS and caught.value.detail == "rated"
    for ok in ("easy", "normal", "hard", None):  # None: the strongest, hard
        check_options(GAMES["scopa"], TableOptions(rated=True, ai=(AiSeat(seat=1, level=ok),)))


def test_a_rated_table_gives_no_hints() -> None:
    setup = check_options(GAMES["scopa"], TableOptions(rated=True, hints=True))
    assert not setup.options.hints
    assert check_options(GAMES["scopa"], TableOptions(hints=True)).options.hints


# -- the core -----------------------------------------------------------------------------


def rated_core(game: str = "scopa", **options: Any) -> TableCore:
    return make_core(game, TableOptions(rated=True, seat=0, **options))


def test_a_rated_table_seats_accounts_only_and_each_once() -> None:
    core = rated_core()
    for player, account, code in (
        ("p1", None, ErrorCode.NOT_LOGGED_IN),  # a guest
        ("p1", "a_ann", None),
        ("p2", "a_ann", ErrorCode.FORBIDDEN),  # Ann's account on her second device
    ):
        before = [s.copy() for s in core.seats]
        if code is None:
            core.join(player, player, None, 0.0, account=account)
            continue
        with pytest.raises(RequestError) as caught:
            core.join(player, player, None, 0.0, account=account)
        assert caught.value.code is code
        assert [vars(s) for s in core.seats] == [vars(s) for s in before]  # nothing changed
    core.join("p2", "Bea", None, 0.0, account="a_bea")
    assert core.status == "playing" and core.info().rated


def play_out(core: TableCore, players: dict[int, str]) -> None:
    """Play ``core``'s game to its end by the first legal move (the AI's seats too)."""
    game = core.game
    while core.status == "playing":
        seat = next(s for s in range(len(core.seats)) if game.legal_actions(core.state, s))
        action = to_plain(game.legal_actions(core.state, seat)[0])
        player = players.get(seat) if core.seats[seat].kind == "human" else None
        core.act(player, seat, core.version, action, "human" if player else "ai", 0.0)


async def test_a_rated_game_s_record_rates_its_players_and_the_leaver_loses(
    stored: Stored,  # noqa: F811 (the fixture)
) -> None:
    """Ann and Bea at a rated Scopa table; Bea leaves mid-game, the AI plays her seat to
    the end: the record keeps her account on the seat, marked left, and she loses
    rating whatever her seat's result."""
    core = rated_core()
    core.join("p1", "Ann", 0, 0.0, account="a_ann")
    core.join("p2", "Bea", 1, 0.0, account="a_bea")
    first = core.game.legal_actions(core.state, core.game.to_act(core.state)[0])[0]
    core.act(
        "p1" if core.game.to_act(core.state)[0] == 0 else "p2",
        core.game.to_act(core.state)[0],
        core.version,
        to_plain(first),
        "human",
        0.0,
    )
    core.leave("p2", 0.0)
    assert core.seats[1].kind == "ai" and core.seats[1].level == "hard"
    play_out(core, {0: "p1"})
    record = game_record(core, finished_at=1_800_000_000.0)
    assert record.rated and record.contests == core.game.contests(core.state)
    bea = record.seats[1]
    assert (bea.kind, bea.account_id, bea.left) == (SeatKind.HUMAN, "a_bea", True)
    assert await stored.records.write(record)
    ratings = await stored.records.ratings.ratings("scopa", ["a_ann", "a_bea"])
    seats = {0: "a_ann", 1: "a_bea"}
    assert ratings == rate_game(record.contests, "scopa", seats, {}, frozenset({"a_bea"}))
    assert ratings["a_bea"].points < 1500


def test_who_is_still_away_past_the_grace_at_the_end_counts_as_left() -> None:
    """Bea drops mid-game and never comes back: the AI plays her seat after the grace
    and the record marks her left (a rated game counts it lost for her); had she come
    back before the end, she would not have left."""
    core = rated_core()
    core.join("p1", "Ann", 0, 0.0, account="a_ann")
    core.join("p2", "Bea", 1, 0.0, account="a_bea")
    away = -(core.grace + 1.0)  # play_out plays at 0.0: past Bea's grace
    core.disconnect("p2", away)
    assert core.seats[1].kind == "human" and not core.seats[1].connected
    play_out(core, {0: "p1"})
    assert game_record(core, 0.0).seats[1].left
    assert not game_record(core, away + core.grace - 0.5).seats[1].left  # within the grace
    assert not game_record(core).seats[0].left


def test_an_unrated_game_names_no_contest() -> None:
    core = make_core("scopa", TableOptions(seat=0, game={"target": 1}))
    core.join("p1", "Ann", 0, 0.0)
    core.join("p2", "Bea", 1, 0.0)
    play_out(core, {0: "p1", 1: "p2"})
    record = game_record(core)
    assert not record.rated and record.contests == ()


def test_a_rematch_stays_rated() -> None:
    core = rated_core(ai=(AiSeat(seat=1, level="easy"),))
    core.join("p1", "Ann", 0, 0.0, account="a_ann")
    play_out(core, {0: "p1"})
    core.rematch("p1", 0.0)
    assert core.status == "playing" and core.setup.options.rated and core.info().rated
    assert core.seats[1].level == "easy"


# -- through a real server -------------------------------------------------------------


async def refused(request: Any) -> ServerError:
    with pytest.raises(ServerError) as caught:
        await request
    return caught.value


async def test_a_rated_table_over_the_socket(
    record_server: CardaviaServer,  # noqa: F811 (the fixture)
) -> None:
    """A guest cannot create or join a rated table; Ann, logged in, plays rated Dou Dizhu
    against two AI levels: the lobby says it is rated, hints are off, and the stored
    game changes Ann's and the levels' ratings."""
    url = record_server.url
    async with (
        await Client.connect(url, "Ann") as ann,
        await Client.connect(url, "guest") as guest,
    ):
        rated = {
            "rated": True,
            "seat": 0,
            "fill_after": None,
            "ai": [{"seat": 2, "level": "easy"}],
        }
        assert (await refused(guest.create_table("doudizhu", rated))).code == "not_logged_in"
        assert await guest.list_tables() == ()
        await ann.register("Ann", PASSWORD)
        bad = {**rated, "ai": [{"seat": 2, "level": "random"}]}
        assert (await refused(ann.create_table("doudizhu", bad))).code == "bad_options"
        joined = await ann.create_table("doudizhu", rated)
        table = joined.table.id
        assert joined.table.rated and not joined.table.hints
        assert [t.rated for t in await guest.list_tables()] == [True]
        assert (await refused(guest.join(table, seat=1))).code == "not_logged_in"
        await ann.start(table)  # the AI (hard, the table's fill level) takes seat 1
        await ann.wait_for(lambda m: isinstance(m, sm.Snapshot | sm.Update), 10)
        hint = await refused(ann._request(cm.Hint(table=table), sm.HintReply))
        assert hint.code == "forbidden"
        await play_table(ann, table, random_chooser(5))
        await asyncio.wait_for(record_server.record_writer.drain(), 10.0)
        stored = await record_server.records.stored(game_id(table, 1), None)
        assert stored.rated
        ratings = await record_server.records.ratings.ratings(
            "doudizhu", ["a_x", ai_account("hard"), ai_account("easy")]
        )
        assert {k: r.games for k, r in ratings.items()} == {
            ai_account("hard"): 1,
            ai_account("easy"): 1,
        }
        account = ann.account
        assert account is not None
        mine = await record_server.records.ratings.profile_ratings(account.account_id)
        assert [(r.game, r.rating.games, len(r.history)) for r in mine] == [("doudizhu", 1, 1)]


async def test_leaderboard_and_profile_ratings_over_the_socket(
    record_server: CardaviaServer,  # noqa: F811 (the fixture)
) -> None:
    """Ann plays 20 rated Scopa games against the AI (enough to be listed): the people's
    leaderboard lists her, the bots' the AI level; her profile shows her rating and its
    graph; bad requests are typed errors that change nothing."""
    url = record_server.url
    async with (
        await Client.connect(url, "Ann") as ann,
        await Client.connect(url, "guest") as guest,
    ):
        account = await ann.register("Ann", PASSWORD)
        seats = ((account.account_id, SeatKind.HUMAN, False), (None, SeatKind.AI, False))
        now = time.time()
        for i in range(20):
            record = rated_record(
                f"t{i}", seats, one_on_one(i % 4 == 0), when=now - 100 + i, levels=(None, "easy")
            )
            assert await record_server.records.write(record)

        async def board(game: str, page: int = 1, bots: bool = False) -> sm.Leaderboard:
            message = cm.GetLeaderboard(game=game, page=page, bots=bots)
            return await guest._request(message, sm.Leaderboard)

        people = await board("scopa")
        assert (people.game, people.bots, people.page, people.pages) == ("scopa", False, 1, 1)
        [entry] = people.entries
        assert (entry.rank, entry.name, entry.bot, entry.games) == (1, "Ann", False, 20)
        assert entry.rating > 1500 and abs(entry.last_played - (now - 81)) < 1e-3
        bots = await board("scopa", bots=True)
        assert [(e.name, e.bot) for e in bots.entries] == [("AI easy", True)]
        assert (await board("scopa", page=2)).entries == ()
        assert (await board("cicera")).pages == 0
        profile = await guest.profile("Ann")
        [rating] = profile.ratings
        assert (rating.game, rating.games, rating.provisional) == ("scopa", 20, False)
        assert (rating.rating, rating.deviation) == (entry.rating, entry.deviation)
        assert len(rating.history) == 20 and rating.history[-1].rating == rating.rating
        assert rating.change == rating.rating - rating.history[-2].rating
        ai = await guest.profile("AI easy")
        assert ai.bot and ai.ratings[0].games == 20
        bad = await refused(board("chess"))
        assert bad.code == ErrorCode.UNKNOWN_GAME
        for raw in (
            {"type": "leaderboard", "id": 90, "game": "scopa", "page": 0},
            {"type": "leaderboard", "id": 91, "game": "scopa", "page": 10_001},
            {"type": "leaderboard", "id": 92, "game": "scopa", "bots": "yes"},
            {"type": "leaderboard", "id": 93},
        ):
            await guest.send_raw(msgpack.packb(raw))
            ref = raw["id"]
            error = await guest.wait_for(
                lambda m, ref=ref: isinstance(m, sm.Error) and m.ref == ref
            )
            assert error.code == ErrorCode.BAD_MESSAGE
        assert (await board("scopa")).entries == people.entries  # nothing changed


@pytest.mark.heavy
async def test_a_rated_game_finished_after_its_table_moved_is_rated_once(
    redis_server: RedisServer,
    servers: list[ServerProcess],
    tmp_path: Path,
) -> None:
    """Ann and Bob play rated Dou Dizhu with the AI on two processes sharing Redis and one
    database; the table's process dies mid-game and the other finishes it: every player's
    rating moves once, from the one stored game."""
    db_url = sqlite_url(tmp_path / "shared.db")
    a = ServerProcess(redis_server.url, "--database-url", db_url)
    b = ServerProcess(redis_server.url, "--database-url", db_url)
    servers += [a, b]
    a.start()
    b.start()
    ann = await Client.connect(a.url, "guest a")
    await ann.register("Ann", PASSWORD)
    bob = await Client.connect(b.url, "guest b")
    await bob.register("Bob", PASSWORD)
    options = {"rated": True, "seat": 0, "ai": [{"seat": 2, "level": "easy"}]}
    table = (await ann.create_table("doudizhu", options)).table.id
    await bob.join(table, seat=1)
    await bob.wait_for(lambda m: isinstance(m, sm.Snapshot | sm.Update), 10)
    a.signal(signal.SIGKILL)
    await bob.wait_for(lambda m: isinstance(m, sm.Snapshot) and m.table == table, 10)
    await ann.close()
    ann = await resume(b.url, ann.token, table)
    await asyncio.gather(
        play_table(ann, table, random_chooser(3)), play_table(bob, table, random_chooser(4))
    )
    deadline = time.monotonic() + 10
    while not (await bob.profile("Ann")).ratings and time.monotonic() < deadline:
        await asyncio.sleep(0.1)  # written in the background, after the last move
    db = Database(db_url)
    try:
        async with db.session() as session:
            games = {r.account_id: r.games for r in await session.scalars(select(RatingRow))}
            points = len((await session.scalars(select(RatingPointRow))).all())
    finally:
        await db.close()
    assert sorted(games.values()) == [1, 1, 1] and ai_account("easy") in games
    assert points == 3
    profile = await bob.profile("Bob")
    assert [(r.game, r.games) for r in profile.ratings] == [("doudizhu", 1)]
    await ann.close()
    await bob.close()
