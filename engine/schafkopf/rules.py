"""Schafkopf rules as pure functions (rules/schafkopf.md).

Trump orders and card strengths are precomputed once per *mode* (the trump
suit of Rufer/Solo, or Wenz), so the play loop only does dictionary lookups.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.cards import GERMAN_32, Card
from engine.reasons import Reason, Why
from engine.schafkopf.state import (
    Announce,
    Contract,
    ContractKind,
    DealRecord,
    Four,
    Hand,
    Hands,
    Trick,
)

SUITS = "EGHS"
"""Suit order acorns > leaves > hearts > bells (Trumps and ranks)."""

CONTRACTS: tuple[ContractKind, ...] = ("rufer", "wenz", "solo", "wenz_tout", "solo_tout", "sie")
CONTRACT_RANK: dict[str, int] = {k: i for i, k in enumerate(CONTRACTS)}
"""Contracts, lowest first (Contracts and bidding)."""

BASE_VALUE: dict[str, int] = {
    "rufer": 1,
    "wenz": 5,
    "solo": 5,
    "wenz_tout": 10,
    "solo_tout": 10,
    "sie": 20,
}
"""Base values (Scoring)."""

TOUTS = frozenset({"wenz_tout", "solo_tout"})
SOLO_LIKE = frozenset({"solo", "solo_tout"})
WENZ_LIKE = frozenset({"wenz", "wenz_tout"})
CALLABLE_SUITS = "EGS"
"""Rufer: the ace of acorns, leaves or bells, never hearts (Eligibility)."""

ANNOUNCE: dict[tuple[str, str | None], Announce] = {
    (kind, suit): Announce(kind, suit)
    for kind in CONTRACTS
    for suit in (CALLABLE_SUITS if kind == "rufer" else SUITS if kind in SOLO_LIKE else (None,))
}
"""Every announcement there is, once: the same object in every legal move list
(``Announce.interned``)."""

POINTS: dict[str, int] = {"A": 11, "T": 10, "K": 4, "O": 3, "U": 2, "9": 0, "8": 0, "7": 0}
CARD_POINTS: dict[Card, int] = {c: POINTS[c.rank] for c in GERMAN_32.cards}
"""Card points (Cards): A 11, T 10, K 4, O 3, U 2, 9/8/7 nothing; 120 in all."""

ZEROS: Four = (0, 0, 0, 0)
"""No points, no totals: one object for every deal and series that starts (a view's
unchanged fields are told by identity, ``engine.codec.PlainMemo``; compiled, a
tuple written out is a new object each time)."""

TRUMP = "T"
"""The effective suit of every trump."""

OBERS_UNTERS = frozenset(Card(r, s) for r in "OU" for s in SUITS)
SIE_LAUFENDE = 8
"""**A Sie counts 8** Laufende (Scoring)."""


@dataclass(frozen=True, eq=False)
class Mode:
    """Trumps and ranks of one contract family (Trumps and ranks).

    ``eff`` maps every card to its effective suit (``TRUMP`` for trumps);
    ``power`` orders cards so that any trump beats any plain card and a
    plain card beats a lower one of its suit.
    """

    name: str
    trumps: tuple[Card, ...]
    eff: dict[Card, str]
    power: dict[Card, int]


def _mode(trump_suit: str | None) -> Mode:
    if trump_suit is None:  # Wenz: only the Unters; Obers rank in their suit
        trumps = tuple(Card("U", s) for s in SUITS)
        plain = "ATKO987"
        name = "wenz"
    else:
        trumps = (
            tuple(Card("O", s) for s in SUITS)
            + tuple(Card("U", s) for s in SUITS)
            + tuple(Card(r, trump_suit) for r in "ATK987")
        )
        plain = "ATK987"
        name = f"trump_{trump_suit}"
    eff: dict[Card, str] = {}
    power: dict[Card, int] = {}
    for i, c in enumerate(trumps):
        eff[c] = TRUMP
        power[c] = 100 + len(trumps) - i
    for c in GERMAN_32.cards:
        if c not in eff:
            eff[c] = c.suit
            power[c] = len(plain) - plain.index(c.rank)
    return Mode(name, trumps, eff, power)


MODES: dict[str | None, Mode] = {s: _mode(s) for s in (*SUITS, None)}


def mode_of(kind: ContractKind, suit: str | None) -> Mode:
    """The trumps of a contract: hearts in Rufer (and Sie), the suit in Solo, Unters in Wenz."""
    if kind in WENZ_LIKE:
        return MODES[None]
    if kind in SOLO_LIKE:
        return MODES[suit]
    return MODES["H"]


# -- bidding -------------------------------------------------------------------
def suit_error(kind: ContractKind, suit: str | None) -> tuple[str, Reason] | None:
    """Why ``suit`` does not fit ``kind`` (the announcement names it in full), in English
    and as a :class:`~engine.reasons.Reason`, else ``None``."""
    if kind == "rufer":
        if suit == "H":
            return "the ace of hearts can never be called", Reason(
                Why.HEART_ACE_NOT_CALLABLE, {"suit": "H"}
            )
        if suit is None or suit not in CALLABLE_SUITS:
            return "a Rufer names the called ace's suit: E, G or S", Reason(Why.RUFER_NEEDS_SUIT)
    elif kind in SOLO_LIKE:
        if suit is None or suit not in SUITS:
            return "a Solo names its trump suit: E, G, H or S", Reason(Why.SOLO_NEEDS_SUIT)
    elif suit is not None:
        return f"{kind} takes no suit", Reason(Why.TAKES_NO_SUIT, {"contract": kind})
    return None


def eligibility_error(
    hand: Sequence[Card], kind: ContractKind, suit: str | None
) -> tuple[str, Reason] | None:
    """Why ``hand`` may not announce the contract (Eligibility), in English and as a
    :class:`~engine.reasons.Reason`, else ``None``."""
    if kind == "rufer":
        assert suit is not None
        if Card("A", suit) in hand:
            return (
                f"you hold the ace of {suit}: you cannot call it",
                Reason(Why.HOLDS_CALLED_ACE, {"suit": suit}),
            )
        if not any(c.suit == suit and c.rank not in "OU" for c in hand):
            return f"you hold no plain card of {suit}", Reason(Why.NO_PLAIN_CARD, {"suit": suit})
    elif kind in SOLO_LIKE:
        assert suit is not None
        if not any(c.suit == suit and c.rank not in "OU" for c in hand):
            return (
                f"you hold no card of {suit} other than its Ober and Unter",
                Reason(Why.NO_SUIT_CARD, {"suit": suit}),
            )
    elif kind == "sie" and not set(hand) >= OBERS_UNTERS:
        return "Sie needs all four Obers and all four Unters", Reason(Why.SIE_NEEDS_ALL)
    return None


def announcements(hand: Sequence[Card], above: int) -> tuple[Announce, ...]:
    """Every announcement ``hand`` may make that ranks strictly above rank ``above``.

    One pass over the hand gathers what Eligibility asks about; the result
    agrees with :func:`eligibility_error` (a test checks it on every kind).
    """
    plain = set()
    aces = set()
    high = 0
    for c in hand:
        if c.rank in "OU":
            high += 1
        else:
            plain.add(c.suit)
            if c.rank == "A":
                aces.add(c.suit)
    out: list[Announce] = []
    for kind in CONTRACTS[above + 1 :]:
        if kind == "rufer":
            out.extend(ANNOUNCE[kind, s] for s in CALLABLE_SUITS if s in plain and s not in aces)
        elif kind in SOLO_LIKE:
            out.extend(ANNOUNCE[kind, s] for s in SUITS if s in plain)
        elif kind != "sie" or high == len(OBERS_UNTERS):
            out.append(ANNOUNCE[kind, None])
    return tuple(out)


# -- play ----------------------------------------------------------------------
def legal_plays(
    hand: Hand, trick: Sequence[Card], mode: Mode, called_ace: Card | None
) -> tuple[Card, ...]:
    """The cards of ``hand`` that may be played to ``trick`` (A trick; The called ace).

    ``called_ace`` is given only when ``hand`` holds the called ace and its
    rules are still in force (the ace not played, the partner not run away).
    """
    eff = mode.eff
    if not trick:
        if called_ace is None:
            return hand
        suit = called_ace.suit
        same = [c for c in hand if eff[c] == suit]
        if len(same) >= 4:  # ace + at least three more: may run away (rule 3)
            return hand
        return tuple(c for c in hand if eff[c] != suit or c == called_ace)
    led = eff[trick[0]]
    follow = tuple(c for c in hand if eff[c] == led)
    if called_ace is None:
        return follow or hand
    if led == called_ace.suit:  # rule 1: the ace must fall
        return (called_ace,)
    if follow:
        return follow
    if len(hand) == 1:  # rule 2: the last card may be the ace
        return hand
    return tuple(c for c in hand if c != called_ace)


def play_error(
    hand: Hand, trick: Sequence[Card], mode: Mode, called_ace: Card | None, card: Card
) -> tuple[str, str, Reason]:
    """The code, the English reason and the :class:`~engine.reasons.Reason` why ``card``
    (in ``hand``, not in the legal plays) is refused."""
    eff = mode.eff
    if called_ace is not None:
        suit = called_ace.suit
        ace = {"called_ace": str(called_ace)}
        if not trick:
            return (
                "must_lead_called_ace",
                f"leading the called suit you must lead {called_ace} "
                "unless you hold three more cards of it",
                Reason(Why.MUST_LEAD_CALLED_ACE, ace),
            )
        if eff[trick[0]] == suit:
            return (
                "must_play_called_ace",
                f"the called suit was led: you must play {called_ace}",
                Reason(Why.MUST_PLAY_CALLED_ACE, ace),
            )
        led_suit = eff[trick[0]]
        if card == called_ace and not any(eff[c] == led_suit for c in hand):
            return (
                "may_not_discard_called_ace",
                f"{called_ace} may not be discarded before its suit was led",
                Reason(Why.MAY_NOT_DISCARD_CALLED_ACE, ace),
            )
    led = eff[trick[0]] if trick else ""
    if led == TRUMP:
        return (
            "must_follow_suit",
            "you must follow trump when you can",
            Reason(Why.MUST_FOLLOW_TRUMP),
        )
    return (
        "must_follow_suit",
        f"you must follow {led} when you can",
        Reason(Why.MUST_FOLLOW_SUIT, {"suit": led}),
    )


def trick_winner(cards: Sequence[Card], mode: Mode) -> int:
    """The index of the winning card: the highest trump, else the highest of the led suit."""
    eff = mode.eff
    power = mode.power
    led = eff[cards[0]]
    best = 0
    best_power = power[cards[0]]
    for i in range(1, len(cards)):
        c = cards[i]
        e = eff[c]
        if e in (TRUMP, led) and power[c] > best_power:
            best, best_power = i, power[c]
    return best


# -- scoring -------------------------------------------------------------------
def laufende(mode: Mode, dealt: Hands, side: frozenset[int]) -> tuple[int, bool]:
    """Consecutive top trumps one side held when dealt, and whether it was ``side``."""
    owner = {c: s for s, hand in enumerate(dealt) for c in hand}
    top_side = owner[mode.trumps[0]] in side
    n = 0
    for t in mode.trumps:
        if (owner[t] in side) != top_side:
            break
        n += 1
    return n, top_side


def score_deal(
    deal_no: int,
    dealer: int,
    contract: Contract,
    partner: int | None,
    dealt: Hands,
    tricks: Sequence[Trick],
) -> DealRecord:
    """Score a finished deal (End of play; Scoring).

    Rufer, Wenz, Solo: 61 wins for the declarer's side, 60 for the defenders;
    Schneider +1 (91 / 90), Schwarz +2 (all tricks).  Tout: won only with
    every trick.  Sie: won at once.  Laufende from 3 (2 in Wenz), worth 1
    unit each, 2 in a Tout, 4 in Sie (which counts 8).  Settlement: Rufer ±v
    each; otherwise each defender ±v and the declarer ∓3v.
    """
    kind = contract.kind
    declarer = contract.declarer
    side = frozenset({declarer} if partner is None else {declarer, partner})
    decl_points = sum(t.points for t in tricks if t.winner in side)
    decl_tricks = sum(1 for t in tricks if t.winner in side)
    def_points = sum(t.points for t in tricks) - decl_points
    schneider = schwarz = False
    if kind == "sie":
        won = True
        count, lauf_side = SIE_LAUFENDE, True
        lauf_units = SIE_LAUFENDE * 4
    else:
        mode = mode_of(kind, contract.suit)
        count, lauf_side = laufende(mode, dealt, side)
        threshold = 2 if kind in WENZ_LIKE else 3
        if count < threshold:
            count = 0
        lauf_units = count * (2 if kind in TOUTS else 1)
        if kind in TOUTS:
            won = decl_tricks == len(tricks) == 8
        else:
            won = decl_points >= 61
            winner_tricks = decl_tricks if won else len(tricks) - decl_tricks
            schwarz = winner_tricks == 8
            schneider = not schwarz and (decl_points >= 91 if won else def_points >= 90)
    value = BASE_VALUE[kind] + (2 if schwarz else 1 if schneider else 0) + lauf_units
    sign = 1 if won else -1
    settlement = [0, 0, 0, 0]
    for s in range(4):
        if kind == "rufer":
            settlement[s] = sign * value if s in side else -sign * value
        else:
            settlement[s] = sign * 3 * value if s == declarer else -sign * value
    return DealRecord(
        deal_no=deal_no,
        dealer=dealer,
        contract=kind,
        suit=contract.suit,
        declarer=declarer,
        partner=partner,
        declarer_points=decl_points,
        defender_points=def_points,
        declarer_tricks=decl_tricks,
        tricks_played=len(tricks),
        declarer_won=won,
        schneider=schneider,
        schwarz=schwarz,
        laufende=count,
        laufende_side=None if count == 0 else ("declarer" if lauf_side else "defenders"),
        value=value,
        settlement=(settlement[0], settlement[1], settlement[2], settlement[3]),
    )


def passed_out_record(deal_no: int, dealer: int) -> DealRecord:
    """The record of a deal in which all four passed."""
    return DealRecord(
        deal_no=deal_no,
        dealer=dealer,
        contract=None,
        suit=None,
        declarer=None,
        partner=None,
        declarer_points=0,
        defender_points=0,
        declarer_tricks=0,
        tricks_played=0,
        declarer_won=False,
        schneider=False,
        schwarz=False,
        laufende=0,
        laufende_side=None,
        value=0,
        settlement=ZEROS,
    )


def add(totals: Four, delta: Four) -> Four:
    """Seat-wise sum of two four-tuples."""
    return (totals[0] + delta[0], totals[1] + delta[1], totals[2] + delta[2], totals[3] + delta[3])
