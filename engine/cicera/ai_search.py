"""Cicera ``hard``: determinized search over the rest of the deal (rules/cicera.md).

Each iteration deals the cards the seat has not seen to the other hands at
random (a world consistent with the view), makes one candidate play and
plays the deal out with a fast rollout player, then scores it as the seat's
team's deal points minus the other team's.  Candidates are chosen by UCB1
over all worlds (flat Monte Carlo over the information set), so the answer
is the play that is best on average over the worlds the seat cannot tell
apart.

The generic :class:`engine.search.DeterminizedSearch` plays its rollouts
through ``Game.apply`` with frozen states; here the simulation runs on small
mutable lists of card numbers (a few microseconds a play), which buys many
more iterations inside the time target.  The simulator implements the same
rules as :mod:`engine.cicera.rules` (a test checks that both agree).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence

from engine.cards import BRESCIANE_52, Card
from engine.cicera.ai_normal import score_plays
from engine.cicera.rules import (
    FANTE_OF_CUPS,
    MATA,
    NAPULA_RUN,
    SWORDS,
    TEN_OF_COINS,
    VALUE,
    team_of,
)
from engine.cicera.state import CiceraView, Play
from engine.game import Budget

CARDS: tuple[Card, ...] = BRESCIANE_52.cards
INDEX: dict[Card, int] = {c: i for i, c in enumerate(CARDS)}
RANKS = "A23456789TFCR"
RANK: tuple[int, ...] = tuple(RANKS.index(c.rank) for c in CARDS)
SUIT: tuple[str, ...] = tuple(c.suit for c in CARDS)
VAL: tuple[int, ...] = tuple(VALUE.get(c.rank, 0) for c in CARDS)
SWORD_MASK = sum(1 << i for i, c in enumerate(CARDS) if c.suit == SWORDS)
SPECIAL_BITS = tuple(1 << INDEX[c] for c in (MATA, TEN_OF_COINS, FANTE_OF_CUPS))
RUN_BITS = tuple(1 << INDEX[c] for c in NAPULA_RUN)
RANK_MASK = tuple(sum(1 << i for i in range(len(CARDS)) if RANK[i] == r) for r in range(13))


def _static_worth(card: Card) -> float:
    """The rollout player's rough worth of taking ``card`` (awards, Napula keys)."""
    worth = 0.1
    if card.suit == SWORDS:
        worth += 0.15
    if card in (MATA, TEN_OF_COINS, FANTE_OF_CUPS):
        worth += 1.0
    if card in NAPULA_RUN[:3]:
        worth += 0.6
    return worth


WORTH: tuple[float, ...] = tuple(_static_worth(c) for c in CARDS)
EPSILON = 0.1
"""The rollout player's chance of a random play, so rollouts explore."""


def _sums(table: Sequence[int]) -> dict[int, list[tuple[int, ...]]]:
    """Groups of two or more table number cards by their total (at most 10)."""
    groups: list[tuple[int, tuple[int, ...]]] = [(0, ())]
    for t in table:
        v = VAL[t]
        if v:
            groups += [(s + v, g + (t,)) for s, g in groups if s + v <= 10]
    out: dict[int, list[tuple[int, ...]]] = {}
    for s, g in groups:
        if len(g) >= 2:
            out.setdefault(s, []).append(g)
    return out


def captures(card: int, table: Sequence[int]) -> list[tuple[int, ...]]:
    """Every capture ``card`` may make on ``table`` (A turn): matches, then sums."""
    rank = RANK[card]
    out: list[tuple[int, ...]] = [(t,) for t in table if RANK[t] == rank]
    v = VAL[card]
    if v:
        out += _sums(table).get(v, [])
    return out


def bonuses(card: int, capture: Sequence[int], table_size: int, placed: int) -> int:
    """Capture bonuses (Capture bonuses): Scùa, Picada, Simili, Quadriglia."""
    n = len(capture)
    count = 0
    if n == table_size:
        count += 1
    if n == 1 and capture[0] == placed and RANK[placed] == RANK[card]:
        count += 1
    suit = SUIT[card]
    if all(SUIT[c] == suit for c in capture):
        count += 1
    if n >= 3:
        count += 1
    return count


def napula(pile: int) -> int:
    """The Napula of a pile bitmask: the sword run from the ace, if at least A-2-3."""
    run = 0
    for bit in RUN_BITS:
        if not pile & bit:
            break
        run += 1
    return run if run >= 3 else 0


def deal_points(piles: Sequence[int], bonus: Sequence[int]) -> tuple[int, int]:
    """Each team's total (End of the deal) from pile bitmasks and bonus counts."""
    p0, p1 = piles
    points = [bonus[0] + napula(p0), bonus[1] + napula(p1)]
    c0, c1 = p0.bit_count(), p1.bit_count()
    if c0 != c1:
        points[0 if c0 > c1 else 1] += 2
    s0, s1 = (p0 & SWORD_MASK).bit_count(), (p1 & SWORD_MASK).bit_count()
    if s0 != s1:
        points[0 if s0 > s1 else 1] += 1
    for bit in SPECIAL_BITS:
        if p0 & bit:
            points[0] += 1
        elif p1 & bit:
            points[1] += 1
    return points[0], points[1]


class World:
    """One imagined deal in flat, mutable form: hands and table as card numbers."""

    __slots__ = ("bonus", "hands", "last_capturer", "piles", "placed", "table", "turn")

    def __init__(
        self,
        hands: list[list[int]],
        table: list[int],
        piles: list[int],
        bonus: list[int],
        turn: int,
        last_capturer: int,
        placed: int,
    ) -> None:
        self.hands = hands
        self.table = table
        self.piles = piles
        self.bonus = bonus
        self.turn = turn
        self.last_capturer = last_capturer
        self.placed = placed

    def play(self, card: int, capture: Sequence[int]) -> None:
        """Play ``card`` from the hand of the seat to act, taking ``capture`` (empty: place)."""
        seat = self.turn
        self.hands[seat].remove(card)
        table = self.table
        if capture:
            team = seat & 1
            self.bonus[team] += bonuses(card, capture, len(table), self.placed)
            mask = 1 << card
            for c in capture:
                table.remove(c)
                mask |= 1 << c
            self.piles[team] |= mask
            self.last_capturer = seat
            self.placed = -1
        else:
            table.append(card)
            self.placed = card
        self.turn = (seat + 1) & 3

    def finish(self) -> tuple[int, int]:
        """Leftovers to the last capturing team, then each team's total."""
        if self.table and self.last_capturer >= 0:
            mask = 0
            for c in self.table:
                mask |= 1 << c
            self.piles[self.last_capturer & 1] |= mask
            self.table = []
        return deal_points(self.piles, self.bonus)


def rollout_play(world: World, rng: random.Random) -> tuple[int, tuple[int, ...]]:
    """A fast player for imagined deals: the best capture, else the safest card to place.

    A capture is scored by its bonuses and the worth of the cards it takes.
    Placing avoids ranks whose other cards are still out (a Picada for the
    next player), judged only from cards in piles and on the table.
    """
    hand = world.hands[world.turn]
    table = world.table
    if rng.random() < EPSILON:
        card = hand[rng.randrange(len(hand))]
        options = captures(card, table)
        if options and rng.random() < 0.8:
            return card, options[rng.randrange(len(options))]
        return card, ()
    n_table = len(table)
    placed = world.placed
    by_rank: dict[int, list[int]] = {}
    for t in table:
        by_rank.setdefault(RANK[t], []).append(t)
    sums = _sums(table) if n_table >= 2 else {}
    best_card = -1
    best_capture: tuple[int, ...] = ()
    best = 0.0
    for card in hand:
        own = WORTH[card]
        for t in by_rank.get(RANK[card], ()):
            score = own + WORTH[t] + bonuses(card, (t,), n_table, placed)
            if score > best:
                best, best_card, best_capture = score, card, (t,)
        v = VAL[card]
        if v and v in sums:
            for group in sums[v]:
                score = own + sum(WORTH[c] for c in group) + bonuses(card, group, n_table, placed)
                if score > best:
                    best, best_card, best_capture = score, card, group
    if best_card >= 0:
        return best_card, best_capture
    # place: the card whose rank is least likely to be taken back, then the cheapest
    known = world.piles[0] | world.piles[1]
    for c in table:
        known |= 1 << c
    for c in hand:
        known |= 1 << c
    choice = hand[0]
    least = math.inf
    for card in hand:
        out = 4 - (known & RANK_MASK[RANK[card]]).bit_count()
        risk = out * 0.5 + WORTH[card] + rng.random() * 0.05
        if risk < least:
            least, choice = risk, card
    return choice, ()


class Sampler:
    """Deals random worlds consistent with one view (the unseen cards to the other hands)."""

    def __init__(self, view: CiceraView) -> None:
        seat = view.seat
        assert seat is not None
        self.seat = seat
        seen = 0
        for group in (view.hand, view.table, view.piles[0], view.piles[1]):
            for c in group:
                seen |= 1 << INDEX[c]
        self.unseen = [i for i in range(len(CARDS)) if not seen >> i & 1]
        self.counts = view.hand_counts
        self.hand = [INDEX[c] for c in view.hand]
        self.table = [INDEX[c] for c in view.table]
        piles = [0, 0]
        for team in (0, 1):
            for c in view.piles[team]:
                piles[team] |= 1 << INDEX[c]
        self.piles = piles
        self.bonus = [view.bonuses[0].total, view.bonuses[1].total]
        last = view.last_play
        self.placed = INDEX[last.card] if last is not None and not last.captured else -1
        self.last_capturer = -1 if view.last_capturer is None else view.last_capturer

    def world(self, rng: random.Random) -> World:
        """One random world; the seat of the view is to act."""
        unseen = self.unseen[:]
        rng.shuffle(unseen)
        hands: list[list[int]] = []
        at = 0
        for s in range(4):
            if s == self.seat:
                hands.append(self.hand[:])
            else:
                n = self.counts[s]
                hands.append(unseen[at : at + n])
                at += n
        return World(
            hands=hands,
            table=self.table[:],
            piles=self.piles[:],
            bonus=self.bonus[:],
            turn=self.seat,
            last_capturer=self.last_capturer,
            placed=self.placed,
        )


def playout(world: World, rng: random.Random) -> tuple[int, int]:
    """Play the imagined deal to its end with :func:`rollout_play`; the teams' totals."""
    hands = world.hands
    while hands[world.turn]:
        card, capture = rollout_play(world, rng)
        world.play(card, capture)
    return world.finish()


DEFAULT_BUDGET = Budget(iterations=3000, seconds=0.2)
CANDIDATES = 8
"""Root plays searched: the best by the ``normal`` score (the rest rarely win)."""
EXPLORATION = 0.7
SCALE = 4.0
"""The typical spread of deal-point margins, for UCB1."""


class HardPolicy:
    """Determinized search with fast rollouts (see the module docstring)."""

    name = "hard"

    def __init__(self, default_budget: Budget = DEFAULT_BUDGET, candidates: int = CANDIDATES):
        self.default_budget = default_budget
        self.candidates = candidates
        self.last_iterations = 0

    def choose(
        self,
        view: CiceraView,
        legal: Sequence[Play],
        rng: random.Random,
        budget: Budget | None = None,
    ) -> Play:
        """The candidate play with the best mean margin over sampled worlds."""
        if not legal:
            raise ValueError("no legal action to choose from")
        self.last_iterations = 0
        if len(legal) == 1:
            return legal[0]
        assert view.seat is not None
        team = team_of(view.seat)
        scores = score_plays(view, legal)
        order = sorted(range(len(legal)), key=lambda k: -scores[k])[: self.candidates]
        plays = [legal[k] for k in order]
        moves = [(INDEX[p.card], tuple(INDEX[c] for c in p.capture)) for p in plays]
        budget = budget or self.default_budget
        max_iter = budget.iterations if budget.iterations is not None else 10**9
        deadline = time.perf_counter() + budget.seconds if budget.seconds is not None else math.inf
        sampler = Sampler(view)
        n = len(plays)
        visits = [0] * n
        totals = [0.0] * n
        c = EXPLORATION * SCALE
        it = 0
        while it < max_iter and (it < n or time.perf_counter() < deadline):
            it += 1
            if it <= n:
                i = it - 1
            else:
                log_t = math.log(it)
                i = max(
                    range(n), key=lambda k: totals[k] / visits[k] + c * math.sqrt(log_t / visits[k])
                )
            world = sampler.world(rng)
            card, capture = moves[i]
            # the capture tuple keeps table order so bonuses see the same table
            world.play(card, capture)
            points = playout(world, rng)
            visits[i] += 1
            totals[i] += points[team] - points[1 - team]
        self.last_iterations = it
        best = max(range(n), key=lambda k: totals[k] / visits[k] if visits[k] else -math.inf)
        return plays[best]
