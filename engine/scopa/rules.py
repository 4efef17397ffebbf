"""Scopa's capture rule and deal scoring (rules/scopa.md)."""

from __future__ import annotations

from collections.abc import Sequence

from engine.capture import groups_summing_to, majority
from engine.cards import Card
from engine.scopa.state import DealScore

VALUE: dict[str, int] = {
    "A": 1,
    "2": 2,
    "3": 3,
    "4": 4,
    "5": 5,
    "6": 6,
    "7": 7,
    "J": 8,
    "Q": 9,
    "K": 10,
}
"""Capture values (Cards): A = 1, 2–7 as printed, J = 8, Q = 9, K = 10."""

PRIMIERA: dict[str, int] = {
    "7": 21,
    "6": 18,
    "A": 16,
    "5": 15,
    "4": 14,
    "3": 13,
    "2": 12,
    "J": 10,
    "Q": 10,
    "K": 10,
}
"""Primiera values (End of a deal, award 4); they differ from capture values."""

SUITS = "SHDC"
SETTEBELLO = Card("7", "D")
PRIME_SUIT = "D"


def capture_options(
    card: Card, table: Sequence[Card], pairs: Sequence[tuple[Card, int]] | None = None
) -> tuple[frozenset[Card], ...]:
    """The captures ``card`` may make on ``table`` (A turn).

    Table cards of the same value come first and exclude sums: the player
    takes exactly one of them.  Only without such a card may a group of two or
    more cards summing to the value be taken.  Empty: the card cannot capture.
    ``pairs``: ``table`` paired with each card's value (:func:`valued`), when the
    caller asks for several cards on one table.
    """
    value = VALUE[card.rank]
    if pairs is None:
        pairs = valued(table)
    singles = tuple([frozenset((t,)) for t, v in pairs if v == value])
    if singles:
        return singles
    return groups_summing_to(pairs, value)


def capture_allowed(card: Card, capture: frozenset[Card], table: Sequence[Card]) -> bool:
    """Whether playing ``card`` may take ``capture`` (empty: lay it) on ``table``
    (A turn): ``capture in capture_options(card, table)``, or ``capture`` empty when
    that is empty, without listing the options.

    A table card of the card's value must be taken, alone; without one, a
    group of two or more table cards adding up to the value may be taken, and
    if any such group exists, one must be.  Whether one exists is a subset
    sum over at most a few small values (a bit set of the sums reachable).
    """
    value = VALUE[card.rank]
    values = [VALUE[t.rank] for t in table]
    if value in values:  # a single of this value: exactly one such card
        if len(capture) != 1:
            return False
        (taken,) = capture
        return taken in table and VALUE[taken.rank] == value
    if capture:
        return (
            len(capture) >= 2
            and all(c in table for c in capture)
            and sum(VALUE[c.rank] for c in capture) == value
        )
    return not (reachable_sums(values) >> value) & 1  # no group to take: the card is laid


def reachable_sums(values: Sequence[int]) -> int:
    """Bit *i* set: some of ``values`` (none, one or more) add up to *i*.

    A card of value *v* captures something on a table of these values exactly
    when bit *v* is set (a single of that value, or else a group of two or more).
    """
    reachable = 1
    for v in values:
        reachable |= reachable << v
    return reachable


def valued(table: Sequence[Card]) -> list[tuple[Card, int]]:
    """Each table card with its capture value (for :func:`capture_options`)."""
    return [(t, VALUE[t.rank]) for t in table]


def primiera_sum(pile: Sequence[Card]) -> int | None:
    """The best card of each suit by primiera value, added; ``None`` if a suit is missing."""
    best = dict.fromkeys(SUITS, 0)
    for c in pile:
        v = PRIMIERA[c.rank]
        if v > best[c.suit]:
            best[c.suit] = v
    if not all(best.values()):
        return None
    return sum(best.values())


def score_deal(piles: tuple[Sequence[Card], Sequence[Card]], scope: tuple[int, int]) -> DealScore:
    """Score a completed deal: scope plus the four awards, a tie giving nobody the point."""
    cards = (len(piles[0]), len(piles[1]))
    diamonds = (
        sum(1 for c in piles[0] if c.suit == PRIME_SUIT),
        sum(1 for c in piles[1] if c.suit == PRIME_SUIT),
    )
    prim = (primiera_sum(piles[0]), primiera_sum(piles[1]))
    if prim[0] is None and prim[1] is None:
        prim_award = None
    elif prim[1] is None:
        prim_award = 0
    elif prim[0] is None:
        prim_award = 1
    else:
        prim_award = majority(prim[0], prim[1])
    sette = 0 if SETTEBELLO in piles[0] else 1 if SETTEBELLO in piles[1] else None
    awards = (majority(*cards), majority(*diamonds), sette, prim_award)
    points = (
        scope[0] + sum(1 for a in awards if a == 0),
        scope[1] + sum(1 for a in awards if a == 1),
    )
    return DealScore(
        cards=cards,
        diamonds=diamonds,
        primiera=prim,
        scope=scope,
        cards_award=awards[0],
        diamonds_award=awards[1],
        settebello_award=awards[2],
        primiera_award=awards[3],
        points=points,
    )


def match_winner(totals: tuple[int, int], target: int) -> int | None:
    """The match winner after a deal: at least ``target`` and strictly ahead (The match)."""
    if max(totals) >= target and totals[0] != totals[1]:
        return 0 if totals[0] > totals[1] else 1
    return None
