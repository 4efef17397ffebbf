"""Dou Dizhu auction steps and deal scoring (rules/doudizhu.md)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.doudizhu.state import Step

MAX_BID = 3


@dataclass(frozen=True, slots=True)
class Score:
    """The scoring of a finished deal (End and scoring)."""

    scores: tuple[int, int, int]
    landlord_won: bool
    multiplier: int
    spring: bool
    reverse_spring: bool


def auction_end(bid: int, passes: int) -> str | None:
    """After a call: ``"redeal"``, ``"landlord"`` or ``None`` (the auction goes on).

    ``bid`` is the highest bid so far (0: none), ``passes`` the passes since it
    (since the start when there is none).  A bid of 3 ends it at once; two
    passes after the latest bid end it; three passes with no bid redeal.
    """
    if bid == MAX_BID:
        return "landlord"
    if bid == 0:
        return "redeal" if passes >= 3 else None
    return "landlord" if passes >= 2 else None


def spring_flags(history: Sequence[Step], landlord: int, winner: int) -> tuple[bool, bool]:
    """(spring, reverse spring) of a finished deal (End and scoring).

    Spring: the landlord won and neither farmer played a card.  Reverse
    spring: a farmer won and the landlord played only once (the opening lead).
    """
    if winner == landlord:
        farmers_played = any(t.play is not None for t in history if t.seat != landlord)
        return (not farmers_played, False)
    landlord_plays = sum(1 for t in history if t.seat == landlord and t.play is not None)
    return (False, landlord_plays == 1)


def score_deal(history: Sequence[Step], landlord: int, winner: int, bid: int, bombs: int) -> Score:
    """Each farmer wins or loses ``bid × multiplier``, the landlord twice that."""
    spring, reverse = spring_flags(history, landlord, winner)
    multiplier = (1 << bombs) * (2 if spring or reverse else 1)
    unit = bid * multiplier
    landlord_won = winner == landlord
    sign = 1 if landlord_won else -1
    scores = tuple(2 * sign * unit if s == landlord else -sign * unit for s in range(3))
    return Score(
        scores=(scores[0], scores[1], scores[2]),
        landlord_won=landlord_won,
        multiplier=multiplier,
        spring=spring,
        reverse_spring=reverse,
    )
