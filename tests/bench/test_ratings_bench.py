"""bench/ratings.py: AI levels rated on the server's model, scored on held-out games.

A quick run is far too short to rank the levels, so these tests hold the report's
shape and that its figures agree with each other, not the order."""

from __future__ import annotations

import itertools
import json
import math
from typing import Any

import pytest

from bench import ratings
from engine.game import Contest, two_sides
from engine.registry import GAMES, POLICIES, get_game
from server.ratings.model import contest_odds

pytestmark = pytest.mark.heavy  # every game played and rated: about ten seconds


def _run(capsys: pytest.CaptureFixture[str], argv: list[str]) -> dict[str, Any]:
    assert ratings.main(argv) == 0
    out: dict[str, Any] = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    return out


def test_the_quick_run_reports_every_game_consistently(
    capsys: pytest.CaptureFixture[str],
) -> None:
    report = _run(capsys, ["--quick"])
    assert report["games_per_id"] == ratings.QUICK_GAMES
    assert report["iterations"] == ratings.QUICK_ITERATIONS
    assert set(report["games"]) == set(GAMES)
    for game_id, figures in report["games"].items():
        game = get_game(game_id)
        seats = game.num_seats(game.options())
        levels = figures["levels"]
        assert set(levels) == set(POLICIES[game_id])
        for level in levels.values():
            assert level["interval"] == [
                level["rating"] - level["deviation"],
                level["rating"] + level["deviation"],
            ]
            assert level["deviation"] > 0 and 0 <= level["games"] <= figures["games"]
            assert level["shown"] in (
                f"{level['rating']}?",
                f"{level['rating']} ± {level['deviation']}",
            )
        # every game seats distinct levels; a game is rated unless every deal was thrown in
        assert sum(level["games"] for level in levels.values()) <= figures["games"] * seats
        if game_id in ("scopa", "cicera"):  # one contest a match, always rated
            assert sum(level["games"] for level in levels.values()) == figures["games"] * seats
            assert figures["contests"] == figures["games"]
        points = [levels[level]["rating"] for level in figures["ranking"]]
        assert sorted(figures["ranking"]) == sorted(levels) and points == sorted(
            points, reverse=True
        )
        known = figures["known_order"]
        assert known == list(ratings.KNOWN_ORDER)
        recovered = all(
            levels[a]["rating"] < levels[b]["rating"] for a, b in itertools.pairwise(known)
        )
        assert figures["order_recovered"] is recovered
        held = figures["held_out_contests"]
        assert held > 0 and figures["rated_contests"] + held == figures["contests"]
        assert figures["baseline_log_loss"] == round(math.log(2), 4)
        assert figures["log_loss"] > 0 and figures["base_rate_log_loss"] > 0
        bins = figures["calibration"]
        assert sum(b["contests"] for b in bins) == held
        assert all(0.5 <= b["predicted"] <= 1 and 0 <= b["observed"] <= 1 for b in bins)
        assert figures["win_chance"]
        for chances in figures["win_chance"].values():
            by_difference = [chances[str(d)] for d in (0, *ratings.DIFFERENCES)]
            assert by_difference == sorted(by_difference) and by_difference[-1] < 1
        roles = set(figures["win_chance"]) - {"1 v 1", "2 v 2"}
        assert roles == set(figures["roles"])
        if game_id == "doudizhu":
            assert roles == {"landlord"}
    store = report["store"]["sqlite"]  # the store's own figures: tests/bench/test_rating_store*
    assert store["accounts"] == ratings.QUICK_ACCOUNTS
    assert report["update_p99_ms"] == store["update_p99_ms"] > 0
    assert report["leaderboard_p99_ms"] == store["leaderboard_p99_ms"] > 0


def test_a_run_repeats_exactly(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--quick", "--only", "scopa", "--games", "6", "--no-store"]
    first = _run(capsys, argv)
    assert _run(capsys, argv) == first
    other = _run(capsys, [*argv, "--seed", "7"])
    assert other["games"]["scopa"]["levels"] != first["games"]["scopa"]["levels"]


def test_two_processes_play_the_same_games() -> None:
    one = list(ratings.play_all("cicera", 5, ratings.SEED, 4, jobs=1))
    two = list(ratings.play_all("cicera", 5, ratings.SEED, 4, jobs=2))
    assert one == two and [p.index for p in one] == list(range(5))
    assert all(len(set(p.mix)) == 4 for p in one)


def test_every_seat_mix_is_played_before_any_repeats() -> None:
    mixes = ratings.seat_mixes("doudizhu", tuple(POLICIES["doudizhu"]), ratings.SEED)
    assert len(mixes) == len(set(mixes)) == 5 * 4 * 3
    assert mixes != ratings.seat_mixes("doudizhu", tuple(POLICIES["doudizhu"]), 1)
    with pytest.raises(ValueError, match="at least as many levels"):
        ratings.seat_mixes("cicera", ("random", "easy", "hard"), ratings.SEED)


def test_a_held_out_contest_is_predicted_before_it_is_rated() -> None:
    won = two_sides(frozenset((0,)), frozenset((1,)), True)
    run = ratings.RatingRun.start("scopa", rated_games=2)
    for index in range(2):
        run.feed(ratings.Played(index, ("hard", "random"), (won,), 10))
    before = dict(run.ratings)
    assert run.predictions == [] and run.rated_contests == 2
    lost = two_sides(frozenset((0,)), frozenset((1,)), False)
    run.feed(ratings.Played(2, ("hard", "random"), (lost,), 10))
    seats = {0: "ai-hard", 1: "ai-random"}
    (prediction,) = run.predictions
    assert prediction.p_first == contest_odds(lost, "scopa", seats, before)[0] > 0.5
    assert prediction.score == 0.0 and prediction.base_rate == 1.0
    assert run.ratings["ai-hard"].mu < before["ai-hard"].mu  # then rated


def test_a_tie_scores_half_each_way() -> None:
    tie = Contest(sides=(frozenset((0, 2)), frozenset((1, 3))), ranks=(0, 0))
    run = ratings.RatingRun.start("cicera", rated_games=0)
    run.feed(ratings.Played(0, ("hard", "easy", "normal", "random"), (tie,), 48))
    (prediction,) = run.predictions
    assert prediction.score == 0.5 and prediction.base_rate == 0.5
    assert ratings.log_loss(0.5, 0.5) == pytest.approx(math.log(2))
    assert ratings.log_loss(0.9, 1.0) == pytest.approx(-math.log(0.9))
    assert ratings.log_loss(0.9, 0.0) == pytest.approx(-math.log(0.1))
    assert math.isfinite(ratings.log_loss(1.0, 0.0))


def test_bad_arguments_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["--only", "chess"], ["--games", "1"], ["--held-out", "1"], ["--jobs", "0"]):
        with pytest.raises(SystemExit):
            ratings.main(argv)
    assert "unknown games: chess" in capsys.readouterr().err
