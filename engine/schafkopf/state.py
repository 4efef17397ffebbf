"""Schafkopf values: options, actions, the deal, the state and the view (rules/schafkopf.md)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar, Literal

from engine.cards import Card
from engine.frozen import fast_init
from engine.game import GameOptions

Hand = tuple[Card, ...]
Hands = tuple[Hand, ...]
"""The four seats' hands, seat by seat."""
Four = tuple[int, ...]
"""A number per seat, seat by seat (always four).

Typed as a tuple of any length, not as four ints: compiled (the optional build
compiles :mod:`engine.schafkopf.game`), a value of a fixed length tuple type is
kept as four C values and made into a new tuple where it is stored, so a view's
unchanged field would not be the very object of the view before, which is how
:class:`engine.codec.PlainMemo` tells an unchanged field (and the game shares
its seats' card counts between the views)."""

Phase = Literal["bidding", "play", "over"]


@dataclass(frozen=True)
class SchafkopfOptions(GameOptions):
    """Table options: the pattern (naming only) and the number of deals (The table).

    ``deals`` counts passed-out deals too: each deal moves the dealer left.
    """

    deals: int = 4

    def __post_init__(self) -> None:
        if not 1 <= self.deals <= 100:
            raise ValueError("deals must be between 1 and 100")


# -- actions -------------------------------------------------------------------
ContractKind = Literal["rufer", "wenz", "solo", "wenz_tout", "solo_tout", "sie"]
"""The contracts, lowest first (Contracts and bidding)."""


@fast_init
@dataclass(frozen=True, slots=True)
class Announce:
    """Announce a contract in full (Contracts and bidding, **Decision**).

    ``suit`` is the called ace's suit for Rufer (``E``, ``G`` or ``S``), the
    trump suit for Solo and Solo Tout, and ``None`` for Wenz, Wenz Tout and Sie.
    """

    kind: ClassVar[str] = "announce"
    interned: ClassVar[bool] = True
    """The game's legal moves hold one Announce per contract and suit
    (:data:`engine.schafkopf.rules.ANNOUNCE`; engine.codec keeps their plain forms)."""
    contract: ContractKind
    suit: str | None = None


@fast_init
@dataclass(frozen=True, slots=True)
class Pass:
    """Pass in the bidding round."""

    kind: ClassVar[str] = "pass"
    interned: ClassVar[bool] = True
    """The game's legal moves hold one Pass (engine.codec keeps its plain form)."""


@fast_init
@dataclass(frozen=True, slots=True)
class PlayCard:
    """Play ``card`` from the hand to the current trick."""

    kind: ClassVar[str] = "play"
    interned: ClassVar[bool] = True
    """The game's legal moves hold one PlayCard per card (engine.codec keeps their
    plain forms)."""
    card: Card


Action = Announce | Pass | PlayCard


def legal_cards(legal: Sequence[Action]) -> list[Card]:
    """The cards a seat may play, from its legal actions (one PlayCard per card)."""
    return [a.card for a in legal if isinstance(a, PlayCard)]


# -- public records ------------------------------------------------------------
@fast_init
@dataclass(frozen=True, slots=True)
class Bid:
    """One seat's word in the bidding round; ``contract=None`` is a pass."""

    seat: int
    contract: ContractKind | None
    suit: str | None = None


@fast_init
@dataclass(frozen=True, slots=True)
class Contract:
    """The contract being played: its kind, suit (called ace / trumps) and declarer."""

    kind: ContractKind
    suit: str | None
    declarer: int

    @property
    def called_ace(self) -> Card | None:
        """The called ace of a Rufer, else ``None``."""
        return Card("A", self.suit) if self.kind == "rufer" and self.suit else None


@fast_init
@dataclass(frozen=True, slots=True)
class Trick:
    """A completed trick: the cards in order of play from ``leader``."""

    leader: int
    cards: tuple[Card, ...]  # four, in order of play (see Four)
    winner: int
    points: int


@fast_init
@dataclass(frozen=True, slots=True)
class DealRecord:
    """The public outcome of one deal (End of play, Scoring).

    A passed-out deal has ``contract=None`` and no settlement.  ``laufende`` is
    the number of Laufende that counted (0 below the threshold); ``value`` the
    units each defender wins or loses (in Rufer: each player).
    """

    deal_no: int
    dealer: int
    contract: ContractKind | None
    suit: str | None
    declarer: int | None
    partner: int | None
    declarer_points: int
    defender_points: int
    declarer_tricks: int
    tricks_played: int
    declarer_won: bool
    schneider: bool
    schwarz: bool
    laufende: int
    laufende_side: Literal["declarer", "defenders"] | None
    value: int
    settlement: Four


# -- deal, state, view ---------------------------------------------------------
@fast_init
@dataclass(frozen=True, slots=True)
class SchafkopfDeal:
    """An explicit deal for tests: four hands of eight cards, before the bidding."""

    dealer: int
    hands: Hands
    deal_no: int = 0
    totals: Four = (0, 0, 0, 0)
    seed: int = 0


@fast_init
@dataclass(frozen=True, slots=True)
class SchafkopfState:
    """The full, secret state of a Schafkopf table (never sent to anyone).

    Hidden: ``seed``, ``hands``, ``dealt`` (the hands as dealt, for the
    Laufende) and ``partner`` (the holder of the called ace).  Everything else
    is public; ``partner_known`` is the partner once the ace was played or the
    partner ran away (The called ace, 4).
    """

    options: SchafkopfOptions
    seed: int
    deal_no: int
    dealer: int
    phase: Phase
    turn: int | None
    hands: Hands
    dealt: Hands
    bids: tuple[Bid, ...]
    contract: Contract | None
    partner: int | None
    partner_known: int | None
    leader: int
    trick: tuple[Card, ...]
    tricks: tuple[Trick, ...]
    points: Four
    totals: Four
    history: tuple[DealRecord, ...]


@fast_init
@dataclass(frozen=True, slots=True)
class SchafkopfView:
    """What one seat (or a spectator, ``seat=None``) may know.

    Own hand; the other hands as counts; the bidding, the contract, the
    tricks and the card points each seat took are public.  ``partner`` is the
    Rufer partner only once public (never before, not even to the declarer).
    ``legal`` lists the seat's legal actions on its turn, else is empty.
    """

    options: SchafkopfOptions
    seat: int | None
    to_act: tuple[int, ...]
    phase: Phase
    deal_no: int
    dealer: int
    hand: Hand
    hand_counts: Four
    bids: tuple[Bid, ...]
    contract: Contract | None
    partner: int | None
    leader: int
    trick: tuple[Card, ...]
    tricks: tuple[Trick, ...]
    points: Four
    totals: Four
    history: tuple[DealRecord, ...]
    over: bool
    legal: tuple[Announce | Pass | PlayCard, ...]
