"""engine.sharing.replace: what dataclasses.replace does, by a positional call of the class."""

from __future__ import annotations

import dataclasses
import random
from dataclasses import InitVar, dataclass, field
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.registry import GAMES
from engine.sharing import replace


@dataclass(frozen=True)
class _Plain:
    x: int
    y: str = "y"
    z: int = field(default=0, init=False)


@dataclass(frozen=True)
class _WithInitVar:
    x: int
    k: InitVar[int] = 0


@given(st.integers(), st.text(max_size=3), st.booleans(), st.booleans())
def test_replace_is_dataclasses_replace(x: int, y: str, new_x: bool, new_y: bool) -> None:
    value = _Plain(1)
    changes: dict[str, Any] = {}
    if new_x:
        changes["x"] = x
    if new_y:
        changes["y"] = y
    assert replace(value, **changes) == dataclasses.replace(value, **changes)


def test_replace_refuses_what_dataclasses_replace_refuses() -> None:
    with pytest.raises(ValueError, match="init=False"):
        replace(_Plain(1), z=3)
    with pytest.raises(TypeError, match="unexpected keyword"):
        replace(_Plain(1), nope=3)
    assert replace(_WithInitVar(1, 5), x=2, k=4) == _WithInitVar(2)  # an InitVar: as dataclasses


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_every_field_of_a_games_states_is_replaced_as_dataclasses_would(game_id: str) -> None:
    game = GAMES[game_id]
    options = game.options()
    state = game.new_state(options, 4)
    rng = random.Random(2)
    for _ in range(30):
        if not dataclasses.is_dataclass(state) or game.is_over(state):
            break
        value: Any = state
        for f in dataclasses.fields(value):
            if f.init:
                other = getattr(game.new_state(options, 9), f.name)
                assert replace(value, **{f.name: other}) == dataclasses.replace(
                    value, **{f.name: other}
                )
        seat = game.to_act(state)[0]
        state = game.apply(state, seat, rng.choice(game.legal_actions(state, seat))).state
