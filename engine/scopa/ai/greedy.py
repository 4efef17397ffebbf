"""Scopa's simplest levels: ``greedy``, the best immediate value
(:func:`greedy_score`), and ``easy``, greedy that now and then plays at random."""

from __future__ import annotations

import random
from collections.abc import Sequence

from engine.cards import Card
from engine.game import Budget
from engine.policy import BasePolicy, NoisyPolicy
from engine.scopa.rules import PRIME_SUIT, SETTEBELLO, VALUE
from engine.scopa.state import Play, ScopaView

SCOPA_BONUS = 12.0
_CARD_WORTH = {"7": 3.0, "6": 1.5, "A": 1.0}


def card_worth(card: Card) -> float:
    """How much a captured card is worth toward the awards (cards, diamonds, 7D, primiera)."""
    worth = 1.0 + _CARD_WORTH.get(card.rank, 0.0)
    if card.suit == PRIME_SUIT:
        worth += 1.0
    if card == SETTEBELLO:
        worth += 8.0
    return worth


def worth(cards: Sequence[Card]) -> float:
    return sum(card_worth(c) for c in cards)


def play_gain(view: ScopaView, play: Play, lay_cost: float) -> tuple[float, list[Card]]:
    """What ``play`` takes (a sweep included), or ``lay_cost`` × the worth of a laid card;
    and the table it leaves."""
    if play.capture:
        table = [c for c in view.table if c not in play.capture]
        gain = worth([play.card, *play.capture])
        last = view.stock_count == 0 and sum(view.hand_counts) == 1
        if not table and not last:
            gain += SCOPA_BONUS
        return gain, table
    return -worth([play.card]) * lay_cost, [*view.table, play.card]


def greedy_score(view: ScopaView, play: Play) -> float:
    """Immediate value of ``play``: what it takes, a sweep, and the sweep it leaves open."""
    score, table = play_gain(view, play, lay_cost=1.0)
    # a table whose values add up to at most 10 can be swept by the opponent
    if table and sum(VALUE[c.rank] for c in table) <= 10:
        score -= 6.0
    return score


def pick_best(scored: Sequence[tuple[float, Play]], rng: random.Random) -> Play:
    best = max(s for s, _ in scored)
    top = [p for s, p in scored if s == best]
    return top[rng.randrange(len(top))]


class GreedyPolicy(BasePolicy[ScopaView, Play]):
    """Takes the play with the best immediate value (see :func:`greedy_score`)."""

    name = "greedy"

    def decide(
        self, view: ScopaView, legal: Sequence[Play], rng: random.Random, budget: Budget | None
    ) -> Play:
        """The best-scoring legal play; ties broken at random."""
        return pick_best([(greedy_score(view, p), p) for p in legal], rng)


class EasyPolicy(NoisyPolicy[ScopaView, Play]):
    """Greedy with noise: a plausible but beatable opponent."""

    noise = 0.3

    def __init__(self) -> None:
        super().__init__(GreedyPolicy())
