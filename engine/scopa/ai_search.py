"""Scopa ``hard``: determinized search on a fast, Scopa-only simulator (rules/scopa.md).

The generic :mod:`engine.search` plays its imagined deals through the full
``Game.apply`` (frozen states, events, validation).  Here the rest of a deal is
played on plain ints and lists instead: about five times as many rollouts in the
same think time (1,548 against 291 in 0.2 s from an opening position).

* Cards are ints ``0..39`` in :data:`~engine.cards.SCOPA_40` order:
  ``suit * 10 + rank``, so the capture value is ``card % 10 + 1`` and the
  suit is ``card // 10`` (S H D C; diamonds are suit 2, the settebello 26).
* A *world* is built from the seat's view only: the unseen cards (the
  opponent's hand and the stock) are shuffled and dealt out, exactly what
  :meth:`ScopaGame.sample_world` does.  Once the stock is empty the unseen
  cards *are* the opponent's hand, so the world is the real one.
* Worlds follow the evidence of the opponent's last play (:class:`Evidence`):
  a shuffle is kept with the chance that the hand it deals made that play.
* Each world is played once per root play with the same cards (paired
  comparisons: the luck of the world cancels between the plays), each side
  then following :func:`rollout_choice`.  A finished deal is valued by the
  chance to win the match that its points leave (:func:`match_values`), plus
  the point margin.
* With the stock empty the rest of the deal is solved exactly by minimax.
* A decision stops early when one play is clearly best over the worlds so far.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence

from engine.cards import SCOPA_40, Card
from engine.game import Budget, decision_deadline, resolve_budget
from engine.scopa.state import Play, ScopaView
from engine.search import choice_chance, keep_likely

CARDS: tuple[Card, ...] = SCOPA_40.cards
INDEX: dict[Card, int] = {c: i for i, c in enumerate(CARDS)}
VAL: tuple[int, ...] = tuple(i % 10 + 1 for i in range(40))
"""Capture values (A = 1 … K = 10) by card int."""
_PRIM_BY_RANK = (16, 12, 13, 14, 15, 18, 21, 10, 10, 10)
PRIM: tuple[int, ...] = tuple(_PRIM_BY_RANK[i % 10] for i in range(40))
"""Primiera values by card int (End of a deal, award 4)."""
DIAMONDS = 2
SETTEBELLO = 26

SWEEP_BONUS = 12.0
SWEEP_RISK = 4.0
_RANK_WORTH = (1.0, 0.0, 0.0, 0.0, 0.3, 1.5, 3.0, 0.0, 0.0, 0.0)


def _card_worth(c: int) -> float:
    w = 1.0 + _RANK_WORTH[c % 10]
    if c // 10 == DIAMONDS:
        w += 1.0
    if c == SETTEBELLO:
        w += 8.0
    return w


WORTH: tuple[float, ...] = tuple(_card_worth(i) for i in range(40))
"""What a captured card is worth to the rollout players (awards, settebello)."""


def groups(value: int, table: Sequence[int]) -> list[tuple[int, ...]]:
    """The captures a card of ``value`` may make on ``table`` (A turn).

    A table card of the same value excludes sums (one of them is taken);
    otherwise every group of two or more cards adding up to ``value``.
    """
    options = capture_table(tuple(VAL[t] for t in table))[value]
    return [tuple(table[i] for i in g) for g in options]


IndexGroups = tuple[tuple[int, ...], ...]
_CAPTURES: dict[tuple[int, ...], tuple[IndexGroups, ...]] = {}
_CAPTURES_MAX = 50_000


def capture_table(values: tuple[int, ...]) -> tuple[IndexGroups, ...]:
    """For a table with these capture ``values`` (in table order): entry ``v`` lists the
    captures of a card of value ``v`` as tuples of table positions (memoised)."""
    hit = _CAPTURES.get(values)
    if hit is not None:
        return hit
    n = len(values)
    sums: list[list[tuple[int, ...]]] = [[] for _ in range(11)]

    def walk(start: int, total: int, chosen: tuple[int, ...]) -> None:
        for i in range(start, n):
            s = total + values[i]
            if s <= 10:
                picked = (*chosen, i)
                if chosen:
                    sums[s].append(picked)
                walk(i + 1, s, picked)

    walk(0, 0, ())
    out: list[IndexGroups] = [()]
    for v in range(1, 11):
        singles = tuple((i,) for i in range(n) if values[i] == v)
        out.append(singles if singles else tuple(sums[v]))
    result = tuple(out)
    if len(_CAPTURES) >= _CAPTURES_MAX:
        _CAPTURES.clear()
    _CAPTURES[values] = result
    return result


class Deal:
    """A deal in progress on plain lists (mutable: each rollout works on its own copy).

    ``acc[s]`` = [cards, diamonds, settebello, best S, best H, best D, best C]
    primiera values of seat ``s``'s pile; ``scope[s]`` its sweeps.
    """

    __slots__ = ("acc", "dealer", "hands", "last", "scope", "stock", "table", "turn")

    def __init__(
        self,
        hands: list[list[int]],
        table: list[int],
        stock: list[int],
        acc: list[list[int]],
        scope: list[int],
        last: int | None,
        turn: int,
        dealer: int,
    ) -> None:
        self.hands = hands
        self.table = table
        self.stock = stock
        self.acc = acc
        self.scope = scope
        self.last = last
        self.turn = turn
        self.dealer = dealer

    def copy(self) -> Deal:
        """An independent copy (the stock is only read from the front, so it is shared)."""
        return Deal(
            [self.hands[0][:], self.hands[1][:]],
            self.table[:],
            self.stock,
            [self.acc[0][:], self.acc[1][:]],
            self.scope[:],
            self.last,
            self.turn,
            self.dealer,
        )

    def is_last_play(self) -> bool:
        """Whether the next play is the deal's very last one (no scopa for it)."""
        return not self.stock and len(self.hands[0]) + len(self.hands[1]) == 1

    def play(self, card: int, group: Sequence[int]) -> None:
        """The seat to move plays ``card`` taking ``group`` (empty: lays it); refills."""
        seat = self.turn
        hand = self.hands[seat]
        hand.remove(card)
        table = self.table
        if group:
            last_play = not self.stock and not hand and not self.hands[1 - seat]
            for t in group:
                table.remove(t)
            a = self.acc[seat]
            _take(a, card)
            for t in group:
                _take(a, t)
            if not table and not last_play:
                self.scope[seat] += 1
            self.last = seat
        else:
            table.append(card)
        self.turn = 1 - seat
        if not hand and not self.hands[1 - seat] and self.stock:
            first = 1 - self.dealer
            stock = self.stock
            self.hands[first] = list(stock[0:3])
            self.hands[1 - first] = list(stock[3:6])
            self.stock = stock[6:]

    def over(self) -> bool:
        """Hands and stock empty: the deal is over."""
        return not self.hands[0] and not self.hands[1] and not self.stock

    def points(self) -> tuple[int, int]:
        """Deal points (scope and awards), leftovers going to the last capturer."""
        acc = [self.acc[0][:], self.acc[1][:]]
        if self.table and self.last is not None:
            for t in self.table:
                _take(acc[self.last], t)
        a, b = acc
        p = [self.scope[0], self.scope[1]]
        if a[0] != b[0]:
            p[0 if a[0] > b[0] else 1] += 1
        if a[1] != b[1]:
            p[0 if a[1] > b[1] else 1] += 1
        if a[2]:
            p[0] += 1
        elif b[2]:
            p[1] += 1
        qa = a[3] and a[4] and a[5] and a[6]
        qb = b[3] and b[4] and b[5] and b[6]
        if qa and qb:
            sa, sb = a[3] + a[4] + a[5] + a[6], b[3] + b[4] + b[5] + b[6]
            if sa != sb:
                p[0 if sa > sb else 1] += 1
        elif qa:
            p[0] += 1
        elif qb:
            p[1] += 1
        return p[0], p[1]


def _take(a: list[int], c: int) -> None:
    a[0] += 1
    suit = c // 10
    if suit == DIAMONDS:
        a[1] += 1
        if c == SETTEBELLO:
            a[2] = 1
    v = PRIM[c]
    if v > a[3 + suit]:
        a[3 + suit] = v


def _acc_of(pile: Sequence[Card]) -> list[int]:
    a = [0, 0, 0, 0, 0, 0, 0]
    for card in pile:
        _take(a, INDEX[card])
    return a


def best_move(hand: Sequence[int], table: Sequence[int], last: bool) -> tuple[int, tuple[int, ...]]:
    """The rollout player's move as (card, table positions taken): the most valuable
    capture (a sweep above all, unless ``last``), else the least valuable card to lay;
    either way avoiding a table the opponent could sweep."""
    values = tuple([VAL[t] for t in table])
    options = _CAPTURES.get(values)
    if options is None:
        options = capture_table(values)
    tsum = sum(values)
    ntable = len(table)
    best: tuple[int, tuple[int, ...]] = (hand[0], ())
    best_score = -1e9
    for c in hand:
        v = VAL[c]
        gs = options[v]
        if gs:
            for ig in gs:
                s = WORTH[c]
                for i in ig:
                    s += WORTH[table[i]]
                if len(ig) == ntable:
                    if not last:
                        s += SWEEP_BONUS
                elif tsum - v <= 10:
                    s -= SWEEP_RISK
                if s > best_score:
                    best_score, best = s, (c, ig)
        else:
            s = -WORTH[c]
            if tsum + v <= 10:
                s -= SWEEP_RISK
            if s > best_score:
                best_score, best = s, (c, ())
    return best


def score_moves(
    hand: Sequence[int], table: Sequence[int], last: bool
) -> list[tuple[int, frozenset[int], float]]:
    """Every move of ``hand`` on ``table`` as (card, cards taken, the rollout player's
    score of it): the scores :func:`best_move` maximises, for the inference."""
    values = tuple([VAL[t] for t in table])
    options = capture_table(values)
    tsum = sum(values)
    out: list[tuple[int, frozenset[int], float]] = []
    for c in hand:
        v = VAL[c]
        gs = options[v]
        if gs:
            for ig in gs:
                s = WORTH[c] + sum(WORTH[table[i]] for i in ig)
                if len(ig) == len(table):
                    if not last:
                        s += SWEEP_BONUS
                elif tsum - v <= 10:
                    s -= SWEEP_RISK
                out.append((c, frozenset(table[i] for i in ig), s))
        else:
            s = -WORTH[c]
            if tsum + v <= 10:
                s -= SWEEP_RISK
            out.append((c, frozenset(), s))
    return out


INFERENCE_TEMPERATURE = 3.0
"""How sharply the opponent is expected to prefer better plays (score units per factor e)."""
INFERENCE_TRIES = 8
"""Worlds drawn at most for one accepted world (the last one drawn is kept)."""


class Evidence:
    """The opponent's last play, as evidence about the cards still in its hand.

    The opponent chose ``card`` (taking ``taken``) on ``table`` from its hand of
    then: that card and the cards it holds now.  Under a softmax model of the
    rollout player's scores (:func:`score_moves`, :data:`INFERENCE_TEMPERATURE`),
    :meth:`likelihood` is the chance of that choice given the cards held now: a
    hand that had a far better play (a sweep, the settebello) makes the observed
    play unlikely, so worlds dealing it such a hand are mostly redrawn.
    """

    __slots__ = ("card", "table", "taken")

    def __init__(self, card: int, taken: frozenset[int], table: tuple[int, ...]) -> None:
        self.card = card
        self.taken = taken
        self.table = table

    @classmethod
    def of(cls, view: ScopaView) -> Evidence | None:
        """The evidence in ``view``: its last play, if the opponent's and made from the
        hand the opponent still holds part of (no refill or new deal since)."""
        last = view.last_play
        seat = view.seat
        if last is None or seat is None or last.seat == seat:
            return None
        if view.hand_counts[last.seat] >= 3 or not view.hand_counts[last.seat]:
            return None
        card = INDEX[last.card]
        taken = frozenset(INDEX[c] for c in last.captured)
        table = [INDEX[c] for c in view.table]
        if taken:
            table.extend(sorted(taken))
        elif table and table[-1] == card:
            table.pop()
        else:
            return None
        return cls(card, taken, tuple(table))

    def likelihood(self, held: Sequence[int]) -> float:
        """The chance that an opponent holding ``held`` besides the card played chose it."""
        scores = score_moves([self.card, *held], self.table, False)
        return choice_chance(scores, self.card, self.taken, INFERENCE_TEMPERATURE)


def rollout_choice(deal: Deal) -> tuple[int, tuple[int, ...]]:
    """The rollout player's move in ``deal`` (:func:`best_move`), the capture as cards."""
    table = deal.table
    c, ig = best_move(deal.hands[deal.turn], table, deal.is_last_play())
    return c, tuple([table[i] for i in ig])


ValueTable = list[list[float]]
"""``table[p0][p1]``: what a deal ending with points ``(p0, p1)`` is worth to the searcher."""
MAX_POINTS = 24


def _at(table: ValueTable, p: tuple[int, int]) -> float:
    return table[min(p[0], MAX_POINTS)][min(p[1], MAX_POINTS)]


def rollout(deal: Deal, value: ValueTable) -> float:
    """Play ``deal`` to its end with :func:`rollout_choice`; the value of its points.

    The same moves as ``rollout_choice`` + ``Deal.play`` in a loop, fused into one
    function on local variables (the move itself from :func:`best_move`): this loop
    is where the search spends its time.
    """
    hands = deal.hands
    table = deal.table
    stock = deal.stock
    acc = deal.acc
    scope = deal.scope
    last = deal.last
    turn = deal.turn
    first = 1 - deal.dealer
    drawn = 0
    left_in_stock = len(stock)
    while True:
        hand = hands[turn]
        other = hands[1 - turn]
        if not hand:
            if other:  # cannot happen in a real deal: the other seat plays on
                turn = 1 - turn
                continue
            if drawn >= left_in_stock:
                break
            hands[first] = list(stock[drawn : drawn + 3])
            hands[1 - first] = list(stock[drawn + 3 : drawn + 6])
            drawn += 6
            turn = first
            continue
        last_play = drawn >= left_in_stock and len(hand) + len(other) == 1
        best_card, best_group = best_move(hand, table, last_play)
        hand.remove(best_card)
        if best_group:
            a = acc[turn]
            _take(a, best_card)
            for i in reversed(best_group):
                _take(a, table.pop(i))
            if not table and not last_play:
                scope[turn] += 1
            last = turn
        else:
            table.append(best_card)
        turn = 1 - turn
    deal.stock = []
    deal.last = last
    deal.turn = turn
    return _at(value, deal.points())


def solve(deal: Deal, seat: int, value: ValueTable, alpha: float, beta: float) -> float:
    """Exact minimax (alpha-beta) value of a perfect-information deal for ``seat``."""
    if deal.over():
        return _at(value, deal.points())
    maximize = deal.turn == seat
    best = -math.inf if maximize else math.inf
    for c, g in moves(deal):
        child = deal.copy()
        child.play(c, g)
        v = solve(child, seat, value, alpha, beta)
        if maximize:
            if v > best:
                best = v
            alpha = max(alpha, v)
        else:
            if v < best:
                best = v
            beta = min(beta, v)
        if alpha >= beta:
            break
    return best


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


def moves(deal: Deal) -> list[tuple[int, tuple[int, ...]]]:
    """Every legal move of the seat to play (each card with each capture it must make)."""
    out: list[tuple[int, tuple[int, ...]]] = []
    for c in deal.hands[deal.turn]:
        gs = groups(VAL[c], deal.table)
        if gs:
            out.extend((c, g) for g in gs)
        else:
            out.append((c, ()))
    return out


def deal_from_view(view: ScopaView, rng: random.Random) -> Deal:
    """A world consistent with ``view``: the unseen cards shuffled into the opponent's
    hand and the stock (what :meth:`ScopaGame.sample_world` does, on ints)."""
    base, unseen = known_part(view)
    return sample_deal(base, unseen, view.hand_counts[1 - base.turn], rng)


def known_part(view: ScopaView) -> tuple[Deal, list[int]]:
    """The deal as the view shows it (the opponent's hand and the stock left empty) and
    the unseen cards, in deck order.  The seat to play is the view's own."""
    assert view.seat is not None
    seat = view.seat
    seen = {INDEX[c] for c in (*view.hand, *view.table, *view.piles[0], *view.piles[1])}
    hands: list[list[int]] = [[], []]
    hands[seat] = [INDEX[c] for c in view.hand]
    base = Deal(
        hands,
        [INDEX[c] for c in view.table],
        [],
        [_acc_of(view.piles[0]), _acc_of(view.piles[1])],
        [view.scope[0], view.scope[1]],
        view.last_capturer,
        seat,
        view.dealer,
    )
    return base, [i for i in range(40) if i not in seen]


def sample_deal(
    base: Deal,
    unseen: Sequence[int],
    held: int,
    rng: random.Random,
    evidence: Evidence | None = None,
) -> Deal:
    """``base`` with the unseen cards shuffled: ``held`` to the opponent, the rest the stock.

    With ``evidence`` a shuffle is kept with the chance that the opponent's hand in
    it made its last play (:meth:`Evidence.likelihood`), else drawn again, at most
    :data:`INFERENCE_TRIES` times: worlds come in proportion to how well they explain
    the opponent's play.
    """
    cards = list(unseen)
    rng.shuffle(cards)
    if evidence is not None:
        keep_likely(cards, slice(held), evidence.likelihood, rng, INFERENCE_TRIES)
    deal = base.copy()
    deal.hands[1 - base.turn] = cards[:held]
    deal.stock = cards[held:]
    return deal


DEFAULT_BUDGET = Budget(iterations=5000, seconds=0.2)
"""Sampled worlds per decision (an iteration: one world, every root play rolled out in
it), capped by 0.2 s of thinking (the decision-time goal is a 250 ms median)."""

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


class ScopaSearch:
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

    def choose(
        self,
        view: ScopaView,
        legal: Sequence[Play],
        rng: random.Random,
        budget: Budget | None = None,
    ) -> Play:
        """The legal play with the best mean point margin over sampled worlds."""
        started = time.perf_counter()
        if not legal:
            raise ValueError("no legal action to choose from")
        if len(legal) == 1:
            self.last_iterations = 0
            return legal[0]
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
