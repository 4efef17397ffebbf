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
from engine.doudizhu.combos import NUM_RANKS, RANKS, Move, all_moves
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


_PLAY_CACHE_LIMIT = 100_000
_cached_plays = 0
_PLAYS: dict[int, Play] = {}
"""Every play made so far by ``mask << 4 | combo index``: one object per card set and reading."""


def _new_play(hand: int, move: Move) -> Play:
    """The play of ``move`` from ``hand`` (canonical suits), remembered on the move."""
    global _cached_plays
    mask = 0
    for shift, n in move.shifts:
        mask |= _LOWEST[(hand >> shift) & 15][n] << shift
    key = (mask << 4) | move.combo_index
    play = _PLAYS.get(key)
    if play is None:
        cards: tuple[Card, ...] = ()
        for shift, _ in move.shifts:
            cards += _NIBBLE_CARDS[shift >> 2][(mask >> shift) & 15]
        play = Play(frozenset(cards), move.combo)
        object.__setattr__(play, "_parsed", (move, mask))
        _PLAYS[key] = play
    if _cached_plays >= _PLAY_CACHE_LIMIT:
        clear_play_cache()
    move.plays[hand & move.nibbles] = play
    _cached_plays += 1
    return play


def clear_play_cache() -> None:
    """Forget every remembered play (bounds the memory of long runs)."""
    global _cached_plays
    for m in all_moves():
        m.plays.clear()
    _PLAYS.clear()
    _cached_plays = 0


def plays_for(
    hand: int, moves: tuple[Move, ...], first: Pass | None = None
) -> tuple[Pass | Play, ...]:
    """The concrete plays of ``moves`` (each held by ``hand``), canonical suits.

    A move's play depends only on the hand's cards of the move's ranks, so it
    is remembered on the move under those bits: the same play is the same
    object across states (and carries its reading, see :class:`Play`).
    """
    out: list[Pass | Play] = [] if first is None else [first]
    for m in moves:
        play = m.plays.get(hand & m.nibbles)
        if play is None:
            play = _new_play(hand, m)
        out.append(play)
    return tuple(out)
