"""Scopa's ``normal``: counts the unseen cards and weighs each play against the
opponent's best answer, expected over the hands the opponent may hold: guards
against sweeps, goes for the settebello, sevens and diamonds."""

from __future__ import annotations

import random
from collections.abc import Sequence
from math import comb

from engine.cards import SCOPA_40, Card
from engine.game import Budget
from engine.policy import BasePolicy
from engine.scopa.ai.greedy import SCOPA_BONUS, pick_best, play_gain, worth
from engine.scopa.rules import capture_options
from engine.scopa.state import Play, ScopaView


def _answer_value(card: Card, table: Sequence[Card], last_play: bool) -> float:
    """The best the opponent gains by playing ``card`` on ``table``."""
    best = -worth([card]) * 0.5
    for group in capture_options(card, table):
        gain = worth([card, *group])
        if len(group) == len(table) and not last_play:
            gain += SCOPA_BONUS
        best = max(best, gain)
    return best


def expected_best_answer(
    table: Sequence[Card], unseen: Sequence[Card], held: int, last_play: bool
) -> float:
    """Expected value of the opponent's best answer when it holds ``held`` of ``unseen``.

    The opponent's hand is a uniform ``held``-subset of the unseen cards; it
    plays the card with the best answer, so the expectation runs over the
    rank of its best card: P(best is the k-th) = C(n-k, h-1) / C(n, h).
    """
    n = len(unseen)
    if held <= 0 or n == 0:
        return 0.0
    held = min(held, n)
    gains = sorted((_answer_value(c, table, last_play) for c in unseen), reverse=True)
    total_ways = comb(n, held)
    return sum(g * comb(n - k, held - 1) for k, g in enumerate(gains, start=1)) / total_ways


class NormalPolicy(BasePolicy[ScopaView, Play]):
    """One ply of lookahead with card counting (see the module docstring)."""

    name = "normal"

    def decide(
        self, view: ScopaView, legal: Sequence[Play], rng: random.Random, budget: Budget | None
    ) -> Play:
        """The play with the best gain minus the opponent's expected best answer."""
        assert view.seat is not None
        opponent = 1 - view.seat
        seen = set(view.hand) | set(view.table) | set(view.piles[0]) | set(view.piles[1])
        unseen = [c for c in SCOPA_40.cards if c not in seen]
        held = view.hand_counts[opponent]
        if held == 0 and view.stock_count:
            held = 3  # the opponent is refilled before answering
        answer_is_last = view.stock_count == 0 and held == 1 and view.hand_counts[view.seat] == 1
        scored = []
        for play in legal:
            gain, table = play_gain(view, play, lay_cost=0.5)
            risk = expected_best_answer(table, unseen, held, answer_is_last)
            scored.append((gain - 0.8 * risk, play))
        return pick_best(scored, rng)
