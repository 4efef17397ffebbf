"""The worlds Dou Dizhu's ``hard`` player searches: the cards it cannot see, dealt.

:class:`WorldSampler` deals the unseen cards of one view to the other hands at
rank level, reading the public history as evidence (passes, the auction);
:func:`could_beat` is the test it reads passes with, and :func:`below` and
:func:`shuffle` are the seeded draws, compiled with it.  The search that plays
the worlds out is engine.doudizhu.ai_search.  Only the seat's view is read: its
own hand, the public plays and passes, the public bottom and the hand counts.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from engine.doudizhu.ai_bidding import (
    BID_TRUST,
    miss,
    modeled_want,
    modeled_want_at_least,
    pack_ranks,
    want_bounds,
)
from engine.doudizhu.ai_normal import FULL_PACKED
from engine.doudizhu.combos import COMBO_INDEX, Move, follow_moves
from engine.doudizhu.game import read_play
from engine.doudizhu.hands import mask_of, packed_counts
from engine.doudizhu.rules import MAX_BID
from engine.doudizhu.state import DoudizhuView

PASS_TRUST = 0.15
"""The odds of keeping a world that contradicts one read pass (see :class:`WorldSampler`)."""
SAMPLE_TRIES = 12
"""Draws per world before the one breaking the fewest readings is taken."""


def rank_list(packed: int) -> list[int]:
    """The ranks of the packed counts ``packed``, each as often as it is held, lowest first."""
    out = []
    r = 0
    while packed:
        out.extend([r] * (packed & 15))
        packed >>= 4
        r += 1
    return out


def below(rng: random.Random, n: int) -> int:
    """``rng.randrange(n)`` for ``n > 0``: the same draws (CPython's ``_randbelow``:
    ``n.bit_length()`` random bits until they fall below ``n``), without the
    interpreted layers of :mod:`random` (the search's samplers run compiled)."""
    k = n.bit_length()
    r: int = rng.getrandbits(k)
    while r >= n:
        r = rng.getrandbits(k)
    return r


def shuffle(items: list[int], rng: random.Random) -> None:
    """``rng.shuffle(items)``: the same permutation for the same generator state
    (CPython's Fisher–Yates, from the last item down), compiled with :func:`below`.
    A decision's worlds cost one shuffle per draw, several draws a world."""
    for i in range(len(items) - 1, 0, -1):
        j = below(rng, i + 1)
        items[i], items[j] = items[j], items[i]


def card_count(packed: int) -> int:
    """How many cards the packed rank counts ``packed`` hold."""
    n = 0
    while packed:
        n += packed & 15
        packed >>= 4
    return n


_TRIPLE_INDEX = COMBO_INDEX["triple"]
_ABOVE = tuple(-1 << (4 * (r + 1)) for r in range(16))
_ONES = sum(1 << (4 * r) for r in range(15))


def could_beat(hand: int, target: Move) -> bool:
    """Whether ``hand`` holds a combination of ``target``'s type that beats it (no bombs)."""
    if target.combo in ("bomb", "rocket"):
        return False
    n = target.size
    if target.combo_index <= _TRIPLE_INDEX:  # single, pair, triple
        if n == 1:
            has = (hand | (hand >> 1) | (hand >> 2)) & _ONES
        elif n == 2:
            has = ((hand >> 1) | (hand >> 2)) & _ONES
        else:
            has = ((hand & (hand >> 1)) | (hand >> 2)) & _ONES
        return bool(has & _ABOVE[target.main])
    combo = target.combo
    return any(m.combo == combo for m in follow_moves(hand, target))


class WorldSampler:
    """Deals the unseen cards of one view at rank level (the seat's information only).

    Inference from passes: a seat that passed on an opponent's single, pair or
    triple usually had nothing of that type to beat it.  Each sampled world is
    checked against those passes (the passer's hand then = its hand in the
    world plus what it played since); a world breaking ``v`` of them is kept
    with probability :data:`PASS_TRUST` ** ``v``, else redrawn (at most
    :data:`SAMPLE_TRIES` draws; then the draw breaking fewest is used).  A seat
    shown to pass by choice (it passed on a play that cards it certainly held
    could beat: cards it played later, or bottom cards it still holds) is a
    strategic passer: none of its passes is used (:attr:`voluntary`).

    Inference from the auction: each other seat's calls bound the bid it is
    modelled to want (engine.doudizhu.ai_bidding.want_bounds, ``normal``'s
    rule) for the hand it bid with (its hand in the world, plus what it has
    played, less the bottom for the landlord); a world that passes the passes'
    test but breaks ``m`` seats' calls is kept with probability ``BID_TRUST`` **
    ``m``, so a farmer that passed at the auction is mostly dealt a weak hand.
    (Where the roles are set by rule, as in ``cardavia arena --fixed-roles``,
    the calls say nothing of the hands, and the view must show no auction.)
    Against ``normal`` with bidding (``cardavia arena --game doudizhu --a hard
    --b normal --iterations 1400 --bid-iterations 300 --deals 90 --seed S``,
    seeds 1–8, 720 deals, compiled): 0.604 ± 0.019, points +1.96 per deal,
    against 0.589 for three runs without it on the same deals (paired +0.015
    ± 0.013); at ``--iterations 1800 --bid-iterations 450`` 0.594 ± 0.019,
    and at the server's 0.25 s (``--think-ms 250``) 0.590 ± 0.019.  Each
    check needs the seat's play count
    (:func:`~engine.doudizhu.ai_hand.plays`, a search over the hand's chains);
    a search-free upper bound of it (``modeled_want_at_least``) settles the
    strong hands of seats that passed first, about a quarter of the checks.
    So reading costs little: at fixed play-outs a decision takes about the
    CPU time it took without the reading (0.54× its first version's), and the
    server's think time buys a median of 1,540–2,000 play-outs a move on a
    2-core machine (``bench.ai_latency``, four runs).
    """

    def __init__(self, view: DoudizhuView) -> None:
        assert view.seat is not None
        self.seat = view.seat
        own = packed_counts(mask_of(view.hand)) if view.hand else 0
        played_mask = 0
        played = 0
        landlord = view.landlord
        # passes on an opponent's play: (passer, target, what the passer played since)
        pending: list[tuple[int, Move, int]] = []
        later = [0, 0, 0]
        last: Move | None = None
        last_seat: int | None = None
        marks: list[tuple[int, Move, tuple[int, int, int], bool]] = []
        for turn in view.history:
            if turn.play is not None:
                move, mask = read_play(turn.play)
                played_mask |= mask
                played += move.packed
                later[turn.seat] += move.packed
                last, last_seat = move, turn.seat
            elif last is not None and last_seat is not None and turn.seat != self.seat:
                opponents = landlord is not None and (
                    turn.seat == landlord or last_seat == landlord
                )
                if last.combo_index <= _TRIPLE_INDEX:
                    marks.append((turn.seat, last, (later[0], later[1], later[2]), opponents))
        forced = 0
        if landlord is not None and landlord != view.seat and view.bottom:
            forced = packed_counts(mask_of(view.bottom) & ~played_mask)
        every: list[tuple[int, Move, int]] = []
        for passer, target, before, opposed in marks:
            mark = (passer, target, later[passer] - before[passer])
            every.append(mark)
            if opposed:
                pending.append(mark)
        # a pass (on an opponent's or a partner's play) is proven voluntary when cards
        # the passer certainly held then (played since, or bottom cards it still
        # holds) could beat the play: such a seat passes by choice, so its passes
        # say nothing about its hand
        voluntary = {
            passer
            for passer, target, since in every
            if could_beat(since + (forced if passer == landlord else 0), target)
        }
        self.passes = [m for m in pending if m[0] not in voluntary]
        self.voluntary = frozenset(voluntary)
        # the auction: each other seat's calls bound the want of the hand it bid with
        # (its hand now, plus what it has played, less the bottom for the landlord)
        self.bounds = want_bounds(view.auction, self.seat)
        bottom = packed_counts(mask_of(view.bottom)) if view.bottom else 0
        self.since_bid = [later[s] - (bottom if s == landlord else 0) for s in range(3)]
        self.own = own
        self.counts = view.hand_counts
        self.landlord = landlord
        self.forced = forced
        self.pool = rank_list(FULL_PACKED - own - played - forced)

    def deal(self, rng: random.Random) -> list[int]:
        """Three packed hands that agree with the view alone (the passes unread): the
        unseen cards dealt at random to the other hands by their counts."""
        pool = self.pool[:]
        shuffle(pool, rng)
        hands = [0, 0, 0]
        at = 0
        for s in range(3):
            if s == self.seat:
                hands[s] = self.own
                continue
            base = self.forced if s == self.landlord else 0
            need = self.counts[s] - card_count(base)
            hands[s] = base + pack_ranks(pool[at : at + need])
            at += need
        return hands

    def violations(self, hands: Sequence[int]) -> int:
        """How many recorded passes the world ``hands`` contradicts."""
        return sum(
            1 for passer, target, since in self.passes if could_beat(hands[passer] + since, target)
        )

    def _breaks(self, hands: Sequence[int], seat: int, bound: tuple[int, int]) -> bool:
        """Whether ``seat``'s hand at the auction in the world ``hands`` contradicts its
        calls (``bound``, :func:`~engine.doudizhu.ai_bidding.want_bounds`)."""
        hand = hands[seat] + self.since_bid[seat]
        top = bound[1]
        # a strong hand dealt to a seat whose calls cap its want: broken, no search
        if top < MAX_BID and modeled_want_at_least(hand) > top:
            return True
        return miss(modeled_want(hand), bound) > 0

    def misfits(self, hands: Sequence[int]) -> int:
        """How many other seats' auction calls the world ``hands`` contradicts."""
        return sum(1 for s, bound in self.bounds.items() if self._breaks(hands, s, bound))

    def _calls_kept(self, hands: Sequence[int], rng: random.Random) -> tuple[bool, int]:
        """Whether the world ``hands`` is kept on the auction's evidence, and how many
        calls it was seen to break: each broken call keeps it with probability
        ``BID_TRUST``; the first that does not ends the check (the other seat's
        hand is not read, which saves most of the cost)."""
        broken = 0
        for s, bound in self.bounds.items():
            if self._breaks(hands, s, bound):
                broken += 1
                if rng.random() >= BID_TRUST:
                    return False, broken
        return True, broken

    def sample(self, rng: random.Random) -> list[int]:
        """Three packed hands consistent with the view (and, mostly, with the passes
        and the auction)."""
        if not self.passes and not self.bounds:
            return self.deal(rng)
        best: list[int] = []
        fewest = 10**9
        for _ in range(SAMPLE_TRIES):
            hands = self.deal(rng)
            v = self.violations(hands)
            if v and rng.random() >= PASS_TRUST**v:
                if v < fewest:
                    best, fewest = hands, v
                continue
            kept, m = self._calls_kept(hands, rng)
            if kept:
                return hands
            if v + m < fewest:
                best, fewest = hands, v + m
        return best
