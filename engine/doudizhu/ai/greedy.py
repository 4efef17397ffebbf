"""Dou Dizhu's simplest levels: ``greedy`` bids by hand strength and plays out fast
and cheaply (:class:`GreedyPolicy`); ``easy`` is greedy with noise."""

from __future__ import annotations

import random
from collections.abc import Sequence

from engine.doudizhu.combos import ACE, BLACK_JOKER, RED_JOKER, TWO, Move
from engine.doudizhu.game import read_play
from engine.doudizhu.hands import mask_of, packed_counts
from engine.doudizhu.state import Action, Bid, DoudizhuView, Pass, Play
from engine.game import Budget
from engine.policy import BasePolicy, NoisyPolicy


def _counts(view: DoudizhuView) -> list[int]:
    packed = packed_counts(mask_of(view.hand)) if view.hand else 0
    return [(packed >> (4 * r)) & 15 for r in range(15)]


def hand_strength(view: DoudizhuView) -> int:
    """A rough bidding score: jokers, twos, aces and bombs (after RLCard's heuristic)."""
    counts = _counts(view)
    score = 0
    if counts[BLACK_JOKER] and counts[RED_JOKER]:
        score += 8
    else:
        score += 3 * counts[BLACK_JOKER] + 4 * counts[RED_JOKER]
    score += 2 * counts[TWO] + counts[ACE]
    score += sum(6 for r in range(TWO + 1) if counts[r] == 4)
    return score


def _cost(move: Move, counts: list[int]) -> float:
    """How much a combination spends: high ranks, bombs and the rocket are precious.

    Breaking a bomb or the rocket in hand costs as much as playing it.
    """
    cost = float(move.main)
    if move.is_bomb:
        cost += 40.0
    for r, n in move.picks:
        if r >= TWO:
            cost += 4.0 * n
        if counts[r] == 4 and n < 4:
            cost += 40.0
    splits_rocket = counts[BLACK_JOKER] and counts[RED_JOKER] and move.combo != "rocket"
    if splits_rocket and any(r >= BLACK_JOKER for r, _ in move.picks):
        cost += 40.0
    return cost


class GreedyPolicy(BasePolicy[DoudizhuView, Action]):
    """Bid by hand strength; play out fast and cheaply (a simple rule-based player).

    Goes out when it can; leads the combination that sheds the most cards for
    the least value; follows with the cheapest combination that beats, lets a
    fellow farmer's play stand, and spends a bomb or the rocket only against
    an opponent close to going out.
    """

    name = "greedy"

    def decide(
        self, view: DoudizhuView, legal: Sequence[Action], rng: random.Random, budget: Budget | None
    ) -> Action:
        """The greedy choice among ``legal``."""
        if view.phase == "bidding":
            return self._call(view, legal)
        plays = [a for a in legal if isinstance(a, Play)]
        n_hand = len(view.hand)
        for p in plays:
            if len(p.cards) == n_hand:
                return p
        counts = _counts(view)

        def cost(p: Play) -> float:
            return _cost(read_play(p)[0], counts)

        if view.last is None:
            return min(plays, key=lambda p: -len(p.cards) + cost(p) / 8.0)
        assert view.seat is not None and view.last_seat is not None
        partner_played = (
            view.landlord is not None
            and view.seat != view.landlord
            and view.last_seat != view.landlord
        )
        if partner_played or not plays:
            return next(a for a in legal if isinstance(a, Pass))
        ordinary = [p for p in plays if not read_play(p)[0].is_bomb]
        if ordinary:
            best = min(ordinary, key=cost)
            if cost(best) < 40.0 or view.hand_counts[view.last_seat] <= 4:
                return best
        if view.hand_counts[view.last_seat] <= 4:
            return min(plays, key=cost)
        return next(a for a in legal if isinstance(a, Pass))

    def _call(self, view: DoudizhuView, legal: Sequence[Action]) -> Action:
        strength = hand_strength(view)
        want = 3 if strength >= 10 else 2 if strength >= 7 else 1 if strength >= 4 else 0
        bids = [a for a in legal if isinstance(a, Bid) and a.value <= want]
        if bids:
            return max(bids, key=lambda b: b.value)
        return next(a for a in legal if isinstance(a, Pass))


class EasyPolicy(NoisyPolicy[DoudizhuView, Action]):
    """Greedy with noise: a random legal move one time in four (plausible, beatable)."""

    noise = 0.25

    def __init__(self) -> None:
        super().__init__(GreedyPolicy())
