"""bench/cicera_search.py keeps working (its figures are benchmarks, not tests)."""

from __future__ import annotations

import json

import pytest

from bench.cicera_search import decisions, main


def report_of(capsys: pytest.CaptureFixture[str], argv: list[str]) -> dict[str, object]:
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out.strip().splitlines()[-1])


def test_decisions_are_every_choice_of_the_seeded_deals():
    views = decisions(1, 1)
    assert views == decisions(1, 1)
    assert all(len(v.legal) > 1 for v in views)
    assert len({v.seat for v in views}) == 4


def test_bench_counts_playouts_and_digests_the_choices(capsys):
    first = report_of(capsys, ["--deals", "1", "--iterations", "12"])
    again = report_of(capsys, ["--deals", "1", "--iterations", "12"])
    assert first["choices"] == again["choices"]  # fixed seeds and budget: the same plays
    assert first["playouts"] == again["playouts"]
    assert first["decisions"] <= first["playouts"] <= 16 * first["decisions"]
    assert first["playouts_per_s"] > 0 and first["loop_ms_min"] > 0
    other = report_of(capsys, ["--deals", "1", "--iterations", "40"])
    assert other["playouts"] > first["playouts"]


def test_bench_at_a_time_cap_reports_the_playouts_it_buys(capsys):
    report = report_of(
        capsys, ["--deals", "1", "--iterations", "5", "--default", "--think", "0.005"]
    )
    assert report["think_s"] == 0.005
    assert 0 < report["default_iterations_p50"] <= report["default_iterations_idle"]


def test_bench_refuses_a_bad_count():
    with pytest.raises(SystemExit):
        main(["--deals", "0"])
