"""Every Cicera level: legal, deterministic for a fixed seed and budget, blind to hidden cards."""

from __future__ import annotations

import random

import pytest

from engine.cicera import CiceraState
from engine.cicera.policies import POLICIES
from engine.game import Budget
from engine.policy import Policy, RandomPolicy
from tests.engine.cicera.helpers import GAME, OPTIONS

LEVELS = list(POLICIES)
SMALL = Budget(iterations=30)


def make(name: str) -> Policy:
    return POLICIES[name]()


def states(n: int, seed: int, every: int = 4) -> list[CiceraState]:
    """Positions from one random deal, one every ``every`` plays."""
    rng = random.Random(seed)
    state = GAME.new_state(OPTIONS, seed)
    out = []
    step = 0
    while len(out) < n and not GAME.is_over(state):
        (seat,) = GAME.to_act(state)
        if step % every == 0:
            out.append(state)
        legal = GAME.legal_actions(state, seat)
        state = GAME.apply(state, seat, RandomPolicy().choose(None, legal, rng)).state
        step += 1
    return out


@pytest.mark.parametrize("level", LEVELS)
def test_every_level_returns_a_legal_play(level: str) -> None:
    policy = make(level)
    for state in states(12, seed=3):
        (seat,) = GAME.to_act(state)
        view = GAME.view(state, seat)
        assert policy.choose(view, view.legal, random.Random(1), SMALL) in view.legal


@pytest.mark.parametrize("level", LEVELS)
def test_every_level_plays_whole_deals(level: str) -> None:
    rng = random.Random(4)
    policy = make(level)
    state = GAME.new_state(OPTIONS, 8)
    while not GAME.is_over(state):
        (seat,) = GAME.to_act(state)
        view = GAME.view(state, seat)
        action = policy.choose(view, view.legal, rng, Budget(iterations=8))
        assert action in view.legal
        state = GAME.apply(state, seat, action).state
    assert GAME.result(state) is not None


@pytest.mark.parametrize("level", LEVELS)
def test_same_seed_and_budget_same_choice(level: str) -> None:
    for state in states(6, seed=5):
        (seat,) = GAME.to_act(state)
        view = GAME.view(state, seat)
        a = make(level).choose(view, view.legal, random.Random(5), SMALL)
        b = make(level).choose(view, view.legal, random.Random(5), SMALL)
        assert a == b


@pytest.mark.parametrize("level", LEVELS)
def test_choice_is_unchanged_when_hidden_cards_are_permuted(level: str) -> None:
    rng = random.Random(9)
    changed = 0
    for state in states(8, seed=6):
        (seat,) = GAME.to_act(state)
        other = GAME.redeal_hidden(state, seat, rng)
        changed += other.hands != state.hands
        v1, v2 = GAME.view(state, seat), GAME.view(other, seat)
        assert v1 == v2
        a = make(level).choose(v1, v1.legal, random.Random(2), SMALL)
        b = make(level).choose(v2, v2.legal, random.Random(2), SMALL)
        assert a == b
    assert changed > 0


@pytest.mark.parametrize("level", LEVELS)
def test_no_legal_play_is_refused(level: str) -> None:
    (state,) = states(1, seed=7)
    view = GAME.view(state, GAME.to_act(state)[0])
    with pytest.raises(ValueError):
        make(level).choose(view, (), random.Random(0), SMALL)
