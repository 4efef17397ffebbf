"""bench/records.py: a tiny run fills, reads and writes stored games on both databases."""

from __future__ import annotations

import json

import pytest

from bench import records

pytestmark = pytest.mark.heavy  # two servers and a PostgreSQL: tens of seconds


def test_a_tiny_run_reports_both_databases(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--games", "400", "--accounts", "20", "--requests", "12", "--writes", "5"]
    assert records.main(argv) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert set(result) == {"sqlite", "postgres"}
    for figures in result.values():
        assert figures["games"] == 400 and figures["page_games"] == 20  # 40 of the bench's
        for key in ("history_p99_ms", "profile_p99_ms", "record_write_ms_p99"):
            assert figures[key] > 0


def test_the_played_game_is_a_whole_game() -> None:
    record = records.played_game()
    assert record.log and len(record.seats) == 2 and record.result["winners"] is not None
