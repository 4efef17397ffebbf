"""Cardavia's rules engine: pure, deterministic, stdlib only (docs/architecture.md).

No asyncio, pydantic, msgpack, redis or websockets here: the engine is a
sans-I/O library that the server, the clients and the AI all share.
"""

from __future__ import annotations

from engine.cards import Card, CardError, parse_card, parse_cards
from engine.game import Budget, Event, Game, IllegalAction, OptionsError, Result, Transition

__all__ = [
    "Budget",
    "Card",
    "CardError",
    "Event",
    "Game",
    "IllegalAction",
    "OptionsError",
    "Result",
    "Transition",
    "parse_card",
    "parse_cards",
]
