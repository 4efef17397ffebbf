"""Scopa policies that decide from a seat's view only (ARCHITECTURE.md, AI)."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence

from engine.game import Budget
from engine.policy import Policy, RandomPolicy
from engine.scopa.rules import PRIME_SUIT, SETTEBELLO, VALUE
from engine.scopa.state import Play, ScopaView

_CARD_WORTH = {"7": 3.0, "6": 1.5, "A": 1.0}


def _worth(cards: Sequence[object]) -> float:
    total = 0.0
    for c in cards:
        assert hasattr(c, "rank") and hasattr(c, "suit")
        total += 1.0 + _CARD_WORTH.get(c.rank, 0.0)
        if c.suit == PRIME_SUIT:
            total += 1.0
        if c == SETTEBELLO:
            total += 8.0
    return total


def greedy_score(view: ScopaView, play: Play) -> float:
    """Immediate value of ``play``: what it takes, a sweep, and the sweep it leaves open."""
    if play.capture:
        table = [c for c in view.table if c not in play.capture]
        score = _worth([play.card, *play.capture])
        last = view.stock_count == 0 and sum(view.hand_counts) == 1
        if not table and not last:
            score += 12.0
    else:
        table = [*view.table, play.card]
        score = -_worth([play.card])
    # a table whose values add up to at most 10 can be swept by the opponent
    if table and sum(VALUE[c.rank] for c in table) <= 10:
        score -= 6.0
    return score


class GreedyPolicy:
    """Takes the play with the best immediate value (see :func:`greedy_score`)."""

    name = "greedy"

    def choose(
        self,
        view: ScopaView,
        legal: Sequence[Play],
        rng: random.Random,
        budget: Budget | None = None,
    ) -> Play:
        """The best-scoring legal play; ties broken at random."""
        if not legal:
            raise ValueError("no legal action to choose from")
        scored = [(greedy_score(view, p), i) for i, p in enumerate(legal)]
        best = max(s for s, _ in scored)
        top = [legal[i] for s, i in scored if s == best]
        return top[rng.randrange(len(top))]


POLICIES: Mapping[str, Callable[[], Policy]] = {
    "random": RandomPolicy,
    "greedy": GreedyPolicy,
}
