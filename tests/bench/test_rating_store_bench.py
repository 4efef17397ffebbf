"""bench.rating_store at a small size: it fills, writes rated games and reads leaderboards,
and its figures are the ones bench.ratings reads (on SQLite; the PostgreSQL half runs with
``--postgres``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench import rating_store
from server.persist.db.engine import sqlite_url


async def test_measure_reports_the_update_and_leaderboard_figures(tmp_path: Path) -> None:
    out = await rating_store.measure(
        sqlite_url(tmp_path / "r.db"), accounts=600, updates_n=5, requests=10
    )
    for key in (
        "update_p99_ms",
        "rated_write_p99_ms",
        "leaderboard_p99_ms",
        "unrated_write_p99_ms",
    ):
        assert out[key] > 0.0
    assert out["update_p50_ms"] <= out["rated_write_p50_ms"]  # the update is part of the write
    assert out["accounts"] == 600
    assert out["leaderboard_pages_people"] >= 2  # most of 588 people are listed, 50 a page
    assert 0 < out["leaderboard_entries_per_page"] <= 50


def test_the_rated_game_has_contests() -> None:
    record = rating_store.rated_schafkopf()
    assert record.rated and record.contests and len(record.seats) == 4


def test_the_command_prints_a_last_json_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert rating_store.main(["--accounts", "120", "--updates", "2", "--requests", "4"]) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert set(json.loads(last)) == {"sqlite"}
