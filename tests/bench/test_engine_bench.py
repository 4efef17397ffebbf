"""bench/engine.py keeps working (its figures are benchmarks, not tests)."""

from __future__ import annotations

import json

import pytest

from bench.engine import main
from engine.registry import GAMES


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_bench_prints_its_figures_as_json_last(game_id, capsys):
    assert main(["--game", game_id, "--seconds", "0.3"]) == 0
    report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert report["game"] == game_id
    assert report["deals_per_s"] > 0
    assert report["decisions_per_s"] > 0


def test_bench_against_the_openspiel_yardstick(capsys):
    pytest.importorskip("pyspiel", reason="the optional peer open-spiel is not installed")
    assert main(["--game", "scopa", "--seconds", "0.5", "--vs", "openspiel"]) == 0
    report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert report["yardstick_decisions_per_s"] > 0
    assert report["ratio"] == pytest.approx(
        report["decisions_per_s"] / report["yardstick_decisions_per_s"], rel=0.01
    )


def test_bench_against_both_peers_in_one_run(capsys):
    pytest.importorskip("pyspiel", reason="the optional peer open-spiel is not installed")
    pytest.importorskip("rlcard", reason="the optional peer rlcard is not installed")
    argv = ["--game", "doudizhu", "--seconds", "1", "--vs", "openspiel", "--vs", "rlcard"]
    assert main(argv) == 0
    report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert set(report["ratios"]) == {"openspiel", "rlcard"}
    for name, figures in report["peers"].items():  # the same game: whole deals compared
        assert report["ratios"][name] == pytest.approx(
            report["deals_per_s"] / figures["deals_per_s"], rel=0.01
        )
    assert "ratio" not in report  # one ratio would not say against which peer
