"""Cicera ``normal``: a rule-based partnership player that counts cards (rules/cicera.md).

Each play is scored by what it earns now (capture bonuses and the cards it
takes, valued against the end-of-deal awards still open), minus what the
next player, an opponent, can expect to earn in reply, plus a share of what
the partner, who plays after that, can expect to earn.  Expectations run
over the cards the seat has not seen (card counting): the replying hand is a
uniform subset of them, and it plays its best card.
"""

from __future__ import annotations

import random
from collections.abc import Collection, Sequence
from math import comb

from engine.cards import BRESCIANE_52, Card
from engine.cicera.rules import (
    FANTE_OF_CUPS,
    MATA,
    NAPULA_RUN,
    SWORDS,
    TEN_OF_COINS,
    capture_options_by_rank,
    team_of,
)
from engine.cicera.state import CiceraView, Piles, Play
from engine.game import Budget
from engine.policy import BasePolicy

CARDS_TO_WIN = 27
"""Cards a team needs for a sure majority of the 52 (most cards)."""
SWORDS_TO_WIN = 7
"""Swords a team needs for a sure majority of the 13 (most swords)."""
CARD_SHARE = 0.12
SWORD_SHARE = 0.2
NAPULA_KEY = 1.0
NAPULA_EXTEND = 1.0
NAPULA_LATER = 0.25
PLACE_COST = 0.1
"""The share of a placed card's worth given up by leaving it to the table."""
OPPONENT_WEIGHT = 1.0
PARTNER_WEIGHT = 0.4
PICADA_CHANCE = 0.4
"""Rough chance that the partner can take back the card an opponent had to place."""
_SPECIALS = frozenset((MATA, TEN_OF_COINS, FANTE_OF_CUPS))
_KEYS = NAPULA_RUN[:3]


def _napula_open(team_pile: frozenset[Card], other_pile: frozenset[Card]) -> bool:
    """Whether the team may still complete A-2-3 of swords (the other team holds none)."""
    return not any(c in other_pile for c in _KEYS)


def _napula_worth(card: Card, team: int, piles: tuple[frozenset[Card], frozenset[Card]]) -> float:
    """What taking ``card`` does for ``team``'s Napula and against the other team's (Napula)."""
    if card not in NAPULA_RUN:
        return 0.0
    k = NAPULA_RUN.index(card)
    worth = 0.0
    for side in (team, 1 - team):
        own, other = piles[side], piles[1 - side]
        if not _napula_open(own, other):
            continue
        if k < 3:
            worth += NAPULA_KEY
        elif all(c in own for c in NAPULA_RUN[:k]):
            worth += NAPULA_EXTEND
        elif not any(c in other for c in NAPULA_RUN[:k]):
            worth += NAPULA_LATER
    return worth


class Worth:
    """The value of taking each card for each team, given the piles so far (End of the deal).

    Awards already decided (a team past 26 cards or 6 swords) add nothing;
    the three single cards are a point each; the Napula keys count for the
    team that can still complete the run and against the other team.
    """

    def __init__(self, piles: Piles) -> None:
        sets = (frozenset(piles[0]), frozenset(piles[1]))
        cards_open = max(len(piles[0]), len(piles[1])) < CARDS_TO_WIN
        swords = [sum(1 for c in p if c.suit == SWORDS) for p in piles]
        swords_open = max(swords) < SWORDS_TO_WIN
        base = CARD_SHARE if cards_open else 0.0
        self.by_team: tuple[dict[Card, float], dict[Card, float]] = ({}, {})
        for team in (0, 1):
            table = self.by_team[team]
            for c in BRESCIANE_52.cards:
                w = base
                if swords_open and c.suit == SWORDS:
                    w += SWORD_SHARE
                if c in _SPECIALS:
                    w += 1.0
                w += _napula_worth(c, team, sets)
                table[c] = w

    def of(self, team: int, cards: Collection[Card]) -> float:
        """The worth of ``cards`` to ``team``."""
        table = self.by_team[team]
        return sum(table[c] for c in cards)


def bonus_count(card: Card, capture: Collection[Card], table_size: int, placed: Card | None) -> int:
    """How many capture bonuses (Capture bonuses) taking ``capture`` with ``card`` earns.

    ``table_size`` is the table before the capture; ``placed`` the card the
    previous player placed without capturing (``None`` if it captured).
    """
    n = len(capture)
    bonuses = 0
    if n == table_size:
        bonuses += 1  # Scùa
    if n == 1 and placed is not None and placed in capture and placed.rank == card.rank:
        bonuses += 1  # Picada
    suit = card.suit
    if all(c.suit == suit for c in capture):
        bonuses += 1  # Simili
    if n >= 3:
        bonuses += 1  # Quadriglia
    return bonuses


def best_gains(
    table: Sequence[Card], placed: Card | None, cards: Sequence[Card], worth: dict[Card, float]
) -> list[float]:
    """For each of ``cards``, the most a player earns by playing it on ``table`` (0 = place)."""
    by_rank = capture_options_by_rank({c.rank for c in cards}, table)
    n_table = len(table)
    out = []
    for card in cards:
        best = 0.0
        own = worth[card]
        for group in by_rank[card.rank]:
            g = bonus_count(card, group, n_table, placed) + own + sum(worth[c] for c in group)
            if g > best:
                best = g
        out.append(best)
    return out


def expected_max(gains: Sequence[float], held: int) -> tuple[float, float]:
    """Expected best of ``held`` gains drawn without replacement from ``gains``.

    The hand is a uniform ``held``-subset of the unseen cards; the chance the
    k-th best gain is the hand's best is C(n-k, held-1) / C(n, held).  Also
    returns the chance that the hand holds any positive gain at all.
    """
    n = len(gains)
    if held <= 0 or n == 0:
        return 0.0, 0.0
    held = min(held, n)
    ordered = sorted(gains, reverse=True)
    total = comb(n, held)
    out = 0.0
    hit = 0
    for k, g in enumerate(ordered, start=1):
        if g <= 0.0:
            break
        ways = comb(n - k, held - 1)
        if ways == 0:
            break
        out += g * ways
        hit += ways
    return out / total, hit / total


def unseen_cards(view: CiceraView) -> list[Card]:
    """The cards in the other hands, as far as ``view`` can tell (card counting)."""
    seen = {*view.hand, *view.table, *view.piles[0], *view.piles[1]}
    return [c for c in BRESCIANE_52.cards if c not in seen]


def score_plays(view: CiceraView, legal: Sequence[Play]) -> list[float]:
    """The normal policy's score of each legal play (see the module docstring)."""
    seat = view.seat
    assert seat is not None
    team = team_of(seat)
    worth = Worth(view.piles)
    mine, theirs = worth.by_team[team], worth.by_team[1 - team]
    unseen = unseen_cards(view)
    nxt, partner = (seat + 1) % 4, (seat + 2) % 4
    opp_held = view.hand_counts[nxt]
    partner_held = view.hand_counts[partner]
    last = view.last_play
    placed_before = last.card if last is not None and not last.captured else None
    table = view.table
    replies: dict[tuple[frozenset[Card], Card | None], tuple[float, float]] = {}
    out = []
    for play in legal:
        if play.capture:
            left = tuple(c for c in table if c not in play.capture)
            gain = float(bonus_count(play.card, play.capture, len(table), placed_before))
            gain += mine[play.card] + sum(mine[c] for c in play.capture)
            placed: Card | None = None
        else:
            left = (*table, play.card)
            gain = -PLACE_COST * (mine[play.card] + theirs[play.card])
            placed = play.card
        key = (frozenset(left), placed)
        if key not in replies:
            risk, p_take = expected_max(best_gains(left, placed, unseen, theirs), opp_held)
            chance = 0.0
            if partner_held and p_take < 1.0:
                # the opponent cannot take: it places, and the partner may take that card
                # back by rank (Picada, and a Scùa on an otherwise empty table) or take
                # from the table we leave
                own, _ = expected_max(best_gains(left, None, unseen, mine), partner_held)
                chance = (1.0 - p_take) * (own + PICADA_CHANCE * (1 + (not left)))
            replies[key] = (risk, chance)
        risk, chance = replies[key]
        out.append(gain - OPPONENT_WEIGHT * risk + PARTNER_WEIGHT * chance)
    return out


class NormalPolicy(BasePolicy[CiceraView, Play]):
    """Bonus-aware, card-counting partnership play (see the module docstring)."""

    name = "normal"

    def decide(
        self, view: CiceraView, legal: Sequence[Play], rng: random.Random, budget: Budget | None
    ) -> Play:
        """The play with the best score; ties broken at random."""
        scores = score_plays(view, legal)
        best = max(scores)
        top = [p for s, p in zip(scores, legal, strict=True) if s >= best - 1e-9]
        return top[rng.randrange(len(top))]
