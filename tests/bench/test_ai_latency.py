"""bench/ai_latency.py keeps working (its figures are benchmarks, not tests)."""

from __future__ import annotations

import gc
import json
from collections.abc import Iterator

import pytest

from bench.ai_latency import main
from compiled.runtime import loaded as compiled_loaded
from engine.registry import GAMES


@pytest.fixture
def thawed_after() -> Iterator[None]:
    """The bench freezes its heap as a worker process does; thaw this test process after."""
    yield
    gc.unfreeze()


def test_bench_times_every_games_hard_and_prints_json_last(capsys, thawed_after):
    assert main(["--decisions", "2", "--think", "0.02"]) == 0
    report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert set(report["games"]) == set(GAMES)
    for figures in report["games"].values():
        assert figures["decisions"] == 2
        assert 0 < figures["p50_ms"] <= figures["p99_ms"] <= figures["max_ms"]
        assert figures["cpu_p50_ms"] > 0
        bought = figures["iterations_p50"]
        assert all(isinstance(n, int) and n > 0 for n in bought.values())
    # Dou Dizhu's search runs in the auction and in the play, each bought iterations
    assert set(report["games"]["doudizhu"]["iterations_p50"]) <= {"bidding", "play"}
    assert report["games"]["doudizhu"]["iterations_p50"]
    assert report["compiled"] == len(compiled_loaded())  # 0 unless compiled.build ran
    assert report["yardstick"]["loop_ms_min"] > 0
    assert report["think_s"] == 0.02
    assert isinstance(report["ok"], bool)
    assert report["collector"] == "held"  # as in the server's worker processes
    assert gc.isenabled()


def test_bench_can_leave_the_collector_on(capsys):
    frozen = gc.get_freeze_count()
    argv = ["--games", "scopa", "--decisions", "2", "--think", "0.02", "--collector", "on"]
    assert main(argv) == 0
    report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert report["collector"] == "on"
    assert gc.get_freeze_count() == frozen


def test_bench_refuses_an_unknown_game():
    with pytest.raises(SystemExit):
        main(["--games", "chess"])
