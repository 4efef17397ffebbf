"""Scopa policies: legal, deterministic for a fixed seed and budget, blind to hidden cards."""

from __future__ import annotations

import random

import pytest

from engine.game import Budget
from engine.policy import RandomPolicy
from engine.registry import get_policy, policy_names
from engine.scopa.ai.determinized import determinized_policy
from engine.scopa.ai.normal import NormalPolicy, expected_best_answer
from tests.engine.scopa.helpers import GAME, cards, position

LEVELS = list(policy_names("scopa"))
SMALL = Budget(iterations=40)


def make(name):
    return get_policy("scopa", name)


def midgame_states(n=12, seed=3):
    rng = random.Random(seed)
    state = GAME.new_state(GAME.options(), seed)
    out = []
    while len(out) < n and not GAME.is_over(state):
        seat = GAME.to_act(state)[0]
        out.append(state)
        legal = GAME.legal_actions(state, seat)
        state = GAME.apply(state, seat, RandomPolicy().choose(None, legal, rng)).state
    return out


def test_the_levels_weakest_first():
    assert LEVELS == ["random", "easy", "greedy", "normal", "hard"]


@pytest.mark.parametrize("level", LEVELS)
def test_every_level_returns_a_legal_action(level):
    policy = make(level)
    for state in midgame_states():
        seat = GAME.to_act(state)[0]
        view = GAME.view(state, seat)
        action = policy.choose(view, view.legal, random.Random(1), SMALL)
        assert action in view.legal


@pytest.mark.parametrize("level", LEVELS)
def test_same_seed_and_budget_same_choice(level):
    for state in midgame_states(6):
        seat = GAME.to_act(state)[0]
        view = GAME.view(state, seat)
        a = make(level).choose(view, view.legal, random.Random(5), SMALL)
        b = make(level).choose(view, view.legal, random.Random(5), SMALL)
        assert a == b


@pytest.mark.parametrize("level", LEVELS)
def test_choice_is_unchanged_when_hidden_cards_are_permuted(level):
    rng = random.Random(9)
    changed = 0
    for state in midgame_states(8, seed=4):
        seat = GAME.to_act(state)[0]
        other = GAME.redeal_hidden(state, seat, rng)
        changed += other.hands[1 - seat] != state.hands[1 - seat]
        v1, v2 = GAME.view(state, seat), GAME.view(other, seat)
        a = make(level).choose(v1, v1.legal, random.Random(2), SMALL)
        b = make(level).choose(v2, v2.legal, random.Random(2), SMALL)
        assert a == b
    assert changed > 0


def test_normal_does_not_leave_an_easy_sweep():
    # laying 4S on 2D leaves 6 on the table; laying KS leaves 12 (no sweep possible)
    state = position("4S KS", "AS 2S", "2D", dealer=1, turn=0, stock="")
    view = GAME.view(state, 0)
    choice = NormalPolicy().choose(view, view.legal, random.Random(0))
    assert str(choice.card) == "KS"


def test_normal_takes_the_settebello():
    state = position("7S 5S", "AS 2S", "7D 4C QC", dealer=1, turn=0, stock="")
    view = GAME.view(state, 0)
    choice = NormalPolicy().choose(view, view.legal, random.Random(0))
    assert choice.capture == frozenset(cards("7D"))


def test_expected_best_answer_weights_by_hypergeometric_odds():
    table = cards("3D")
    # one unseen 3 among four unseen cards, opponent holds one: a quarter chance of the sweep
    unseen = cards("3S KS QS JS")
    one = expected_best_answer(table, unseen, 1, last_play=False)
    all_ = expected_best_answer(table, unseen, 4, last_play=False)
    assert 0 < one < all_


def test_the_generic_search_baseline_still_plays_scopa():
    # determinized_policy: engine/search.py on Scopa, the baseline hard is measured against
    state = position("5S KS QS", "AS 2S 3S", "2D 3D", turn=0)
    view = GAME.view(state, 0)
    policy = determinized_policy()
    choice = policy.choose(view, view.legal, random.Random(3), Budget(iterations=30))
    assert policy.last_iterations == 30
    assert str(choice.card) == "5S"  # the sweep of 2D+3D
