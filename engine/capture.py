"""Capture enumeration shared by the scopa family (rules/scopa.md, rules/cicera.md).

Both Scopa and Cicera let a played card take a *group* of two or more table
cards whose values add up to the card's value.  The games differ in which
cards have values and whether a single match takes priority; that stays in
each game.  This module answers "which groups sum to N" and "who holds the majority".
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from engine.cards import Card


def groups_summing_to(
    cards: Sequence[tuple[Card, int]], target: int, min_size: int = 2
) -> tuple[frozenset[Card], ...]:
    """Every set of at least ``min_size`` of ``cards`` whose values sum to ``target``.

    ``cards`` pairs each table card with its (positive) value.  Groups are
    returned in a deterministic order (by position of their cards in ``cards``).
    """
    out: list[frozenset[Card]] = []
    n = len(cards)
    # suffix sums allow pruning branches that cannot reach the target any more
    suffix = [0] * (n + 1)
    for i in range(n - 1, -1, -1):
        suffix[i] = suffix[i + 1] + cards[i][1]
    if target > 0:
        _walk_groups(cards, suffix, min_size, 0, target, [], out)
    return tuple(out)


def _walk_groups(
    cards: Sequence[tuple[Card, int]],
    suffix: Sequence[int],
    min_size: int,
    start: int,
    remaining: int,
    chosen: list[Card],
    out: list[frozenset[Card]],
) -> None:
    """Append to ``out`` the groups of ``cards[start:]`` that add ``remaining`` to ``chosen``.

    A module-level function, not a closure: a recursive closure is a reference
    cycle, garbage only the cyclic collector frees (engine.collector).
    """
    if remaining == 0:
        if len(chosen) >= min_size:
            out.append(frozenset(chosen))
        return
    if suffix[start] < remaining:
        return
    for i in range(start, len(cards)):
        card, value = cards[i]
        if value <= remaining:
            chosen.append(card)
            _walk_groups(cards, suffix, min_size, i + 1, remaining - value, chosen, out)
            chosen.pop()


def majority(a: int, b: int) -> int | None:
    """Side 0 or 1 with strictly more, ``None`` on a tie (a tied award gives nobody the point)."""
    if a == b:
        return None
    return 0 if a > b else 1


def table_before(card: int, taken: frozenset[int], table: list[int]) -> list[int] | None:
    """The table a play was made on, from ``table`` after it (changed in place).

    A capture puts the cards it took back (in card order, after the rest); a
    card laid is taken off the end again.  ``None`` when ``table`` does not end
    with the card laid, so it cannot show the play.  Cards are the AI's ints.
    """
    if taken:
        table.extend(sorted(taken))
    elif table and table[-1] == card:
        table.pop()
    else:
        return None
    return table


def play_seen(
    card: Card, captured: Iterable[Card], table: Iterable[Card], index: Mapping[Card, int]
) -> tuple[int, frozenset[int], list[int]] | None:
    """A play seen, in the AI's ints (``index``): the card, the cards it took and the
    table it was made on (:func:`table_before` of ``table``, the table after it).

    ``None`` when ``table`` cannot show the play.
    """
    played = index[card]
    taken = frozenset(index[c] for c in captured)
    before = table_before(played, taken, [index[c] for c in table])
    return None if before is None else (played, taken, before)
