"""Schafkopf's simplest levels: ``greedy`` bids by hand strength (:func:`choose_bid`) and
plays to win tricks cheaply and feed known friends (:func:`choose_card`); ``easy`` is
greedy with noise in the play."""

from __future__ import annotations

from collections.abc import Sequence

from engine.cards import Card
from engine.policy import NoisyPolicy
from engine.schafkopf.ai.rule import RulePolicy
from engine.schafkopf.rules import (
    CARD_POINTS,
    CONTRACT_RANK,
    SUITS,
    TOUTS,
    TRUMP,
    Mode,
    mode_of,
    trick_winner,
)
from engine.schafkopf.state import Action, Announce, ContractKind, SchafkopfView


def _count(hand: Sequence[Card], ranks: str) -> int:
    return sum(1 for c in hand if c.rank in ranks)


def bid_candidates(hand: Sequence[Card]) -> list[tuple[ContractKind, str | None, float]]:
    """Contracts the hand is strong enough for: ``(contract, suit, strength)``."""
    obers = _count(hand, "O")
    unters = _count(hand, "U")
    high = obers + unters
    aces = _count(hand, "A")
    out: list[tuple[ContractKind, str | None, float]] = []
    if high == 8:
        out.append(("sie", None, 99.0))
    for suit in SUITS:
        trumps = high + sum(1 for c in hand if c.suit == suit and c.rank not in "OU")
        strength = trumps + 0.5 * obers + 0.25 * (aces - (Card("A", suit) in hand))
        tops = Card("O", "E") in hand and Card("O", "G") in hand
        if (trumps == 8 and tops) or (trumps >= 7 and obers == 4):
            out.append(("solo_tout", suit, strength))
        if trumps >= 7 or (trumps >= 6 and obers >= 2 and high >= 4):
            out.append(("solo", suit, strength))
    u_top = Card("U", "E") in hand
    if unters == 4 and aces >= 3 and _count(hand, "T") >= 2:
        out.append(("wenz_tout", None, unters + aces))
    if (unters >= 3 and aces >= 2) or (unters >= 2 and u_top and aces >= 3):
        out.append(("wenz", None, unters + aces))
    heart_trumps = high + sum(1 for c in hand if c.suit == "H" and c.rank not in "OU")
    if heart_trumps >= 5 or (heart_trumps >= 4 and high >= 2):
        for suit in "EGS":
            plain = [c for c in hand if c.suit == suit and c.rank not in "OU"]
            if plain and Card("A", suit) not in hand:
                # prefer calling where we hold few cards (a likely void to trump in)
                out.append(("rufer", suit, heart_trumps - 0.1 * len(plain)))
    return out


def choose_bid(hand: Sequence[Card], legal: Sequence[Action]) -> Action:
    """The highest contract the hand supports among the legal bids, else pass."""
    offered = {(a.contract, a.suit): a for a in legal if isinstance(a, Announce)}
    best: tuple[int, float] | None = None
    choice: Action = next(a for a in legal if not isinstance(a, Announce))
    for kind, suit, strength in bid_candidates(hand):
        action = offered.get((kind, suit))
        if action is None:
            continue
        key = (CONTRACT_RANK[kind], strength)
        if best is None or key > best:
            best, choice = key, action
    return choice


def _beats(trick: Sequence[Card], card: Card, mode: Mode) -> bool:
    return trick_winner((*trick, card), mode) == len(trick)


def choose_card(view: SchafkopfView, cards: Sequence[Card]) -> Card:
    """A sensible card from the view: win tricks cheaply, give points to friends."""
    contract = view.contract
    assert contract is not None and view.seat is not None
    me = view.seat
    mode = mode_of(contract.kind, contract.suit)
    eff, power = mode.eff, mode.power
    ace = contract.called_ace
    partner = view.partner
    if ace is not None and ace in view.hand:
        partner = me
    side = {contract.declarer} | ({partner} if partner is not None else set())
    known = contract.kind != "rufer" or partner is not None
    if me in side:
        friends = side - {me}
    else:
        friends = ({0, 1, 2, 3} - side - {me}) if known else set()

    def cheap(c: Card) -> tuple[int, int, int]:
        return (eff[c] == TRUMP, CARD_POINTS[c], power[c])

    trick = view.trick
    if not trick:
        played = {c for t in view.tricks for c in t.cards}
        trumps = [c for c in cards if eff[c] == TRUMP]
        if me in side and trumps:
            top = max(trumps, key=power.__getitem__)
            higher_out = [t for t in mode.trumps if power[t] > power[top] and t not in played]
            if not higher_out:
                return top
            return min(trumps, key=power.__getitem__)
        if ace is not None and me not in side and not known:
            search = [c for c in cards if eff[c] == ace.suit]
            if search:
                return min(search, key=power.__getitem__)
        aces = [c for c in cards if c.rank == "A" and eff[c] != TRUMP]
        if aces:
            return aces[0]
        return min(cards, key=cheap)
    leader = view.leader
    w = trick_winner(trick, mode)
    winner = (leader + w) % 4
    last = len(trick) == 3
    beating = [c for c in cards if _beats(trick, c, mode)]
    if contract.kind in TOUTS:
        if beating:  # every trick decides a Tout: take it while you can
            return max(beating, key=power.__getitem__)
        return min(cards, key=cheap)
    if winner in friends:
        if last or eff[trick[w]] == TRUMP:
            return max(cards, key=lambda c: (eff[c] != TRUMP, CARD_POINTS[c], -power[c]))
        return min(cards, key=cheap)
    if beating:
        at_stake = sum(CARD_POINTS[c] for c in trick)
        if last:
            return max(beating, key=lambda c: (eff[c] != TRUMP, CARD_POINTS[c], -power[c]))
        if at_stake >= 4 or len(cards) <= 2:
            return max(beating, key=power.__getitem__)
    return min(cards, key=cheap)


class GreedyPolicy(RulePolicy):
    """Bids by hand strength; plays to win tricks cheaply and feeds known friends."""

    name = "greedy"

    def __init__(self) -> None:
        super().__init__(choose_bid, choose_card)


class EasyPolicy(NoisyPolicy[SchafkopfView, Action]):
    """Greedy with noise: a plausible but beatable player.

    It bids like :class:`GreedyPolicy` and plays its card, except that now
    and then (``noise``) it plays any legal card instead.
    """

    noise = 0.3

    def __init__(self) -> None:
        super().__init__(GreedyPolicy())

    def noisy(self, view: SchafkopfView) -> bool:
        """Only a card may be random: the bid is always greedy's."""
        return view.phase == "play"
