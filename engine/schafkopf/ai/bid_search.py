"""The ``hard`` Schafkopf bid: every contract the hand could announce, judged by play-outs.

One round of bidding (rules/schafkopf.md, Contracts and bidding) decides
who plays what; the hand's value differs by a factor of three or more
between contracts (Scoring), so the ``hard`` level weighs its options by
their expected units instead of by rules of thumb:

1. **Candidates.**  Passing, and each legal announcement the hand is not
   hopeless for (:func:`bid_candidates`): a Rufer with each callable ace, a
   Wenz, a Solo in each suit, a Tout on a very strong hand.  A sure thing
   (Sie, a Tout that cannot lose a trick) is announced at once.
2. **Worlds.**  The unseen cards are dealt consistently with the earlier
   words (:func:`engine.schafkopf.ai.search.sample`): a pass makes the hands
   the ``normal`` evaluation would have announced with unlikely, an
   announcement makes its typical hands likely and proves its eligibility.
3. **The rest of the bidding.**  In each world the seats still to speak bid
   by the ``normal`` evaluation (:func:`finish_bidding`): a later, higher
   announcement takes the contract away, a pass-out scores nothing.
4. **Play-outs.**  The resulting contract is played to its end by the search's
   rollout (:func:`engine.schafkopf.ai.search.playout`) and settled in units
   for this seat, Schneider, Schwarz and Laufende included.  Every candidate
   meets the same worlds (paired comparison); one that is clearly behind the
   leader leaves the race (:func:`engine.search.survivors`); the best mean wins (ties:
   passing, then the lower contract).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence

from engine.cards import GERMAN_32, Card
from engine.game import Budget, resolve_budget
from engine.schafkopf.ai.bidding import (
    RUFER_THRESHOLD,
    SOLO_THRESHOLD,
    WENZ_THRESHOLD,
    normal_word,
    rufer_score,
    solo_score,
    sure_winners,
    wenz_score,
)
from engine.schafkopf.ai.search import (
    Deal,
    bid_likelihood,
    laufende_units,
    playout,
)
from engine.schafkopf.rules import (
    BASE_VALUE,
    CONTRACT_RANK,
    SIE_LAUFENDE,
    SOLO_LIKE,
    mode_of,
)
from engine.schafkopf.state import Action, Announce, Bid, Hand, Pass, SchafkopfView
from engine.search import survivors

BID_BUDGET = Budget(iterations=2000, seconds=0.2)
"""Play-outs (worlds × candidates still in the race) and wall time per bid."""

SLACK = 3.0
"""How far below the ``normal`` threshold a contract is still worth a play-out."""

PAIRED_CHECK = 8
PAIRED_DROP = 2.5
"""Every ``PAIRED_CHECK`` worlds a candidate more than ``PAIRED_DROP`` standard errors
behind the leader (paired over the same worlds) leaves the race."""

SIE_UNITS = BASE_VALUE["sie"] + 4 * SIE_LAUFENDE
"""A Sie's value per defender: the base and its eight Laufende at 4 units."""


def _high(hand: Sequence[Card]) -> int:
    return sum(1 for c in hand if c.rank in "OU")


def _plain(hand: Sequence[Card], suit: str) -> int:
    return sum(1 for c in hand if c.suit == suit and c.rank not in "OU")


def worth_trying(hand: Sequence[Card], a: Announce) -> bool:
    """Whether announcing ``a`` with ``hand`` is close enough to sound to play it out."""
    kind = a.contract
    if kind == "rufer":
        return rufer_score(hand) >= RUFER_THRESHOLD - SLACK
    if kind == "wenz":
        return wenz_score(hand) >= WENZ_THRESHOLD - SLACK
    if kind == "solo":
        assert a.suit is not None
        return _high(hand) + _plain(hand, a.suit) >= 5 and (
            solo_score(hand, a.suit) >= SOLO_THRESHOLD - SLACK
        )
    if kind == "solo_tout":
        assert a.suit is not None
        return _high(hand) + _plain(hand, a.suit) >= 7
    if kind == "wenz_tout":
        return sum(1 for c in hand if c.rank == "U") >= 3 and (
            wenz_score(hand) >= WENZ_THRESHOLD + SLACK
        )
    return kind == "sie"


def bid_candidates(hand: Sequence[Card], legal: Sequence[Action]) -> list[Action]:
    """Passing first, then the legal announcements worth a play-out."""
    out: list[Action] = [a for a in legal if isinstance(a, Pass)]
    out.extend(a for a in legal if isinstance(a, Announce) and worth_trying(hand, a))
    return out


def sure_bid(hand: Sequence[Card], legal: Sequence[Action]) -> Announce | None:
    """A Sie, or a Tout that wins every trick whatever the others hold, if legal."""
    for a in legal:
        if isinstance(a, Announce) and a.contract == "sie":
            return a
    sure = [
        a
        for a in legal
        if isinstance(a, Announce)
        and a.contract in ("solo_tout", "wenz_tout")
        and sure_winners(hand, mode_of(a.contract, a.suit))
    ]
    return max(sure, key=lambda a: CONTRACT_RANK[a.contract]) if sure else None


ELIGIBLE_TRIES = 16
"""Deals tried per world for one in which every earlier announcement was eligible."""

BID_MISMATCH = 0.05
BID_TRIES = 40
"""Chance of keeping a world in which an earlier seat would have bid otherwise, and the
deals tried for one that explains the bidding (dealing is cheap before any card is played)."""


def _eligible(hand: Sequence[Card], bid: Bid) -> bool:
    """Whether ``hand`` could have made the announcement ``bid`` (Eligibility)."""
    if bid.contract == "rufer" and bid.suit is not None:
        if Card("A", bid.suit) in hand:
            return False
    elif bid.contract not in SOLO_LIKE or bid.suit is None:
        return True
    return any(c.suit == bid.suit and c.rank not in "OU" for c in hand)


def deal_unseen(view: SchafkopfView, rng: random.Random) -> tuple[Hand, Hand, Hand, Hand]:
    """A world for a bid: the unseen cards dealt to the other seats, read against the bids.

    Nothing is played yet, so the only public facts are the earlier words: an
    announcement proves its eligibility (a deal that breaks one is redealt),
    and a world in which a seat would have bid otherwise by the ``normal``
    evaluation is kept only with probability :data:`BID_MISMATCH`
    (:func:`bid_likelihood`), so a pass makes strong hands unlikely.
    """
    me = view.seat
    assert me is not None
    own = set(view.hand)
    pool = [c for c in GERMAN_32.cards if c not in own]
    others = [s for s in range(4) if s != me]
    words = [b for b in view.bids if b.seat != me and b.contract is not None]
    hands: list[Hand] = [view.hand] * 4
    for _ in range(BID_TRIES):
        for _ in range(ELIGIBLE_TRIES):
            rng.shuffle(pool)
            for k, s in enumerate(others):
                hands[s] = tuple(pool[8 * k : 8 * k + 8])
            if all(_eligible(hands[b.seat], b) for b in words):
                break
        if bid_likelihood(view.bids, hands, me) or rng.random() < BID_MISMATCH:
            break
    return hands[0], hands[1], hands[2], hands[3]


Memo = dict[tuple[int, int], Announce | Pass]
"""``(seat, highest rank so far)`` → that seat's word, for one world."""


def finish_bidding(
    hands: Sequence[Hand], bids: Sequence[Bid], dealer: int, memo: Memo | None = None
) -> Bid | None:
    """The winning announcement once the seats still to speak bid by ``normal``'s evaluation.

    ``memo`` remembers each later seat's word per highest announcement in one
    world, since every candidate bid replays the same later seats.
    """
    memo = {} if memo is None else memo
    highest = max((CONTRACT_RANK[b.contract] for b in bids if b.contract), default=-1)
    top = next((b for b in reversed(bids) if b.contract is not None), None)
    first = (dealer + 1) % 4
    for k in range(len(bids), 4):
        seat = (first + k) % 4
        said = memo.get((seat, highest))
        if said is None:
            memo[(seat, highest)] = said = normal_word(hands[seat], highest)
        if isinstance(said, Announce):
            top = Bid(seat, said.contract, said.suit)
            highest = CONTRACT_RANK[said.contract]
            if said.contract == "sie":
                break
    return top


def contract_value(hands: Sequence[Hand], top: Bid | None, me: int, dealer: int) -> float:
    """This seat's units when ``top`` is played out from the deal ``hands`` (0: passed out)."""
    if top is None or top.contract is None:
        return 0.0
    kind, declarer = top.contract, top.seat
    if kind == "sie":
        return float(3 * SIE_UNITS if me == declarer else -SIE_UNITS)
    ace = Card("A", top.suit) if kind == "rufer" and top.suit else None
    partner = next(s for s in range(4) if ace in hands[s]) if ace is not None else None
    deal = Deal(
        me=me,
        kind=kind,
        declarer=declarer,
        mode=mode_of(kind, top.suit),
        ace=ace,
        partner_known=None,
        tricks_done=0,
        points=(0, 0, 0, 0),
        won_tricks=(0, 0, 0, 0),
    )
    side = frozenset({declarer} if partner is None else {declarer, partner})
    lauf = laufende_units(deal, hands, side)
    leader = (dealer + 1) % 4  # the first bidder leads the first trick (Deal)
    return playout(deal, [list(h) for h in hands], [], leader, partner, None, lauf)


class BidSearch:
    """Paired play-outs of every candidate bid over worlds sampled from the view."""

    def __init__(self, default_budget: Budget = BID_BUDGET) -> None:
        self.default_budget = default_budget
        self.last_worlds = 0
        self.last_values: dict[Action, float] = {}
        """Mean units per candidate still in the race at the end of the last search."""

    def choose(
        self,
        view: SchafkopfView,
        legal: Sequence[Action],
        rng: random.Random,
        budget: Budget | None = None,
    ) -> Action:
        """The bid with the best expected units (passing unless an announcement pays)."""
        started = time.perf_counter()
        assert view.seat is not None
        self.last_worlds = 0
        self.last_values = {}
        hand = view.hand
        sure = sure_bid(hand, legal)
        if sure is not None:
            return sure
        cands = bid_candidates(hand, legal)
        if len(cands) == 1:
            return cands[0]
        resolved = resolve_budget(budget, self.default_budget)
        max_iter = resolved.iterations if resolved.iterations is not None else 10**9
        deadline = started + (resolved.seconds if resolved.seconds is not None else math.inf)
        me, dealer = view.seat, view.dealer
        bids = view.bids
        results: list[list[float]] = [[] for _ in cands]
        active = list(range(len(cands)))
        it = worlds = 0
        while worlds == 0 or (it + len(active) <= max_iter and time.perf_counter() < deadline):
            hands = deal_unseen(view, rng)
            seen: dict[Bid | None, float] = {}
            memo: Memo = {}
            for i in active:
                action = cands[i]
                mine = (
                    Bid(me, action.contract, action.suit)
                    if isinstance(action, Announce)
                    else Bid(me, None)
                )
                top = finish_bidding(hands, (*bids, mine), dealer, memo)
                if top not in seen:
                    seen[top] = contract_value(hands, top, me, dealer)
                results[i].append(seen[top])
            it += len(active)
            worlds += 1
            if worlds % PAIRED_CHECK == 0 and len(active) > 1:
                active = survivors(active, results, PAIRED_DROP)
        self.last_worlds = worlds
        self.last_values = {cands[k]: math.fsum(results[k]) / worlds for k in active}
        best = max(active, key=lambda k: (math.fsum(results[k]), -k))
        return cands[best]
