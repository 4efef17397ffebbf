"""The shape of Schafkopf's rule-based levels (``greedy``, ``normal``): a rule for the
bid, another for the card, each from the seat's view only."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from engine.cards import Card
from engine.game import Budget
from engine.policy import BasePolicy
from engine.schafkopf.state import Action, PlayCard, SchafkopfView, legal_cards

BidRule = Callable[[Sequence[Card], Sequence[Action]], Action]
"""A bid among the legal ones for a hand."""
CardRule = Callable[[SchafkopfView, Sequence[Card]], Card]
"""A card among the legal ones for a view."""


class RulePolicy(BasePolicy[SchafkopfView, Action]):
    """Bids by ``bid`` in the auction, plays ``card``'s card after it."""

    def __init__(self, bid: BidRule, card: CardRule) -> None:
        self.bid = bid
        self.card = card

    def decide(
        self,
        view: SchafkopfView,
        legal: Sequence[Action],
        rng: random.Random,
        budget: Budget | None,
    ) -> Action:
        """One of ``legal``, decided from ``view`` only."""
        if view.phase == "bidding":
            return self.bid(view.hand, legal)
        return PlayCard(self.card(view, legal_cards(legal)))
