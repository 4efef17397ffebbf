"""Team duplicate layouts and scoring (server.duplicate.teams)."""

from __future__ import annotations

import random

import pytest

from engine.game import Budget
from engine.registry import get_policy
from protocol.errors import ErrorCode
from server.duplicate.errors import DuplicateError
from server.duplicate.play import play_board
from server.duplicate.teams import (
    SEATS,
    Team,
    board_net,
    check_teams,
    layout,
    match_imps,
    team_size,
)

GAMES = ("scopa", "cicera", "doudizhu", "schafkopf")


@pytest.mark.parametrize("game", GAMES)
def test_each_team_plays_every_seat_once_by_different_members(game: str) -> None:
    tables = layout(game)
    assert len(tables) == {"scopa": 2, "cicera": 2, "doudizhu": 3, "schafkopf": 4}[game]
    for team in Team:
        seats = [s for t in tables for s in t.seats_of(team)]
        assert sorted(seats) == list(range(SEATS[game]))  # every seat, once
        members = [t.seats[s].member for t in tables for s in t.seats_of(team)]
        assert len(set(members)) == len(members) == team_size(game)  # nobody twice


def test_team_sizes_and_ai_seats() -> None:
    assert [team_size(g) for g in GAMES] == [2, 4, 3, 4]
    assert all(s.team is not None for t in layout("cicera") for s in t.seats)
    assert [sum(s.team is None for s in t.seats) for t in layout("schafkopf")] == [2, 2, 2, 2]
    # Cicera: a team is one partnership at each table
    first, second = layout("cicera")
    assert first.seats_of(Team.A) == (0, 2) and second.seats_of(Team.A) == (1, 3)


def test_teams_are_checked() -> None:
    check_teams("scopa", ["a", "b"], ["c", "d"])
    for a, b in ((["a"], ["c", "d"]), (["a", "b"], ["b", "d"])):
        with pytest.raises(DuplicateError) as bad:
            check_teams("scopa", a, b)
        assert bad.value.code is ErrorCode.BAD_OPTIONS
    with pytest.raises(DuplicateError):
        layout("chess")


@pytest.mark.parametrize("game", GAMES)
def test_the_same_play_at_every_table_nets_zero(game: str) -> None:
    """Policies that play alike whoever they seat: a Scopa or Cicera board is a wash
    (both teams meet the same cards from both sides); the net is what the seats made."""
    budget = Budget(iterations=5, seconds=None)
    policy = get_policy(game, "easy")
    results = [
        play_board(game, 1234, 0, policy, random.Random(0), policy, budget).result
        for _ in layout(game)
    ]
    net = board_net(game, 1, results)
    if game in ("scopa", "cicera"):
        assert net.net == 0 and net.imps == 0
    assert net.net == net.a_total - net.b_total


def test_match_imps_add_each_side_s_boards() -> None:
    from server.duplicate.teams import BoardNet

    nets = [BoardNet(1, 3, 1, 2, 2), BoardNet(2, 0, 4, -4, -4), BoardNet(3, 1, 1, 0, 0)]
    assert match_imps(nets) == (2, 4)
