"""Tournament pairing (issue 56): Swiss groups, arena passes, standings, ids and seeds."""

from __future__ import annotations

import random
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.tournaments.pairing import (
    Entrant,
    GameResult,
    Met,
    PairingError,
    SeatResult,
    Waiting,
    arena_pairing,
    placement_points,
    repeated_meetings,
    round_seed,
    standings,
    swiss_round,
    table_id,
    table_sizes,
)


def entrants(n: int, rng: random.Random) -> list[Entrant]:
    return [Entrant(f"p{i}", rng.choice([0.0, 0.5, 1.0, 1.5, 2.0]), 0, i) for i in range(n)]


@given(n=st.integers(1, 120), seats=st.integers(2, 4), seed=st.integers(0, 2**32))
@settings(max_examples=150, deadline=None)
def test_swiss_round_seats_everyone_once_at_tables_of_the_right_size(
    n: int, seats: int, seed: int
) -> None:
    rng = random.Random(seed)
    players = entrants(n, rng)
    prior = Met.of([rng.sample([e.player_id for e in players], min(n, seats)) for _ in range(n)])
    tables = swiss_round(players, seats, prior)
    seated = [p for t in tables for p in t.players]
    assert sorted(seated) == sorted(e.player_id for e in players)  # nobody twice, nobody left
    assert all(t.size == seats for t in tables)
    ai = sum(t.ai_seats for t in tables)
    assert ai == (-n) % seats  # byes only as needed
    assert ai < seats
    if len(tables) >= ai:
        assert all(t.ai_seats <= 1 for t in tables)  # spread: one AI seat to a table
    assert [t.number for t in tables] == list(range(1, len(tables) + 1))


def test_swiss_avoids_repeated_opponents_over_rounds() -> None:
    rng = random.Random(7)
    players = [Entrant(f"p{i}", 0.0, 0, i) for i in range(64)]
    history: list[tuple[str, ...]] = []
    repeats = 0
    for _ in range(7):
        met = Met.of(history)
        tables = swiss_round(players, 3, met)
        repeats += repeated_meetings(tables, met)
        history.extend(t.players for t in tables)
        gained = {p: rng.random() for t in tables for p in t.players}
        players = [Entrant(e.player_id, e.score + gained[e.player_id], 0, e.order) for e in players]
    assert repeats <= 4


def test_swiss_groups_by_score() -> None:
    players = [Entrant(f"p{i}", float(i // 3), 0, i) for i in range(9)]
    tables = swiss_round(players, 3, Met())
    assert set(tables[0].players) == {"p6", "p7", "p8"}
    assert set(tables[2].players) == {"p0", "p1", "p2"}


def test_bye_goes_to_the_lowest_who_had_none() -> None:
    players = [
        Entrant("a", 4.0, 0, 0),
        Entrant("b", 3.0, 0, 1),
        Entrant("c", 2.0, 0, 2),
        Entrant("d", 1.0, 1, 3),
        Entrant("e", 0.0, 1, 4),
    ]
    tables = swiss_round(players, 3, Met())
    short = [t for t in tables if t.ai_seats]
    assert len(short) == 1 and short[0].ai_seats == 1
    # nobody gets a second AI seat while another has none: b and c, not d or e
    assert set(short[0].players) == {"b", "c"}


def test_bad_sizes_are_refused() -> None:
    with pytest.raises(PairingError):
        table_sizes(5, 1)
    with pytest.raises(PairingError):
        table_sizes(0, 3)


def test_pairing_1000_players_is_fast() -> None:
    rng = random.Random(1)
    players = entrants(1000, rng)
    met = Met.of([rng.sample([e.player_id for e in players], 3) for _ in range(2000)])
    started = time.perf_counter()
    swiss_round(players, 4, met)
    assert time.perf_counter() - started < 1.0


@given(
    n=st.integers(0, 40),
    seats=st.integers(2, 4),
    now=st.floats(0, 100),
    seed=st.integers(0, 2**32),
)
@settings(max_examples=150, deadline=None)
def test_arena_pass_seats_each_waiting_player_at_most_once(
    n: int, seats: int, now: float, seed: int
) -> None:
    rng = random.Random(seed)
    waiting = [Waiting(f"p{i}", rng.random() * 10, rng.random() * 100) for i in range(n)]
    result = arena_pairing(waiting, now, seats, min_wait=5.0, ai_wait=30.0)
    seated = [p for t in result.tables for p in t.players]
    assert len(seated) == len(set(seated))
    assert sorted(seated + list(result.waiting)) == sorted(w.player_id for w in waiting)
    assert all(t.size == seats for t in result.tables)
    assert sum(1 for t in result.tables if t.ai_seats) <= 1
    since = {w.player_id: w.since for w in waiting}
    assert all(now - since[p] >= 5.0 for p in seated)


def test_arena_avoids_the_last_opponents_and_fills_late_with_ai() -> None:
    waiting = [
        Waiting("a", 5.0, 0.0, frozenset({"b"})),
        Waiting("b", 5.0, 0.0, frozenset({"a"})),
        Waiting("c", 4.0, 0.0),
        Waiting("d", 4.0, 0.0),
        Waiting("e", 0.0, 9.0),
    ]
    result = arena_pairing(waiting, 10.0, 2, min_wait=1.0, ai_wait=30.0)
    assert [set(t.players) for t in result.tables] == [{"a", "c"}, {"b", "d"}]
    assert result.waiting == ("e",)
    late = arena_pairing([Waiting("e", 0.0, 0.0)], 31.0, 3, min_wait=1.0, ai_wait=30.0)
    assert late.tables[0].players == ("e",) and late.tables[0].ai_seats == 2


def test_placement_points_and_standings() -> None:
    # Dou Dizhu: the two farmers win together and tie; the landlord is last
    dd = (SeatResult("a", False, -2), SeatResult("b", True, 1), SeatResult("c", True, 1))
    assert placement_points(dd) == {"a": 0.0, "b": 0.75, "c": 0.75}
    ai = (SeatResult("a", True, 3), SeatResult(None, False, 0))
    assert placement_points(ai) == {"a": 1.0}
    games = [
        GameResult(1, 1, (SeatResult("a", True, 3), SeatResult("b", False, 1))),
        GameResult(1, 2, (SeatResult("c", True, 2), SeatResult("d", False, 0))),
        GameResult(2, 1, (SeatResult("a", True, 5), SeatResult("c", False, 1))),
        GameResult(2, 2, (SeatResult("d", True, 2), SeatResult("b", False, 0))),
    ]
    table = standings(["a", "b", "c", "d"], games, withdrawn=["b"])
    assert [s.player_id for s in table] == ["a", "c", "d", "b"]
    assert table[0].points == 2.0 and table[0].games == 2
    # c and d have one point each; c met a (2) and d (1), d met c (1) and b (0)
    assert table[1].buchholz == 3.0 and table[2].buchholz == 1.0
    assert table[3].withdrawn and not table[0].withdrawn


def test_head_to_head_breaks_a_tie_of_points_and_buchholz() -> None:
    games = [
        GameResult(1, 1, (SeatResult("x", True, 1), SeatResult("y", False, 0))),
        GameResult(2, 1, (SeatResult("y", True, 1), SeatResult("x", False, 0))),
        GameResult(3, 1, (SeatResult("y", True, 1), SeatResult("x", False, 0))),
        GameResult(4, 1, (SeatResult("x", True, 9), SeatResult("y", False, 0))),
    ]
    table = standings(["x", "y"], games)
    assert table[0].points == table[1].points == 2.0
    assert table[0].player_id == "x"  # equal head to head: game score decides


def test_ids_and_seeds_are_derived() -> None:
    assert table_id("T1", 3, 12) == "T1-r3-t12"
    assert "." not in table_id("T1", 3, 12)
    secret = b"s" * 16
    assert round_seed(secret, 2) == round_seed(secret, 2)
    assert round_seed(secret, 2) != round_seed(secret, 3)
    assert round_seed(secret, 2) != round_seed(b"t" * 16, 2)
    assert 0 <= round_seed(secret, 2) < 2**63
