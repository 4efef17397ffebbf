"""Schafkopf's moves: announce, pass, play a card (rules/schafkopf.md, Contracts and
bidding; Play).

Kept apart from the state and the view (:mod:`engine.schafkopf.state`, which
re-exports them) because their ``kind`` and ``interned`` are class variables,
which a module compiled by mypyc does not keep as such in its dataclasses
(``scripts/compile.py`` compiles the state's module; this one stays plain).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

from engine.cards import Card
from engine.frozen import fast_init

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
