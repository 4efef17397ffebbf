"""bench.doudizhu_worlds: how well the world samplers of Dou Dizhu ``hard`` guess the
hidden hands, scored against the truth."""

from __future__ import annotations

import json

import pytest

from bench.doudizhu_worlds import main, run, score
from engine.doudizhu.combos import ACE, RED_JOKER


def one(rank: int, n: int = 1) -> int:
    return n << (4 * rank)


def test_a_world_is_scored_by_its_high_cards_and_cards_in_the_right_hand() -> None:
    truth = [one(0, 2), one(ACE) + one(3), one(RED_JOKER) + one(4)]
    assert score(truth, truth, seat=0) == (1.0, 1.0)
    # seat 0's view: the ace and the red joker change hands, the rest stays
    swapped = [one(0, 2), one(RED_JOKER) + one(3), one(ACE) + one(4)]
    high, cards = score(swapped, truth, seat=0)
    assert high == pytest.approx(4 / 8)  # ace and red joker wrong in both hands
    assert cards == pytest.approx(2 / 4)


def test_a_short_run_scores_every_sampler_and_the_truth_exactly() -> None:
    out = run(deals=2, worlds=3, players="greedy", seed=1)
    assert out["decisions"] > 10
    assert 0 < out["decisions_late"] < out["decisions"]
    assert out["truth"]["high"] == out["truth"]["cards"] == 1.0
    assert out["truth"]["high_late"] == out["truth"]["cards_late"] == 1.0
    for name in ("uniform", "hard"):
        for key in ("high", "cards", "high_late", "cards_late"):
            assert 0.0 < out[name][key] < 1.0
        assert out[name]["us_per_world"] > 0
    assert out["gain_high"] == pytest.approx(out["hard"]["high"] - out["uniform"]["high"])
    assert out["gain_cards_late"] == pytest.approx(
        out["hard"]["cards_late"] - out["uniform"]["cards_late"]
    )


def test_the_hands_of_simple_players_are_guessed_well() -> None:
    """RLCard's rule agent is a simple player: read as one, its hands are guessed
    far better than by the uniform deal (``normal``'s only a little better)."""
    out = run(deals=3, worlds=8, players="rlcard-rule", seed=2)
    assert out["gain_cards_late"] > 0.04


def test_the_last_line_is_json_and_bad_sizes_are_refused(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["--deals", "1", "--worlds", "2", "--players", "normal"]) == 0
    captured = capsys.readouterr()
    last = json.loads(captured.out.strip().splitlines()[-1])
    assert last["deals"] == 1 and last["players"] == "normal"
    assert "deal 1/1" in captured.err
    with pytest.raises(SystemExit) as exit_info:
        main(["--deals", "0"])
    assert exit_info.value.code == 2
    with pytest.raises(SystemExit):
        main(["--players", "chess"])
