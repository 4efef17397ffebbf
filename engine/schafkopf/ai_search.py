"""The ``hard`` Schafkopf policy: determinized search over the rest of the deal.

Bidding is left to the greedy hand evaluation; each card to play is chosen by
:class:`engine.search.DeterminizedSearch`: worlds are sampled from the view
(``sample_world`` keeps voids, eligibility and the called-ace facts), the deal
is played out with a fast trick-taking rollout, and the action with the best
average settlement for the seat wins.  The rollout may use the sampled
world's cards (that is what a determinization is); the root never sees more
than the view.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from engine.cards import Card
from engine.game import Budget
from engine.schafkopf.game import SchafkopfGame
from engine.schafkopf.policies import choose_bid
from engine.schafkopf.rules import CARD_POINTS, TRUMP, mode_of, trick_winner
from engine.schafkopf.state import Action, PlayCard, SchafkopfState, SchafkopfView
from engine.search import DeterminizedSearch, SearchSpec

GAME = SchafkopfGame()
DEFAULT_BUDGET = Budget(iterations=200, seconds=0.25)


def rollout(state: SchafkopfState, seat: int, rng: random.Random) -> Action:
    """A quick card choice in an imagined world: win cheaply, feed the own side."""
    legal = GAME.legal_actions(state, seat)
    if len(legal) == 1 or state.phase != "play":
        return legal[rng.randrange(len(legal))]
    contract = state.contract
    assert contract is not None
    mode = mode_of(contract.kind, contract.suit)
    eff, power = mode.eff, mode.power
    cards = [a.card for a in legal if isinstance(a, PlayCard)]
    side = {contract.declarer, state.partner}
    trick = state.trick
    if not trick:
        return PlayCard(_lead(state, seat, seat in side, cards, rng))
    winner = (state.leader + trick_winner(trick, mode)) % 4
    if (winner in side) == (seat in side):  # the own side holds the trick: add points
        card = max(cards, key=lambda c: (eff[c] != TRUMP, CARD_POINTS[c], -power[c]))
    else:
        beating = [c for c in cards if trick_winner((*trick, c), mode) == len(trick)]
        if beating:
            card = min(beating, key=power.__getitem__)
        else:
            card = min(cards, key=lambda c: (eff[c] == TRUMP, CARD_POINTS[c], power[c]))
    return PlayCard(card)


def _lead(
    state: SchafkopfState, seat: int, declaring: bool, cards: list[Card], rng: random.Random
) -> Card:
    """The declarer's side draws trumps with the top one; anyone cashes a plain ace."""
    contract = state.contract
    assert contract is not None
    mode = mode_of(contract.kind, contract.suit)
    if declaring:
        hands = state.hands
        for t in mode.trumps:  # the highest trump still out
            if t in hands[0] or t in hands[1] or t in hands[2] or t in hands[3]:
                if t in cards:
                    return t
                break
    aces = [c for c in cards if c.rank == "A" and mode.eff[c] != TRUMP]
    if aces:
        return aces[rng.randrange(len(aces))]
    return cards[rng.randrange(len(cards))]


def _deal_done(start: SchafkopfState, state: SchafkopfState) -> bool:
    return len(state.history) > len(start.history)


def _deal_value(start: SchafkopfState, state: SchafkopfState, seat: int) -> float:
    """The seat's settlement in the deal being played (units)."""
    return float(state.history[len(start.history)].settlement[seat])


SCHAFKOPF_SEARCH = SearchSpec[SchafkopfState](
    game=GAME, done=_deal_done, value=_deal_value, rollout=rollout, scale=4.0
)


class HardPolicy:
    """Greedy bidding, then determinized search for every card."""

    name = "hard"

    def __init__(self, default_budget: Budget = DEFAULT_BUDGET) -> None:
        self.search = DeterminizedSearch(
            SCHAFKOPF_SEARCH, name="hard", default_budget=default_budget
        )

    def choose(
        self,
        view: SchafkopfView,
        legal: Sequence[Action],
        rng: random.Random,
        budget: Budget | None = None,
    ) -> Action:
        """One of ``legal``, from ``view`` only."""
        if not legal:
            raise ValueError("no legal action to choose from")
        if view.phase == "bidding":
            return choose_bid(view.hand, legal)
        return self.search.choose(view, legal, rng, budget)  # type: ignore[no-any-return]
