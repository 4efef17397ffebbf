"""Bidding by value for the ``hard`` Dou Dizhu player (issue 15).

The search (engine.doudizhu.ai_search) measures a *raw rate*: how often the
seat wins as landlord when its hand, plus a bottom drawn from the unseen
cards, is played out against random opponent hands by ``normal`` players
(:meth:`~engine.doudizhu.ai_search.HardPolicy.landlord_win_rate`).  Here the
raw rate becomes a *chance* (:func:`landlord_chance`): a logistic fit of real
outcomes, 32 hands of the ``hard`` player as landlord at 200 iterations
against two ``normal`` farmers, which play as the rollouts do (against
weaker farmers such as RLCard's rule agent the landlord wins far more
often: 0.96 of 55 hands, whatever their raw rate).

The bid (:func:`bid_level`): 3, the whole stake and the end of the auction,
unless the chance is below :data:`PASS_BELOW` (a hopeless hand, which
expects to lose :func:`landlord_points` at any level).  The threshold is low
because the landlord's seat pays and the farmer's seat, next to a partner
the seat does not choose, pays least.  Measured on 30 duplicate deals with
bidding (200 iterations, seed 11; each figure's 95% CI about ±2 points):

=======================================  ==================  ==================
bid rule                                 vs ``normal``       vs RLCard's agent
=======================================  ==================  ==================
3 on every hand (the first round)        0.51 won, 0.77 pts  0.82 won, 5.63 pts
pass below chance 0.3, else 3            0.51 won, 0.80 pts  0.72 won, 4.49 pts
pass below 0.3, 1 below 0.5, else 3      0.46 won, -0.12 pts
=======================================  ==================  ==================

A cheap bid of 1 is outbid by ``normal`` and passing hands a stronger
opponent the landlord's seat: as a farmer beside RLCard's agent the seat won
under 0.2 of its games.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from engine.doudizhu.state import Action, Bid, Pass

CALIBRATION = (-3.05, 5.28)
"""``(a, b)``: the chance of a raw rate ``x`` is ``1 / (1 + exp(-(a + b·x)))``;
a raw rate of 0.577 is an even chance, 0.16 a chance of 0.1."""
PASS_BELOW = 0.1
"""Chance below which the seat passes instead of bidding 3."""


def landlord_chance(raw: float) -> float:
    """The calibrated chance of winning as landlord for a raw rollout win rate."""
    a, b = CALIBRATION
    return 1.0 / (1.0 + math.exp(-(a + b * raw)))


def landlord_points(chance: float, bid: int) -> float:
    """The landlord's expected points at ``bid`` (no bombs or spring): ±2 × bid."""
    return 2.0 * bid * (2.0 * chance - 1.0)


def bid_level(chance: float) -> int:
    """The bid the chance is worth: 3, or 0 (pass) below :data:`PASS_BELOW`."""
    return 3 if chance >= PASS_BELOW else 0


def bid_action(legal: Sequence[Action], level: int) -> Action:
    """The highest legal bid up to ``level``, else the pass."""
    bids = [a for a in legal if isinstance(a, Bid) and a.value <= level]
    if bids:
        return max(bids, key=lambda b: b.value)
    return next(a for a in legal if isinstance(a, Pass))
