"""The concrete plays ``legal_actions`` lists, against a plain reference (Cards, Decision).

The engine lists plays from tables and bit tricks (engine.doudizhu.hands) and
leaves the ``cards`` of most of them to be built when first asked for; these
tests pin the result to the definition: every move of ``lead_moves`` /
``follow_moves`` in that order, each with the held cards first in suit order
``S H D C`` of every rank it needs, behaving as a plainly built :class:`Play`.
"""

from __future__ import annotations

import pickle
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cards import DOUDIZHU_54, Card
from engine.codec import from_plain, to_plain
from engine.doudizhu.combos import Move, follow_moves, lead_moves
from engine.doudizhu.game import read_play
from engine.doudizhu.hands import (
    SUITS,
    follow_plays,
    lead_plays,
    mask_of,
    packed_counts,
    plays_for,
)
from engine.doudizhu.state import Pass, Play

from .helpers import GAME, OPTIONS

PASS = Pass()
_SUIT_ORDER = {s: i for i, s in enumerate(SUITS)}
_RANK_ORDER = {name: r for r, name in enumerate("3456789TJQKA2")}


def _rank(card: Card) -> int:
    jokers = {"B": 13, "R": 14}  # BJ, RJ
    return jokers[card.rank] if card.rank in jokers else _RANK_ORDER[card.rank]


def reference(hand: tuple[Card, ...], move: Move) -> Play:
    """The listed play of ``move`` by definition: of each rank, the first held cards."""
    chosen: list[Card] = []
    for r, n in move.picks:
        held = sorted((c for c in hand if _rank(c) == r), key=lambda c: _SUIT_ORDER.get(c.suit, 0))
        chosen += held[:n]
    return Play(frozenset(chosen), move.combo)


hands = st.lists(st.sampled_from(DOUDIZHU_54.cards), min_size=1, max_size=20, unique=True)


def _check(
    listed: tuple[Pass | Play, ...], hand: tuple[Card, ...], moves: tuple[Move, ...]
) -> None:
    assert len(listed) == len(moves)
    for play, move in zip(listed, moves, strict=True):
        assert isinstance(play, Play)
        want = reference(hand, move)
        assert read_play(play)[0] is move
        assert read_play(play)[1] == mask_of(want.cards)
        assert play == want and hash(play) == hash(want)
        assert play.cards == want.cards and play.combo == want.combo


@settings(max_examples=150, deadline=None)
@given(hands)
def test_leads_are_every_lead_move_in_order_in_the_first_suits(cards: list[Card]) -> None:
    hand = tuple(cards)
    mask, packed = mask_of(hand), packed_counts(mask_of(hand))
    listed = lead_plays(mask, packed)
    _check(listed, hand, lead_moves(packed))
    assert listed == plays_for(mask, lead_moves(packed))


@settings(max_examples=150, deadline=None)
@given(hands, st.lists(st.sampled_from(DOUDIZHU_54.cards), min_size=1, max_size=12, unique=True))
def test_follows_are_the_pass_then_every_beating_move_in_order(
    cards: list[Card], other: list[Card]
) -> None:
    hand = tuple(cards)
    mask, packed = mask_of(hand), packed_counts(mask_of(hand))
    for target in lead_moves(packed_counts(mask_of(other))):
        listed = follow_plays(mask, packed, target, PASS)
        assert listed[0] is PASS
        moves = follow_moves(packed, target)
        _check(listed[1:], hand, moves)
        assert listed == plays_for(mask, moves, PASS)


def test_listed_plays_behave_as_plainly_built_ones() -> None:
    """Cards built late or early: equal, hashed, pickled, sent and read back alike."""
    rng = random.Random(3)
    for _ in range(30):
        state = GAME.new_state(OPTIONS, rng.getrandbits(63))
        seat = state.turn
        assert seat is not None
        hand = state.hands[seat]
        for play in lead_plays(hand, packed_counts(hand)):
            assert isinstance(play, Play)
            plain = Play(frozenset(play.cards), play.combo)
            copy = pickle.loads(pickle.dumps(play))
            assert copy == play == plain and hash(copy) == hash(plain)
            assert to_plain(play) == to_plain(plain)
            assert from_plain(Play, to_plain(play), "action") == play
        fresh = lead_plays(hand, packed_counts(hand))[-1]
        assert isinstance(fresh, Play)
        assert pickle.loads(pickle.dumps(fresh)).cards == fresh.cards  # pickled before read


def test_a_play_has_no_other_late_attribute() -> None:
    play = lead_plays(mask_of(DOUDIZHU_54.parse_many("3S 4S 5S 6S 7S")), pack_of("34567"))[-1]
    assert isinstance(play, Play) and play.combo == "straight"
    try:
        play.nothing  # type: ignore[attr-defined]  # noqa: B018
    except AttributeError as exc:
        assert "nothing" in str(exc)
    else:
        raise AssertionError("an unknown attribute must raise AttributeError")


def pack_of(ranks: str) -> int:
    """Packed counts of one character per card, ranks ``3``…``2``."""
    counts = [0] * 15
    for ch in ranks:
        counts[_RANK_ORDER[ch]] += 1
    return sum(n << (4 * r) for r, n in enumerate(counts))
