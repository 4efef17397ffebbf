"""Schafkopf's table options (rules/schafkopf.md, The table).

A plain module: its class extends :class:`engine.game.GameOptions`, and a class
with a Python base cannot be a native class where the build compiles
:mod:`engine.schafkopf.state` (:mod:`engine.native_build`).
"""

from __future__ import annotations

from dataclasses import dataclass

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
