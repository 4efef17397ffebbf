"""Scopa ``hard``: determinized search on the fast simulator (rules/scopa.md).

* Worlds come from the seat's view only (:mod:`engine.scopa.ai.worlds`),
  following the evidence of the opponent's last play.
* Each world is played once per root play with the same cards (paired
  comparisons: the luck of the world cancels between the plays) on the fast
  simulator (:mod:`engine.scopa.ai.sim`), each side then following its rollout
  player.  A finished deal is valued by the chance to win the match that its
  points leave (:func:`match_values`), plus the point margin.
* With the stock empty the rest of the deal is solved exactly by minimax.
* A decision stops early when one play is clearly best over the worlds so far.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence

from engine.game import Budget, decision_deadline, resolve_budget
from engine.policy import SearchPolicy
from engine.scopa.ai.sim import INDEX, MAX_POINTS, ValueTable, rollout, solve
from engine.scopa.ai.worlds import Evidence, known_part, sample_deal
from engine.scopa.state import Play, ScopaView


def margin_values(seat: int) -> ValueTable:
    """A deal is worth ``seat``'s points minus the opponent's."""
    r = range(MAX_POINTS + 1)
    return [[float((p0 - p1) if seat == 0 else (p1 - p0)) for p1 in r] for p0 in r]


_DEAL_POINTS: dict[tuple[int, int], float] = {
    (0, 1): 0.0009, (0, 2): 0.0103, (0, 3): 0.0556, (0, 4): 0.1626, (0, 5): 0.0598,
    (0, 6): 0.0193, (0, 7): 0.0053, (0, 8): 0.0014, (0, 9): 0.0003, (1, 1): 0.0058,
    (1, 2): 0.077, (1, 3): 0.1371, (1, 4): 0.0947, (1, 5): 0.0393, (1, 6): 0.0131,
    (1, 7): 0.0031, (1, 8): 0.001, (2, 2): 0.0949, (2, 3): 0.0993, (2, 4): 0.0454,
    (2, 5): 0.0168, (2, 6): 0.0055, (2, 7): 0.0017, (3, 3): 0.0203, (3, 4): 0.0172,
    (3, 5): 0.0053, (3, 6): 0.0014, (3, 7): 0.0005, (4, 4): 0.0027, (4, 5): 0.0014,
    (4, 6): 0.0003, (5, 5): 0.0004,
}  # fmt: skip
"""How often a deal ends (fewer, more) points: 20,000 deals of the rollout player."""


def _deal_distribution() -> list[tuple[int, int, float]]:
    total = sum(_DEAL_POINTS.values())
    out = []
    for (lo, hi), p in _DEAL_POINTS.items():
        if lo == hi:
            out.append((lo, hi, p / total))
        else:
            out.append((lo, hi, p / total / 2))
            out.append((hi, lo, p / total / 2))
    return out


_DISTRIBUTION = _deal_distribution()
_MATCH_WIN: dict[int, list[list[float]]] = {}


def match_win(mine: int, theirs: int, target: int) -> float:
    """The chance to win the match from totals ``mine``/``theirs`` after a deal, later
    deals drawn from :data:`_DEAL_POINTS` (The match: checked only after a deal; at
    least ``target`` and strictly ahead wins, a tie plays on)."""
    if max(mine, theirs) >= target:
        if mine != theirs:
            return 1.0 if mine > theirs else 0.0
        return 0.5
    table = _MATCH_WIN.get(target)
    if table is None:
        table = _match_table(target)
        _MATCH_WIN[target] = table
    return table[mine][theirs]


def _match_table(target: int) -> list[list[float]]:
    """``match_win`` below the target, from the highest totals down (a deal always
    scores at least one point, so later totals are known first)."""
    table = [[0.0] * target for _ in range(target)]
    for total in range(2 * target - 2, -1, -1):
        for mine in range(max(0, total - target + 1), min(total, target - 1) + 1):
            theirs = total - mine
            chance = 0.0
            for x, y, p in _DISTRIBUTION:
                a, b = mine + x, theirs + y
                if max(a, b) >= target:
                    chance += p * (1.0 if a > b else 0.0 if b > a else 0.5)
                else:
                    chance += p * table[a][b]
            table[mine][theirs] = chance
    return table


MATCH_WEIGHT = 20.0


def match_values(seat: int, totals: tuple[int, int], target: int) -> ValueTable:
    """A deal is worth ``MATCH_WEIGHT`` × the match-win chance it leaves, plus the margin
    (which decides between plays that leave the match equally won or lost)."""
    margin = margin_values(seat)
    r = range(MAX_POINTS + 1)
    mine, theirs = totals[seat], totals[1 - seat]
    table = margin
    for p0 in r:
        for p1 in r:
            gain, loss = (p0, p1) if seat == 0 else (p1, p0)
            table[p0][p1] += MATCH_WEIGHT * match_win(mine + gain, theirs + loss, target)
    return table


DEFAULT_BUDGET = Budget(iterations=5000, seconds=0.2)
"""Sampled worlds per decision (an iteration: one world, every root play rolled out in
it), capped by 0.2 s of thinking, within the decision-time goal (docs/performance.md,
The AI)."""

SOLVE_STOCK = 0
"""Each world is solved exactly (minimax) instead of rolled out once the stock holds at
most this many cards."""
MIN_WORLDS = 120
CHECK_EVERY = 10
CONFIDENCE = 4.0
"""A decision stops early once, after at least ``MIN_WORLDS`` worlds, the leading play
beats every other by ``CONFIDENCE`` standard errors of the paired differences."""


def clearly_best(values: Sequence[Sequence[float]], lead: int, confidence: float) -> bool:
    """Whether play ``lead`` beats every other play over the paired worlds ``values[k]``."""
    mine = values[lead]
    m = len(mine)
    for k, other in enumerate(values):
        if k == lead:
            continue
        total = 0.0
        squares = 0.0
        for a, b in zip(mine, other, strict=True):
            d = a - b
            total += d
            squares += d * d
        mean = total / m
        var = max(0.0, squares / m - mean * mean)
        if mean - confidence * math.sqrt(var / (m - 1)) < 0:
            return False
    return True


class ScopaSearch(SearchPolicy[ScopaView, Play]):
    """Paired determinized rollouts on the fast simulator; exact when the stock is empty."""

    def __init__(
        self,
        name: str = "hard",
        default_budget: Budget = DEFAULT_BUDGET,
        match_aware: bool = True,
        inference: bool = True,
    ) -> None:
        self.name = name
        self.match_aware = match_aware
        self.inference = inference
        self.min_worlds = MIN_WORLDS
        self.solve_stock = SOLVE_STOCK
        self.confidence = CONFIDENCE
        self.default_budget = default_budget
        self.last_iterations = 0

    def decide(
        self, view: ScopaView, legal: Sequence[Play], rng: random.Random, budget: Budget | None
    ) -> Play:
        """The legal play with the best mean point margin over sampled worlds."""
        started = time.perf_counter()
        assert view.seat is not None
        seat = view.seat
        budget = resolve_budget(budget, self.default_budget)
        max_iter = budget.iterations if budget.iterations is not None else 10**9
        deadline = decision_deadline(started, budget.seconds)
        roots = [(INDEX[p.card], tuple(INDEX[c] for c in p.capture)) for p in legal]
        n = len(roots)
        values: list[list[float]] = [[] for _ in range(n)]
        base, unseen = known_part(view)
        held = view.hand_counts[1 - seat]
        if self.match_aware:
            table = match_values(seat, view.totals, view.options.target)
        else:
            table = margin_values(seat)
        exact = view.stock_count <= self.solve_stock
        evidence = Evidence.of(view) if self.inference and view.stock_count else None
        worlds = 0
        while worlds < max_iter and (worlds == 0 or time.perf_counter() < deadline):
            world = sample_deal(base, unseen, held, rng, evidence)
            worlds += 1
            for i, (c, g) in enumerate(roots):
                d = world.copy()
                d.play(c, g)
                if exact:
                    values[i].append(solve(d, seat, table, -math.inf, math.inf))
                else:
                    values[i].append(rollout(d, table))
            if view.stock_count == 0:
                break  # the unseen cards are the opponent's hand: one world is the real one
            if worlds >= self.min_worlds and worlds % CHECK_EVERY == 0:
                lead = max(range(n), key=lambda k: sum(values[k]))
                if clearly_best(values, lead, self.confidence):
                    break
        self.last_iterations = worlds
        best = max(range(n), key=lambda k: sum(values[k]))
        return legal[best]
