"""Dou Dizhu AI levels: hand planning, the rule-based player, the search, the RLCard adapter."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.doudizhu.ai_bidding import modeled_want, modeled_want_at_least
from engine.doudizhu.ai_hand import cost, plan, plays, plays_at_most
from engine.doudizhu.ai_normal import EasyPolicy, NormalPolicy, bid_strength, situation
from engine.doudizhu.ai_search import EAGER_ODDS, HardPolicy, hedges, partner_holds, rollout
from engine.doudizhu.combos import RANKS, pack
from engine.doudizhu.game import read_play
from engine.doudizhu.hands import mask_of, packed_counts
from engine.doudizhu.state import Bid, Pass
from engine.game import Budget
from engine.registry import get_policy, policy_names

from .helpers import GAME, OPTIONS, cards, deal, play, position, ranks, run, states

LEVELS = list(policy_names("doudizhu"))
SMALL = Budget(iterations=24)
PASS = Pass()


def text(packed: int) -> str:
    return "".join(RANKS[r] * ((packed >> (4 * r)) & 15) for r in range(15))


def decide(policy: object, state: object, seed: int = 1) -> object:
    (seat,) = GAME.to_act(state)  # type: ignore[arg-type]
    view = GAME.view(state, seat)  # type: ignore[arg-type]
    return policy.choose(view, view.legal, random.Random(seed), SMALL)  # type: ignore[attr-defined]


# -- levels ---------------------------------------------------------------------


def test_the_levels_weakest_first() -> None:
    assert LEVELS == ["random", "easy", "greedy", "normal", "hard"]


@pytest.mark.parametrize("level", LEVELS)
def test_every_level_returns_a_legal_action(level: str) -> None:
    policy = get_policy("doudizhu", level)
    for seed in (3, 8):
        for state in states(seed=seed):
            (seat,) = GAME.to_act(state)  # type: ignore[arg-type]
            view = GAME.view(state, seat)  # type: ignore[arg-type]
            assert policy.choose(view, view.legal, random.Random(1), SMALL) in view.legal


@pytest.mark.parametrize("level", ["easy", "normal", "hard"])
def test_a_whole_deal_finishes(level: str) -> None:
    rng = random.Random(4)
    policy = get_policy("doudizhu", level)
    state = GAME.new_state(OPTIONS, 11)
    steps = 0
    while not GAME.is_over(state):
        (seat,) = GAME.to_act(state)
        view = GAME.view(state, seat)
        action = policy.choose(view, view.legal, rng, Budget(iterations=8))
        assert action in view.legal
        state = GAME.apply(state, seat, action).state
        steps += 1
        assert steps < 500
    assert GAME.result(state) is not None


@pytest.mark.parametrize("level", ["easy", "normal", "hard"])
def test_same_seed_and_budget_same_choice(level: str) -> None:
    for state in states(8, seed=5):
        a = decide(get_policy("doudizhu", level), state, 7)
        b = decide(get_policy("doudizhu", level), state, 7)
        assert a == b


@pytest.mark.parametrize("level", ["easy", "normal", "hard"])
def test_choice_is_unchanged_when_hidden_cards_are_permuted(level: str) -> None:
    rng = random.Random(9)
    changed = 0
    for state in states(12, seed=6):
        (seat,) = GAME.to_act(state)  # type: ignore[arg-type]
        other = GAME.redeal_hidden(state, seat, rng)  # type: ignore[arg-type]
        changed += other.hands != state.hands  # type: ignore[attr-defined]
        v1, v2 = GAME.view(state, seat), GAME.view(other, seat)  # type: ignore[arg-type]
        policy = get_policy("doudizhu", level)
        a = policy.choose(v1, v1.legal, random.Random(2), SMALL)
        b = get_policy("doudizhu", level).choose(v2, v2.legal, random.Random(2), SMALL)
        assert a == b
    assert changed > 0


# -- hand planning ------------------------------------------------------------------


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


# -- the rule-based player --------------------------------------------------------


def normal(state: object) -> object:
    return decide(NormalPolicy(), state)


def test_normal_goes_out_when_it_can() -> None:
    state = position(("3S 3H 3D 4S 4H", "9S", "TS"))
    assert normal(state) == play("3S 3H 3D 4S 4H", "triple_pair")


def test_normal_leads_its_weakest_group_and_keeps_the_chain_whole() -> None:
    state = position(("3S 4S 5S 6S 7S 9S 9H KS 2S", "JS", "QS QH"))
    assert normal(state) == play("3S 4S 5S 6S 7S", "straight")


def test_normal_attaches_the_lowest_loose_single_as_kicker() -> None:
    state = position(("8S 8H 8D 4S QS KS", "JS", "QH QD"))
    assert normal(state) == play("8S 8H 8D 4S", "triple_single")


def test_normal_farmer_lets_the_partners_play_stand() -> None:
    state = position(("3S 8S 9S TS", "4S 6S KS 2S 5D", "5S 7S QS JS"), landlord=0)
    state = run(state, play("3S", "single"), play("6S", "single"))
    assert normal(state) == PASS


def test_normal_does_not_lead_a_single_into_an_opponent_with_one_card() -> None:
    state = position(("4S 4H 9S", "KS", "QS 6H"), landlord=0)
    assert normal(state) == play("4S 4H", "pair")


def test_normal_feeds_a_partner_about_to_go_out() -> None:
    state = position(("3H 4D", "5S 5H 9S 9H JS 2S", "6S"), landlord=0)
    state = run(state, play("3H", "single"), play("2S", "single"), PASS, PASS)
    # seat 1 leads; its partner, seat 2, plays next and holds one card: the lowest card
    assert normal(state) == play("5S", "single")


def test_normal_bombs_an_opponent_about_to_go_out() -> None:
    state = position(("3S 9S", "4S 4H 4D 4C 5S 6H 8D", "TS"), landlord=0)
    state = run(state, play("9S", "single"))
    assert normal(state) == play("4S 4H 4D 4C", "bomb")


def test_normal_keeps_its_bomb_early() -> None:
    state = position(("3S 9S JH JD QH QD KH", "4S 4H 4D 4C 5S 6H 8D 7C 7D", "TS JS QS AC"))
    state = run(state, play("9S", "single"))
    choice = normal(state)
    assert choice != play("4S 4H 4D 4C", "bomb")


def test_normal_bids_with_a_strong_hand_and_passes_a_weak_one() -> None:
    strong = deal(hands=("BJ RJ 2S 2H 2D AS AH KS KH", "", ""), first_bidder=0)
    assert normal(strong) == Bid(3)
    weak = deal(
        hands=("3S 5H 7D 9C JS KH 4S 6H 8D TC QS 3H 5D 7C 9S JH KD", "", ""), first_bidder=0
    )
    assert normal(weak) == PASS
    assert bid_strength(packed_counts(mask_of(cards("BJ RJ 2S 2H")))) > bid_strength(
        packed_counts(mask_of(cards("3S 5H 7D 9C")))
    )


def test_easy_is_greedy_with_some_noise() -> None:
    state = states(14, seed=2)[-1]
    (seat,) = GAME.to_act(state)  # type: ignore[arg-type]
    view = GAME.view(state, seat)  # type: ignore[arg-type]
    greedy = get_policy("doudizhu", "greedy").choose(view, view.legal, random.Random(0))
    picks = [EasyPolicy().choose(view, view.legal, random.Random(s)) for s in range(40)]
    assert picks.count(greedy) >= 20
    if len(view.legal) > 1:
        assert any(p != greedy for p in picks)


# -- the search -------------------------------------------------------------------


def test_players_of_unknown_kind_are_hedged_against() -> None:
    # seat 1 is the landlord: seat 0's opponent is 1 (it errs), its partner 2 does not
    odds, erring = hedges(0, 1, frozenset(), frozenset())
    assert odds == (0.0, EAGER_ODDS, EAGER_ODDS) and erring == 1 << 1
    # the landlord's two opponents err; a seat seen passing by choice is not eager
    odds, erring = hedges(1, 1, frozenset(), frozenset({2}))
    assert odds == (EAGER_ODDS, 0.0, 0.0) and erring == 1 << 0 | 1 << 2


def test_seats_the_table_shows_as_the_servers_ai_are_played_as_modelled() -> None:
    odds, erring = hedges(1, 1, frozenset({0, 2}), frozenset())
    assert odds == (0.0, 0.0, 0.0) and erring == 0
    told = HardPolicy().knowing(("rlcard-rule", "hard", "normal"))
    assert told.known == frozenset({1, 2})
    assert hedges(0, 0, told.known, frozenset()) == ((0.0, 0.0, 0.0), 0)


def test_a_table_of_unknown_players_changes_no_decision() -> None:
    """Told only of kinds it does not model, ``hard`` decides exactly as when told nothing."""
    compared = 0
    for state in states(40, seed=7)[-12:]:
        (seat,) = GAME.to_act(state)  # type: ignore[arg-type]
        view = GAME.view(state, seat)  # type: ignore[arg-type]
        if view.phase == "bidding" or len(view.legal) < 2:
            continue
        told = HardPolicy().knowing((None, "rlcard-rule", "greedy"))
        budget = Budget(iterations=60)
        assert told.choose(view, view.legal, random.Random(4), budget) == HardPolicy().choose(
            view, view.legal, random.Random(4), budget
        )
        compared += 1
    assert compared >= 3


def test_hard_plays_the_safe_pair_first_when_opponents_hold_one_card() -> None:
    state = position(("5S 5H 9S", "KS", "QS"), landlord=0)
    assert decide(HardPolicy(), state) == play("5S 5H", "pair")


def test_hard_bombs_first_to_go_out_with_its_last_single() -> None:
    # the three first loses to any higher single; the bomb first wins the lead back
    state = position(("3S 7S 7H 7D 7C", "KS", "QS"), landlord=0)
    assert decide(HardPolicy(), state) == play("7S 7H 7D 7C", "bomb")


def test_hard_farmer_lets_the_partners_trick_stand_once_the_landlord_passed() -> None:
    # the landlord (seat 0) passed on the partner's queen: seat 1's two or ace would
    # take a trick its side holds (the search alone, at this seed, plays the two)
    state = position(("3S 5S 6H 7H 8H 9C JD KH", "2S AS 4S 4H 9S TH", "QS 6S 6D 8D 8C KD"))
    state = run(state, play("3S", "single"), PASS, play("QS", "single"), PASS)
    view = GAME.view(state, 1)
    last = read_play(view.last)[0] if view.last is not None else None
    assert last is not None and partner_holds(last, situation(view))
    choice = HardPolicy().choose(view, view.legal, random.Random(0), Budget(iterations=300))
    assert choice == PASS


def test_the_partners_trick_is_held_when_no_unseen_card_beats_it() -> None:
    # seat 2 follows its partner's single before the landlord has answered
    lead = position(("3S 5S", "2S 4S", "RJ 6S"))
    state = run(lead, play("3S", "single"), play("2S", "single"))
    view = GAME.view(state, 2)
    assert view.last is not None
    # the landlord's five cannot beat the two, but the black joker is unseen
    assert not partner_holds(read_play(view.last)[0], situation(view))
    held = run(position(("3S 5S", "RJ 4S", "BJ 6S")), play("3S", "single"), play("RJ", "single"))
    view = GAME.view(held, 2)
    assert view.last is not None
    assert partner_holds(read_play(view.last)[0], situation(view))
    # an opponent's play is never held
    answered = run(lead, play("3S", "single"))
    view = GAME.view(answered, 1)
    assert view.last is not None
    assert not partner_holds(read_play(view.last)[0], situation(view))


def test_hard_respects_an_iteration_budget() -> None:
    state = states(30, seed=1)[-1]
    policy = HardPolicy()
    decide(policy, state)
    assert policy.last_iterations <= SMALL.iterations  # type: ignore[operator]


def test_a_rollout_ends_the_trick_after_two_passes() -> None:
    nine = read_play(play("9S", "single"))[0]
    # seat 0 played the nine; seats 1 and 2 passed: seat 0 leads its last card and wins
    hands = [ranks("3"), ranks("4"), ranks("5")]
    assert rollout(hands, 0, 0, nine, 0, passes=2) == 0
    # one pass only: seat 2 must still answer the nine (it cannot), then seat 0 leads
    hands = [ranks("3"), ranks("4"), ranks("5")]
    assert rollout(hands, 0, 2, nine, 0, passes=1) == 0
    assert hands[0] == 0 and hands[1] == ranks("4")
