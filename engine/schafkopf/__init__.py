"""Schafkopf: four players, a series of deals with running totals (rules/schafkopf.md)."""

from __future__ import annotations

from engine.schafkopf.game import SchafkopfGame
from engine.schafkopf.state import (
    Announce,
    Bid,
    Contract,
    DealRecord,
    Pass,
    PlayCard,
    SchafkopfDeal,
    SchafkopfOptions,
    SchafkopfState,
    SchafkopfView,
    Trick,
)

__all__ = [
    "Announce",
    "Bid",
    "Contract",
    "DealRecord",
    "Pass",
    "PlayCard",
    "SchafkopfDeal",
    "SchafkopfGame",
    "SchafkopfOptions",
    "SchafkopfState",
    "SchafkopfView",
    "Trick",
]
