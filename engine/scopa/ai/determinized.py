"""The generic determinized search (:mod:`engine.search`) on Scopa: the earlier
``hard``, kept as the baseline the Scopa search (:mod:`engine.scopa.ai.search`) is
measured against."""

from __future__ import annotations

import random

from engine.scopa.ai.greedy import SCOPA_BONUS, card_worth, worth
from engine.scopa.game import ScopaGame
from engine.scopa.rules import capture_options
from engine.scopa.state import Play, ScopaState
from engine.search import DeterminizedSearch, SearchSpec

GAME = ScopaGame()


def _rollout(state: ScopaState, seat: int, rng: random.Random) -> Play:
    """Fast rollout move on an imagined state: the capture worth most, else the cheapest card."""
    best: Play | None = None
    best_score = -1e9
    table = state.table
    for card in state.hands[seat]:
        groups = capture_options(card, table)
        if groups:
            for g in groups:
                score = worth([card, *g]) + (SCOPA_BONUS if len(g) == len(table) else 0.0)
                if score > best_score:
                    best, best_score = Play(card, g), score
        else:
            score = -card_worth(card) + rng.random() * 0.1
            if score > best_score:
                best, best_score = Play(card), score
    assert best is not None
    return best


def _deal_done(start: ScopaState, state: ScopaState) -> bool:
    return state.deal_no != start.deal_no or state.turn is None


def _deal_value(start: ScopaState, state: ScopaState, seat: int) -> float:
    """Deal points won minus deal points conceded (scope and awards)."""
    if len(state.history) == len(start.history):
        return 0.0
    points = state.history[len(start.history)].points
    return float(points[seat] - points[1 - seat])


SCOPA_SEARCH = SearchSpec[ScopaState](
    game=GAME, done=_deal_done, value=_deal_value, rollout=_rollout, scale=4.0
)


def determinized_policy() -> DeterminizedSearch:
    """The generic determinized search (:mod:`engine.search`) over the rest of the deal."""
    return DeterminizedSearch(SCOPA_SEARCH, name="determinized")
