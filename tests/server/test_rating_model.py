"""The rating model (issue 55, server/ratings/model.py): OpenSkill over the game's sides."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.game import Contest, two_sides
from server.ratings.model import (
    NEWCOMER,
    PROVISIONAL_GAMES,
    Rating,
    RatingError,
    contest_odds,
    rate_contest,
    rate_game,
    role_key,
    win_chance,
)

ONE_ON_ONE = two_sides(frozenset({0}), frozenset({1}), True)
PAIRS = two_sides(frozenset({0, 2}), frozenset({1, 3}), False)


def test_the_winner_gains_what_the_loser_loses_and_both_grow_surer() -> None:
    new = rate_contest(ONE_ON_ONE, "scopa", {0: "ann", 1: "bo"}, {})
    assert new["ann"].mu > NEWCOMER.mu > new["bo"].mu
    assert new["ann"].mu - NEWCOMER.mu == pytest.approx(NEWCOMER.mu - new["bo"].mu)
    assert new["ann"].sigma < NEWCOMER.sigma and new["bo"].sigma < NEWCOMER.sigma


def test_partners_move_together_and_a_tie_between_equals_moves_nobody() -> None:
    new = rate_contest(PAIRS, "cicera", {0: "a", 1: "b", 2: "c", 3: "d"}, {})
    assert new["b"].mu == new["d"].mu > NEWCOMER.mu > new["a"].mu == new["c"].mu
    tie = two_sides(frozenset({0}), frozenset({1}), None)
    even = rate_contest(tie, "scopa", {0: "a", 1: "b"}, {})
    assert even["a"].mu == pytest.approx(NEWCOMER.mu)


def test_a_lone_landlord_is_even_with_two_farmers_through_the_landlords_role() -> None:
    """Without the role, OpenSkill's sum of skills would make two farmers of 1500 sure
    winners against one landlord of 1500; the role starts where the sides are even,
    and learns the landlord's real odds from every deal."""
    seats = {0: "f1", 1: "lord", 2: "f2"}
    won = two_sides(frozenset({1}), frozenset({0, 2}), True, role="landlord")
    lost = two_sides(frozenset({1}), frozenset({0, 2}), False, role="landlord")
    up = rate_contest(won, "doudizhu", seats, {})
    down = rate_contest(lost, "doudizhu", seats, {})
    assert up["lord"].mu - NEWCOMER.mu == pytest.approx(NEWCOMER.mu - down["lord"].mu)
    role = role_key("doudizhu", "landlord")
    assert up[role].mu > NEWCOMER.mu > down[role].mu  # the role learns too
    assert role == "role:doudizhu:landlord"
    assert contest_odds(won, "doudizhu", seats, {}) == pytest.approx((0.5, 0.5))
    many: dict[str, Rating] = {}
    for i in range(30):  # landlords keep winning: the role learns that they do
        newcomers = {0: f"f{i}", 1: f"l{i}", 2: f"g{i}"}
        many.update(rate_contest(won, "doudizhu", newcomers, many))
    assert contest_odds(won, "doudizhu", seats, many)[0] > 0.7


def test_who_left_loses_whatever_the_result_and_their_partner_keeps_the_win() -> None:
    seats = {0: "a", 1: "b", 2: "c", 3: "d"}
    new = rate_contest(PAIRS, "cicera", seats, {}, leavers=frozenset({"b"}))
    assert new["b"].mu < NEWCOMER.mu  # the side of b won: b still loses
    assert new["d"].mu > NEWCOMER.mu
    lost = rate_contest(PAIRS, "cicera", seats, {}, leavers=frozenset({"a"}))
    assert lost == rate_contest(PAIRS, "cicera", seats, {})  # a's side lost anyway


def test_a_game_counts_once_and_rates_its_deals_in_order() -> None:
    deals = (
        two_sides(frozenset({0, 1}), frozenset({2, 3}), True, deal=0),
        two_sides(frozenset({2}), frozenset({0, 1, 3}), False, deal=2),
    )
    seats = {0: "a", 1: "b", 2: "c", 3: "d"}
    new = rate_game(deals, "schafkopf", seats, {"a": Rating(games=3)})
    assert {p: r.games for p, r in new.items()} == {"a": 4, "b": 1, "c": 1, "d": 1}
    with_role = rate_game(
        (two_sides(frozenset({0}), frozenset({1, 2, 3}), True, deal=0, role="solo"),) * 2,
        "schafkopf",
        seats,
        {},
    )
    assert with_role[role_key("schafkopf", "solo")].games == 2 and with_role["a"].games == 1
    step = rate_contest(deals[0], "schafkopf", seats, {"a": Rating(games=3)})
    assert new["c"].mu == pytest.approx(rate_contest(deals[1], "schafkopf", seats, step)["c"].mu)
    assert rate_game((), "schafkopf", seats, {}) == {}  # every deal thrown in: nothing changes


def test_bad_seatings_are_refused() -> None:
    with pytest.raises(RatingError):
        rate_contest(ONE_ON_ONE, "scopa", {0: "ann"}, {})
    with pytest.raises(RatingError):
        rate_contest(ONE_ON_ONE, "scopa", {0: "ann", 1: "ann"}, {})
    with pytest.raises(ValueError):
        Contest(sides=(frozenset({0}),), ranks=(0,))


def test_shown_and_provisional() -> None:
    assert NEWCOMER.shown() == "1500?"
    sure = Rating(mu=27.8, sigma=2.35, games=PROVISIONAL_GAMES)
    assert sure.shown() == "1612 ± 94" and not sure.provisional
    assert Rating(mu=27.8, sigma=8.2, games=100).provisional


@given(st.floats(min_value=15, max_value=35), st.floats(min_value=15, max_value=35))
def test_win_chances_add_up_and_favour_the_stronger(a: float, b: float) -> None:
    p, q = win_chance("scopa", ((Rating(mu=a, sigma=3),), (Rating(mu=b, sigma=3),)))
    assert p + q == pytest.approx(1.0)
    assert (p > q) == (a > b) or a == pytest.approx(b)
