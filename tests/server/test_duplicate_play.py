"""A duplicate board played by policies: the AI seats' answers depend on the board only."""

from __future__ import annotations

import random

from engine.game import Budget
from engine.registry import get_policy
from server.duplicate.play import play_board
from server.duplicate.scoring import board_score

BUDGET = Budget(iterations=5, seconds=None)


def test_the_same_play_gets_the_same_answers() -> None:
    """The player's generator is drawn from differently, the AI's answers stay the same."""
    for game in ("scopa", "doudizhu", "schafkopf", "cicera"):
        ai = get_policy(game, "easy")
        first = play_board(game, 99, 0, get_policy(game, "random"), random.Random(1), ai, BUDGET)
        again = play_board(game, 99, 0, get_policy(game, "random"), random.Random(1), ai, BUDGET)
        assert first == again
        assert first.score == board_score(game, first.result, 0)


def test_a_board_is_one_deal() -> None:
    done = play_board(
        "scopa", 5, 1, get_policy("scopa", "easy"), random.Random(2), get_policy("scopa", "easy")
    )
    assert done.result.summary["deals"] == 1
