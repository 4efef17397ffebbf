"""Duplicate scoring (server.duplicate.scoring): matchpoints, IMPs, standings."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from engine.game import Result
from server.duplicate.scoring import (
    IMP_SCALES,
    Played,
    board_score,
    compare_board,
    imps,
    standings,
)


def test_matchpoints_two_per_result_beaten_one_per_tie() -> None:
    scores = {s.account: s for s in compare_board("scopa", 1, {"a": 3, "b": 1, "c": 1, "d": -2})}
    assert scores["a"].matchpoints == 6 and scores["a"].top == 6
    assert scores["b"].matchpoints == 3 and scores["c"].matchpoints == 3
    assert scores["d"].matchpoints == 0
    assert scores["a"].percent == 100.0 and scores["d"].percent == 0.0


def test_alone_on_a_board_is_fifty_percent_and_no_imps() -> None:
    (only,) = compare_board("doudizhu", 2, {"a": 4})
    assert only.top == 0 and only.percent == 50.0 and only.imps == 0.0


def test_imps_follow_the_scale_and_sign() -> None:
    assert imps("scopa", 0) == 0
    assert imps("scopa", 1) == 1 and imps("scopa", -1) == -1
    assert imps("scopa", 5) == 4
    assert imps("scopa", 50) == len(IMP_SCALES["scopa"])
    assert imps("doudizhu", -48) == -len(IMP_SCALES["doudizhu"])


@given(st.dictionaries(st.text(min_size=1, max_size=3), st.integers(-60, 60), min_size=1))
def test_matchpoints_share_the_tops_and_imps_sum_to_zero(scores: dict[str, int]) -> None:
    out = compare_board("schafkopf", 1, scores)
    n = len(scores)
    assert sum(s.matchpoints for s in out) == n * (n - 1)
    assert abs(sum(s.imps for s in out)) < 1e-9


def test_board_score_in_each_games_unit() -> None:
    assert board_score("scopa", Result((4, 1), frozenset((0,))), 0) == 3
    assert board_score("scopa", Result((4, 1), frozenset((0,))), 1) == -3
    assert board_score("cicera", Result((5, 2, 5, 2), frozenset((0, 2))), 0) == 3
    assert board_score("doudizhu", Result((-4, 2, 2), frozenset((1, 2))), 0) == -4
    assert board_score("schafkopf", Result((30, -10, -10, -10), frozenset((0,))), 0) == 30


def test_standings_rank_by_percentage_then_imps() -> None:
    results = [
        Played("ann", 1, 3),
        Played("bea", 1, 1),
        Played("cid", 1, 1),
        Played("ann", 2, 0),
        Played("bea", 2, 2),
    ]
    table = standings("scopa", results)
    assert [s.account for s in table] == ["ann", "bea", "cid"]
    ann, bea, cid = table
    assert (ann.boards, ann.matchpoints, ann.top) == (2, 4, 6)
    assert (bea.boards, bea.matchpoints, bea.top) == (2, 3, 6)
    assert (cid.boards, cid.matchpoints, cid.top) == (1, 1, 4)
