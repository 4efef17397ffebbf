"""bench/load.py keeps working: a short smoke run (its figures are benchmarks, not tests)."""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import pytest

from bench.load import _median_figures, main
from compiled.runtime import built

pytestmark = pytest.mark.heavy  # tens of seconds: run first (tests/conftest.py)

KEYS = ("moves_per_s", "p50_ms", "p90_ms", "p99_ms", "ratio_echo", "ratio_fanout")


def _report(capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    return json.loads(capsys.readouterr().out.strip().splitlines()[-1])  # type: ignore[no-any-return]


def test_load_smoke_run_reports_moves_latency_and_ratios(capsys: pytest.CaptureFixture[str]):
    argv = ["--game", "scopa", "--tables", "2", "--seconds", "1", "--procs", "1"]
    assert main(argv) == 0
    report = _report(capsys)
    for key in KEYS:
        assert isinstance(report[key], float | int), key
    assert report["moves_per_s"] > 0
    assert report["errors"] == 0
    assert report["connections"] == 4
    assert report["p50_ms"] <= report["p90_ms"] <= report["p99_ms"]
    assert report["ratio_fanout"] > 0 and report["ratio_echo"] > 0
    assert isinstance(report["fanout_saturated"], bool) and isinstance(
        report["echo_saturated"], bool
    )
    # what each side's processes spent: the server's and the clients' CPU per move
    for prefix in ("", "fanout_", "echo_"):
        assert report[f"{prefix}cpu_us_per_move"] > 0, prefix
        assert report[f"{prefix}clients_cpu_pct"] > 0, prefix
        assert report[f"{prefix}clients_cpu_us_per_move"] > 0, prefix
    assert isinstance(report["cpus"], int) and report["cpus"] >= 1
    assert report["compiled"] == len(built())  # this checkout's, as built (or not)
    # what the clients got a move: each seat's update (the mover's answers its act)
    by_type = report["delivered_by_type"]
    assert 1.8 <= by_type["update"] <= 2.2, by_type
    assert by_type.get("ok", 0) < 0.1, by_type  # only rematch votes are answered by ok
    assert report["delivered_per_move"] == pytest.approx(sum(by_type.values()), abs=0.01)
    assert report["fanout_delivered_by_type"]["update"] == pytest.approx(2.0, abs=0.1)
    assert report["bytes_per_move"] > report["fanout_bytes_per_move"] > 0  # views, not a stub


def test_servers_runs_the_tables_across_processes_sharing_redis(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    log = tmp_path / "servers.log"
    argv = ["--game", "scopa", "--tables", "2", "--seconds", "1", "--procs", "1"]
    assert main([*argv, "--servers", "2", "--only", "game", "--server-log", str(log)]) == 0
    report = _report(capsys)
    assert report["moves_per_s"] > 0 and report["errors"] == 0
    assert report["connections"] == 4
    sections = log.read_text().split("# process ")[1:]
    assert len(sections) == 2
    events = [
        [json.loads(line) for line in s.splitlines()[1:] if line.startswith("{")] for s in sections
    ]
    for here, there in ((0, 1), (1, 0)):
        created = [e for e in events[here] if e["event"] == "table_created"]
        seated = {e["seat"]: e["player"] for e in events[here] if e["event"] == "joined"}
        opened = {e["player"] for e in events[there] if e["event"] == "session_opened"}
        assert len(created) == 1  # each process owns one table ...
        assert seated[1] in opened  # ... whose second seat connected to the other process


def test_redis_outage_stops_and_restarts_the_store_midway(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    log = tmp_path / "server.log"
    argv = ["--game", "scopa", "--tables", "2", "--seconds", "2.5", "--procs", "1"]
    argv += ["--redis-outage", "0.6", "--only", "game", "--server-log", str(log)]
    assert main(argv) == 0
    report = _report(capsys)
    assert report["redis_outage_s"] == 0.6 and report["moves_per_s"] > 0
    assert report["errors"] > 0  # moves refused while Redis was away (store_unavailable)
    assert '"store_unavailable"' in log.read_text()


def test_idle_mode_compares_memory_and_accept_rate_with_raw(capsys: pytest.CaptureFixture[str]):
    assert main(["--idle", "30", "--procs", "1"]) == 0
    report = _report(capsys)
    assert report["server_opened"] == report["raw_opened"] == 30
    assert report["server_failed"] == 0
    for key in ("server_kb_per_conn", "raw_kb_per_conn", "rss_ratio", "accept_ratio"):
        assert isinstance(report[key], float | int), key
    assert report["server_accept_per_s"] > 0


def test_store_redis_runs_one_process_on_a_redis_server(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    log = tmp_path / "server.log"
    argv = ["--game", "scopa", "--tables", "2", "--seconds", "1", "--procs", "1"]
    assert main([*argv, "--store", "redis", "--only", "game", "--server-log", str(log)]) == 0
    report = _report(capsys)
    assert (report["store"], report["servers"]) == ("redis", 1)
    assert report["moves_per_s"] > 0 and report["errors"] == 0
    assert log.read_text().count("# process ") == 1


def test_rounds_alternate_game_and_yardstick_and_report_medians(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["--game", "scopa", "--tables", "1", "--seconds", "1", "--procs", "1"]
    assert main([*argv, "--rounds", "2", "--only", "game", "--only", "fanout"]) == 0
    report = _report(capsys)
    assert report["rounds"] == 2
    per_round = report["ratio_fanout_rounds"]
    assert isinstance(per_round, list) and len(per_round) == 2
    assert report["ratio_fanout"] == round(statistics.median(per_round), 3)
    assert len(report["cpu_ratio_fanout_rounds"]) == 2  # type: ignore[arg-type]
    assert report["ratio_echo"] is None and report["moves_per_s"] > 0  # type: ignore[operator]


def test_round_figures_are_medians_and_the_rest_is_the_first_rounds() -> None:
    runs = [
        {"moves_per_s": v, "errors": e, "note": n}
        for v, e, n in ((3.0, 0, "a"), (1.0, 2, "b"), (2.0, 1, "c"))
    ]
    assert _median_figures(runs) == {"moves_per_s": 2.0, "errors": 1, "note": "a"}
    assert _median_figures(runs[:1]) is runs[0]
    with pytest.raises(SystemExit, match="rounds"):
        main(["--rounds", "0"])
