"""Concrete cards <-> rank counts for Dou Dizhu (rules/doudizhu.md, Cards).

A set of cards is kept as an int *mask*: rank ``r`` (0 = ``3`` … 12 = ``2``,
13 = ``BJ``, 14 = ``RJ``) owns the four bits ``4r … 4r+3``, one per suit in
the order ``S H D C`` (a joker uses the first bit of its nibble).  Bit tricks
then give the rank counts of a hand and the cards a combination takes.

Suits never matter, but every card keeps its identity, so a play names
concrete cards, and a player may play any of their cards of the ranks a
combination needs (rules/doudizhu.md, Cards, Decision).  The *listed* plays
(:func:`plays_for`, behind ``legal_actions``) use one **canonical suit
choice** so that every combination of ranks is one listed action, not one per
suit choice: of a rank, the cards first in suit order ``S H D C`` that the
hand holds (a pair of fives from ``5H 5D 5C`` is listed as ``5H 5D``;
``5H 5C`` and ``5D 5C`` are as legal, and played as chosen).
"""

from __future__ import annotations

from engine.cards import Card
from engine.doudizhu.combos import (
    COMBO_INDEX,
    KIND,
    KIND_UPTO,
    NUM_RANKS,
    RANKS,
    ROCKET,
    TWO,
    Move,
    follow_moves,
    lead,
)
from engine.doudizhu.state import Pass, Play

SUITS = "SHDC"

CARD_BIT: dict[Card, int] = {}
"""Each of the 54 cards' bit in a mask."""
for _r, _name in enumerate(RANKS):
    if len(_name) == 2:  # a joker: BJ / RJ
        CARD_BIT[Card(_name[0], _name[1])] = 1 << (4 * _r)
    else:
        for _s, _suit in enumerate(SUITS):
            CARD_BIT[Card(_name, _suit)] = 1 << (4 * _r + _s)

BIT_CARD: dict[int, Card] = {bit: card for card, bit in CARD_BIT.items()}
FULL_MASK = sum(CARD_BIT.values())

_POPCOUNT = tuple(bin(n).count("1") for n in range(16))

# _LOWEST[nibble][k]: the lowest k set bits of nibble, or -1 when it has fewer.
_LOWEST: tuple[tuple[int, ...], ...] = tuple(
    tuple(
        sum(b for b in (1, 2, 4, 8) if nib & b and bin(nib & (b - 1)).count("1") < k)
        if k <= _POPCOUNT[nib]
        else -1
        for k in range(5)
    )
    for nib in range(16)
)

# _NIBBLE_CARDS[r][nibble]: the cards of rank r whose bits are set in nibble.
_NIBBLE_CARDS: tuple[tuple[tuple[Card, ...], ...], ...] = tuple(
    tuple(
        tuple(
            BIT_CARD[1 << (4 * r + s)]
            for s in range(4)
            if nib & (1 << s) and (1 << (4 * r + s)) in BIT_CARD
        )
        for nib in range(16)
    )
    for r in range(NUM_RANKS)
)


def mask_of(cards: object) -> int:
    """The mask of an iterable of cards; ``-1`` if one is not a Dou Dizhu card or repeats."""
    mask = 0
    n = 0
    get = CARD_BIT.get
    try:
        for card in cards:  # type: ignore[attr-defined]
            bit = get(card, 0)
            if not bit or mask & bit:
                return -1
            mask |= bit
            n += 1
    except TypeError:
        return -1
    return mask


def cards_of(mask: int) -> tuple[Card, ...]:
    """The cards of a mask, weakest rank first, suits in order S H D C."""
    out: tuple[Card, ...] = ()
    r = 0
    while mask:
        nib = mask & 15
        if nib:
            out += _NIBBLE_CARDS[r][nib]
        mask >>= 4
        r += 1
    return out


def packed_counts(mask: int) -> int:
    """The rank counts of a mask, packed 4 bits per rank (see combos.pack)."""
    packed = 0
    shift = 0
    while mask:
        packed |= _POPCOUNT[mask & 15] << shift
        mask >>= 4
        shift += 4
    return packed


_new = object.__new__
_set_combo = vars(Play)["combo"].__set__
_set_parsed = vars(Play)["_parsed"].__set__

_ONES = sum(1 << (4 * r) for r in range(NUM_RANKS))
_BIT0, _BITS01, _BITS012 = _ONES, 3 * _ONES, 7 * _ONES
"""Per nibble: the first suit's bit, the first two, the first three."""


def first_cards(mask: int) -> int:
    """Of each rank in ``mask``, the held card first in suit order ``S H D C``."""
    return mask & ~(((mask & _BITS012) << 1) | ((mask & _BITS01) << 2) | ((mask & _BIT0) << 3))


def canonical_mask(hand: int, move: Move) -> int:
    """The cards of ``hand`` that the listed play of ``move`` takes (canonical suits)."""
    mask = 0
    for shift, n in move.shifts:
        mask |= _LOWEST[(hand >> shift) & 15][n] << shift
    return mask


def _listed_play(move: Move, mask: int) -> Play:
    """The play of ``move`` taking the cards ``mask``, with its reading."""
    play = Play(frozenset(cards_of(mask)), move.combo)
    _set_parsed(play, (move, mask))
    return play


# every n-of-a-kind move holds its plays by the hand's nibble of its rank, and
# KIND_PLAYS[r][nibble] lists the plays of every n-of-a-kind move of rank r
# a hand holding the cards ``nibble`` of that rank can make (KIND_UPTO order)
for _r in range(NUM_RANKS):
    for _m in KIND_UPTO[_r][4 if _r <= TWO else 1]:
        _m.plays = tuple(
            _listed_play(_m, canonical_mask(_nib << (4 * _r), _m))
            if _POPCOUNT[_nib] >= _m.size
            else None
            for _nib in range(16)
        )
KIND_PLAYS: tuple[tuple[tuple[Play, ...], ...], ...] = tuple(
    tuple(
        tuple(m.plays[nib] for m in KIND_UPTO[r][_POPCOUNT[nib]])
        if r <= TWO or _POPCOUNT[nib] <= 1
        else ()
        for nib in range(16)
    )
    for r in range(NUM_RANKS)
)


def plays_for(
    hand: int, moves: tuple[Move, ...], first: Pass | None = None
) -> tuple[Pass | Play, ...]:
    """The concrete plays of ``moves`` (each held by ``hand``), canonical suits.

    The play of an n-of-a-kind move is looked up by the hand's cards of its
    rank (the same play object across states).  Other moves are cut from the
    hand's first, first two and first three cards of every rank, worked out
    once, by the nibbles of the ranks the move takes 1, 2, 3 or 4 cards of
    (:attr:`Move.layers`); their ``cards`` wait until asked for (see
    :class:`Play`).
    """
    out: list[Pass | Play] = [] if first is None else [first]
    append = out.append
    one = two = three = -1
    for m in moves:
        shift = m.shift
        if shift >= 0:
            append(m.plays[(hand >> shift) & 15])
            continue
        if one < 0:
            one = first_cards(hand)
            rest = hand ^ one
            second = first_cards(rest)
            two = one | second
            three = two | first_cards(rest ^ second)
        a, b, c, d = m.layers
        play = _new(Play)
        _set_combo(play, m.combo)
        _set_parsed(play, (m, (one & a) | (two & b) | (three & c) | (hand & d)))
        append(play)
    return tuple(out)


def lead_plays(hand: int, packed: int) -> tuple[Play, ...]:
    """The concrete plays of every lead of ``hand`` (``packed``: its rank counts).

    The same plays in the same order as ``plays_for(hand, lead_moves(packed))``,
    the n-of-a-kind ones taken a rank at a time from :data:`KIND_PLAYS`.
    """
    parts = lead(packed)
    out: list[Play] = []
    ext = out.extend
    for r in parts.ranks:
        ext(KIND_PLAYS[r][(hand >> (4 * r)) & 15])
    if parts.others:
        ext(plays_for(hand, parts.others))  # type: ignore[arg-type]
    return tuple(out)


_TRIPLE_INDEX = COMBO_INDEX["triple"]
_BOMBS = KIND[4]
_BOTH_JOKERS = ROCKET.packed
_ROCKET_PLAY = _listed_play(ROCKET, canonical_mask(ROCKET.nibbles, ROCKET))


def follow_plays(hand: int, packed: int, target: Move, first: Pass) -> tuple[Pass | Play, ...]:
    """``first`` (the pass), then the concrete plays of every move of ``hand`` that beats
    ``target``: the same plays in the same order as
    ``plays_for(hand, follow_moves(packed, target), first)``, those beating a single,
    pair or triple (the usual case) looked up a rank at a time.
    """
    if target.combo_index > _TRIPLE_INDEX:
        return plays_for(hand, follow_moves(packed, target), first)
    out: list[Pass | Play] = [first]
    append = out.append
    n = target.size
    row = KIND[n]
    if n == 1:  # the ranks holding at least n cards (combos.ranks_holding), inline
        bits = (packed | (packed >> 1) | (packed >> 2)) & _ONES
    elif n == 2:
        bits = ((packed >> 1) | (packed >> 2)) & _ONES
    else:
        bits = ((packed & (packed >> 1)) | (packed >> 2)) & _ONES
    bits &= -1 << (4 * target.main + 4)
    while bits:
        low = bits & -bits
        shift = low.bit_length() - 1
        append(row[shift >> 2].plays[(hand >> shift) & 15])  # type: ignore[union-attr]
        bits ^= low
    bits = (packed >> 2) & _ONES
    while bits:  # bombs: every card of the rank
        low = bits & -bits
        append(_BOMBS[low.bit_length() >> 2].plays[15])  # type: ignore[union-attr]
        bits ^= low
    if packed & _BOTH_JOKERS == _BOTH_JOKERS:
        append(_ROCKET_PLAY)
    return tuple(out)
