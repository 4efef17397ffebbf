"""Building Cicera positions from card notation for the rule tests."""

from __future__ import annotations

from collections.abc import Sequence

from engine.cards import BRESCIANE_52, Card
from engine.cicera import CiceraDeal, CiceraGame, CiceraState, Play
from engine.game import Transition

GAME = CiceraGame()
OPTIONS = GAME.options()
DECK = BRESCIANE_52


def cards(text: str) -> tuple[Card, ...]:
    return DECK.parse_many(text)


def card(text: str) -> Card:
    return DECK.parse(text)


def position(
    hands: Sequence[str],
    table: str = "",
    *,
    dealer: int = 3,
    pile0: str = "",
    pile1: str = "",
    rest_to: int = 1,
    last_capturer: int | None = None,
) -> CiceraState:
    """A position (seat 0 first unless ``dealer`` says otherwise).

    Cards not named anywhere go to team ``rest_to``'s pile; when any pile
    holds cards and ``last_capturer`` is not given, seat ``rest_to`` (a seat of
    that team) captured last.
    """
    named = [c for h in hands for c in cards(h)] + [*cards(table), *cards(pile0), *cards(pile1)]
    rest = tuple(c for c in DECK.cards if c not in named)
    piles = [cards(pile0), cards(pile1)]
    piles[rest_to] = piles[rest_to] + rest
    if last_capturer is None and (piles[0] or piles[1]):
        last_capturer = rest_to if piles[rest_to] else 1 - rest_to
    deal = CiceraDeal(
        dealer=dealer,
        hands=(cards(hands[0]), cards(hands[1]), cards(hands[2]), cards(hands[3])),
        table=cards(table),
        piles=(piles[0], piles[1]),
        last_capturer=last_capturer,
    )
    return GAME.from_deal(OPTIONS, deal)


def full_deal(hands: Sequence[str], table: str, *, dealer: int = 3) -> CiceraState:
    """A fresh deal: the named cards, each hand filled up to 12 in deck order."""
    named = [c for h in hands for c in cards(h)] + list(cards(table))
    rest = [c for c in DECK.cards if c not in named]
    full = []
    for h in hands:
        own = list(cards(h))
        need = 12 - len(own)
        own, rest = own + rest[:need], rest[need:]
        full.append(tuple(own))
    assert not rest and len(cards(table)) == 4
    deal = CiceraDeal(dealer=dealer, hands=(full[0], full[1], full[2], full[3]), table=cards(table))
    return GAME.from_deal(OPTIONS, deal)


def play(text: str, capture: str = "") -> Play:
    return Play(card(text), frozenset(cards(capture)))


def apply(state: CiceraState, seat: int, text: str, capture: str = "") -> Transition[CiceraState]:
    return GAME.apply(state, seat, play(text, capture))


def run(state: CiceraState, *moves: tuple[str, str]) -> CiceraState:
    """Apply ``(card, capture)`` moves in turn order from the seat to act."""
    for text, capture in moves:
        (seat,) = GAME.to_act(state)
        state = apply(state, seat, text, capture).state
    return state
