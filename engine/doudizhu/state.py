"""Dou Dizhu values: options, actions, the deal, the state and the view (rules/doudizhu.md)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar, Literal, NamedTuple

from engine.cards import Card
from engine.doudizhu.combos import Combo, Move
from engine.frozen import fast_init
from engine.game import GameOptions

Phase = Literal["bidding", "play", "over"]


@dataclass(frozen=True)
class DoudizhuOptions(GameOptions):
    """Table options: Dou Dizhu has none beyond the card pattern."""


@fast_init
@dataclass(frozen=True, slots=True)
class Bid:
    """Bid 1, 2 or 3 in the auction; it must top the highest bid (Setup and bidding)."""

    kind: ClassVar[str] = "bid"
    value: int


@fast_init
@dataclass(frozen=True, slots=True)
class Pass:
    """Pass: in the auction (not final) or on a trick one does not lead."""

    kind: ClassVar[str] = "pass"


@fast_init
@dataclass(frozen=True, slots=True)
class Play:
    """Play ``cards`` read as the combination ``combo`` (Combinations).

    ``cards`` are the very cards played: any suit choice of held cards of the
    ranks the combination needs (rules/doudizhu.md, Cards, Decision).

    ``_parsed`` is a private cache of ``(move, mask)``, the rank-level reading
    and the card mask, set on the plays the engine lists as legal and on any
    play once it has been read; it is a pure function of the two public
    fields, excluded from equality and from the wire.

    The plays the engine lists (engine.doudizhu.hands) are built from their
    reading alone, and their ``cards`` only when first asked for: most listed
    plays are never looked at (a search or a random playout picks one).
    """

    kind: ClassVar[str] = "play"
    cards: frozenset[Card]
    combo: Combo
    _parsed: tuple[Move, int] | None = field(
        default=None, init=False, repr=False, compare=False, hash=False
    )

    if not TYPE_CHECKING:  # the typed attributes stay exactly the fields above

        def __getattr__(self, name: str) -> frozenset[Card]:
            """Reached only for a field not yet set: the ``cards`` of a listed play."""
            parsed = self._parsed if name == "cards" else None
            if parsed is None:
                raise AttributeError(f"'Play' object has no attribute {name!r}")
            from engine.doudizhu.hands import cards_of  # here: hands imports Play

            cards = frozenset(cards_of(parsed[1]))
            object.__setattr__(self, "cards", cards)
            return cards


Action = Bid | Pass | Play


@fast_init
@dataclass(frozen=True, slots=True)
class Call:
    """One call of the auction: ``bid`` 1–3, or 0 for a pass."""

    seat: int
    bid: int


@fast_init
@dataclass(frozen=True, slots=True)
class Turn:
    """One turn of the card play, public: ``play`` is ``None`` for a pass."""

    seat: int
    play: Play | None


@fast_init
@dataclass(frozen=True, slots=True)
class DoudizhuDeal:
    """An explicit deal for tests: three hands of 17 and the 3 bottom cards.

    ``first_bidder`` opens the auction; ``seed`` feeds any redeal.
    """

    hands: tuple[tuple[Card, ...], tuple[Card, ...], tuple[Card, ...]]
    bottom: tuple[Card, ...]
    first_bidder: int = 0
    seed: int = 0


Step = Turn
"""One turn of the card play inside a state: the very :class:`Turn` the views show
(so every view of a state, and the next state's, share the history's objects)."""


class DoudizhuState(NamedTuple):
    """The full, secret state of one Dou Dizhu deal (never sent to anyone).

    An immutable tuple with named fields (cheap to build: this is the inner
    loop of search).  Hands and the bottom are card masks
    (engine.doudizhu.hands); ``counts`` the packed rank counts of each hand.
    ``attempt`` counts redeals after three passes.  In the auction
    ``passes`` counts passes since the last bid, in the play passes since the
    last play; ``last`` is the play to beat (``None``: ``turn`` leads) and
    ``last_seat`` who made it; ``history`` every turn of the card play.
    """

    options: DoudizhuOptions
    seed: int
    attempt: int
    first_bidder: int
    hands: tuple[int, int, int]
    counts: tuple[int, int, int]
    bottom: int
    auction: tuple[Call, ...]
    bid: int
    bidder: int | None
    landlord: int | None
    turn: int | None
    passes: int
    last: Play | None
    last_seat: int | None
    history: tuple[Step, ...]
    bombs: int
    winner: int | None


@fast_init
@dataclass(frozen=True, slots=True)
class DoudizhuView:
    """What one seat (or a spectator, ``seat=None``) may know (rules/doudizhu.md).

    The own hand; the other hands as counts; the auction; the bottom cards
    once the landlord has taken them (empty before); the play to beat and
    who made it; every turn of the card play; bombs played and the current
    multiplier (spring included once the deal is over); ``legal`` on one's
    turn.
    """

    options: DoudizhuOptions
    seat: int | None
    to_act: tuple[int, ...]
    phase: Phase
    redeals: int
    first_bidder: int
    hand: tuple[Card, ...]
    hand_counts: tuple[int, int, int]
    auction: tuple[Call, ...]
    bid: int
    landlord: int | None
    bottom: tuple[Card, ...]
    last: Play | None
    last_seat: int | None
    history: tuple[Turn, ...]
    bombs: int
    multiplier: int
    winner: int | None
    legal: tuple[Bid | Pass | Play, ...]
