"""Hand evaluation and contract choice for the ``normal`` and ``hard`` levels.

The bidding of rules/schafkopf.md (Contracts and bidding) is one round: each
seat passes or announces a strictly higher contract.  A hand is scored per
contract family with the usual Schafkopf rules of thumb:

* trumps count by rank (an Ober more than an Unter, an Unter more than a
  trump of the suit), plain aces count, voids count when the hand can trump
  in, a blank ten (a plain ten without its ace) counts against the hand;
* Rufer from about four good trumps with an ace or a void, Solo from six or
  seven strong trumps, Wenz from two or three Unters (the acorn Unter helps)
  with aces and tens behind them;
* a Tout only when the hand cannot lose a trick (:func:`sure_tout`).

The ace to call in a Rufer is the one of the suit in which the hand is
shortest (a blank card there is ideal: the partner's ace wins the first round
and the hand is void afterwards), never a suit holding only a ten if avoidable.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.cards import Card
from engine.schafkopf.rules import CONTRACT_RANK, SUITS, TRUMP, Mode, announcements, mode_of
from engine.schafkopf.state import Action, Announce, ContractKind, Pass

_OBER = {"E": 3.0, "G": 2.6, "H": 2.3, "S": 2.0}
_UNTER = {"E": 1.8, "G": 1.6, "H": 1.5, "S": 1.4}
_SUIT_TRUMP = {"A": 1.3, "T": 1.2, "K": 1.1, "9": 1.0, "8": 1.0, "7": 1.0}
_WENZ_UNTER = {"E": 3.0, "G": 2.6, "H": 2.3, "S": 2.0}

RUFER_THRESHOLD = 6.0
SOLO_THRESHOLD = 13.0
WENZ_THRESHOLD = 10.0
"""Scores a hand needs for each contract (tuned by self-play in the arena)."""


@dataclass(frozen=True, slots=True)
class Offer:
    """A contract the hand could announce, with its margin above the threshold."""

    contract: ContractKind
    suit: str | None
    margin: float


def trump_score(hand: Sequence[Card], trump_suit: str) -> tuple[float, int]:
    """Score and count of the trumps of ``hand`` when ``trump_suit`` is trumps."""
    score = 0.0
    n = 0
    for c in hand:
        if c.rank == "O":
            score += _OBER[c.suit]
        elif c.rank == "U":
            score += _UNTER[c.suit]
        elif c.suit == trump_suit:
            score += _SUIT_TRUMP[c.rank]
        else:
            continue
        n += 1
    return score, n


def side_score(hand: Sequence[Card], trump_suit: str, trumps: int, ace_value: float) -> float:
    """Plain aces, tens with their ace, blank tens and voids (Obers/Unters are trumps)."""
    score = 0.0
    for s in SUITS:
        if s == trump_suit:
            continue
        ranks = {c.rank for c in hand if c.suit == s and c.rank not in "OU"}
        if not ranks:
            score += 0.6 if trumps >= 4 else 0.2
            continue
        if "A" in ranks:
            score += ace_value
            if "T" in ranks:
                score += 0.4
        elif "T" in ranks and len(ranks) <= 2:
            score -= 0.4
        if len(ranks) >= 3 and "A" not in ranks:
            score -= 0.3
    return score


def rufer_score(hand: Sequence[Card]) -> float:
    """How good a Rufer (hearts trumps, with a partner) the hand is."""
    trumps, n = trump_score(hand, "H")
    if n < 4:
        return trumps - 3.0  # too few trumps: far below any threshold
    return trumps + side_score(hand, "H", n, 1.0)


def solo_score(hand: Sequence[Card], suit: str) -> float:
    """How good a Solo in ``suit`` the hand is (no partner: aces and voids weigh more)."""
    trumps, n = trump_score(hand, suit)
    if n < 5:
        return trumps - 4.0
    return trumps + side_score(hand, suit, n + 1, 1.3)


def wenz_score(hand: Sequence[Card]) -> float:
    """How good a Wenz (only the Unters trump; Obers rank in their suits) the hand is."""
    score = sum(_WENZ_UNTER[c.suit] for c in hand if c.rank == "U")
    unters = sum(1 for c in hand if c.rank == "U")
    for s in SUITS:
        ranks = [c.rank for c in hand if c.suit == s and c.rank != "U"]
        if not ranks:
            score += 0.5 if unters >= 2 else 0.0
            continue
        top = 0
        for r in "ATKO":  # sure winners from the top
            if r in ranks:
                top += 1
            else:
                break
        score += sum((1.6, 1.2, 0.8, 0.5)[:top])
        if top >= 1 and len(ranks) >= 4:
            score += 0.5 * (len(ranks) - 3)  # a long suit runs once trumps are gone
        losers = len(ranks) - top
        if top == 0:
            score -= 0.45 * min(losers, 3)
        else:
            score -= 0.2 * max(0, min(losers, 3) - 1)
    return score


def sure_winners(hand: Sequence[Card], mode: Mode) -> bool:
    """Whether ``hand`` wins every trick whatever the others hold (a safe Tout).

    Trumps: the hand's trumps from the top must out-rank every outside trump
    in turn (an opponent may hold all of them).  Plain cards: each must be
    the highest of its suit once the hand's higher cards of the suit fell.
    """
    trumps = [c for c in mode.trumps if c in hand]
    outside = [c for c in mode.trumps if c not in hand]
    if outside:
        if len(trumps) < len(outside):
            return False
        # our k-th highest trump must beat their highest one after k-1 rounds
        k = len(outside)
        if mode.power[trumps[k - 1]] < mode.power[outside[0]]:
            return False
    for c in hand:
        suit = mode.eff[c]
        if suit == TRUMP:
            continue
        higher = [
            d
            for d in mode.eff
            if mode.eff[d] == suit and mode.power[d] > mode.power[c] and d not in hand
        ]
        if higher:
            return False
    return True


def call_choice(hand: Sequence[Card], suits: Sequence[str]) -> str:
    """The ace to call among ``suits``: the shortest suit, avoiding a lone ten."""

    def key(s: str) -> tuple[int, int, str]:
        plain = [c for c in hand if c.suit == s and c.rank not in "OU"]
        ten = 1 if any(c.rank == "T" for c in plain) else 0
        return (len(plain), ten, s)

    return min(suits, key=key)


def offers(hand: Sequence[Card]) -> list[Offer]:
    """Every contract the hand is good enough for, with its margin."""
    out: list[Offer] = []
    high = sum(1 for c in hand if c.rank in "OU")
    if high == 8:
        out.append(Offer("sie", None, 100.0))
    wenz = wenz_score(hand)
    if sure_winners(hand, mode_of("wenz", None)):
        out.append(Offer("wenz_tout", None, 50.0))
    if wenz >= WENZ_THRESHOLD:
        out.append(Offer("wenz", None, (wenz - WENZ_THRESHOLD) / 2.0))
    for s in SUITS:
        plain = sum(1 for c in hand if c.suit == s and c.rank not in "OU")
        if not plain or high + plain < 5:  # below five trumps no Solo scores enough
            continue
        if high + plain >= 7 and sure_winners(hand, mode_of("solo_tout", s)):
            out.append(Offer("solo_tout", s, 50.0))
        score = solo_score(hand, s)
        if score >= SOLO_THRESHOLD:
            out.append(Offer("solo", s, (score - SOLO_THRESHOLD) / 2.0))
    rufer = rufer_score(hand)
    if rufer >= RUFER_THRESHOLD:
        callable_ = [
            s
            for s in "EGS"
            if Card("A", s) not in hand and any(c.suit == s and c.rank not in "OU" for c in hand)
        ]
        if callable_:
            out.append(Offer("rufer", call_choice(hand, callable_), rufer - RUFER_THRESHOLD))
    return out


def best_bid(hand: Sequence[Card], legal: Sequence[Action]) -> Action:
    """The best legal announcement the hand supports, else pass.

    A Tout or Sie that is sure beats everything; otherwise Solo and Wenz
    (worth five times a Rufer) come before a Rufer, and among equals the
    larger margin wins.
    """
    offered = {(a.contract, a.suit): a for a in legal if isinstance(a, Announce)}
    choice: Action = next(a for a in legal if not isinstance(a, Announce))
    best: tuple[int, float, int] | None = None
    for o in offers(hand):
        action = offered.get((o.contract, o.suit))
        if action is None:
            continue
        sure = o.contract in ("sie", "wenz_tout", "solo_tout")
        tier = 2 if sure else (1 if o.contract != "rufer" else 0)
        key = (tier, o.margin, CONTRACT_RANK[o.contract])
        if best is None or key > best:
            best, choice = key, action
    return choice


def normal_word(hand: Sequence[Card], highest: int) -> Announce | Pass:
    """What the ``normal`` evaluation says with ``hand`` once the highest announcement
    so far has rank ``highest`` (-1: none): :func:`best_bid` over passing and every
    legal announcement."""
    word = best_bid(hand, (Pass(), *announcements(hand, highest)))
    assert isinstance(word, (Announce, Pass))
    return word
