"""The fast, Scopa-only simulator of ``hard`` (rules/scopa.md): deals on plain ints.

The generic :mod:`engine.search` plays its imagined deals through the full
``Game.apply`` (frozen states, events, validation).  Here the rest of a deal is
played on plain ints and lists instead: about five times as many rollouts in the
same think time (1,548 against 291 in 0.2 s from an opening position).

* Cards are ints ``0..39`` in :data:`~engine.cards.SCOPA_40` order:
  ``suit * 10 + rank``, so the capture value is ``card % 10 + 1`` and the
  suit is ``card // 10`` (S H D C; diamonds are suit 2, the settebello 26).
* :class:`Deal` is a deal in progress; each side of a rollout follows
  :func:`rollout_choice` (the rollout player, :func:`best_move`), and
  :func:`rollout` is that loop fused for speed.
* With the stock empty the rest of a deal is solved exactly by minimax
  (:func:`solve`).  A finished deal is valued by a :data:`ValueTable` of its points.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from engine.cards import SCOPA_40, Card

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
    _walk_sums(values, 0, 0, (), sums)
    out: list[IndexGroups] = [()]
    for v in range(1, 11):
        singles = tuple((i,) for i in range(n) if values[i] == v)
        out.append(singles if singles else tuple(sums[v]))
    result = tuple(out)
    if len(_CAPTURES) >= _CAPTURES_MAX:
        _CAPTURES.clear()
    _CAPTURES[values] = result
    return result


def _walk_sums(
    values: tuple[int, ...],
    start: int,
    total: int,
    chosen: tuple[int, ...],
    sums: list[list[tuple[int, ...]]],
) -> None:
    """Add to ``sums[s]`` every group of two or more positions from ``start`` on that
    extends ``chosen`` (worth ``total``) to ``s`` ≤ 10.

    A module-level function, not a closure: a recursive closure is a reference
    cycle, garbage only the cyclic collector frees (engine.collector).
    """
    for i in range(start, len(values)):
        s = total + values[i]
        if s <= 10:
            picked = (*chosen, i)
            if chosen:
                sums[s].append(picked)
            _walk_sums(values, i + 1, s, picked, sums)


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


def acc_of(pile: Sequence[Card]) -> list[int]:
    """The accumulator ``acc`` of :class:`Deal` for a pile of ``Card`` s."""
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
