"""The ``normal`` Schafkopf player: rule-based, counting cards, from the view only.

What it knows (:class:`Knowledge`): the cards already played, the cards it
cannot see, the suits each seat showed void in (A trick), who is on its side
(the declarer, the Rufer partner once the called ace fell or — to the
partner itself — at once; a defender narrows the partner down to the seats
that may hold the called ace, The called ace) and how many cards each seat
holds.

How it plays:

* **Leading.** The declaring side draws trumps while the opponents may hold
  some, with the top trump when it is the highest one out; the Rufer
  declarer first leads the called suit so the partner's ace takes the trick.
  The partner shows itself by leading trump when it holds three or more;
  a weaker partner stays hidden (no trump lead, the called ace kept).
  Defenders look for the partner by leading the called suit, cash plain aces
  whose suit has not run, and force the declarer by leading into his voids.
* **Following.** Every legal card is valued as (chance that the own side
  takes the trick × 2 − 1) × (points in it) − what the card is still worth
  later (a high trump, an ace whose suit has not run): that schmiert points
  to a partner's safe trick, trumps a fat trick cheaply, ducks with a
  worthless card, and spends no trump on an empty trick.  The chances come
  from card counting: which higher cards are still out and who may hold them
  (voids, hand sizes).
* **Tout.** The declarer wins every trick while he can; the defenders need
  only one, so they beat the declarer whenever possible.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.cards import GERMAN_32, Card
from engine.schafkopf.ai.bidding import best_bid
from engine.schafkopf.ai.rule import RulePolicy
from engine.schafkopf.rules import CARD_POINTS, TOUTS, TRUMP, Mode, mode_of, trick_winner
from engine.schafkopf.state import Contract, SchafkopfView

DECK = GERMAN_32.cards


@dataclass(frozen=True, slots=True)
class Knowledge:
    """What one seat knows in the play of a deal (from its view only)."""

    me: int
    contract: Contract
    mode: Mode
    hand: tuple[Card, ...]
    played: frozenset[Card]
    unseen: tuple[Card, ...]
    voids: tuple[frozenset[str], ...]
    counts: tuple[int, ...]
    friend: tuple[float, ...]
    declaring: bool
    tricks_left: int
    trumps: tuple[float, ...]
    """Expected number of unseen trumps each seat holds (0 for the viewer)."""
    hidden_partner: bool
    """The viewer is the Rufer partner and nobody else knows it yet."""


def _voids(view: SchafkopfView, mode: Mode) -> list[set[str]]:
    voids: list[set[str]] = [set(), set(), set(), set()]
    plays: list[tuple[int, tuple[Card, ...]]] = [(t.leader, t.cards) for t in view.tricks]
    if view.trick:
        plays.append((view.leader, view.trick))
    for leader, cards in plays:
        led = mode.eff[cards[0]]
        for i in range(1, len(cards)):
            if mode.eff[cards[i]] != led:
                voids[(leader + i) % 4].add(led)
    return voids


def _partner_candidates(view: SchafkopfView, mode: Mode, voids: list[set[str]]) -> list[int]:
    """Seats that may still hold the called ace (The called ace), the viewer excluded."""
    contract = view.contract
    assert contract is not None and contract.suit is not None
    suit = contract.suit
    out = []
    excluded = set()
    plays: list[tuple[int, tuple[Card, ...]]] = [(t.leader, t.cards) for t in view.tricks]
    if view.trick:
        plays.append((view.leader, view.trick))
    for leader, cards in plays:
        if mode.eff[cards[0]] == suit:  # a follower who held the ace had to play it
            for i in range(1, len(cards)):
                excluded.add((leader + i) % 4)
    for s in range(4):
        if s in (view.seat, contract.declarer) or s in excluded or suit in voids[s]:
            continue
        out.append(s)
    return out


def knowledge(view: SchafkopfView) -> Knowledge:
    """Everything the seat of ``view`` can tell about the deal in play."""
    contract = view.contract
    assert contract is not None and view.seat is not None
    me = view.seat
    mode = mode_of(contract.kind, contract.suit)
    played = {c for t in view.tricks for c in t.cards} | set(view.trick)
    unseen = tuple(c for c in DECK if c not in played and c not in view.hand)
    voids = _voids(view, mode)
    friend = [0.0, 0.0, 0.0, 0.0]
    friend[me] = 1.0
    ace = contract.called_ace
    declarer = contract.declarer
    partner = view.partner
    if ace is not None and partner is None and ace in view.hand:
        partner = me
    if ace is None or partner is not None:
        side = {declarer} if ace is None else {declarer, partner}
        declaring = me in side
        for s in range(4):
            if s != me:
                friend[s] = 1.0 if (s in side) == declaring else 0.0
    else:
        cands = _partner_candidates(view, mode, voids)
        declaring = me == declarer
        for s in range(4):
            if s in (me, declarer):
                continue
            if declaring:
                friend[s] = 1.0 / len(cands) if s in cands else 0.0
            elif s in cands:
                friend[s] = 1.0 - 1.0 / len(cands)
            else:
                friend[s] = 1.0
    return Knowledge(
        me=me,
        contract=contract,
        mode=mode,
        hand=view.hand,
        played=frozenset(played),
        unseen=unseen,
        voids=tuple(frozenset(v) for v in voids),
        counts=view.hand_counts,
        friend=tuple(friend),
        declaring=declaring,
        tricks_left=8 - len(view.tricks),
        trumps=_expected_trumps(view, mode, unseen, voids),
        hidden_partner=ace is not None and view.partner is None and ace in view.hand,
    )


SHOW_TRUMPS = 3
"""A Rufer partner with this many trumps shows itself by leading trump."""

DECLARER_TRUMPS = {
    "rufer": 5.0,
    "solo": 6.5,
    "solo_tout": 7.5,
    "wenz": 2.5,
    "wenz_tout": 3.5,
    "sie": 8.0,
}
"""Trumps a declarer typically holds when announcing (out of 8 cards)."""


def _expected_trumps(
    view: SchafkopfView, mode: Mode, unseen: Sequence[Card], voids: Sequence[set[str]]
) -> tuple[float, ...]:
    """How many of the unseen trumps each other seat is expected to hold.

    The declarer starts from :data:`DECLARER_TRUMPS` less the trumps he has
    played; the rest of the unseen trumps spread over the others by hand size.
    """
    contract = view.contract
    assert contract is not None
    out_trumps = sum(1 for c in unseen if mode.eff[c] == TRUMP)
    counts = view.hand_counts
    others = [s for s in range(4) if s != view.seat and TRUMP not in voids[s] and counts[s]]
    est = [0.0, 0.0, 0.0, 0.0]
    declarer = contract.declarer
    rest = float(out_trumps)
    if declarer in others:
        played = sum(
            1
            for t in view.tricks
            for i, c in enumerate(t.cards)
            if (t.leader + i) % 4 == declarer and mode.eff[c] == TRUMP
        ) + sum(
            1
            for i, c in enumerate(view.trick)
            if (view.leader + i) % 4 == declarer and mode.eff[c] == TRUMP
        )
        guess = DECLARER_TRUMPS[contract.kind] - played
        est[declarer] = max(0.0, min(guess, counts[declarer] - 0.5, rest))
        rest -= est[declarer]
        others = [s for s in others if s != declarer]
    size = sum(counts[s] for s in others)
    for s in others:
        est[s] = min(float(counts[s]), rest * counts[s] / size) if size else 0.0
    return tuple(est)


# -- card counting -------------------------------------------------------------
def _holders(k: Knowledge, card: Card) -> list[tuple[int, float]]:
    """Seats that may hold the unseen ``card`` and the chance of each.

    Trumps go by the seats' expected trump holdings (:attr:`Knowledge.trumps`:
    the declarer holds many), plain cards by the rest of each hand.
    """
    contract = k.contract
    seats = [s for s in range(4) if s != k.me and k.counts[s] > 0]
    if card == contract.called_ace:
        seats = [s for s in seats if s != contract.declarer]
    suit = k.mode.eff[card]
    seats = [s for s in seats if suit not in k.voids[s]]
    if suit == TRUMP:
        weights = [k.trumps[s] for s in seats]
    else:
        weights = [k.counts[s] - k.trumps[s] for s in seats]
    total = sum(weights)
    if total <= 0:
        total = sum(k.counts[s] for s in seats)
        weights = [k.counts[s] for s in seats]
    return [(s, w / total) for s, w in zip(seats, weights, strict=True)] if total else []


def _p_has_any(k: Knowledge, seat: int, cards: Sequence[Card]) -> float:
    """Chance that ``seat`` holds at least one of ``cards`` (treated as independent)."""
    miss = 1.0
    for c in cards:
        for s, p in _holders(k, c):
            if s == seat:
                miss *= 1.0 - p
    return 1.0 - miss


def _beaters(k: Knowledge, card: Card, led: str) -> tuple[list[Card], list[Card]]:
    """Unseen cards that would beat ``card`` as the trick's winner: (same suit, trumps)."""
    eff, power = k.mode.eff, k.mode.power
    if eff[card] == TRUMP:
        return [], [c for c in k.unseen if eff[c] == TRUMP and power[c] > power[card]]
    same = [c for c in k.unseen if eff[c] == led and power[c] > power[card]]
    return same, [c for c in k.unseen if eff[c] == TRUMP]


def p_beaten_by(k: Knowledge, seat: int, card: Card, led: str) -> float:
    """Chance that ``seat`` (still to play) can beat ``card`` winning a trick led in ``led``."""
    same, trumps = _beaters(k, card, led)
    if led == TRUMP:
        return _p_has_any(k, seat, trumps)
    p_same = _p_has_any(k, seat, same)
    if led in k.voids[seat]:
        p_void = 1.0
    else:
        p_void = 1.0 - _p_has_any(k, seat, [c for c in k.unseen if k.mode.eff[c] == led])
    return min(1.0, p_same + p_void * _p_has_any(k, seat, trumps))


def hold_chance(
    k: Knowledge, card: Card, led: str, behind: Sequence[int], owner_friend: float
) -> float:
    """Chance that the own side takes the trick if ``card`` wins it now.

    ``owner_friend`` is the chance that the card's owner is on the viewer's
    side; the seats ``behind`` beat it with the chance of :func:`p_beaten_by`
    when they are on the other side of the owner.
    """
    p_friend_wins = owner_friend
    for s in behind:
        p = p_beaten_by(k, s, card, led)
        if p <= 0.0:
            continue
        f = k.friend[s]
        # the owner's foes behind take it over; if s beats it, s's side wins
        p_s_foe_of_owner = owner_friend * (1.0 - f) + (1.0 - owner_friend) * f
        p_take = p * p_s_foe_of_owner
        p_friend_wins = p_friend_wins * (1.0 - p_take) + p_take * f
    return p_friend_wins


def keep_value(k: Knowledge, card: Card) -> float:
    """What holding ``card`` on is worth in later tricks (points-like units)."""
    eff, power = k.mode.eff, k.mode.power
    later = k.tricks_left - 1
    if later <= 0:
        return 0.0
    scale = min(1.0, later / 3.0)
    suit = eff[card]
    if suit == TRUMP:
        # a trump keeps its power to win a trick later, and likely its own points
        higher = sum(1 for c in k.unseen if eff[c] == TRUMP and power[c] > power[card])
        survive = 0.4 + 0.6 / (1 + higher)
        value = survive * CARD_POINTS[card] + 2.0 + 6.0 / (1 + higher)
        return value * scale
    higher_out = [c for c in k.unseen if eff[c] == suit and power[c] > power[card]]
    run = sum(1 for c in k.played if eff[c] == suit)
    if not higher_out:  # the top card of its suit
        value = 7.0 if run < 3 else 3.5
    elif card.rank == "T" or card.rank == "A":
        value = 1.0
    else:
        value = 0.0
    mine = sum(1 for c in k.hand if eff[c] == suit)
    if mine == 1 and any(eff[c] == TRUMP for c in k.hand) and value < 3.0:
        value -= 1.0  # playing it makes a void to trump in later
    return value * scale


# -- following -----------------------------------------------------------------
def follow(k: Knowledge, trick: Sequence[Card], leader: int, cards: Sequence[Card]) -> Card:
    """The card to add to ``trick`` (see the module docstring)."""
    mode = k.mode
    led = mode.eff[trick[0]]
    w = trick_winner(trick, mode)
    winner = (leader + w) % 4
    pos = len(trick)
    behind = [(leader + i) % 4 for i in range(pos + 1, 4)]
    pot = sum(CARD_POINTS[c] for c in trick) + 2.5 * len(behind)
    if k.contract.kind in TOUTS:
        return _follow_tout(k, trick, winner, behind, cards)
    base_hold = None
    best: tuple[float, float] | None = None
    choice = cards[0]
    for c in cards:
        beats = trick_winner((*trick, c), mode) == pos
        if beats:
            p = hold_chance(k, c, led, behind, 1.0)
        else:
            if base_hold is None:
                base_hold = hold_chance(k, trick[w], led, behind, k.friend[winner])
            p = base_hold
        value = (2.0 * p - 1.0) * (pot + CARD_POINTS[c]) - keep_value(k, c)
        key = (value, -mode.power[c])
        if best is None or key > best:
            best, choice = key, c
    return choice


def _follow_tout(
    k: Knowledge, trick: Sequence[Card], winner: int, behind: Sequence[int], cards: Sequence[Card]
) -> Card:
    mode = k.mode
    power = mode.power
    pos = len(trick)
    beating = [c for c in cards if trick_winner((*trick, c), mode) == pos]
    declarer = k.contract.declarer
    if k.me == declarer:
        if beating:
            led = mode.eff[trick[0]]
            safe = [c for c in beating if hold_chance(k, c, led, behind, 1.0) >= 0.999]
            return min(safe, key=power.__getitem__) if safe else max(beating, key=power.__getitem__)
        return min(cards, key=lambda c: (CARD_POINTS[c], power[c]))
    if winner == declarer and beating:
        return min(beating, key=power.__getitem__)
    if declarer in behind:
        return max(cards, key=power.__getitem__)
    return min(cards, key=lambda c: (CARD_POINTS[c], power[c]))


# -- leading -------------------------------------------------------------------
def _cheapest(k: Knowledge, cards: Sequence[Card]) -> Card:
    return min(cards, key=lambda c: (keep_value(k, c) + CARD_POINTS[c], k.mode.power[c]))


def lead(k: Knowledge, cards: Sequence[Card]) -> Card:
    """The card to lead (see the module docstring)."""
    mode = k.mode
    eff, power = mode.eff, mode.power
    contract = k.contract
    trumps = [c for c in cards if eff[c] == TRUMP]
    plain = [c for c in cards if eff[c] != TRUMP]
    out_trumps = [c for c in k.unseen if eff[c] == TRUMP]
    foes = [s for s in range(4) if k.friend[s] < 0.5]
    foe_trumps = out_trumps and any(TRUMP not in k.voids[s] for s in foes)
    ace = contract.called_ace
    called_open = (
        ace is not None
        and ace not in k.played
        and not any(eff[t] == ace.suit for t in k.played if t != ace)
        and ace not in k.hand
    )

    if contract.kind in TOUTS:
        if trumps:
            return max(trumps, key=power.__getitem__)
        return max(cards, key=power.__getitem__)

    if k.declaring:
        called = [c for c in plain if ace is not None and eff[c] == ace.suit]
        if called_open and called and k.me == contract.declarer:
            return min(called, key=power.__getitem__)  # the partner's ace takes it
        hidden = k.hidden_partner
        if hidden and len(trumps) < SHOW_TRUMPS and plain:
            # a weak partner stays hidden: no trump lead, and not the called ace
            others = [c for c in plain if c != ace] or plain
            aces = _safe_aces(k, others, foes)
            return aces[0] if aces else _cheapest(k, others)
        if trumps and foe_trumps:
            top = max(trumps, key=power.__getitem__)
            if not any(power[c] > power[top] for c in out_trumps):
                return top
            if len(trumps) >= 2 or not plain:
                return min(trumps, key=lambda c: (keep_value(k, c), power[c]))
        aces = _safe_aces(k, plain, foes)
        if aces:
            return aces[0]
        if trumps and not plain:
            return max(trumps, key=power.__getitem__)
        return _cheapest(k, plain or cards)

    # defenders
    if called_open and ace is not None:
        called = [c for c in plain if eff[c] == ace.suit]
        if called:
            return min(called, key=power.__getitem__)
    aces = _safe_aces(k, plain, foes)
    if aces:
        return aces[0]
    if plain:
        declarer = contract.declarer
        forcing = [
            c for c in plain if eff[c] in k.voids[declarer] and TRUMP not in k.voids[declarer]
        ]
        if forcing and contract.kind != "rufer":
            return _cheapest(k, forcing)
        return _cheapest(k, plain)
    top = max(trumps, key=power.__getitem__)
    if not any(power[c] > power[top] for c in out_trumps):
        return top
    return _cheapest(k, trumps)


def _safe_aces(k: Knowledge, plain: Sequence[Card], foes: Sequence[int]) -> list[Card]:
    """Plain top cards worth cashing: the suit has not run and no foe is void in it."""
    eff, power = k.mode.eff, k.mode.power
    out = []
    for c in plain:
        suit = eff[c]
        if any(eff[u] == suit and power[u] > power[c] for u in k.unseen):
            continue
        if CARD_POINTS[c] < 10:
            continue
        run = sum(1 for p in k.played if eff[p] == suit)
        if run >= 3 or any(suit in k.voids[s] for s in foes):
            continue
        out.append(c)
    return sorted(out, key=lambda c: -CARD_POINTS[c])


def choose_card(view: SchafkopfView, cards: Sequence[Card]) -> Card:
    """The normal level's card for the view's seat among ``cards``."""
    if len(cards) == 1:
        return cards[0]
    k = knowledge(view)
    if not view.trick:
        return lead(k, cards)
    return follow(k, view.trick, view.leader, cards)


class NormalPolicy(RulePolicy):
    """Bids by hand strength (:mod:`engine.schafkopf.ai.bidding`), plays by rules and
    card counting."""

    name = "normal"

    def __init__(self) -> None:
        super().__init__(best_bid, choose_card)
