"""Building Schafkopf positions from card notation for the rule tests."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.cards import GERMAN_32, Card
from engine.game import Event
from engine.schafkopf import (
    Announce,
    Pass,
    PlayCard,
    SchafkopfDeal,
    SchafkopfGame,
    SchafkopfOptions,
    SchafkopfState,
)

GAME = SchafkopfGame()


def cards(text: str) -> tuple[Card, ...]:
    return GERMAN_32.parse_many(text)


def card(text: str) -> Card:
    return GERMAN_32.parse(text)


def deal(
    h0: str, h1: str, h2: str, h3: str, *, dealer: int = 3, deals: int = 4, **extra: Any
) -> SchafkopfState:
    """A fresh deal (bidding not started) from four hands in notation."""
    hands = (cards(h0), cards(h1), cards(h2), cards(h3))
    return GAME.from_deal(
        SchafkopfOptions(pattern="bavarian", deals=deals),
        SchafkopfDeal(dealer=dealer, hands=hands, **extra),
    )


def columns(rows: Sequence[str]) -> tuple[str, str, str, str]:
    """Hands from trick rows: row ``k`` lists the cards seats 0–3 play in trick ``k``."""
    split = [r.split() for r in rows]
    return (
        " ".join(r[0] for r in split),
        " ".join(r[1] for r in split),
        " ".join(r[2] for r in split),
        " ".join(r[3] for r in split),
    )


def bid_word(word: str) -> Announce | Pass:
    """``"pass"``, ``"wenz"``, ``"rufer G"``, ``"solo E"`` … as an action."""
    parts = word.split()
    if parts[0] == "pass":
        return Pass()
    return Announce(parts[0], parts[1] if len(parts) > 1 else None)  # type: ignore[arg-type]


def apply_all(
    state: SchafkopfState, actions: Sequence[Announce | Pass | PlayCard]
) -> tuple[SchafkopfState, list[Event]]:
    """Apply actions in turn order; return the state and every event."""
    events: list[Event] = []
    for action in actions:
        (seat,) = GAME.to_act(state)
        t = GAME.apply(state, seat, action)
        state = t.state
        events.extend(t.events)
    return state, events


def bid(state: SchafkopfState, *words: str) -> SchafkopfState:
    """Bid the words in turn order (from the dealer's left)."""
    return apply_all(state, [bid_word(w) for w in words])[0]


def plays(texts: str) -> list[PlayCard]:
    return [PlayCard(c) for c in cards(texts)]


def play(state: SchafkopfState, texts: str) -> SchafkopfState:
    """Play the cards in turn order."""
    return apply_all(state, plays(texts))[0]


def play_rows(state: SchafkopfState, rows: Sequence[str]) -> tuple[SchafkopfState, list[Event]]:
    """Play trick rows (cards by seat 0–3); each trick starts with the engine's leader."""
    events: list[Event] = []
    for row in rows:
        by_seat = cards(row)
        leader = state.leader
        order = [by_seat[(leader + i) % 4] for i in range(4)]
        state, evs = apply_all(state, [PlayCard(c) for c in order])
        events.extend(evs)
        if state.phase != "play" or not state.tricks:  # the deal ended
            break
    return state, events


def scored(events: Sequence[Event]) -> Any:
    """The DealRecord of the (first) deal_scored event."""
    return next(e.data["record"] for e in events if e.kind == "deal_scored")


def legal_cards(state: SchafkopfState, seat: int) -> set[str]:
    return {str(a.card) for a in GAME.legal_actions(state, seat) if isinstance(a, PlayCard)}
