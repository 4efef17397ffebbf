"""Scoring a duplicate board against everyone who played it (docs/duplicate.md).

A board's *score* for a player is what their seat made of the deal in the game's own
unit (:func:`board_score`).  Each score is compared with every other score of the same
board: **matchpoints** give 2 per score beaten and 1 per tie (bridge's pair scoring,
also shown as a percentage of the top), and **IMPs** convert each difference to an
IMP-like scale per game (:data:`IMP_SCALES`, bridge's International Match Points:
small differences count nearly in full, large ones less, so that one wild deal does
not decide a set) and average them over the others (bridge's cross-IMPs).
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

from engine.game import Result

IMP_SCALES: Mapping[str, tuple[int, ...]] = MappingProxyType(
    {
        "scopa": (1, 2, 3, 4, 6, 8, 10),
        "cicera": (1, 2, 3, 5, 7, 9, 12, 15),
        "doudizhu": (1, 2, 4, 6, 8, 12, 16, 24, 32, 48),
        "schafkopf": (1, 2, 3, 4, 6, 8, 10, 13, 16),
    }
)
"""Per game, the differences at which one more IMP starts: a difference of ``d``
units is worth as many IMPs as thresholds ``<= |d|`` (so 0 to ``len(scale)``)."""

OPPONENT_SEAT: Mapping[str, int] = MappingProxyType({"scopa": 1, "cicera": 1})
"""Games whose seats score apart (not zero-sum): the score is the seat's points less
this opponent seat's (offset from the player's seat)."""


def board_score(game: str, result: Result, seat: int) -> int:
    """The player's score of a finished board, in the game's unit.

    Scopa: the player's points less the AI's; Cicera: the player's partnership's points
    less the other's; Dou Dizhu and Schafkopf: the seat's units won (they are zero-sum).
    """
    return seat_score(game, result.scores, seat)


def seat_score(game: str, scores: Sequence[int], seat: int) -> int:
    """:func:`board_score` from the seats' game scores alone (a tournament table keeps
    only those): the seat's score, less its opponent seat's where the game scores apart."""
    own = scores[seat]
    offset = OPPONENT_SEAT.get(game)
    if offset is None:
        return own
    return own - scores[(seat + offset) % len(scores)]


def imps(game: str, difference: int) -> int:
    """``difference`` units as signed IMPs on the game's scale."""
    n = bisect.bisect_right(IMP_SCALES[game], abs(difference))
    return n if difference >= 0 else -n


@dataclass(frozen=True, slots=True)
class BoardScore:
    """One player's compared result of one board."""

    account: str
    board: int
    score: int
    matchpoints: int
    top: int
    """The most matchpoints anyone could get on this board (2 per other result)."""
    imps: float
    """Cross-IMPs: the mean of the IMPs against each other result (0 when alone)."""

    @property
    def percent(self) -> float:
        """Matchpoints as a share of the top, in percent (50 when alone on the board)."""
        return 50.0 if self.top == 0 else 100.0 * self.matchpoints / self.top


def matchpoints(score: int, field: Sequence[int]) -> int:
    """Bridge's matchpoints of ``score`` among ``field`` (the sorted scores of one
    board, ``score`` among them): 2 for each other result beaten, 1 for each tie."""
    below = bisect.bisect_left(field, score)
    ties = bisect.bisect_right(field, score) - below - 1
    return 2 * below + ties


def compare_board(game: str, board: int, scores: Mapping[str, int]) -> tuple[BoardScore, ...]:
    """Every player's matchpoints and cross-IMPs on one board, best first."""
    values = sorted(scores.values())
    others = len(values) - 1
    out = []
    for account, score in scores.items():
        total = sum(imps(game, score - v) for v in values) if others else 0
        out.append(
            BoardScore(
                account=account,
                board=board,
                score=score,
                matchpoints=matchpoints(score, values),
                top=2 * others,
                imps=total / others if others else 0.0,
            )
        )
    out.sort(key=lambda s: (-s.score, s.account))
    return tuple(out)


@dataclass(frozen=True, slots=True)
class Standing:
    """One player's place in a set's standings."""

    account: str
    boards: int
    matchpoints: int
    top: int
    imps: float

    @property
    def percent(self) -> float:
        """Matchpoints over the boards played as a share of their tops."""
        return 50.0 if self.top == 0 else 100.0 * self.matchpoints / self.top


@dataclass(frozen=True, slots=True)
class Played:
    """One stored result: ``account`` scored ``score`` on ``board``."""

    account: str
    board: int
    score: int


def standings(game: str, results: Iterable[Played]) -> tuple[Standing, ...]:
    """The set's standings from every result so far (live: boards still being played
    count as they finish), by matchpoint percentage, then IMPs, then boards played."""
    by_board: dict[int, dict[str, int]] = {}
    for r in results:
        by_board.setdefault(r.board, {})[r.account] = r.score
    sums: dict[str, list[float]] = {}
    for board, scores in by_board.items():
        for s in compare_board(game, board, scores):
            acc = sums.setdefault(s.account, [0, 0, 0, 0.0])
            acc[0] += 1
            acc[1] += s.matchpoints
            acc[2] += s.top
            acc[3] += s.imps
    table = [
        Standing(account, int(v[0]), int(v[1]), int(v[2]), round(v[3], 2))
        for account, v in sums.items()
    ]
    table.sort(key=lambda s: (-s.percent, -s.imps, -s.boards, s.account))
    return tuple(table)


def board_of(results: Sequence[Played], board: int) -> dict[str, int]:
    """The scores of one board, by account."""
    return {r.account: r.score for r in results if r.board == board}
