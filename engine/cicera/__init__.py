"""Cicera: four players in two partnerships, one deal (rules/cicera.md)."""

from __future__ import annotations

from engine.cicera.game import CiceraGame
from engine.cicera.state import (
    CiceraDeal,
    CiceraOptions,
    CiceraScore,
    CiceraState,
    CiceraView,
    LastPlay,
    Play,
    TeamBonuses,
)

__all__ = [
    "CiceraDeal",
    "CiceraGame",
    "CiceraOptions",
    "CiceraScore",
    "CiceraState",
    "CiceraView",
    "LastPlay",
    "Play",
    "TeamBonuses",
]
