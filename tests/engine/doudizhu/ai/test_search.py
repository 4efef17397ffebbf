"""The search of ``hard`` (engine.doudizhu.ai.search): hedges, root choices, rollouts."""

from __future__ import annotations

import random

from engine.doudizhu.ai.normal import situation
from engine.doudizhu.ai.search import EAGER_ODDS, HardPolicy, hedges, partner_holds, rollout
from engine.doudizhu.game import read_play
from engine.doudizhu.state import Pass
from engine.game import Budget

from ..helpers import GAME, SMALL, decide, play, position, ranks, run, states

PASS = Pass()


def test_players_of_unknown_kind_are_hedged_against() -> None:
    # seat 1 is the landlord: seat 0's opponent is 1 (it errs), its partner 2 does not
    odds, erring = hedges(0, 1, frozenset(), frozenset())
    assert odds == (0.0, EAGER_ODDS, EAGER_ODDS) and erring == 1 << 1
    # the landlord's two opponents err; a seat seen passing by choice is not eager
    odds, erring = hedges(1, 1, frozenset(), frozenset({2}))
    assert odds == (EAGER_ODDS, 0.0, 0.0) and erring == 1 << 0 | 1 << 2
    # a farmer read as a simple player (WorldSampler.overtook) follows eagerly in every world
    odds, erring = hedges(1, 1, frozenset(), frozenset(), frozenset({2}))
    assert odds == (EAGER_ODDS, 0.0, 1.0) and erring == 1 << 0 | 1 << 2


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
