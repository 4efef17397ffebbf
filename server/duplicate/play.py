"""One duplicate board played out by policies (the bench's and the tests' unit).

The player's seat decides with its own generator; every AI seat with
:func:`server.duplicate.boards.ai_rng` of the board's seed and its seat, so that
the AI's answers depend only on the board and what was played, never on who else
played the board before or how many numbers the player's policy drew.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.game import Budget, Result
from engine.policy import Policy
from engine.registry import get_game
from server.duplicate.boards import BOARD_OPTIONS, ai_rng
from server.duplicate.scoring import board_score


@dataclass(frozen=True, slots=True)
class BoardPlay:
    """A finished board: the game's result and the player's score in the game's unit."""

    result: Result
    score: int


def play_board(
    game_id: str,
    seed: int,
    seat: int,
    player: Policy,
    player_rng: random.Random,
    ai: Policy,
    budget: Budget | None = None,
    options: Mapping[str, Any] | None = None,
) -> BoardPlay:
    """Play the board of ``seed`` with ``player`` at ``seat`` and ``ai`` at every other seat."""
    game = get_game(game_id)
    opts = game.options(dict(BOARD_OPTIONS[game_id] if options is None else options))
    state = game.new_state(opts, seed)
    rngs = {s: ai_rng(seed, s) for s in range(game.num_seats(opts)) if s != seat}
    while not game.is_over(state):
        to_act = game.to_act(state)[0]
        view = game.view(state, to_act)
        if to_act == seat:
            action = player.choose(view, view.legal, player_rng, budget)
        else:
            action = ai.choose(view, view.legal, rngs[to_act], budget)
        state = game.apply(state, to_act, action).state
    result = game.result(state)
    assert result is not None
    return BoardPlay(result, board_score(game_id, result, seat))
