"""The rule-based Dou Dizhu player ``normal`` (issue 7).

``normal`` plans with hand decomposition (engine.doudizhu.ai.hand): it leads
the weakest group of its cheapest split (kickers are the lowest loose singles
and pairs, never a piece of a chain, a bomb or the rocket), follows with the
move that leaves the cheapest hand, keeps bombs and the rocket for when an
opponent is close to going out or when they win the deal, and plays as a
team when it is a farmer: it lets the partner's play stand, feeds a partner
about to go out the lowest card, and never leads singles (pairs) into an
opponent holding one card (two) unless they cannot be beaten.  Its auction
bid rises with jokers, twos, bombs and a short decomposition.

The decision core, :func:`decide`, works on rank counts only (no concrete
cards), so the search (engine.doudizhu.ai.search) can use it in rollouts.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import NamedTuple

from engine.doudizhu.ai.hand import Group, cost, plan, plays, plays_at_most
from engine.doudizhu.combos import (
    ACE,
    BLACK_JOKER,
    COMBO_INDEX,
    NUM_RANKS,
    RED_JOKER,
    TWO,
    Move,
    follow_moves,
    lead,
    move_of,
)
from engine.doudizhu.game import read_play
from engine.doudizhu.hands import mask_of, packed_counts
from engine.doudizhu.state import Action, Bid, DoudizhuView, Pass, Play
from engine.game import Budget
from engine.policy import BasePolicy

FULL_PACKED = sum((4 if r <= TWO else 1) << (4 * r) for r in range(NUM_RANKS))
"""The rank counts of the whole 54-card deck, packed."""
_BOMB_LIKE = ("bomb", "rocket")
LANDLORD_LIMIT = 0.0
FARMER_LIMIT = 0.0
"""How much worse (in plan cost) a hand may get by answering an opponent's play."""


class Situation(NamedTuple):
    """What the decision core needs beside the hand: seats, counts and unseen cards.

    ``left`` holds the cards left in each hand; ``unseen`` the packed counts
    of the cards the deciding seat cannot see (in the other two hands).
    """

    seat: int
    landlord: int
    left: tuple[int, int, int]
    last_seat: int | None
    unseen: int


def _count(packed: int, r: int) -> int:
    return (packed >> (4 * r)) & 15


_SINGLE = COMBO_INDEX["single"]
_PAIR = COMBO_INDEX["pair"]


def _move_of(g: Group) -> Move:
    """The move of a planned group of a hand whose leads were listed (:func:`_lead`)."""
    return move_of(COMBO_INDEX[g.combo], g.packed)


def _is_boss(move: Move, unseen: int) -> bool:
    """No cards the seat cannot see could beat ``move`` (so it wins the lead back)."""
    return not follow_moves(unseen, move)


def _low(g: Group) -> int:
    return g.main - g.length + 1


def decide(hand: int, last: Move | None, sit: Situation) -> Move | None:
    """The normal player's move at rank level; ``None`` passes (only when following)."""
    if last is None:
        return _lead(hand, sit)
    return _follow(hand, last, sit)


def _lead(hand: int, sit: Situation) -> Move:
    whole = lead(hand).whole  # lists the hand's leads: _move_of finds its groups
    if whole is not None:
        return whole
    seat, landlord, left = sit.seat, sit.landlord, sit.left
    opponents = [s for s in range(3) if s != seat and (seat == landlord or s == landlord)]
    partner = next((s for s in range(3) if s not in opponents and s != seat), None)
    groups = plan(hand).groups
    ordinary = [g for g in groups if g.combo not in _BOMB_LIKE]
    if not ordinary:  # only bombs and the rocket: the lowest first
        return _move_of(min(groups, key=lambda g: g.main))
    if len(groups) == 2 or (len(ordinary) == 1 and len(groups) > 1):
        # one play from the end: lead what wins the lead back, then go out
        for g in sorted(groups, key=lambda g: g.combo in _BOMB_LIKE):
            m = _move_of(g)
            if m.combo in _BOMB_LIKE or _is_boss(m, sit.unseen):
                return m
    if partner is not None and partner == (seat + 1) % 3 and left[partner] <= 2:
        # feed the partner: our lowest card as a single (our lowest pair)
        need = left[partner]
        for r in range(NUM_RANKS):
            if _count(hand, r) >= need:
                return move_of(_SINGLE if need == 1 else _PAIR, need << (4 * r))
    danger = min(left[s] for s in opponents)
    if danger <= 2:
        risky = "single" if danger == 1 else "pair"
        safe = [g for g in ordinary if g.combo != risky]
        if safe:
            ordinary = safe
        else:  # only risky groups: the highest first, unless one is a sure winner
            return _move_of(max(ordinary, key=lambda g: g.main))

    # the weakest group first; twos, jokers and sure winners are kept for control
    def key(g: Group) -> tuple[int, int, int]:
        control = 1 if g.main >= TWO else 0
        return (control, _low(g), -_size(g))

    return _move_of(min(ordinary, key=key))


def _size(g: Group) -> int:
    packed = g.packed
    total = 0
    while packed:
        total += packed & 15
        packed >>= 4
    return total


def _follow(hand: int, last: Move, sit: Situation) -> Move | None:
    cands = follow_moves(hand, last)
    if not cands:
        return None
    for m in cands:
        if m.packed == hand:
            return m
    seat, landlord, left = sit.seat, sit.landlord, sit.left
    last_seat = sit.last_seat
    assert last_seat is not None
    farmer = seat != landlord
    partner_played = farmer and last_seat != landlord
    base = cost(hand)
    ordinary = [m for m in cands if m.combo not in _BOMB_LIKE]
    bombs = [m for m in cands if m.combo in _BOMB_LIKE]
    best = min(ordinary, key=lambda m: cost(hand - m.packed)) if ordinary else None
    delta = cost(hand - best.packed) - base if best is not None else 99.0
    if partner_played:
        # let the partner's play stand unless we then go out at once
        if best is not None and plan(hand - best.packed).plays <= 1 and last.main < ACE:
            return best
        return None
    opponents_left = min(left[s] for s in range(3) if s != seat and (not farmer or s == landlord))
    pressure = left[last_seat] <= 2 or opponents_left <= 2
    if best is not None:
        limit = FARMER_LIMIT if farmer else LANDLORD_LIMIT
        if pressure:
            limit = 99.0
        elif left[last_seat] <= 5:
            limit = max(limit, 6.0)
        if delta <= limit:
            return best
    if bombs:
        bomb = min(bombs, key=lambda m: (m.combo == "rocket", m.main))
        rest = hand - bomb.packed
        wins_after = plan(rest).plays <= 1 if rest else True
        if wins_after or left[last_seat] <= 4 or opponents_left <= 3:
            return bomb
    if pressure and best is not None:
        return best
    return None


def situation(view: DoudizhuView) -> Situation:
    """The decision context of ``view`` (own seat, counts, the cards it cannot see)."""
    assert view.seat is not None and view.landlord is not None
    seen = packed_counts(mask_of(view.hand)) if view.hand else 0
    for turn in view.history:
        if turn.play is not None:
            seen += read_play(turn.play)[0].packed
    return Situation(view.seat, view.landlord, view.hand_counts, view.last_seat, FULL_PACKED - seen)


def play_for(legal: Sequence[Action], move: Move | None) -> Action:
    """The legal action that makes ``move`` (a pass for ``None``).

    Moves are matched by what they are (rank counts and combination), not by
    object identity: ``legal`` may have crossed a process boundary (pickled
    into an AI worker), and its plays then carry copies of the interned moves.
    """
    for a in legal:
        if move is None:
            if isinstance(a, Pass):
                return a
        elif isinstance(a, Play):
            read = read_play(a)[0]
            if read is move or (
                read.packed == move.packed and read.combo_index == move.combo_index
            ):
                return a
    raise ValueError(f"{move!r} is not among the legal actions")


def bid_strength(hand: int) -> float:
    """Auction strength of a hand: control cards minus the plays it needs."""
    return _control(hand) - 1.2 * plays(hand)


def bid_strength_at_least(hand: int) -> float:
    """A lower bound of :func:`bid_strength` without the plan's search (its plays
    bounded by :func:`~engine.doudizhu.ai.hand.plays_at_most`)."""
    return _control(hand) - 1.2 * plays_at_most(hand)


def _control(hand: int) -> float:
    """The control cards' part of :func:`bid_strength`: jokers, twos, aces, bombs."""
    c = [_count(hand, r) for r in range(NUM_RANKS)]
    score = 0.0
    if c[BLACK_JOKER] and c[RED_JOKER]:
        score += 8
    else:
        score += 3 * c[BLACK_JOKER] + 4 * c[RED_JOKER]
    score += 2 * c[TWO] + 0.5 * c[ACE]
    score += sum(6 for r in range(TWO + 1) if c[r] == 4)
    return score


BID_THRESHOLDS = (-8.0, -5.0, -2.0)
"""Strength needed to bid 1, 2, 3: about three hands in four bid, one in three bids 3.

The landlord's three extra cards and first lead make most hands worth
playing: in arena runs these beat more timid thresholds (``-3, 0, 3``) both
in win rate and in points against ``greedy`` and ``easy``."""


def choose_bid(view: DoudizhuView, legal: Sequence[Action], thresholds: Sequence[float]) -> Action:
    """Bid as high as the hand's strength allows (and the auction permits), else pass."""
    strength = bid_strength(packed_counts(mask_of(view.hand)))
    want = sum(1 for t in thresholds if strength >= t)
    bids = [a for a in legal if isinstance(a, Bid) and a.value <= want]
    if bids:
        return max(bids, key=lambda b: b.value)
    return next(a for a in legal if isinstance(a, Pass))


class NormalPolicy(BasePolicy[DoudizhuView, Action]):
    """Rule-based: decomposition planning, kicker choice, farmer cooperation."""

    name = "normal"
    lone_is_forced = True

    def __init__(self, thresholds: Sequence[float] = BID_THRESHOLDS) -> None:
        self.thresholds = tuple(thresholds)

    def decide(
        self, view: DoudizhuView, legal: Sequence[Action], rng: random.Random, budget: Budget | None
    ) -> Action:
        """The rule-based choice among ``legal`` (deterministic; ``rng`` unused)."""
        if view.phase == "bidding":
            return choose_bid(view, legal, self.thresholds)
        hand = packed_counts(mask_of(view.hand))
        last = read_play(view.last)[0] if view.last is not None else None
        return play_for(legal, decide(hand, last, situation(view)))
