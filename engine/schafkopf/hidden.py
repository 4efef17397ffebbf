"""Placing the cards a seat cannot see, consistently with every public fact.

Used by ``redeal_hidden`` (the leak check) and ``sample_world`` (the AI's
determinization).  Public facts that constrain where hidden cards lie:

* a seat that did not follow the led (effective) suit is void in it (A trick);
* an announcement proves its eligibility (Eligibility): a Rufer announcer did
  not hold that ace and held a plain card of its suit; a Solo announcer held a
  card of the suit other than its Ober and Unter; a Sie announcer held all
  Obers and Unters;
* the called ace (The called ace): once the partner is public and the ace is
  still out, the partner holds it; the declarer never does; a seat that
  followed the called suit without playing the ace does not hold it; a
  leader of the called suit whose trick is still open holds it only with two
  more cards of the suit (running away, rule 3).

Who holds the called ace is *not* fixed otherwise, so it moves between the
seats that may hold it: the leak check then proves that no view depends on it.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from types import MappingProxyType

from engine.cards import GERMAN_32, Card
from engine.frozen import fast_init
from engine.rng import shuffle
from engine.schafkopf.rules import OBERS_UNTERS, SOLO_LIKE, mode_of
from engine.schafkopf.state import Bid, Contract, Hand, Trick

Check = Callable[[Hand, Hand], bool]
"""A test of one seat's (current hand, dealt hand)."""

_ORDER = {c: i for i, c in enumerate(GERMAN_32.cards)}


@fast_init
@dataclass(frozen=True, slots=True)
class Public:
    """The public facts of a deal that constrain the hidden cards."""

    bids: tuple[Bid, ...]
    contract: Contract | None
    partner_known: int | None
    leader: int
    trick: tuple[Card, ...]
    tricks: tuple[Trick, ...]


def played_by(pub: Public) -> list[list[Card]]:
    """The cards each seat has played in this deal (completed tricks and the open one)."""
    out: list[list[Card]] = [[], [], [], []]
    for t in pub.tricks:
        for i, c in enumerate(t.cards):
            out[(t.leader + i) % 4].append(c)
    for i, c in enumerate(pub.trick):
        out[(pub.leader + i) % 4].append(c)
    return out


def _voids(pub: Public) -> list[set[str]]:
    voids: list[set[str]] = [set(), set(), set(), set()]
    if pub.contract is None:
        return voids
    eff = mode_of(pub.contract.kind, pub.contract.suit).eff
    plays: list[tuple[int, tuple[Card, ...]]] = [(t.leader, t.cards) for t in pub.tricks]
    if pub.trick:
        plays.append((pub.leader, pub.trick))
    for leader, cards in plays:
        led = eff[cards[0]]
        for i in range(1, len(cards)):
            if eff[cards[i]] != led:
                voids[(leader + i) % 4].add(led)
    return voids


def _has_plain_of(suit: str) -> Check:
    def check(hand: Hand, dealt: Hand) -> bool:
        return any(c.suit == suit and c.rank not in "OU" for c in dealt)

    return check


def constraints(
    pub: Public, pool: Sequence[Card], hidden: Sequence[int]
) -> tuple[dict[Card, tuple[int, ...]], list[tuple[int, Check]]]:
    """The seats each pooled card may go to, and the joint checks per seat."""
    voids = _voids(pub)
    eff = mode_of(pub.contract.kind, pub.contract.suit).eff if pub.contract else None
    forbidden: dict[Card, set[int]] = {}
    forced: dict[Card, int] = {}
    checks: list[tuple[int, Check]] = []
    for bid in pub.bids:
        if bid.contract == "rufer" and bid.suit is not None:
            forbidden.setdefault(Card("A", bid.suit), set()).add(bid.seat)
            checks.append((bid.seat, _has_plain_of(bid.suit)))
        elif bid.contract in SOLO_LIKE and bid.suit is not None:
            checks.append((bid.seat, _has_plain_of(bid.suit)))
        elif bid.contract == "sie":
            for c in OBERS_UNTERS:
                forced[c] = bid.seat
    contract = pub.contract
    ace = contract.called_ace if contract else None
    if ace is not None and ace in pool:
        assert contract is not None and eff is not None
        if pub.partner_known is not None:
            forced[ace] = pub.partner_known
        elif pub.trick and eff[pub.trick[0]] == ace.suit:
            followers = {(pub.leader + i) % 4 for i in range(1, len(pub.trick))}
            forbidden.setdefault(ace, set()).update(followers)
            leader, suit = pub.leader, ace.suit

            def runaway(hand: Hand, dealt: Hand) -> bool:
                return ace not in hand or sum(1 for c in hand if eff[c] == suit) >= 3

            checks.append((leader, runaway))
    allowed: dict[Card, tuple[int, ...]] = {}
    for c in pool:
        if c in forced:
            seats: tuple[int, ...] = (forced[c],) if forced[c] in hidden else tuple(hidden)
        else:
            no = forbidden.get(c, set())
            seats = tuple(s for s in hidden if s not in no)
        if eff is not None:
            seats = tuple(s for s in seats if eff[c] not in voids[s])
        allowed[c] = seats
    return allowed, [(s, f) for s, f in checks if s in hidden]


@lru_cache(maxsize=256)
def _constraints_cached(
    pub: Public, pool: tuple[Card, ...], hidden: tuple[int, ...]
) -> tuple[Mapping[Card, tuple[int, ...]], tuple[tuple[int, Check], ...]]:
    """:func:`constraints`, remembered: a search samples many worlds from one view."""
    allowed, checks = constraints(pub, pool, hidden)
    return MappingProxyType(allowed), tuple(checks)


def _assign(
    pool: Sequence[Card],
    counts: dict[int, int],
    allowed: Mapping[Card, tuple[int, ...]],
    rng: random.Random,
) -> dict[int, list[Card]] | None:
    """A random assignment of ``pool`` to seats within ``counts`` and ``allowed``.

    Random greedy placement, repaired by augmenting paths (bipartite matching),
    so it finds an assignment whenever one exists.
    """
    slots: list[int] = [s for s, n in counts.items() for _ in range(n)]
    if len(slots) != len(pool):
        return None
    seat_slots: dict[int, list[int]] = {s: [] for s in counts}
    for i, s in enumerate(slots):
        seat_slots[s].append(i)
    holder: list[Card | None] = [None] * len(slots)
    free = dict(counts)
    cards = list(pool)
    shuffle(rng, cards)
    cards.sort(key=lambda c: len(allowed[c]))

    for card in cards:
        open_seats = [s for s in allowed[card] if free[s] > 0]
        if open_seats:
            s = open_seats[rng.randrange(len(open_seats))]
            i = next(i for i in seat_slots[s] if holder[i] is None)
            holder[i] = card
            free[s] -= 1
        elif not _augment(card, set(), allowed, seat_slots, holder, free, rng):
            return None
    out: dict[int, list[Card]] = {s: [] for s in counts}
    for i, held in enumerate(holder):
        assert held is not None
        out[slots[i]].append(held)
    return out


def _augment(
    card: Card,
    seen: set[int],
    allowed: Mapping[Card, tuple[int, ...]],
    seat_slots: dict[int, list[int]],
    holder: list[Card | None],
    free: dict[int, int],
    rng: random.Random,
) -> bool:
    """Place ``card`` in a slot of a seat it may go to, moving the slot's holder on
    along an augmenting path if need be (slots in ``seen`` are not tried again).

    A module-level function, not a closure: a recursive closure is a reference
    cycle, garbage only the cyclic collector frees (engine.collector).
    """
    seats = list(allowed[card])
    shuffle(rng, seats)
    for s in seats:
        for i in seat_slots[s]:
            if i in seen:
                continue
            seen.add(i)
            other = holder[i]
            if other is None:
                free[s] -= 1
            if other is None or _augment(other, seen, allowed, seat_slots, holder, free, rng):
                holder[i] = card
                return True
    return False


def deal_hidden(
    pub: Public,
    pool: Sequence[Card],
    counts: dict[int, int],
    rng: random.Random,
    tries: int = 64,
) -> tuple[dict[int, Hand], bool]:
    """New hands for the hidden seats: ``(hands, consistent)``.

    ``consistent`` is False only when no sample within ``tries`` met the joint
    checks; the hands then still respect counts and the per-card constraints
    when possible (else they are a plain random split).
    """
    hidden = sorted(counts)
    allowed, checks = _constraints_cached(pub, tuple(pool), tuple(hidden))
    played = played_by(pub)
    last: dict[int, list[Card]] | None = None
    for _ in range(tries):
        got = _assign(pool, counts, allowed, rng)
        if got is None:
            break
        last = got
        hands = {s: tuple(sorted(cs, key=_ORDER.__getitem__)) for s, cs in got.items()}
        if all(check(hands[s], (*played[s], *hands[s])) for s, check in checks):
            return hands, True
    if last is None:
        cards = list(pool)
        shuffle(rng, cards)
        last = {}
        for s in hidden:
            last[s], cards = cards[: counts[s]], cards[counts[s] :]
    return {s: tuple(sorted(cs, key=_ORDER.__getitem__)) for s, cs in last.items()}, False
