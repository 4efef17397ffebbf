"""bench/report.py: the benchmarks' progress line and nearest-rank quantiles."""

from __future__ import annotations

import pytest

from bench.report import log, percentile


def test_percentile_by_nearest_rank():
    assert percentile([], 0.5) == 0.0
    assert percentile([3.0, 1.0, 2.0], 0.5) == 2.0
    values = [float(v) for v in range(1, 101)]
    assert percentile(values, 0.5) == 50.0
    assert percentile(values, 0.99) == 99.0
    assert percentile(values[::-1], 0.99) == 99.0  # unsorted samples are sorted first
    assert percentile(values, 0.0) == 1.0
    assert percentile(values, 1.0) == 100.0


def test_log_writes_progress_to_stderr_only(capsys: pytest.CaptureFixture[str]):
    log("3/10 decisions")
    out, err = capsys.readouterr()
    assert out == ""
    assert err == "3/10 decisions\n"
