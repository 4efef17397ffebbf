"""Cicera values: options, the action, the deal, the state and the view (rules/cicera.md).

Seats ``0..3`` are numbered in the order of play; partners sit opposite, so
the team of seat ``s`` is ``s % 2`` (seats 0+2 against 1+3).  Everything that
is per team (piles, bonuses, points) is a pair indexed by team.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from engine.cards import Card
from engine.frozen import fast_init
from engine.game import GameOptions

Hand = tuple[Card, ...]
Hands = tuple[Hand, Hand, Hand, Hand]
Piles = tuple[tuple[Card, ...], tuple[Card, ...]]

BONUS_NAMES: tuple[str, ...] = ("scua", "picada", "simili", "quadriglia")
"""The capture bonuses (Capture bonuses), in the order plays report them."""


@dataclass(frozen=True)
class CiceraOptions(GameOptions):
    """Table options: Cicera has none besides the card pattern (always Bresciane)."""


@fast_init
@dataclass(frozen=True, slots=True)
class Play:
    """Play ``card`` from the hand and take ``capture`` from the table (empty: Place).

    A one-card capture is a match (same rank); two or more cards are a sum of
    number cards (A turn).
    """

    kind: ClassVar[str] = "play"
    card: Card
    capture: frozenset[Card] = frozenset()


@fast_init
@dataclass(frozen=True, slots=True)
class LastPlay:
    """The most recent play, public to everyone (Picada depends on it).

    ``captured`` is empty when the card was placed on the table; ``bonuses``
    names the capture bonuses the play earned (see :data:`BONUS_NAMES`).
    """

    seat: int
    card: Card
    captured: tuple[Card, ...]
    bonuses: tuple[str, ...]


@fast_init
@dataclass(frozen=True, slots=True)
class TeamBonuses:
    """How many times one team earned each capture bonus (1 point each)."""

    scua: int = 0
    picada: int = 0
    simili: int = 0
    quadriglia: int = 0

    @property
    def total(self) -> int:
        """The points these bonuses are worth."""
        return self.scua + self.picada + self.simili + self.quadriglia

    def add(self, names: tuple[str, ...]) -> TeamBonuses:
        """These counts with one more of each bonus in ``names``."""
        if not names:
            return self
        return TeamBonuses(
            scua=self.scua + ("scua" in names),
            picada=self.picada + ("picada" in names),
            simili=self.simili + ("simili" in names),
            quadriglia=self.quadriglia + ("quadriglia" in names),
        )


@fast_init
@dataclass(frozen=True, slots=True)
class CiceraScore:
    """The scoring of the deal (End of the deal), every pair indexed by team.

    Each ``*_award`` is the team that won it, or ``None`` when it was tied or
    nobody holds the card.  ``napula`` is the length of a team's sword run
    (0 without A-2-3 of swords).  ``winner`` is ``None`` on a draw.
    ``unclaimed`` are the table cards nobody took because nobody captured.
    """

    cards: tuple[int, int]
    swords: tuple[int, int]
    cards_award: int | None
    swords_award: int | None
    mata_award: int | None
    ten_of_coins_award: int | None
    fante_of_cups_award: int | None
    napula: tuple[int, int]
    bonuses: tuple[int, int]
    awards: tuple[int, int]
    points: tuple[int, int]
    winner: int | None
    unclaimed: tuple[Card, ...]


@fast_init
@dataclass(frozen=True, slots=True)
class CiceraDeal:
    """An explicit position for tests and analysis.

    A fresh deal gives 12 cards to each hand and 4 to the table; a later
    position may also fill the team ``piles`` (then ``last_capturer`` names the
    seat that captured last).  The seat to act follows from the dealer and the
    hand sizes: play starts right of the dealer (seat ``dealer + 1``).
    """

    dealer: int
    hands: Hands
    table: tuple[Card, ...]
    piles: Piles = ((), ())
    last_capturer: int | None = None
    seed: int = 0


@fast_init
@dataclass(frozen=True, slots=True)
class CiceraState:
    """The full, secret state of one Cicera deal (never sent to anyone).

    ``turn`` is ``None`` once the deal is over; ``score`` is set then.
    """

    options: CiceraOptions
    seed: int
    dealer: int
    turn: int | None
    hands: Hands
    table: tuple[Card, ...]
    piles: Piles
    bonuses: tuple[TeamBonuses, TeamBonuses]
    last_capturer: int | None
    last_play: LastPlay | None
    score: CiceraScore | None


@fast_init
@dataclass(frozen=True, slots=True)
class CiceraView:
    """What one seat (or a spectator, ``seat=None``) may know (rules/cicera.md).

    The own hand only; the other hands as counts.  The table, both teams'
    captured piles, bonus counts, the last play and the score are public.
    ``legal`` lists the seat's legal plays on its turn, else it is empty.
    """

    options: CiceraOptions
    seat: int | None
    to_act: tuple[int, ...]
    dealer: int
    hand: Hand
    hand_counts: tuple[int, int, int, int]
    table: tuple[Card, ...]
    piles: Piles
    bonuses: tuple[TeamBonuses, TeamBonuses]
    last_capturer: int | None
    last_play: LastPlay | None
    over: bool
    score: CiceraScore | None
    legal: tuple[Play, ...]
