"""bench/matchmaking.py: a small run seats everybody in time across two processes."""

from __future__ import annotations

import json
import random

import pytest

from bench import matchmaking
from protocol.models import SeatInfo
from tests.protocol.test_messages import INFO

pytestmark = pytest.mark.heavy  # two servers and a Redis: tens of seconds


def test_a_small_run_seats_everybody_within_the_wait(capsys: pytest.CaptureFixture[str]) -> None:
    assert matchmaking.main(["--players", "40", "--spread", "1", "--wait", "2"]) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert result["players"] == result["seated"] == 40
    assert result["within_wait_plus_1s"] and result["max_wait_s"] <= 3.0
    assert result["tables"] >= 10 and result["cross_process_tables"] >= 1


def test_figures_count_every_seat_of_a_table() -> None:
    players = matchmaking.draw_players(3, random.Random(1))
    seats = (
        SeatInfo(seat=0, kind="human", name=players[0].name),
        SeatInfo(seat=1, kind="human", name=players[1].name),
        SeatInfo(seat=2, kind="ai", level="hard"),
    )
    info = INFO.model_copy(update={"id": "t1", "seats": seats})
    players[0].points, players[1].points = 1500, 1600
    for p in players[:2]:
        p.sent, p.joined, p.table = 1.0, 2.0, info
    figures = matchmaking.table_figures(players, 10.0)
    assert figures["seated"] == 2 and not figures["within_wait_plus_1s"]  # one is not
    assert figures["median_gap"] == 250  # 1500 to the hard AI's 1750
    assert figures["median_people_gap"] == 100 and figures["ai_tables"] == 1
