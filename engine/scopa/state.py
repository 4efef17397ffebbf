"""Scopa values: options, the action, the deal, the state and the view (rules/scopa.md)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from engine.cards import Card
from engine.frozen import fast_init
from engine.game import GameOptions

Hand = tuple[Card, ...]


@dataclass(frozen=True)
class ScopaOptions(GameOptions):
    """Table options: the match target (rules/scopa.md, The match) and the pattern.

    ``deals`` (0: no limit) ends the match after that many deals whatever the
    totals, the higher total winning and equal totals drawing: duplicate play
    (docs/duplicate.md) compares one deal, which a match to ``target`` is not.
    """

    target: int = 11
    deals: int = 0

    def __post_init__(self) -> None:
        if not 1 <= self.target <= 100:
            raise ValueError("target must be between 1 and 100")
        if not 0 <= self.deals <= 100:
            raise ValueError("deals must be between 0 (no limit) and 100")


@fast_init
@dataclass(frozen=True, slots=True)
class Play:
    """Play ``card`` from the hand, capturing ``capture`` (empty: lay it on the table)."""

    kind: ClassVar[str] = "play"
    interned: ClassVar[bool] = True
    """The game's legal moves hold one Play per move (engine.codec keeps their plain
    forms; see ``engine.scopa.game``)."""
    card: Card
    capture: frozenset[Card] = frozenset()


@fast_init
@dataclass(frozen=True, slots=True)
class LastPlay:
    """The most recent play, public to everyone."""

    seat: int
    card: Card
    captured: tuple[Card, ...]
    scopa: bool


@fast_init
@dataclass(frozen=True, slots=True)
class DealScore:
    """The scoring of one completed deal (rules/scopa.md, End of a deal).

    Each ``*_award`` is the seat that won the point, or ``None`` on a tie (or,
    for primiera, when nobody qualified).  ``primiera`` is ``None`` for a seat
    that lacks a suit.
    """

    cards: tuple[int, int]
    diamonds: tuple[int, int]
    primiera: tuple[int | None, int | None]
    scope: tuple[int, int]
    cards_award: int | None
    diamonds_award: int | None
    settebello_award: int | None
    primiera_award: int | None
    points: tuple[int, int]


@fast_init
@dataclass(frozen=True, slots=True)
class ScopaDeal:
    """An explicit position for tests: ``stock`` is drawn from its start.

    ``piles``, ``scope`` and ``last_capturer`` describe a deal already under
    way; ``turn`` defaults to the non-dealer (who plays first).
    """

    dealer: int
    hands: tuple[Hand, Hand]
    table: tuple[Card, ...]
    stock: tuple[Card, ...]
    piles: tuple[tuple[Card, ...], tuple[Card, ...]] = ((), ())
    scope: tuple[int, int] = (0, 0)
    last_capturer: int | None = None
    turn: int | None = None
    totals: tuple[int, int] = (0, 0)
    deal_no: int = 0
    seed: int = 0


@fast_init
@dataclass(frozen=True, slots=True)
class ScopaState:
    """The full, secret state of a Scopa match (never sent to anyone)."""

    options: ScopaOptions
    seed: int
    deal_no: int
    redeals: int
    dealer: int
    turn: int | None
    hands: tuple[Hand, Hand]
    table: tuple[Card, ...]
    stock: tuple[Card, ...]
    piles: tuple[tuple[Card, ...], tuple[Card, ...]]
    scope: tuple[int, int]
    last_capturer: int | None
    totals: tuple[int, int]
    history: tuple[DealScore, ...]
    last_play: LastPlay | None
    winner: int | None


@fast_init
@dataclass(frozen=True, slots=True)
class ScopaView:
    """What one seat (or a spectator, ``seat=None``) may know (rules/scopa.md).

    Own hand only; the opponent's hand and the stock as counts; the table,
    captured piles, scopa counts and scores are public.  ``legal`` lists the
    seat's legal plays when it is that seat's turn.
    """

    options: ScopaOptions
    seat: int | None
    to_act: tuple[int, ...]
    dealer: int
    deal_no: int
    hand: Hand
    hand_counts: tuple[int, int]
    table: tuple[Card, ...]
    stock_count: int
    piles: tuple[tuple[Card, ...], tuple[Card, ...]]
    scope: tuple[int, int]
    last_capturer: int | None
    totals: tuple[int, int]
    history: tuple[DealScore, ...]
    last_play: LastPlay | None
    over: bool
    winner: int | None
    legal: tuple[Play, ...]
