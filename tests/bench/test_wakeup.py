"""bench.wakeup: a loopback write's cost with a sleeping reader and with a busy one."""

from __future__ import annotations

import json

import pytest

from bench import wakeup


def test_a_short_run_reports_both_readers_and_their_ratio(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert wakeup.main(["--writes", "300", "--size", "100", "--rounds", "2"]) == 0
    out, err = capsys.readouterr()
    report = json.loads(out.strip().splitlines()[-1])
    assert (report["writes"], report["size"], report["rounds"]) == (300, 100, 2)
    for name in ("sleeping", "busy"):
        assert report[f"{name}_wall_us"] > 0 and report[f"{name}_cpu_us"] >= 0
    assert report["ratio"] == round(report["sleeping_wall_us"] / report["busy_wall_us"], 2)
    assert err.count("round ") == 4  # progress: each reader in each round


def test_big_writes_complete_with_either_reader() -> None:
    """Writes that fill the socket's buffers still complete: each reader reads to EOF
    and exits (the parent waits for it)."""
    for busy in (False, True):
        figures = wakeup.measure(busy, writes=50, size=65536)
        assert set(figures) == {"wall_us", "cpu_us"}


@pytest.mark.parametrize("argv", [["--writes", "0"], ["--size", "70000"], ["--rounds", "0"]])
def test_out_of_range_arguments_are_refused(argv: list[str]) -> None:
    with pytest.raises(SystemExit, match="must be"):
        wakeup.main(argv)
