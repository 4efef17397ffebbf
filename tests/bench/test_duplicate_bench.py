"""bench.duplicate: the variance ratio is below 1 and the CLI's last line is JSON."""

from __future__ import annotations

import json

import pytest

from bench import duplicate


def test_variance_ratio_is_below_one_for_every_game() -> None:
    ratios = duplicate.variance_ratio(boards=3, players=3, iterations=10, level="easy")
    assert set(ratios) == set(duplicate.GAMES)
    assert all(0.0 <= r < 1.0 for r in ratios.values())


def test_a_run_repeats_exactly() -> None:
    a = duplicate.spread("scopa", "easy", boards=3, players=2, iterations=5)
    b = duplicate.spread("scopa", "easy", boards=3, players=2, iterations=5)
    assert a == b and a.raw_sd > 0


def test_main_prints_json_last(capsys: pytest.CaptureFixture[str]) -> None:
    assert duplicate.main(["--games", "scopa", "--boards", "2", "--players", "2"]) == 0
    report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert set(report["duplicate_variance_ratio"]) == {"scopa"}


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(SystemExit):
        duplicate.main(["--games", "chess"])
    with pytest.raises(SystemExit):
        duplicate.main(["--players", "1"])
    with pytest.raises(ValueError):
        duplicate.spread("scopa", players=1)
