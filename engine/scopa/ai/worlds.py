"""The worlds Scopa ``hard`` imagines: deals consistent with the seat's view.

A world is built from the view only: the unseen cards (the opponent's hand and
the stock) are shuffled and dealt out, exactly what
:meth:`ScopaGame.sample_world` does, on the simulator's ints
(:mod:`engine.scopa.ai.sim`).  Once the stock is empty the unseen cards *are*
the opponent's hand, so the world is the real one.  Worlds follow the evidence
of the opponent's last play (:class:`Evidence`): a shuffle is kept with the
chance that the hand it deals made that play.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from engine.capture import play_seen
from engine.scopa.ai.sim import CARDS, INDEX, Deal, acc_of, score_moves
from engine.scopa.state import ScopaView
from engine.search import ChoiceChance, keep_likely

INFERENCE_TEMPERATURE = 3.0
"""How sharply the opponent is expected to prefer better plays (score units per factor e)."""
INFERENCE_TRIES = 8
"""Worlds drawn at most for one accepted world (the last one drawn is kept)."""


class Evidence:
    """The opponent's last play, as evidence about the cards still in its hand.

    The opponent chose ``card`` (taking ``taken``) on ``table`` from its hand of
    then: that card and the cards it holds now.  Under a softmax model of the
    rollout player's scores (:func:`score_moves`, :data:`INFERENCE_TEMPERATURE`),
    :attr:`likelihood` is the chance of that choice given the cards held now (a
    :class:`~engine.search.ChoiceChance`): a hand that had a far better play (a
    sweep, the settebello) makes the observed play unlikely, so worlds dealing it
    such a hand are mostly redrawn.
    """

    __slots__ = ("card", "likelihood", "table", "taken")

    def __init__(self, card: int, taken: frozenset[int], table: list[int]) -> None:
        self.card = card
        self.taken = taken
        self.table = table
        moves = score_moves(range(len(CARDS)), table, False)
        self.likelihood = ChoiceChance(moves, card, taken, INFERENCE_TEMPERATURE, len(CARDS))

    @classmethod
    def of(cls, view: ScopaView) -> Evidence | None:
        """The evidence in ``view``: its last play, if the opponent's and made from the
        hand the opponent still holds part of (no refill or new deal since)."""
        last = view.last_play
        seat = view.seat
        if last is None or seat is None or last.seat == seat:
            return None
        if view.hand_counts[last.seat] >= 3 or not view.hand_counts[last.seat]:
            return None
        seen = play_seen(last.card, last.captured, view.table, INDEX)
        return None if seen is None else cls(*seen)


def deal_from_view(view: ScopaView, rng: random.Random) -> Deal:
    """A world consistent with ``view``: the unseen cards shuffled into the opponent's
    hand and the stock (what :meth:`ScopaGame.sample_world` does, on ints)."""
    base, unseen = known_part(view)
    return sample_deal(base, unseen, view.hand_counts[1 - base.turn], rng)


def known_part(view: ScopaView) -> tuple[Deal, list[int]]:
    """The deal as the view shows it (the opponent's hand and the stock left empty) and
    the unseen cards, in deck order.  The seat to play is the view's own."""
    assert view.seat is not None
    seat = view.seat
    seen = {INDEX[c] for c in (*view.hand, *view.table, *view.piles[0], *view.piles[1])}
    hands: list[list[int]] = [[], []]
    hands[seat] = [INDEX[c] for c in view.hand]
    base = Deal(
        hands,
        [INDEX[c] for c in view.table],
        [],
        [acc_of(view.piles[0]), acc_of(view.piles[1])],
        [view.scope[0], view.scope[1]],
        view.last_capturer,
        seat,
        view.dealer,
    )
    return base, [i for i in range(40) if i not in seen]


def sample_deal(
    base: Deal,
    unseen: Sequence[int],
    held: int,
    rng: random.Random,
    evidence: Evidence | None = None,
) -> Deal:
    """``base`` with the unseen cards shuffled: ``held`` to the opponent, the rest the stock.

    With ``evidence`` a shuffle is kept with the chance that the opponent's hand in
    it made its last play (:attr:`Evidence.likelihood`), else drawn again, at most
    :data:`INFERENCE_TRIES` times: worlds come in proportion to how well they explain
    the opponent's play.
    """
    cards = list(unseen)
    rng.shuffle(cards)
    if evidence is not None:
        keep_likely(cards, slice(held), evidence.likelihood, rng, INFERENCE_TRIES)
    deal = base.copy()
    deal.hands[1 - base.turn] = cards[:held]
    deal.stock = cards[held:]
    return deal
