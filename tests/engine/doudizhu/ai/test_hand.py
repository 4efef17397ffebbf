"""The hand planner (engine.doudizhu.ai.hand): the cheapest split of a hand into plays."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.doudizhu.ai.bidding import modeled_want, modeled_want_at_least
from engine.doudizhu.ai.hand import cost, plan, plays, plays_at_most
from engine.doudizhu.combos import pack

from ..helpers import ranks, text


def test_a_plan_splits_the_whole_hand() -> None:
    rng = random.Random(1)
    deck = [r for r in range(13) for _ in range(4)] + [13, 14]
    for i in range(300):
        counts = [0] * 15
        for r in rng.sample(deck, 1 + i % 20):
            counts[r] += 1
        hand = pack(tuple(counts))
        p = plan(hand)
        assert sum(g.packed for g in p.groups) == hand
        assert p.cost == pytest.approx(cost(hand))
        assert p.plays <= len(p.groups)


def packed_hand(cards: list[int]) -> int:
    """The packed rank counts of card numbers 0–53 (52, 53: the jokers)."""
    counts = [0] * 15
    for c in cards:
        counts[c // 4 if c < 52 else c - 39] += 1
    return pack(tuple(counts))


HANDS = st.lists(st.integers(0, 53), min_size=1, max_size=20, unique=True).map(packed_hand)


@settings(max_examples=400, deadline=None)
@given(HANDS)
def test_plays_counts_the_plays_of_the_plan(hand: int) -> None:
    """``plays`` (the auction's strength rule, on whole hands) walks the plan's path
    without building it: the same count for every hand, of a fresh memo or not."""
    assert plays(hand) == plan(hand).plays
    assert plays(hand) == plays(hand)


@settings(max_examples=400, deadline=None)
@given(HANDS)
def test_the_quick_bounds_never_cross_the_plan(hand: int) -> None:
    """The bound the world sampler reads first is a bound: a hand never needs more
    plays, nor wants a lower bid, than it says."""
    assert plays_at_most(hand) >= plays(hand)
    assert modeled_want_at_least(hand) <= modeled_want(hand)


def test_the_quick_bound_is_often_exact() -> None:
    """For about one whole hand in four the bound is the plan's count (measured: 70
    of these 300), so it settles many auction checks alone."""
    rng = random.Random(4)
    deck = list(range(54))
    exact = 0
    for _ in range(300):
        hand = packed_hand(rng.sample(deck, 17))
        exact += plays_at_most(hand) == plays(hand)
    assert exact >= 50


def test_a_straight_and_a_triple_with_the_lowest_kicker() -> None:
    p = plan(ranks("34567999KQ"))
    assert p.plays == 3
    assert {(g.combo, text(g.packed)) for g in p.groups} == {
        ("straight", "34567"),
        ("triple_single", "999Q"),
        ("single", "K"),
    }


def test_kickers_never_break_a_chain_or_a_bomb() -> None:
    p = plan(ranks("5555888TJQKA2"))
    combos = {(g.combo, text(g.packed)) for g in p.groups}
    assert ("straight", "TJQKA") in combos
    assert ("bomb", "5555") in combos
    assert ("triple_single", "8882") not in combos  # a two is never a kicker


def test_an_airplane_takes_the_lowest_loose_singles_as_wings() -> None:
    p = plan(ranks("333444579K"))
    assert ("airplane_single_wings", "33344457") in {(g.combo, text(g.packed)) for g in p.groups}


def test_airplane_wings_are_never_of_a_core_rank() -> None:
    p = plan(ranks("3333444Q"))
    for g in p.groups:
        if g.combo.startswith("airplane"):
            core = {r for r in range(12) if (g.packed >> (4 * r)) & 15 == 3}
            wings = {r for r in range(15) if (g.packed >> (4 * r)) & 15 in (1, 2)}
            assert not core & wings


def test_fewer_plays_cost_less_and_control_cards_are_worth_keeping() -> None:
    assert cost(ranks("34567")) < cost(ranks("3457"))
    assert cost(ranks("2")) < cost(ranks("3"))  # a two wins tricks back, a three does not
    assert cost(ranks("BR")) < cost(ranks("BK"))  # the rocket whole
