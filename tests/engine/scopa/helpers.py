"""Building Scopa positions from card notation for the rule tests."""

from __future__ import annotations

from engine.cards import SCOPA_40, Card
from engine.scopa import Play, ScopaDeal, ScopaGame, ScopaOptions, ScopaState

GAME = ScopaGame()


def cards(text: str) -> tuple[Card, ...]:
    return SCOPA_40.parse_many(text)


def position(
    hand0: str,
    hand1: str,
    table: str = "",
    *,
    dealer: int = 1,
    turn: int | None = None,
    stock: str | None = None,
    pile0: str = "",
    pile1: str = "",
    target: int = 11,
    **extra: object,
) -> ScopaState:
    """A position; unnamed cards fill the stock (whole refills) and the rest seat 1's pile."""
    named = [*cards(hand0), *cards(hand1), *cards(table), *cards(pile0), *cards(pile1)]
    if stock is not None:
        named += cards(stock)
    rest = [c for c in SCOPA_40.cards if c not in named]
    if stock is None:
        n = len(rest) - len(rest) % 6
        stock_cards, rest = tuple(rest[:n]), rest[n:]
    else:
        stock_cards = cards(stock)
    deal = ScopaDeal(
        dealer=dealer,
        hands=(cards(hand0), cards(hand1)),
        table=cards(table),
        stock=stock_cards,
        piles=(cards(pile0), (*cards(pile1), *rest)),
        turn=turn,
        **extra,  # type: ignore[arg-type]
    )
    return GAME.from_deal(ScopaOptions(pattern="napoletane", target=target), deal)


def play(card: str, capture: str = "") -> Play:
    return Play(SCOPA_40.parse(card), frozenset(cards(capture)))
