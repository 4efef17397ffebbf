"""Ratings in the database (issue 55): updated once with a rated game's record, no lost
update when two games of one account finish at once, leavers and deleted accounts, the
AI levels' accounts, roles, leaderboards and profile graphs — on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Sequence
from dataclasses import replace

import pytest
from sqlalchemy import insert, select

from engine.game import Contest
from server.persist.db.game_record import GameRecord, SeatKind, SeatRecord
from server.persist.db.models import GameRecordRow, RatingPointRow, RatingRow, RoleRatingRow
from server.ratings.levels import ai_account
from server.ratings.model import Rating, rate_game, role_key
from server.ratings.store import ACTIVE_DAYS, HISTORY_POINTS, LEADERBOARD_PAGE, _page_start
from tests.server.test_accounts import PASSWORD
from tests.server.test_records import Stored, count, stored  # noqa: F401 (fixture)

T0 = 1_800_000_000.0
DAY = 86_400.0


def one_on_one(winner: int = 0) -> tuple[Contest, ...]:
    """A Scopa match: seat ``winner`` beat the other."""
    return (Contest((frozenset({0}), frozenset({1})), (0, 1) if winner == 0 else (1, 0)),)


def rated(
    table: str,
    seats: Sequence[tuple[str | None, SeatKind, bool]],
    contests: tuple[Contest, ...],
    *,
    game: str = "scopa",
    when: float = T0,
    levels: Sequence[str | None] = (),
) -> GameRecord:
    """A rated game's record: ``seats`` as (account, kind, left)."""
    levels = tuple(levels) or (None,) * len(seats)
    return GameRecord(
        table_id=table,
        game_no=1,
        game=game,
        private=False,
        options={"rated": True},
        seed=3,
        log=(),
        seats=tuple(
            SeatRecord(i, kind, account, account, level, left, 0, False)
            for i, ((account, kind, left), level) in enumerate(zip(seats, levels, strict=True))
        ),
        result={"scores": [], "winners": []},
        finished_at=when,
        rated=True,
        contests=contests,
    )


@pytest.fixture
def kept(stored: Stored) -> Stored:  # noqa: F811 (the fixture of test_records)
    """Ann and Bea's accounts, their records and ratings, on SQLite and PostgreSQL."""
    return stored


ANN_BEA = (("a_ann", SeatKind.HUMAN, False), ("a_bea", SeatKind.HUMAN, False))


async def rows(kept: Stored) -> dict[str, RatingRow]:
    async with kept.accounts.db.session() as session:
        return {r.account_id: r for r in await session.scalars(select(RatingRow))}


async def test_a_rated_game_updates_its_players_once(kept: Stored) -> None:
    records = kept.records
    record = rated("t1", ANN_BEA, one_on_one(0))
    assert await records.write(record)
    assert not await records.write(record)  # a retry, or the table finishing it elsewhere
    found = await rows(kept)
    ann, bea = found["a_ann"], found["a_bea"]
    expected = rate_game(record.contests, "scopa", {0: "a_ann", 1: "a_bea"}, {})
    assert (ann.mu, ann.sigma, ann.games) == (
        expected["a_ann"].mu,
        expected["a_ann"].sigma,
        1,
    )
    assert ann.points > 1500 > bea.points and ann.change == ann.points - 1500
    assert ann.provisional and not ann.bot and ann.last_us == int(T0 * 1_000_000)
    assert await count(kept.accounts.db, RatingPointRow) == 2
    async with kept.accounts.db.session() as session:
        assert (await session.get_one(GameRecordRow, "t1.1")).rated
    got = await records.ratings.ratings("scopa", ["a_ann", "a_bea", "a_cid"])
    assert got == {"a_ann": expected["a_ann"], "a_bea": expected["a_bea"]}


async def test_an_unrated_game_changes_no_rating(kept: Stored) -> None:
    record = rated("t1", ANN_BEA, one_on_one(0))
    plain = replace(record, rated=False)
    assert await kept.records.write(plain)
    assert await rows(kept) == {}
    assert await count(kept.accounts.db, RatingPointRow) == 0


async def test_the_ai_levels_are_rated_as_their_accounts(kept: Stored) -> None:
    seats = (("a_ann", SeatKind.HUMAN, False), (None, SeatKind.AI, False))
    await kept.records.write(rated("t1", seats, one_on_one(1), levels=(None, "hard")))
    found = await rows(kept)
    hard = found[ai_account("hard")]
    assert hard.bot and hard.games == 1 and hard.points > 1500 > found["a_ann"].points


async def test_an_ai_level_at_two_seats_is_rated_from_its_first(kept: Stored) -> None:
    """Dou Dizhu: Ann, the landlord, against two farmers of ``hard`` (played before)."""
    seats = (("a_ann", SeatKind.HUMAN, False), *((None, SeatKind.AI, False),) * 2)
    levels = (None, "hard", "hard")
    contest = Contest((frozenset({0}), frozenset({1, 2})), (1, 0), 0, ("landlord", ""))
    await kept.records.write(rated("t0", seats, (contest,), game="doudizhu", levels=levels))
    hard = ai_account("hard")
    before = await kept.records.ratings.ratings("doudizhu", [hard])
    await kept.records.write(
        rated("t1", seats, (contest,), game="doudizhu", levels=levels, when=T0 + 1)
    )
    after = await kept.records.ratings.ratings("doudizhu", [hard, "a_ann"])
    keys = {0: "a_ann", 1: hard, 2: "copy"}
    first = rate_game((contest,), "doudizhu", keys, {})
    second = rate_game((contest,), "doudizhu", keys, {**first, "copy": first[hard]})
    assert before[hard] == first[hard] and after[hard] == second[hard]
    assert after[hard].games == 2 and after["a_ann"] == second["a_ann"]


async def test_a_seat_that_cannot_be_rated_stores_the_game_unrated(kept: Stored) -> None:
    for table, seats, levels in (
        ("anon", (ANN_BEA[0], (None, SeatKind.HUMAN, False)), ()),
        ("rand", (ANN_BEA[0], (None, SeatKind.AI, False)), (None, "random")),
        ("twice", (ANN_BEA[0], ANN_BEA[0]), ()),
    ):
        assert await kept.records.write(rated(table, seats, one_on_one(0), levels=levels))
    assert await rows(kept) == {}
    assert await count(kept.accounts.db, GameRecordRow) == 3


async def test_a_leaver_loses_whatever_the_result(kept: Stored) -> None:
    """Ann and Cid's side wins the Cicera match, but Ann left: she loses rating, Cid gains."""
    cid = kept.accounts._new_row("Cid")
    cid.account_id = "a_cid"
    await kept.accounts._insert(cid)
    dan = kept.accounts._new_row("Dan")
    dan.account_id = "a_dan"
    await kept.accounts._insert(dan)
    seats = (
        ("a_ann", SeatKind.HUMAN, True),
        ("a_bea", SeatKind.HUMAN, False),
        ("a_cid", SeatKind.HUMAN, False),
        ("a_dan", SeatKind.HUMAN, False),
    )
    contests = (Contest((frozenset({0, 2}), frozenset({1, 3})), (0, 1)),)
    await kept.records.write(rated("t1", seats, contests, game="cicera"))
    found = await rows(kept)
    assert found["a_ann"].points < 1500 < found["a_cid"].points
    assert found["a_bea"].points < 1500


async def test_a_deleted_account_is_skipped_and_the_rest_rated(kept: Stored) -> None:
    await kept.accounts.delete(kept.bea, PASSWORD, "addr")
    assert await kept.records.write(rated("t1", ANN_BEA, one_on_one(0)))
    found = await rows(kept)
    assert list(found) == ["a_ann"] and found["a_ann"].points > 1500


async def test_deleting_an_account_deletes_its_ratings(kept: Stored) -> None:
    await kept.records.write(rated("t1", ANN_BEA, one_on_one(0)))
    await kept.accounts.delete(kept.ann, PASSWORD, "addr")
    assert list(await rows(kept)) == ["a_bea"]
    assert await count(kept.accounts.db, RatingPointRow) == 1


async def test_roles_are_rated_beside_the_players(kept: Stored) -> None:
    """Dou Dizhu: Ann the landlord against Bea and the AI; the landlord role is rated."""
    seats = (*ANN_BEA, (None, SeatKind.AI, False))
    contest = Contest((frozenset({0}), frozenset({1, 2})), (0, 1), 0, ("landlord", ""))
    record = rated("t1", seats, (contest, contest), game="doudizhu", levels=(None, None, "easy"))
    await kept.records.write(record)
    key = role_key("doudizhu", "landlord")
    seen = await kept.records.ratings.ratings("doudizhu", [key, "a_ann"])
    expected = rate_game(
        record.contests, "doudizhu", {0: "a_ann", 1: "a_bea", 2: ai_account("easy")}, {}
    )
    assert seen == {key: expected[key], "a_ann": expected["a_ann"]}
    assert seen[key].games == 2 and seen["a_ann"].games == 1  # a deal each; one game
    assert await count(kept.accounts.db, RoleRatingRow) == 1


async def test_a_game_with_no_contest_changes_nothing(kept: Stored) -> None:
    assert await kept.records.write(rated("t1", ANN_BEA, ()))
    assert await rows(kept) == {}


@pytest.mark.parametrize("games", [2, 6])
async def test_games_of_one_account_finishing_at_once_lose_no_update(
    kept: Stored, games: int
) -> None:
    """Ann plays ``games`` games at once, against Bea and the three AI levels, which all
    finish together: every one counts, and her rating is the one of some order of them."""
    opponents = [("a_bea", None), *((None, level) for level in ("easy", "normal", "hard"))]
    records = []
    for i in range(games):
        account, level = opponents[i % len(opponents)]
        kind = SeatKind.HUMAN if account else SeatKind.AI
        seats = (("a_ann", SeatKind.HUMAN, False), (account, kind, False))
        records.append(rated(f"g{i}", seats, one_on_one(i % 2), when=T0 + i, levels=(None, level)))
    written = await asyncio.gather(*(kept.records.write(r) for r in records))
    assert all(written)
    ann = (await rows(kept))["a_ann"]
    assert ann.games == games
    assert await count(kept.accounts.db, RatingPointRow) == 2 * games
    possible = set()
    for order in itertools.permutations(records):
        ratings: dict[str, Rating] = {}
        for r in order:
            keys = {s.seat: s.account_id or ai_account(s.level or "") for s in r.seats}
            ratings.update(rate_game(r.contests, "scopa", keys, ratings))
        possible.add(round(ratings["a_ann"].mu, 9))
    assert round(ann.mu, 9) in possible


async def test_concurrent_updates_of_a_rated_account_wait_for_each_other(
    kept: Stored,
) -> None:
    """The update itself, without the rest of the write: Ann already has a rating, and
    four updates in four transactions at once each read it locked, so none is lost."""
    store = kept.records.ratings
    await kept.records.write(rated("first", ANN_BEA, one_on_one(0), when=T0 - 10))
    seats = (("a_ann", SeatKind.HUMAN, False), (None, SeatKind.AI, False))
    games = [
        rated(f"g{i}", seats, one_on_one(1), when=T0 + i, levels=(None, "hard")) for i in range(4)
    ]

    async def update(record: GameRecord) -> None:
        async with kept.accounts.db.begin() as conn:
            await store.update(conn, record, None)

    await asyncio.gather(*(update(r) for r in games))
    found = await rows(kept)
    assert found["a_ann"].games == 5 and found[ai_account("hard")].games == 4
    assert await count(kept.accounts.db, RatingPointRow) == 2 + 2 * 4


# -- the leaderboard and the profile --------------------------------------------------


async def fill(kept: Stored, entries: Sequence[tuple[str, int, bool, bool, float]]) -> None:
    """Accounts with ratings: (name, points, bot, provisional, last game)."""
    async with kept.accounts.db.begin() as conn:
        for name, points, bot, provisional, last in entries:
            row = kept.accounts._new_row(name)
            await conn.execute(
                insert(type(row)),
                {
                    "account_id": "a_" + name.lower(),
                    "name": name,
                    "skeleton": row.skeleton,
                    "password_hash": None,
                    "bot": bot,
                    "created_at": row.created_at,
                },
            )
            await conn.execute(
                insert(RatingRow),
                {
                    "account_id": "a_" + name.lower(),
                    "game": "scopa",
                    "mu": 25.0 + (points - 1500) / 40,
                    "sigma": 3.0,
                    "games": 30,
                    "points": points,
                    "deviation": 120,
                    "provisional": provisional,
                    "bot": bot,
                    "last_us": int(last * 1_000_000),
                    "change": 4,
                },
            )


async def test_the_leaderboard_lists_active_established_people_best_first(
    kept: Stored,
) -> None:
    await fill(
        kept,
        [
            ("Top", 1900, False, False, T0 - DAY),
            ("Mid", 1600, False, False, T0 - 89 * DAY),
            ("Tie", 1600, False, False, T0),
            ("Old", 2000, False, False, T0 - (ACTIVE_DAYS + 1) * DAY),  # inactive
            ("New", 2100, False, True, T0),  # provisional
            ("Robo", 2200, True, False, T0),  # a bot: listed apart
        ],
    )
    store = kept.records.ratings
    people = await store.leaderboard("scopa", 1, bots=False, now=T0)
    assert [(e.rank, e.name, e.rating) for e in people.entries] == [
        (1, "Top", 1900),
        (2, "Tie", 1600),
        (3, "Mid", 1600),
    ]
    assert people.pages == 1 and not any(e.bot for e in people.entries)
    assert people.entries[0].games == 30 and people.entries[0].last_played == T0 - DAY
    bots = await store.leaderboard("scopa", 1, bots=True, now=T0)
    assert [e.name for e in bots.entries] == ["Robo"] and bots.entries[0].bot
    assert (await store.leaderboard("scopa", 2, bots=False, now=T0)).entries == ()
    assert (await store.leaderboard("cicera", 1, bots=False, now=T0)).pages == 0


@pytest.mark.parametrize("spread", [2, 40, 1000])
async def test_leaderboard_pages_follow_each_other(kept: Stored, spread: int) -> None:
    """Ratings with many ties (``spread`` accounts share each value): the pages, read
    from where the tally places them, are the whole board in order, each once."""
    n = 2 * LEADERBOARD_PAGE + 7
    await fill(kept, [(f"P{i:03d}", 1500 + i // spread, False, False, T0) for i in range(n)])
    store = kept.records.ratings
    pages = [await store.leaderboard("scopa", k, bots=False, now=T0) for k in (1, 2, 3, 4)]
    assert {p.pages for p in pages} == {3} and pages[3].entries == ()
    listed = [e for p in pages for e in p.entries]
    assert [e.rank for e in listed] == list(range(1, n + 1))
    assert [(e.rating, e.account_id) for e in listed] == sorted(
        ((e.rating, e.account_id) for e in listed), reverse=True
    )
    assert len({e.name for e in listed}) == n
    cached = [await store.leaderboard("scopa", k, bots=False) for k in (1, 2, 3)]
    assert [e for p in cached for e in p.entries] == listed  # the tally reused: the same


def test_a_page_starts_where_the_tally_says() -> None:
    tally = ((1700, 3), (1600, 60), (1500, 40))
    assert _page_start(tally, 0) == (1700, 0)
    assert _page_start(tally, 3) == (1600, 0)
    assert _page_start(tally, 50) == (1600, 47)
    assert _page_start(tally, 100) == (1500, 37)
    assert _page_start(tally, 103) is None and _page_start((), 0) is None


async def test_the_profile_shows_each_game_with_its_newest_points(kept: Stored) -> None:
    records = kept.records
    total = HISTORY_POINTS + 5
    for i in range(total):
        await records.write(rated(f"s{i}", ANN_BEA, one_on_one(i % 3 == 0), when=T0 + i))
    seats = (("a_ann", SeatKind.HUMAN, False), (None, SeatKind.AI, False))
    await records.write(
        rated("c1", seats, one_on_one(0), game="cicera", when=T0, levels=(None, "easy"))
    )
    ratings = await records.ratings.profile_ratings("a_ann")
    assert [r.game for r in ratings] == ["cicera", "scopa"]
    cicera, scopa = ratings
    assert cicera.rating.games == 1 and len(cicera.history) == 1
    assert scopa.rating.games == total and len(scopa.history) == HISTORY_POINTS
    assert [p.at for p in scopa.history] == [T0 + i for i in range(5, total)]  # oldest first
    last = scopa.history[-1]
    assert (last.rating, last.deviation) == (scopa.rating.points, scopa.rating.deviation)
    assert scopa.change == last.rating - scopa.history[-2].rating
    assert scopa.last_played == T0 + total - 1
    assert await records.ratings.profile_ratings("a_nobody") == ()
