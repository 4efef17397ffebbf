"""Time caps: every ``hard`` level stops inside the caller's cap, setup included."""

from __future__ import annotations

import gc
import math
import random
import time

import pytest

from engine.game import DEADLINE_RESERVE, Budget, decision_deadline
from engine.registry import GAMES, get_game, get_policy


def test_the_deadline_keeps_a_reserve_of_the_cap():
    assert decision_deadline(10.0, 0.25) == pytest.approx(10.0 + 0.25 * (1 - DEADLINE_RESERVE))
    assert 10.0 < decision_deadline(10.0, 0.25) < 10.25
    assert decision_deadline(10.0, None) == math.inf
    assert decision_deadline(10.0, math.inf) == math.inf


def _positions(game_id: str, count: int) -> list[tuple[object, tuple[object, ...]]]:
    """(view, legal) of the first ``count`` decisions with a choice in a random game."""
    game = get_game(game_id)
    state = game.new_state(game.options(), 7)
    rng = random.Random(7)
    out: list[tuple[object, tuple[object, ...]]] = []
    while not game.is_over(state) and len(out) < count:
        seat = game.to_act(state)[0]
        legal = game.legal_actions(state, seat)
        if len(legal) > 1:
            out.append((game.view(state, seat), legal))
        state = game.apply(state, seat, legal[rng.randrange(len(legal))]).state
    return out


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_hard_stops_within_a_time_cap(game_id):
    # CPU time, not wall time: a loaded machine stretches the wall clock, but a search
    # that stops at its deadline cannot spend more CPU than the cap (generous margin:
    # a search ignoring the cap spends its full iteration budget, seconds of CPU)
    # The rest of the test run's heap is frozen first: a full collection of it (hundreds of
    # ms late in a whole-suite run) is not the search's time; the search's own garbage is.
    cap = 0.05
    for view, legal in _positions(game_id, 3):
        policy = get_policy(game_id, "hard")
        gc.collect()
        gc.freeze()
        try:
            cpu = time.thread_time()
            action = policy.choose(view, legal, random.Random(1), Budget(seconds=cap))
            spent = time.thread_time() - cpu
        finally:
            gc.unfreeze()
        assert spent < 4 * cap
        assert action in legal
