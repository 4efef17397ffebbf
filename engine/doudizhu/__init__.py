"""Dou Dizhu (Fight the Landlord): three players, one deal (rules/doudizhu.md)."""

from __future__ import annotations

from engine.doudizhu.game import DoudizhuGame
from engine.doudizhu.state import (
    Bid,
    Call,
    DoudizhuDeal,
    DoudizhuOptions,
    DoudizhuState,
    DoudizhuView,
    Pass,
    Play,
    Turn,
)

__all__ = [
    "Bid",
    "Call",
    "DoudizhuDeal",
    "DoudizhuGame",
    "DoudizhuOptions",
    "DoudizhuState",
    "DoudizhuView",
    "Pass",
    "Play",
    "Turn",
]
