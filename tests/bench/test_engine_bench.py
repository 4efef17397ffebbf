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
