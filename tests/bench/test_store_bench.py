"""``python -m bench.store``: memory against Redis through a real server and redis-server."""

from __future__ import annotations

import pytest

from bench.store import LEASE_TTL, failover, throughput


async def test_throughput_runs_past_the_per_address_caps() -> None:
    """Every bot connects from 127.0.0.1: more tables than one address may create
    (20 by default) still play, in both stores."""
    report = await throughput(seconds=0.4, tables=21)
    assert report["tables"] == 21
    assert report["memory_moves_per_s"] > 0 and report["redis_moves_per_s"] > 0
    assert 0 < report["ratio"] < 10


@pytest.mark.heavy  # a real failover: the default 5 s lease runs out
async def test_failover_answers_every_request_sent_while_the_tables_move() -> None:
    """Moves and chat lines sent through the second process to the killed owner's
    tables, before their leases ran out, are all answered; no move lost or doubled."""
    report = await failover(seconds=12.0, tables=1)
    assert report["window_requests"] > 0
    assert report["unanswered"] == 0
    assert report["lost_moves"] == report["doubled_moves"] == 0
    assert report["slowest_window_answer_s"] <= LEASE_TTL + 2.0
