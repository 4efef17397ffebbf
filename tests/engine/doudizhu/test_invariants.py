"""Properties of random deals: the state's redundant fields always agree."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.doudizhu.combos import classify, unpack
from engine.doudizhu.game import read_play
from engine.doudizhu.hands import mask_of, packed_counts
from engine.doudizhu.state import Play

from .helpers import GAME, OPTIONS


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**63 - 1), policy_seed=st.integers(0, 2**32))
def test_hands_counts_and_plays_stay_consistent(seed: int, policy_seed: int) -> None:
    rng = random.Random(policy_seed)
    state = GAME.new_state(OPTIONS, seed)
    while not GAME.is_over(state):
        (seat,) = GAME.to_act(state)
        for s in range(3):
            assert state.counts[s] == packed_counts(state.hands[s])
        assert not (state.hands[0] & state.hands[1] or state.hands[1] & state.hands[2])
        legal = GAME.legal_actions(state, seat)
        action = legal[rng.randrange(len(legal))]
        if isinstance(action, Play):
            move, mask = read_play(action)
            assert mask_of(action.cards) == mask
            assert classify(unpack(packed_counts(mask)), action.combo) is move
            before = state.hands[seat]
            state = GAME.apply(state, seat, action).state
            assert state.hands[seat] == before & ~mask
        else:
            state = GAME.apply(state, seat, action).state
    result = GAME.result(state)
    assert result is not None and sum(result.scores) == 0
    assert state.hands[state.winner] == 0
