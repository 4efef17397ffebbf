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
    cross_table_matchpoints,
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


def scopa(round_no: int, table: int, a: str | None, b: str | None, sa: int, sb: int) -> GameResult:
    return GameResult(round_no, table, (SeatResult(a, sa > sb, sa), SeatResult(b, sb > sa, sb)))


def test_duplicate_swiss_compares_each_seat_across_the_round_s_tables() -> None:
    # Scopa scores a seat by its points less the other seat's (server.duplicate.scoring)
    games = [
        scopa(1, 1, "a", "b", 11, 5),  # seat 0: +6, seat 1: -6
        scopa(1, 2, "c", "d", 8, 8),  # 0, 0
        scopa(1, 3, "e", None, 11, 9),  # +2, the AI's -2 (compared, earns nothing)
        scopa(1, 4, "f", "g", 10, 4),  # +6 (ties a), -6 (ties b)
        scopa(2, 1, "b", "a", 11, 0),  # another round: compared only with its own tables
    ]
    got = cross_table_matchpoints("scopa", games)
    # seat 0 of round 1: a and f beat c and e (2 each) and tie each other (1)
    assert got == {"a": 5, "f": 5, "c": 0, "e": 2, "d": 6, "b": 1, "g": 1}
    # round 2 had one table: nothing to compare with
    assert cross_table_matchpoints("scopa", games[-1:]) == {"a": 0, "b": 0}


def test_duplicate_swiss_standings_rank_by_matchpoints_then_the_usual_tie_breaks() -> None:
    # b lost her game 9 to 11 but held seat 1's cards better than d (0 to 11);
    # a won his 11 to 9 with the cards c made 11 to 0 of
    games = [scopa(1, 1, "a", "b", 11, 9), scopa(1, 2, "c", "d", 11, 0)]
    plain = standings(["a", "b", "c", "d"], games)
    assert [s.player_id for s in plain] == ["a", "c", "b", "d"]  # registration breaks a-c
    assert all(s.matchpoints is None and s.score == s.points for s in plain)
    dup = standings(["a", "b", "c", "d"], games, duplicate_game="scopa")
    # c and b have 2 matchpoints; c's placement point breaks their tie
    assert [(s.player_id, s.matchpoints) for s in dup] == [("c", 2), ("b", 2), ("a", 0), ("d", 0)]
    assert [s.rank for s in dup] == [1, 2, 3, 4] and dup[1].score == 2.0
    assert dup[2].points == 1.0  # the placement points are still shown


@given(
    tables=st.lists(
        st.tuples(st.integers(-5, 5), st.integers(-5, 5), st.integers(-5, 5)),
        min_size=1,
        max_size=8,
    )
)
@settings(max_examples=60, deadline=None)
def test_a_seat_s_matchpoints_share_out_every_comparison(
    tables: list[tuple[int, int, int]],
) -> None:
    # Dou Dizhu (zero-sum seats): k results of one seat share k(k-1) matchpoints
    games = [
        GameResult(1, n, tuple(SeatResult(f"t{n}s{i}", sc > 0, sc) for i, sc in enumerate(t)))
        for n, t in enumerate(tables, start=1)
    ]
    got = cross_table_matchpoints("doudizhu", games)
    k = len(tables)
    assert sum(got.values()) == 3 * k * (k - 1)
    for seat in range(3):
        for n, t in enumerate(tables, start=1):
            beaten = sum(1 for u in tables if u[seat] < t[seat])
            tied = sum(1 for u in tables if u[seat] == t[seat]) - 1
            assert got.get(f"t{n}s{seat}", 0) == 2 * beaten + tied


def test_ids_and_seeds_are_derived() -> None:
    assert table_id("T1", 3, 12) == "T1-r3-t12"
    assert "." not in table_id("T1", 3, 12)
    secret = b"s" * 16
    assert round_seed(secret, 2) == round_seed(secret, 2)
    assert round_seed(secret, 2) != round_seed(secret, 3)
    assert round_seed(secret, 2) != round_seed(b"t" * 16, 2)
    assert 0 <= round_seed(secret, 2) < 2**63
