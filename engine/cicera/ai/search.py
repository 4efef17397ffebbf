"""Cicera ``hard``: determinized search over the rest of the deal (rules/cicera.md).

Each iteration deals the cards the seat has not seen to the other hands at
random (a world consistent with the view; kept with the chance that the
previous player's hand in it made its last play, :class:`Evidence`), makes
one candidate play and plays the deal out with a fast rollout player, then
scores it as the seat's team's deal points minus the other team's.  Every
world is played after each candidate still in the race, and successive
halving drops the worse half after each round (flat Monte Carlo over the
information set), so the answer is the play that is best on average over
the worlds the seat cannot tell apart.

The generic :class:`engine.search.DeterminizedSearch` plays its rollouts
through ``Game.apply`` with frozen states; here the simulation runs on small
mutable lists of card numbers, without a new state a play, which buys many
more iterations inside the time target: :func:`playout` keeps each seat's
count of the cards it has seen by rank as the deal goes on, and table sums
come from a cache by the table's pattern of values.  The simulator
implements the same rules as :mod:`engine.cicera.rules` (tests check that
both agree, and that :func:`playout` plays as :meth:`World.play` does).
``python -m bench.cicera_search`` measures playouts per second.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from math import comb
from operator import itemgetter

from engine.capture import play_seen
from engine.cards import BRESCIANE_52, Card
from engine.cicera.ai.normal import score_plays
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
from engine.game import Budget, decision_deadline, resolve_budget
from engine.policy import SearchPolicy
from engine.search import ChoiceChance, keep_likely

CARDS: tuple[Card, ...] = BRESCIANE_52.cards
INDEX: dict[Card, int] = {c: i for i, c in enumerate(CARDS)}
RANKS = "A23456789TFCR"
RANK: tuple[int, ...] = tuple(RANKS.index(c.rank) for c in CARDS)
SUIT: tuple[str, ...] = tuple(c.suit for c in CARDS)
VAL: tuple[int, ...] = tuple(VALUE.get(c.rank, 0) for c in CARDS)
SWORD_MASK = sum(1 << i for i, c in enumerate(CARDS) if c.suit == SWORDS)
SPECIAL_BITS = tuple(1 << INDEX[c] for c in (MATA, TEN_OF_COINS, FANTE_OF_CUPS))
RUN_BITS = tuple(1 << INDEX[c] for c in NAPULA_RUN)


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
EPSILON = 0.03
"""The rollout player's chance of a random play, so rollouts explore (0.03 measured
better than 0.1 against normal: margin 5.3 against 4.3 on the same 30 deals)."""


Getter = Callable[[Sequence[int]], tuple[int, ...]]
"""Picks one group of cards out of a table (an :func:`operator.itemgetter` of positions)."""
_NO_SUMS: dict[int, tuple[Getter, ...]] = {}
_SUMS_CACHE: dict[tuple[int, ...], dict[int, tuple[Getter, ...]]] = {}
SUMS_CACHE_SIZE = 20_000
"""Value patterns remembered by :func:`table_sums` (a few megabytes at most)."""


def table_sums(values: tuple[int, ...]) -> dict[int, tuple[Getter, ...]]:
    """Groups of two or more number cards by their total (at most 10), for a table whose
    cards have ``values`` (0 for a court), as getters of their positions in the table.

    The groups depend only on the values, so few patterns serve every table the
    rollouts meet; a getter builds a group's cards only when a card can take it.
    """
    found = _SUMS_CACHE.get(values)
    if found is None:
        groups: list[tuple[int, tuple[int, ...]]] = [(0, ())]
        for i, v in enumerate(values):
            if v:
                groups += [(s + v, g + (i,)) for s, g in groups if s + v <= 10]
        out: dict[int, list[Getter]] = {}
        for s, g in groups:
            if len(g) >= 2:
                out.setdefault(s, []).append(itemgetter(*g))
        if len(_SUMS_CACHE) >= SUMS_CACHE_SIZE:
            _SUMS_CACHE.clear()
        found = _SUMS_CACHE[values] = {s: tuple(gs) for s, gs in out.items()}
    return found


def captures(card: int, table: Sequence[int]) -> list[tuple[int, ...]]:
    """Every capture ``card`` may make on ``table`` (A turn): matches, then sums."""
    rank = RANK[card]
    out: list[tuple[int, ...]] = [(t,) for t in table if RANK[t] == rank]
    v = VAL[card]
    if v:
        out += [group(table) for group in table_sums(tuple(VAL[t] for t in table)).get(v, ())]
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

    __slots__ = ("bonus", "hands", "last_capturer", "piles", "placed", "public", "table", "turn")

    def __init__(
        self,
        hands: list[list[int]],
        table: list[int],
        piles: list[int],
        bonus: list[int],
        turn: int,
        last_capturer: int,
        placed: int,
        public: list[int],
    ) -> None:
        self.hands = hands
        self.public = public
        self.table = table
        self.piles = piles
        self.bonus = bonus
        self.turn = turn
        self.last_capturer = last_capturer
        self.placed = placed

    def copy(self) -> World:
        """An independent copy to play on."""
        return World(
            hands=[h[:] for h in self.hands],
            table=self.table[:],
            piles=self.piles[:],
            bonus=self.bonus[:],
            turn=self.turn,
            last_capturer=self.last_capturer,
            placed=self.placed,
            public=self.public[:],
        )

    def play(self, card: int, capture: Sequence[int]) -> None:
        """Play ``card`` from the hand of the seat to act, taking ``capture`` (empty: place)."""
        seat = self.turn
        self.hands[seat].remove(card)
        self.public[RANK[card]] += 1
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


def _take_chance(n: int, h: int, k: int) -> float:
    """The chance that a hand of ``h`` of ``n`` unknown cards holds one of ``k`` given ones."""
    if h <= 0 or k <= 0 or n <= 0:
        return 0.0
    if h + k > n:
        return 1.0
    return 1.0 - comb(max(n - k, 0), h) / comb(n, h)


TAKE_CHANCE: tuple[tuple[tuple[float, ...], ...], ...] = tuple(
    tuple(tuple(_take_chance(n, h, k) for k in range(5)) for h in range(13)) for n in range(53)
)
"""``TAKE_CHANCE[n][h][k]``: the chance that the next player, holding ``h`` of the ``n``
cards a player cannot see, holds one of ``k`` cards of a rank still out."""
RANK_OF_VALUE: tuple[int, ...] = tuple(range(-1, 10))
"""The rank number of a number card of each value 1..10."""


TAKE_ODDS: tuple[tuple[tuple[float, ...], ...], ...] = tuple(
    tuple(tuple(row[4 - k] for k in range(5)) for row in by_held) for by_held in TAKE_CHANCE
)
"""``TAKE_ODDS[n][h][k]``: :data:`TAKE_CHANCE` by how many of the rank's four cards
the player has seen (``k``), not by how many are still out."""
NO_ODDS: tuple[float, ...] = (0.0,) * 5
"""The odds when the next player holds no cards."""
HALF_WORTH: tuple[float, ...] = tuple(-0.5 * w for w in WORTH)
"""The rollout player's score for placing each card before the reply odds: minus half
its worth (it may be lost to the other team)."""


def rollout_play(world: World, rng: random.Random) -> tuple[int, tuple[int, ...]]:
    """A fast player for imagined deals: greedy with an eye on the next player's reply.

    A capture scores its bonuses and the worth of the cards it takes; placing
    scores minus a little of the card's worth.  Either loses the Scùa the
    next player may make on the table left, and a placed card the Picada it
    may give.  The odds come only from the cards the player can know about
    (piles, table, own hand), as in a real game.
    """
    seen = world.public[:]
    for c in world.hands[world.turn]:
        seen[RANK[c]] += 1
    return _rollout_play(world, rng, seen)


def _rollout_play(world: World, rng: random.Random, seen: list[int]) -> tuple[int, tuple[int, ...]]:
    """:func:`rollout_play` given how many cards of each rank the player to act has seen
    (the public cards and its own hand; :func:`playout` keeps these counts up to date)."""
    seat = world.turn
    hands = world.hands
    hand = hands[seat]
    table = world.table
    if rng.random() < EPSILON:
        card = hand[rng.randrange(len(hand))]
        options = captures(card, table)
        if options and rng.random() < 0.8:
            return card, options[rng.randrange(len(options))]
        return card, ()
    rank_of = RANK
    worth = WORTH
    nxt = hands[(seat + 1) & 3]
    # odds[seen[rank]]: the chance that the next player holds a card of ``rank``
    odds = NO_ODDS
    if nxt:
        hidden = len(hands[0]) + len(hands[1]) + len(hands[2]) + len(hands[3]) - len(hand)
        odds = TAKE_ODDS[hidden][len(nxt)]
    n_table = len(table)
    placed = world.placed
    total = 0
    courts = 0
    values = []
    by_rank: dict[int, list[int]] = {}
    for t in table:
        v = VAL[t]
        values.append(v)
        if v:
            total += v
        else:
            courts += 1
        r = rank_of[t]
        if r in by_rank:
            by_rank[r].append(t)
        else:
            by_rank[r] = [t]
    best = -1e9
    best_card = hand[0]
    best_capture: tuple[int, ...] = ()
    if n_table:
        sums = table_sums(tuple(values)) if n_table - courts >= 2 else _NO_SUMS
        lone = n_table == 1
        for card in hand:
            own = worth[card]
            matches = by_rank.get(rank_of[card])
            if matches is not None:
                for t in matches:
                    # a match: Scùa on a lone card, Picada on the card just placed
                    score = own + worth[t] + lone + (t == placed)
                    if n_table == 2:
                        single = table[0] if table[1] == t else table[1]
                        score -= odds[seen[rank_of[single]]]
                    elif n_table > 2 and not courts - (not VAL[t]):
                        left_total = total - VAL[t]
                        if left_total <= 10:
                            score -= odds[seen[RANK_OF_VALUE[left_total]]]
                    if score > best:
                        best, best_card, best_capture = score, card, (t,)
            v = VAL[card]
            if v in sums:
                suit = SUIT[card]
                for getter in sums[v]:
                    group = getter(table)
                    n = len(group)
                    score = own
                    same = True
                    for c in group:
                        score += worth[c]
                        if SUIT[c] != suit:
                            same = False
                    score += same + (n >= 3)
                    left = n_table - n
                    if left == 0:
                        score += 1.0
                    elif left == 1:
                        single = next(t for t in table if t not in group)
                        score -= odds[seen[rank_of[single]]]
                    elif not courts and total - v <= 10:
                        score -= odds[seen[RANK_OF_VALUE[total - v]]]
                    if score > best:
                        best, best_card, best_capture = score, card, group
    # place a card: what it may give the next player (Picada, Scùa)
    if n_table == 0:
        for card in hand:
            score = HALF_WORTH[card] - 2.0 * odds[seen[rank_of[card]]]
            if score > best:
                best, best_card, best_capture = score, card, ()
    elif courts or total >= 10:
        for card in hand:
            score = HALF_WORTH[card] - odds[seen[rank_of[card]]]
            if score > best:
                best, best_card, best_capture = score, card, ()
    else:
        for card in hand:
            score = HALF_WORTH[card] - odds[seen[rank_of[card]]]
            v = VAL[card]
            if v and total + v <= 10:
                score -= odds[seen[RANK_OF_VALUE[total + v]]]
            if score > best:
                best, best_card, best_capture = score, card, ()
    return best_card, best_capture


def greedy_moves(
    hand: Sequence[int], table: Sequence[int], placed: int
) -> list[tuple[int, frozenset[int], float]]:
    """Every move of ``hand`` on ``table`` as (card, cards taken, a greedy score): a
    capture its bonuses and the worth of its cards, placing minus half the card's worth
    (the opponent model of the inference)."""
    n_table = len(table)
    out: list[tuple[int, frozenset[int], float]] = []
    for card in hand:
        out.append((card, frozenset(), -0.5 * WORTH[card]))
        for group in captures(card, table):
            score = WORTH[card] + sum(WORTH[c] for c in group)
            score += bonuses(card, group, n_table, placed)
            out.append((card, frozenset(group), score))
    return out


INFERENCE_TEMPERATURE = 0.5
"""How sharply the previous player is expected to prefer better plays (points per factor e)."""
INFERENCE_TRIES = 10
"""Worlds drawn at most for one accepted world (the last one drawn is kept)."""


class Evidence:
    """The previous player's play (an opponent's), as evidence about its hand.

    It chose ``card`` (taking ``taken``) on ``table`` from its hand of then: that
    card and the cards it holds now.  Under a softmax model of greedy play
    (:func:`greedy_moves`, :data:`INFERENCE_TEMPERATURE`), :attr:`likelihood` is
    the chance of that choice given the cards it holds now (a
    :class:`~engine.search.ChoiceChance`): a hand that had a far better play (a
    Scùa, a bonus-rich capture) makes a placed card unlikely.
    """

    __slots__ = ("card", "likelihood", "seat", "table", "taken")

    def __init__(self, seat: int, card: int, taken: frozenset[int], table: list[int]) -> None:
        self.seat = seat
        self.card = card
        self.taken = taken
        self.table = table
        moves = greedy_moves(range(len(CARDS)), table, -1)
        self.likelihood = ChoiceChance(moves, card, taken, INFERENCE_TEMPERATURE, len(CARDS))

    @classmethod
    def of(cls, view: CiceraView) -> Evidence | None:
        """The evidence in ``view``: its last play, if another seat's with cards still held."""
        last = view.last_play
        seat = view.seat
        if last is None or seat is None or last.seat == seat or not view.hand_counts[last.seat]:
            return None
        seen = play_seen(last.card, last.captured, view.table, INDEX)
        return None if seen is None else cls(last.seat, *seen)


class Sampler:
    """Deals random worlds consistent with one view (the unseen cards to the other hands).

    With ``inference`` a deal is kept with the chance that the previous player's hand
    in it made its last play (:class:`Evidence`), else dealt again, at most
    :data:`INFERENCE_TRIES` times.
    """

    def __init__(self, view: CiceraView, inference: bool = False) -> None:
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
        public = [0] * len(RANKS)
        for group in (view.table, view.piles[0], view.piles[1]):
            for c in group:
                public[RANKS.index(c.rank)] += 1
        self.public = public
        self.evidence = Evidence.of(view) if inference else None

    def world(self, rng: random.Random) -> World:
        """One random world; the seat of the view is to act."""
        unseen = self.unseen[:]
        rng.shuffle(unseen)
        evidence = self.evidence
        if evidence is not None:
            at = sum(self.counts[s] for s in range(evidence.seat) if s != self.seat)
            held = self.counts[evidence.seat]
            keep_likely(unseen, slice(at, at + held), evidence.likelihood, rng, INFERENCE_TRIES)
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
            public=self.public[:],
        )


def playout(world: World, rng: random.Random) -> tuple[int, int]:
    """Play the imagined deal to its end with :func:`rollout_play`; the teams' totals."""
    # World.play inlined (the hottest loop of the search)
    hands = world.hands
    table = world.table
    public = world.public
    piles = world.piles
    bonus = world.bonus
    rank_of = RANK
    suit_of = SUIT
    seat = world.turn
    # the cards of each rank each seat has seen: the public ones and its own hand
    seen = [public[:], public[:], public[:], public[:]]
    for s in range(4):
        counts = seen[s]
        for c in hands[s]:
            counts[rank_of[c]] += 1
    while hands[seat]:
        card, capture = _rollout_play(world, rng, seen[seat])
        hands[seat].remove(card)
        rank = rank_of[card]
        public[rank] += 1
        # the card is public now: the other three have seen it (the player had)
        seen[(seat + 1) & 3][rank] += 1
        seen[(seat + 2) & 3][rank] += 1
        seen[(seat + 3) & 3][rank] += 1
        if capture:
            n = len(capture)
            team = seat & 1
            count = (n == len(table)) + (n >= 3)
            if n == 1 and capture[0] == world.placed and rank_of[capture[0]] == rank:
                count += 1
            suit = suit_of[card]
            mask = 1 << card
            for c in capture:
                table.remove(c)
                mask |= 1 << c
                if suit_of[c] != suit:
                    suit = ""
            if suit:
                count += 1
            bonus[team] += count
            piles[team] |= mask
            world.last_capturer = seat
            world.placed = -1
        else:
            table.append(card)
            world.placed = card
        seat = (seat + 1) & 3
        world.turn = seat
    return world.finish()


DEFAULT_BUDGET = Budget(iterations=5000, seconds=0.22)
"""Capped a little under the decision-time goal (docs/performance.md, The AI): the time
binds, not the count; what the cap buys: ``python -m bench.cicera_search --default``."""
CANDIDATES = 8
"""Root plays searched: the best by the ``normal`` score (the rest rarely win)."""


class HardPolicy(SearchPolicy[CiceraView, Play]):
    """Determinized search with fast rollouts (see the module docstring).

    The candidates are compared on common worlds: every sampled world is
    played out once after each candidate still in the race, with the same
    rollout randomness, so the luck of the imagined deal cancels between
    them.  Successive halving drops the worse half of the candidates after
    each round of the budget, spending most playouts on the close calls.
    """

    name = "hard"

    def __init__(
        self,
        default_budget: Budget = DEFAULT_BUDGET,
        candidates: int = CANDIDATES,
        inference: bool = True,
    ) -> None:
        self.default_budget = default_budget
        self.candidates = candidates
        self.inference = inference
        self.last_iterations = 0

    def decide(
        self, view: CiceraView, legal: Sequence[Play], rng: random.Random, budget: Budget | None
    ) -> Play:
        """The candidate play with the best mean margin over sampled worlds."""
        start = time.perf_counter()
        self.last_iterations = 0
        assert view.seat is not None
        team = team_of(view.seat)
        scores = score_plays(view, legal)
        order = sorted(range(len(legal)), key=lambda k: -scores[k])[: self.candidates]
        plays = [legal[k] for k in order]
        # capture tuples keep table order, as the simulator's table does
        moves = [
            (INDEX[p.card], tuple(INDEX[c] for c in view.table if c in p.capture)) for p in plays
        ]
        budget = resolve_budget(budget, self.default_budget)
        max_iter = budget.iterations if budget.iterations is not None else 10**9
        seconds = decision_deadline(start, budget.seconds) - start
        sampler = Sampler(view, self.inference)
        totals = [0.0] * len(plays)
        active = list(range(len(plays)))
        rounds = max(1, math.ceil(math.log2(len(plays))))
        it = 0
        worlds = 0
        for r in range(1, rounds + 1):
            iter_cap = max_iter * r // rounds
            deadline = start + seconds * r / rounds
            first = True
            while first or (it + len(active) <= iter_cap and time.perf_counter() < deadline):
                first = False
                base = sampler.world(rng)
                # the same rollout randomness after every candidate (restoring a state
                # is about twice as fast as seeding a generator)
                luck = random.Random(rng.getrandbits(32))
                start_luck = luck.getstate()
                worlds += 1
                for k in active:
                    world = base.copy()
                    card, capture = moves[k]
                    world.play(card, capture)
                    luck.setstate(start_luck)
                    points = playout(world, luck)
                    totals[k] += points[team] - points[1 - team]
                    it += 1
            if r < rounds:
                active.sort(key=lambda k: -totals[k])
                active = sorted(active[: max(1, (len(active) + 1) // 2)])
        self.last_iterations = it
        best = max(active, key=lambda k: totals[k])
        return plays[best]
