"""bench/accounts.py: a tiny run measures logins and moves on both databases."""

from __future__ import annotations

import json

import pytest

from bench import accounts

pytestmark = pytest.mark.heavy  # two servers and a PostgreSQL: tens of seconds


def test_a_tiny_run_reports_both_databases(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--tables", "2", "--seconds", "1.5", "--logins-per-s", "3", "--accounts", "2"]
    argv += ["--warmup", "0"]
    assert accounts.main(argv) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert set(result) == {"sqlite", "postgres"}
    for figures in result.values():
        assert figures["logins"] >= 3 and figures["logins_failed"] == {}
        assert figures["login_p99_ms"] >= figures["login_p50_ms"] > 0
        assert {"play_p99_ms", "play_p99_during_logins_ms", "play_p99_ratio"} <= set(figures)


def test_quantiles_in_milliseconds() -> None:
    assert accounts.p([], 0.99) == 0.0
    assert accounts.p([0.001 * i for i in range(1, 101)], 0.99) == 100.0
    assert accounts.p([0.002, 0.001], 0.5) == 2.0
