"""Dou Dizhu AI levels: what every level promises (a legal move, the same choice
for the same seed and budget, no use of the cards it cannot see)."""

from __future__ import annotations

import random

import pytest

from engine.doudizhu.state import Pass
from engine.game import Budget
from engine.registry import get_policy, policy_names

from .helpers import GAME, OPTIONS, SMALL, decide, states

LEVELS = list(policy_names("doudizhu"))
PASS = Pass()


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
