"""Schafkopf values: the public records, the deal, the state and the view (rules/schafkopf.md).

The optional build compiles this module (:data:`compiled.modules.GAMES`), and
mypyc makes its classes native as written: each is a frozen dataclass with its
own ``__init__`` of ``object.__setattr__`` calls, which mypyc compiles to stores
into the instance (the ``__init__`` :mod:`dataclasses` writes would stay
interpreted, and compiled code reads a native class's fields directly).  Run as
plain Python, the classes take :func:`engine.frozen.fast_init`'s ``__init__``
instead (the loop at the end), which builds them faster than those calls.  The
options and moves are in :mod:`engine.schafkopf.moves` (re-exported here).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Literal

from engine.cards import Card
from engine.frozen import fast_init
from engine.schafkopf.moves import (
    Action,
    Announce,
    ContractKind,
    Pass,
    PlayCard,
    SchafkopfOptions,
    legal_cards,
)

__all__ = [
    "Action",
    "Announce",
    "Bid",
    "Contract",
    "ContractKind",
    "DealRecord",
    "Four",
    "Hand",
    "Hands",
    "Pass",
    "Phase",
    "PlayCard",
    "SchafkopfDeal",
    "SchafkopfOptions",
    "SchafkopfState",
    "SchafkopfView",
    "Trick",
    "legal_cards",
]

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


def _reduced(value: object) -> tuple[object, ...]:
    """How a value of this module pickles: its class called with its fields (the AI's
    processes get views and states pickled).  Compiled, mypyc's own pickling would
    set the frozen fields one by one, which a frozen dataclass refuses."""
    fields = dataclasses.fields(value)  # type: ignore[arg-type]
    return (type(value), tuple(getattr(value, f.name) for f in fields))


# -- public records ------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Bid:
    """One seat's word in the bidding round; ``contract=None`` is a pass."""

    seat: int
    contract: ContractKind | None
    suit: str | None = None

    def __init__(self, seat: int, contract: ContractKind | None, suit: str | None = None) -> None:
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "contract", contract)
        object.__setattr__(self, "suit", suit)

    def __reduce__(self) -> tuple[object, ...]:
        return _reduced(self)


@dataclass(frozen=True, slots=True)
class Contract:
    """The contract being played: its kind, suit (called ace / trumps) and declarer."""

    kind: ContractKind
    suit: str | None
    declarer: int

    def __init__(self, kind: ContractKind, suit: str | None, declarer: int) -> None:
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "suit", suit)
        object.__setattr__(self, "declarer", declarer)

    def __reduce__(self) -> tuple[object, ...]:
        return _reduced(self)

    @property
    def called_ace(self) -> Card | None:
        """The called ace of a Rufer, else ``None``."""
        return Card("A", self.suit) if self.kind == "rufer" and self.suit else None


@dataclass(frozen=True, slots=True)
class Trick:
    """A completed trick: the cards in order of play from ``leader``."""

    leader: int
    cards: tuple[Card, ...]  # four, in order of play (see Four)
    winner: int
    points: int

    def __init__(self, leader: int, cards: tuple[Card, ...], winner: int, points: int) -> None:
        object.__setattr__(self, "leader", leader)
        object.__setattr__(self, "cards", cards)
        object.__setattr__(self, "winner", winner)
        object.__setattr__(self, "points", points)

    def __reduce__(self) -> tuple[object, ...]:
        return _reduced(self)


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

    def __init__(
        self,
        deal_no: int,
        dealer: int,
        contract: ContractKind | None,
        suit: str | None,
        declarer: int | None,
        partner: int | None,
        declarer_points: int,
        defender_points: int,
        declarer_tricks: int,
        tricks_played: int,
        declarer_won: bool,
        schneider: bool,
        schwarz: bool,
        laufende: int,
        laufende_side: Literal["declarer", "defenders"] | None,
        value: int,
        settlement: Four,
    ) -> None:
        object.__setattr__(self, "deal_no", deal_no)
        object.__setattr__(self, "dealer", dealer)
        object.__setattr__(self, "contract", contract)
        object.__setattr__(self, "suit", suit)
        object.__setattr__(self, "declarer", declarer)
        object.__setattr__(self, "partner", partner)
        object.__setattr__(self, "declarer_points", declarer_points)
        object.__setattr__(self, "defender_points", defender_points)
        object.__setattr__(self, "declarer_tricks", declarer_tricks)
        object.__setattr__(self, "tricks_played", tricks_played)
        object.__setattr__(self, "declarer_won", declarer_won)
        object.__setattr__(self, "schneider", schneider)
        object.__setattr__(self, "schwarz", schwarz)
        object.__setattr__(self, "laufende", laufende)
        object.__setattr__(self, "laufende_side", laufende_side)
        object.__setattr__(self, "value", value)
        object.__setattr__(self, "settlement", settlement)

    def __reduce__(self) -> tuple[object, ...]:
        return _reduced(self)


# -- deal, state, view ---------------------------------------------------------
@dataclass(frozen=True, slots=True)
class SchafkopfDeal:
    """An explicit deal for tests: four hands of eight cards, before the bidding."""

    dealer: int
    hands: Hands
    deal_no: int = 0
    totals: Four = (0, 0, 0, 0)
    seed: int = 0

    def __init__(
        self,
        dealer: int,
        hands: Hands,
        deal_no: int = 0,
        totals: Four = (0, 0, 0, 0),
        seed: int = 0,
    ) -> None:
        object.__setattr__(self, "dealer", dealer)
        object.__setattr__(self, "hands", hands)
        object.__setattr__(self, "deal_no", deal_no)
        object.__setattr__(self, "totals", totals)
        object.__setattr__(self, "seed", seed)

    def __reduce__(self) -> tuple[object, ...]:
        return _reduced(self)


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

    def __init__(
        self,
        options: SchafkopfOptions,
        seed: int,
        deal_no: int,
        dealer: int,
        phase: Phase,
        turn: int | None,
        hands: Hands,
        dealt: Hands,
        bids: tuple[Bid, ...],
        contract: Contract | None,
        partner: int | None,
        partner_known: int | None,
        leader: int,
        trick: tuple[Card, ...],
        tricks: tuple[Trick, ...],
        points: Four,
        totals: Four,
        history: tuple[DealRecord, ...],
    ) -> None:
        object.__setattr__(self, "options", options)
        object.__setattr__(self, "seed", seed)
        object.__setattr__(self, "deal_no", deal_no)
        object.__setattr__(self, "dealer", dealer)
        object.__setattr__(self, "phase", phase)
        object.__setattr__(self, "turn", turn)
        object.__setattr__(self, "hands", hands)
        object.__setattr__(self, "dealt", dealt)
        object.__setattr__(self, "bids", bids)
        object.__setattr__(self, "contract", contract)
        object.__setattr__(self, "partner", partner)
        object.__setattr__(self, "partner_known", partner_known)
        object.__setattr__(self, "leader", leader)
        object.__setattr__(self, "trick", trick)
        object.__setattr__(self, "tricks", tricks)
        object.__setattr__(self, "points", points)
        object.__setattr__(self, "totals", totals)
        object.__setattr__(self, "history", history)

    def __reduce__(self) -> tuple[object, ...]:
        return _reduced(self)


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

    def __init__(
        self,
        options: SchafkopfOptions,
        seat: int | None,
        to_act: tuple[int, ...],
        phase: Phase,
        deal_no: int,
        dealer: int,
        hand: Hand,
        hand_counts: Four,
        bids: tuple[Bid, ...],
        contract: Contract | None,
        partner: int | None,
        leader: int,
        trick: tuple[Card, ...],
        tricks: tuple[Trick, ...],
        points: Four,
        totals: Four,
        history: tuple[DealRecord, ...],
        over: bool,
        legal: tuple[Announce | Pass | PlayCard, ...],
    ) -> None:
        object.__setattr__(self, "options", options)
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "to_act", to_act)
        object.__setattr__(self, "phase", phase)
        object.__setattr__(self, "deal_no", deal_no)
        object.__setattr__(self, "dealer", dealer)
        object.__setattr__(self, "hand", hand)
        object.__setattr__(self, "hand_counts", hand_counts)
        object.__setattr__(self, "bids", bids)
        object.__setattr__(self, "contract", contract)
        object.__setattr__(self, "partner", partner)
        object.__setattr__(self, "leader", leader)
        object.__setattr__(self, "trick", trick)
        object.__setattr__(self, "tricks", tricks)
        object.__setattr__(self, "points", points)
        object.__setattr__(self, "totals", totals)
        object.__setattr__(self, "history", history)
        object.__setattr__(self, "over", over)
        object.__setattr__(self, "legal", legal)

    def __reduce__(self) -> tuple[object, ...]:
        return _reduced(self)


_AS_WRITTEN: dict[type, dict[str, str]] = {
    Bid: {"seat": "int", "contract": "ContractKind | None", "suit": "str | None"},
    Contract: {"kind": "ContractKind", "suit": "str | None", "declarer": "int"},
    Trick: {
        "leader": "int",
        "cards": "tuple[Card, ...]",
        "winner": "int",
        "points": "int",
    },
    DealRecord: {
        "deal_no": "int",
        "dealer": "int",
        "contract": "ContractKind | None",
        "suit": "str | None",
        "declarer": "int | None",
        "partner": "int | None",
        "declarer_points": "int",
        "defender_points": "int",
        "declarer_tricks": "int",
        "tricks_played": "int",
        "declarer_won": "bool",
        "schneider": "bool",
        "schwarz": "bool",
        "laufende": "int",
        "laufende_side": 'Literal["declarer", "defenders"] | None',
        "value": "int",
        "settlement": "Four",
    },
    SchafkopfDeal: {
        "dealer": "int",
        "hands": "Hands",
        "deal_no": "int",
        "totals": "Four",
        "seed": "int",
    },
    SchafkopfState: {
        "options": "SchafkopfOptions",
        "seed": "int",
        "deal_no": "int",
        "dealer": "int",
        "phase": "Phase",
        "turn": "int | None",
        "hands": "Hands",
        "dealt": "Hands",
        "bids": "tuple[Bid, ...]",
        "contract": "Contract | None",
        "partner": "int | None",
        "partner_known": "int | None",
        "leader": "int",
        "trick": "tuple[Card, ...]",
        "tricks": "tuple[Trick, ...]",
        "points": "Four",
        "totals": "Four",
        "history": "tuple[DealRecord, ...]",
    },
    SchafkopfView: {
        "options": "SchafkopfOptions",
        "seat": "int | None",
        "to_act": "tuple[int, ...]",
        "phase": "Phase",
        "deal_no": "int",
        "dealer": "int",
        "hand": "Hand",
        "hand_counts": "Four",
        "bids": "tuple[Bid, ...]",
        "contract": "Contract | None",
        "partner": "int | None",
        "leader": "int",
        "trick": "tuple[Card, ...]",
        "tricks": "tuple[Trick, ...]",
        "points": "Four",
        "totals": "Four",
        "history": "tuple[DealRecord, ...]",
        "over": "bool",
        "legal": "tuple[Announce | Pass | PlayCard, ...]",
    },
}
"""Each class's annotations as written: compiled, mypyc leaves there the types it
evaluated (``tuple`` for ``tuple[Card, ...]``), and :mod:`engine.codec` plans and
decodes by them."""

for _cls, _annotations in _AS_WRITTEN.items():
    setattr(_cls, "__annotations__", _annotations)  # noqa: B010 (mypyc refuses the assignment)
    if "__slots__" in vars(_cls):  # plain Python, not compiled: fast_init's __init__
        fast_init(_cls)
