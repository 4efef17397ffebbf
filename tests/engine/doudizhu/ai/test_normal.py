"""The rule-based players (engine.doudizhu.ai.normal): ``normal`` and ``easy``."""

from __future__ import annotations

import random

from engine.doudizhu.ai.greedy import EasyPolicy
from engine.doudizhu.ai.normal import NormalPolicy, bid_strength
from engine.doudizhu.hands import mask_of, packed_counts
from engine.doudizhu.state import Bid, Pass
from engine.registry import get_policy

from ..helpers import GAME, cards, deal, decide, play, position, run, states

PASS = Pass()


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
