"""Position builders for the Dou Dizhu rule tests."""

from __future__ import annotations

import random

from engine.cards import DOUDIZHU_54, Card
from engine.doudizhu.combos import RANKS, Combo, pack
from engine.doudizhu.game import DoudizhuGame
from engine.doudizhu.hands import mask_of, packed_counts
from engine.doudizhu.state import Bid, DoudizhuDeal, DoudizhuState, Play
from engine.game import Budget
from engine.registry import get_policy

GAME = DoudizhuGame()
OPTIONS = GAME.options()
SMALL = Budget(iterations=24)
"""A small search budget for the AI tests."""


def cards(text: str) -> tuple[Card, ...]:
    """Cards from notation, e.g. ``"3S 3H BJ"``."""
    return DOUDIZHU_54.parse_many(text)


def play(text: str, combo: Combo) -> Play:
    """A play of the cards ``text`` read as ``combo``."""
    return Play(frozenset(cards(text)), combo)


def deal(
    hands: tuple[str, str, str] = ("", "", ""),
    bottom: str = "",
    first_bidder: int = 0,
    seed: int = 0,
) -> DoudizhuState:
    """A fresh deal whose hands start with the given cards, filled up in deck order."""
    fixed = [list(cards(h)) for h in hands]
    low = list(cards(bottom))
    used = {c for h in fixed for c in h} | set(low)
    rest = [c for c in DOUDIZHU_54.cards if c not in used]
    for h in fixed:
        while len(h) < 17:
            h.append(rest.pop(0))
    while len(low) < 3:
        low.append(rest.pop(0))
    assert not rest
    return GAME.from_deal(
        OPTIONS,
        DoudizhuDeal(
            hands=(tuple(fixed[0]), tuple(fixed[1]), tuple(fixed[2])),
            bottom=tuple(low),
            first_bidder=first_bidder,
            seed=seed,
        ),
    )


def position(
    hands: tuple[str, str, str],
    landlord: int = 0,
    bid: int = 3,
) -> DoudizhuState:
    """The card play with exactly these hands (other cards out of the game).

    ``landlord`` won the auction with ``bid`` and leads.  Card conservation
    does not hold in such a position: it is for testing one rule at a time.
    """
    state = deal(first_bidder=landlord)
    state = GAME.apply(state, landlord, Bid(3)).state
    masks = tuple(mask_of(cards(h)) if h else 0 for h in hands)
    return state._replace(
        hands=masks,
        counts=tuple(packed_counts(m) for m in masks),
        bid=bid,
    )


def run(state: DoudizhuState, *steps: object) -> DoudizhuState:
    """Apply actions in turn order (each by the seat whose turn it is)."""
    for action in steps:
        (seat,) = GAME.to_act(state)
        state = GAME.apply(state, seat, action).state  # type: ignore[arg-type]
    return state


def ranks(text: str) -> int:
    """Packed rank counts from rank letters, e.g. ``"3334"`` (``B``/``R`` jokers)."""
    counts = [0] * 15
    for ch in text:
        counts["3456789TJQKA2BR".index(ch)] += 1
    return pack(tuple(counts))


def states(
    n: int = 14, seed: int = 3, level: str = "greedy", phase: str | None = None
) -> list[object]:
    """Up to ``n`` states along a deal that ``level`` plays for every seat: the
    auction, then the card play (only those of ``phase``, if given)."""
    rng = random.Random(seed)
    policy = get_policy("doudizhu", level)
    state = GAME.new_state(OPTIONS, seed)
    out = []
    while len(out) < n and not GAME.is_over(state):
        (seat,) = GAME.to_act(state)
        view = GAME.view(state, seat)
        if phase is None or view.phase == phase:
            out.append(state)
        state = GAME.apply(state, seat, policy.choose(view, view.legal, rng)).state
    return out


def text(packed: int) -> str:
    """Rank letters of packed counts, lowest first (the inverse of :func:`ranks`)."""
    return "".join(RANKS[r] * ((packed >> (4 * r)) & 15) for r in range(15))


def decide(policy: object, state: object, seed: int = 1) -> object:
    """``policy``'s choice for the seat to act in ``state``, on the :data:`SMALL` budget."""
    (seat,) = GAME.to_act(state)  # type: ignore[arg-type]
    view = GAME.view(state, seat)  # type: ignore[arg-type]
    return policy.choose(view, view.legal, random.Random(seed), SMALL)  # type: ignore[attr-defined]
