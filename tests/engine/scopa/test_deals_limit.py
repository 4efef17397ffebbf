"""Scopa's ``deals`` option: a match of exactly that many deals (duplicate boards)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.game import OptionsError
from engine.scopa.game import ScopaGame
from engine.scopa.state import ScopaState

GAME = ScopaGame()


def _play_out(seed: int, raw: dict[str, int]) -> ScopaState:
    options = GAME.options(raw)
    state = GAME.new_state(options, seed)
    rng = random.Random(seed)
    while not GAME.is_over(state):
        seat = GAME.to_act(state)[0]
        legal = GAME.legal_actions(state, seat)
        state = GAME.apply(state, seat, rng.choice(legal)).state
    return state


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**63 - 1))
def test_one_deal_ends_after_the_first_deal(seed: int) -> None:
    state = _play_out(seed, {"deals": 1})
    result = GAME.result(state)
    assert result is not None
    assert len(state.history) == 1
    a, b = result.scores
    if a == b:
        assert result.winners == frozenset()
        assert GAME.contests(state)[0].ranks == (0, 0)
    else:
        assert result.winners == frozenset((0 if a > b else 1,))
    assert GAME.view(state, 0).over
    assert GAME.to_act(state) == ()


def test_one_deal_is_the_first_deal_of_the_match() -> None:
    """The board is the match's first deal from the same seed: same cards dealt."""
    seed = 12345
    one = GAME.new_state(GAME.options({"deals": 1}), seed)
    full = GAME.new_state(GAME.options({}), seed)
    assert one.hands == full.hands and one.table == full.table and one.dealer == full.dealer


def test_bad_deals_is_refused() -> None:
    with pytest.raises(OptionsError):
        GAME.options({"deals": -1})
    with pytest.raises(OptionsError):
        GAME.options({"deals": 101})
