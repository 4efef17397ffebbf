"""bench/search.py keeps working for every game (its figures are benchmarks, not tests)."""

from __future__ import annotations

import json

import pytest

from bench.search import decisions, main


def report_of(capsys: pytest.CaptureFixture[str], argv: list[str]) -> dict[str, object]:
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out.strip().splitlines()[-1])


def test_decisions_are_every_choice_of_the_seeded_deals_bids_too():
    views = decisions("doudizhu", 1, 1)
    assert [legal for _, legal in views] == [legal for _, legal in decisions("doudizhu", 1, 1)]
    assert all(len(legal) > 1 for _, legal in views)
    assert {view.phase for view, _ in views} == {"bidding", "play"}
    assert len({view.seat for view, _ in views}) == 3


def test_bench_counts_playouts_and_digests_the_choices(capsys):
    game = "doudizhu"  # Cicera's: tests/bench/test_cicera_search.py
    first = report_of(capsys, ["--game", game, "--deals", "1", "--iterations", "12"])
    again = report_of(capsys, ["--game", game, "--deals", "1", "--iterations", "12"])
    assert first["game"] == game
    assert first["choices"] == again["choices"]  # fixed seeds and budget: the same actions
    assert first["playouts"] == again["playouts"]
    assert 0 < first["playouts"] <= 12 * first["decisions"]
    assert first["playouts_per_s"] > 0 and first["loop_ms_min"] > 0
    other = report_of(capsys, ["--game", game, "--deals", "1", "--iterations", "40"])
    assert other["playouts"] > first["playouts"]


def test_bench_at_a_time_cap_reports_the_playouts_it_buys(capsys):
    report = report_of(
        capsys,
        ["--game", "doudizhu", "--deals", "1", "--iterations", "5", "--default", "--think", "0.01"],
    )
    assert report["think_s"] == 0.01
    assert 0 < report["default_iterations_p50"] <= report["default_iterations_idle"]


def test_bench_refuses_a_bad_count_and_an_unknown_game():
    with pytest.raises(SystemExit):
        main(["--game", "doudizhu", "--deals", "0"])
    with pytest.raises(SystemExit):
        main(["--game", "chess"])
