"""Scopa: two players, a match to 11 (rules/scopa.md)."""

from __future__ import annotations

from engine.scopa.game import ScopaGame
from engine.scopa.state import DealScore, Play, ScopaDeal, ScopaOptions, ScopaState, ScopaView

__all__ = [
    "DealScore",
    "Play",
    "ScopaDeal",
    "ScopaGame",
    "ScopaOptions",
    "ScopaState",
    "ScopaView",
]
