"""Schafkopf's options and moves (rules/schafkopf.md): plain Python in every build.

Kept out of :mod:`engine.schafkopf.state`, which the optional build compiles:
mypyc makes a dataclass's class variable (``kind``) a field, and a native class
cannot extend :class:`engine.game.GameOptions`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar, Literal

from engine.cards import Card
from engine.frozen import fast_init
from engine.game import GameOptions


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
