"""Cicera's simplest levels: ``greedy``, the best immediate value
(:func:`greedy_score`), and ``easy``, greedy that now and then plays at random."""

from __future__ import annotations

import random
from collections.abc import Collection, Iterable, Sequence

from engine.cards import BRESCIANE_52, Card
from engine.cicera.rules import (
    FANTE_OF_CUPS,
    MATA,
    NAPULA_RUN,
    SWORDS,
    TEN_OF_COINS,
    VALUE,
    capture_bonuses,
)
from engine.cicera.state import CiceraView, Play
from engine.game import Budget
from engine.policy import BasePolicy, NoisyPolicy

BONUS_WORTH = 1.0
"""A capture bonus is one point (Capture bonuses)."""

_SPECIAL = {MATA: 1.0, TEN_OF_COINS: 1.0, FANTE_OF_CUPS: 1.0}
_NAPULA_KEY = {c: (0.8 if i < 3 else 0.3) for i, c in enumerate(NAPULA_RUN)}


def card_worth(card: Card) -> float:
    """A rough share of the end-of-deal awards that holding ``card`` brings.

    Most cards is 2 points over 52 cards, most swords 1 point over 13 swords,
    ``2S``/``TD``/``FC`` a point each, and the low swords feed the Napula.
    """
    worth = 0.08 + _SPECIAL.get(card, 0.0) + _NAPULA_KEY.get(card, 0.0)
    if card.suit == SWORDS:
        worth += 0.1
    return worth


def _unseen(view: CiceraView) -> frozenset[Card]:
    seen = {*view.hand, *view.table, *view.piles[0], *view.piles[1]}
    return frozenset(c for c in BRESCIANE_52.cards if c not in seen)


def _ranks(cards: Iterable[Card]) -> set[str]:
    return {c.rank for c in cards}


def _reply_risk(table: Sequence[Card], placed: Card | None, unseen_ranks: Collection[str]) -> float:
    """How many bonus points the next player (an opponent) may earn on ``table``.

    A table the next player can sweep gives a Scùa; a card just placed can be
    taken back by rank for a Picada.  Only ranks still unseen can do it.
    """
    risk = 0.0
    if not table:
        return risk
    if len(table) == 1:
        if table[0].rank in unseen_ranks:
            risk += 1.0
    elif all(c.rank in VALUE for c in table):
        total = sum(VALUE[c.rank] for c in table)
        if total <= 10 and _rank_of_value(total) in unseen_ranks:
            risk += 1.0
    if placed is not None and placed.rank in unseen_ranks:
        risk += 0.6
    return risk


def _rank_of_value(value: int) -> str:
    return "A23456789T"[value - 1]


def greedy_score(view: CiceraView, play: Play, unseen_ranks: Collection[str]) -> float:
    """Immediate value of ``play`` for the seat's team, minus what it leaves the next player."""
    assert view.seat is not None
    if play.capture:
        table = [c for c in view.table if c not in play.capture]
        bonuses = capture_bonuses(view.seat, play.card, play.capture, table, view.last_play)
        score = BONUS_WORTH * len(bonuses)
        score += sum(card_worth(c) for c in play.capture) + card_worth(play.card)
        placed = None
    else:
        table = [*view.table, play.card]
        score = -card_worth(play.card)
        placed = play.card
    last_play_of_deal = sum(view.hand_counts) == 1
    if not last_play_of_deal:
        score -= _reply_risk(table, placed, unseen_ranks)
    return score


class GreedyPolicy(BasePolicy[CiceraView, Play]):
    """Takes the play with the best immediate value (see :func:`greedy_score`).

    It counts the capture bonuses a play earns, the award value of the cards
    it takes, and the Scùa or Picada it may hand the next player.
    """

    name = "greedy"

    def decide(
        self, view: CiceraView, legal: Sequence[Play], rng: random.Random, budget: Budget | None
    ) -> Play:
        """The best-scoring legal play; ties broken at random."""
        unseen_ranks = _ranks(_unseen(view))
        scored = [(greedy_score(view, p, unseen_ranks), i) for i, p in enumerate(legal)]
        best = max(s for s, _ in scored)
        top = [legal[i] for s, i in scored if s >= best - 1e-9]
        return top[rng.randrange(len(top))]


class EasyPolicy(NoisyPolicy[CiceraView, Play]):
    """Greedy with noise: a plausible but beatable player."""

    noise = 0.3

    def __init__(self) -> None:
        super().__init__(GreedyPolicy())
