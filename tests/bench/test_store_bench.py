"""``python -m bench.store``: memory against Redis through a real server and redis-server."""

from __future__ import annotations

from bench.store import throughput


async def test_throughput_runs_past_the_per_address_caps() -> None:
    """Every bot connects from 127.0.0.1: more tables than one address may create
    (20 by default) still play, in both stores."""
    report = await throughput(seconds=0.4, tables=21)
    assert report["tables"] == 21
    assert report["memory_moves_per_s"] > 0 and report["redis_moves_per_s"] > 0
    assert 0 < report["ratio"] < 10
