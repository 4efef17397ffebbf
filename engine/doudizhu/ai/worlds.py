"""The worlds Dou Dizhu's ``hard`` player searches: the cards it cannot see, dealt.

:class:`WorldSampler` deals the unseen cards of one view to the other hands at
rank level, reading the public history as evidence (passes, the auction);
:func:`could_beat` is the test it reads passes with, and :func:`below` and
:func:`shuffle` are the seeded draws, compiled with it.  The search that plays
the worlds out is engine.doudizhu.ai.search.  Only the seat's view is read: its
own hand, the public plays and passes, the public bottom and the hand counts.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from engine.doudizhu.ai.bidding import (
    BID_TRUST,
    miss,
    modeled_want,
    modeled_want_at_least,
    pack_ranks,
    want_bounds,
)
from engine.doudizhu.ai.normal import FULL_PACKED
from engine.doudizhu.combos import COMBO_INDEX, NUM_RANKS, Move, follow_moves
from engine.doudizhu.game import read_play
from engine.doudizhu.hands import mask_of, packed_counts
from engine.doudizhu.rules import MAX_BID
from engine.doudizhu.state import DoudizhuView

PASS_TRUST = 0.15
"""The odds of keeping a world that contradicts one read pass (see :class:`WorldSampler`)."""
SAMPLE_TRIES = 12
"""Draws per world before the one breaking the fewest readings is taken."""
DEAL_TRIES = 4
"""Tries at a deal within a simple player's caps before the world is dealt without them."""


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


def lowest_rank(packed: int) -> int:
    """The lowest rank held in the non-empty packed counts ``packed``."""
    r = 0
    while not packed & 15:
        packed >>= 4
        r += 1
    return r


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

    Inference from simple play: a simple player (RLCard's rule agent) leads a
    combination holding its lowest card, beats a single, pair or triple with
    the lowest of the type, a partner's too, and passes (or bombs) only when it
    has none.  Each such turn caps what the seat can hold now
    (:func:`simple_caps`, :attr:`caps`); a seat whose turns, read with the cards
    it certainly held, no simple player makes has no caps.  A farmer seen
    beating its partner's play (:attr:`overtook`: simple players do, ``normal``
    almost never) is dealt within its caps (:attr:`simple`), and the search
    plays it as an eager follower in every world
    (engine.doudizhu.ai.search.hedges).  Nobody else is: read
    so, a ``normal`` farmer that lets its partner's play stand would be dealt
    nothing above it.  Against RLCard's agent at every seat the worlds put
    0.70 of the hidden cards in the right hand against 0.65 without this
    reading, 0.63 dealt at random; against ``normal`` they are the same
    (``python -m bench.doudizhu_worlds --deals 10 --players rlcard-rule`` or
    ``normal``).  The capped deal costs little beside a play-out
    (docs/performance.md, The AI).  Against RLCard's agent with
    fixed roles at the play-outs the server's think time buys (``cardavia
    arena --game doudizhu --a hard --b rlcard-rule --fixed-roles --role
    landlord --iterations 1800 --deals 40 --seed S``, seeds 1–8, 960 games,
    compiled) the landlord won 0.924 ± 0.017, against 0.907 on the same games
    without this reading (paired +0.017 ± 0.013 per deal); the farmers' games
    are the same (RLCard's landlord has no partner to beat, and a ``hard``
    partner is modelled).

    Inference from the auction: each other seat's calls bound the bid it is
    modelled to want (engine.doudizhu.ai.bidding.want_bounds, ``normal``'s
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
    (:func:`~engine.doudizhu.ai.hand.plays`, a search over the hand's chains);
    a search-free upper bound of it (``modeled_want_at_least``) settles the
    strong hands of seats that passed first, about a quarter of the checks.
    So reading costs little: at fixed play-outs a decision takes about the
    CPU time it took without the reading, and the server's think time buys
    about as many play-outs as before (``python -m bench.search --game
    doudizhu``, ``python -m bench.ai_latency``; docs/performance.md, The AI).
    """

    def __init__(self, view: DoudizhuView, modelled: frozenset[int] = frozenset()) -> None:
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
        # what a simple player's turns say (see simple_caps): (seat, lowest rank, highest
        # rank, k, the seat's plays before the turn): it held fewer than k of each rank
        rules: list[tuple[int, int, int, int, int]] = []
        run = 0  # passes since the last play (two: the next play leads)
        overtook: set[int] = set()  # farmers seen beating their partner's play
        for turn in view.history:
            s = turn.seat
            if turn.play is not None:
                move, mask = read_play(turn.play)
                if s != self.seat:
                    if last is None or run >= 2:
                        low = lowest_rank(move.packed)
                        if low > 0:
                            rules.append((s, 0, low - 1, 1, later[s]))
                    elif last.combo_index <= _TRIPLE_INDEX:
                        if move.combo == last.combo:
                            if landlord not in (None, s, last_seat):
                                overtook.add(s)
                            if last.main + 1 < move.main:
                                rules.append((s, last.main + 1, move.main - 1, last.size, later[s]))
                        elif move.combo in ("bomb", "rocket"):
                            rules.append((s, last.main + 1, NUM_RANKS - 1, last.size, later[s]))
                played_mask |= mask
                played += move.packed
                later[s] += move.packed
                last, last_seat = move, s
                run = 0
            elif last is not None and last_seat is not None and s != self.seat:
                run += 1
                opponents = landlord is not None and (s == landlord or last_seat == landlord)
                if last.combo_index <= _TRIPLE_INDEX:
                    marks.append((s, last, (later[0], later[1], later[2]), opponents))
                    rules.append((s, last.main + 1, NUM_RANKS - 1, last.size, later[s]))
            else:
                run += 1
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
        caps: list[list[int] | None] = [None, None, None]
        for s in range(3):
            if s != self.seat:
                caps[s] = simple_caps(rules, s, later[s], forced if s == landlord else 0)
        self.caps = caps
        """Per seat, the most of each rank its unseen cards hold if it is a simple player
        (:func:`simple_caps`; ``None``: its turns show it is not, or it is this seat)."""
        self.overtook = frozenset(s for s in overtook if caps[s] is not None and s not in modelled)
        """Farmers seen beating their partner's single, pair or triple with one of the
        type, as simple players do and ``normal`` almost never does (2 games in 308),
        whose every turn a simple player could have made; not the seats in ``modelled``
        (the table shows them as the server's own AI, which the search models)."""
        self.simple = sum(
            1 << s for s, cap in enumerate(caps) if s in self.overtook and cap and min(cap) < 4
        )
        """The seats dealt as simple players (:meth:`sample`): those of :attr:`overtook`
        whose turns cap what they hold (bit mask)."""

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

    def deal_capped(self, rng: random.Random) -> list[int] | None:
        """:meth:`deal`, but each seat in :attr:`simple` gets no more of a rank than its
        :attr:`caps` allow; ``None`` if this draw could not keep them.  The
        cards only one hand may take are dealt first, then the rest at random by the
        hands' remaining counts."""
        pool = self.pool[:]
        shuffle(pool, rng)
        hands = [0, 0, 0]
        need = [0, 0, 0]
        rooms: list[list[int]] = [[], [], []]
        others: list[int] = []
        for s in range(3):
            if s == self.seat:
                hands[s] = self.own
                continue
            base = self.forced if s == self.landlord else 0
            hands[s] = base
            need[s] = self.counts[s] - card_count(base)
            cap = self.caps[s]
            rooms[s] = cap[:] if cap is not None and self.simple >> s & 1 else [4] * NUM_RANKS
            others.append(s)
        a, b = others[0], others[1]
        room_a, room_b = rooms[a], rooms[b]
        order = [r for r in pool if room_a[r] == 0 or room_b[r] == 0]
        order.extend(r for r in pool if room_a[r] != 0 and room_b[r] != 0)
        for r in order:
            if need[a] + need[b] == 0:  # (a test's position: more unseen cards than hands)
                break
            can_a = need[a] > 0 and room_a[r] > 0
            can_b = need[b] > 0 and room_b[r] > 0
            if can_a and can_b:
                to_a = below(rng, need[a] + need[b]) < need[a]
            elif can_a or can_b:
                to_a = can_a
            else:
                return None
            if to_a:
                hands[a] += 1 << (4 * r)
                need[a] -= 1
                room_a[r] -= 1
            else:
                hands[b] += 1 << (4 * r)
                need[b] -= 1
                room_b[r] -= 1
        return hands

    def _draw(self, rng: random.Random) -> list[int]:
        """A deal within the caps of the seats in :attr:`simple` (:meth:`deal_capped`, up
        to :data:`DEAL_TRIES` tries), else one without them."""
        if self.simple:
            for _ in range(DEAL_TRIES):
                hands = self.deal_capped(rng)
                if hands is not None:
                    return hands
        return self.deal(rng)

    def violations(self, hands: Sequence[int]) -> int:
        """How many recorded passes the world ``hands`` contradicts."""
        return sum(
            1 for passer, target, since in self.passes if could_beat(hands[passer] + since, target)
        )

    def _breaks(self, hands: Sequence[int], seat: int, bound: tuple[int, int]) -> bool:
        """Whether ``seat``'s hand at the auction in the world ``hands`` contradicts its
        calls (``bound``, :func:`~engine.doudizhu.ai.bidding.want_bounds`)."""
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
        and the auction); the seats read as simple players (:attr:`simple`) get only
        what their turns allow (:attr:`caps`)."""
        if not self.passes and not self.bounds:
            return self._draw(rng)
        best: list[int] = []
        fewest = 10**9
        for _ in range(SAMPLE_TRIES):
            hands = self._draw(rng)
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


def simple_caps(
    rules: Sequence[tuple[int, int, int, int, int]], seat: int, plays: int, held: int
) -> list[int] | None:
    """The most of each rank ``seat``'s unseen cards can hold if it plays as a simple
    player does (4 each if its turns say nothing), or ``None`` if it has made a turn
    that no simple player makes.

    A simple player (RLCard's rule agent; engine.doudizhu.ai.search.eager_follow)
    leads a combination holding its lowest card, beats a single, pair or triple
    with the lowest of the same type (a partner's too), and passes on one, or
    bombs it, only when it has none of the type to beat it.  Each of ``rules``
    for ``seat`` (``(seat, lowest rank, highest rank, k, its plays before the
    turn)``) says it then held fewer than ``k`` of each rank in that range; the
    cards it has played since (``plays`` is all it has played) and ``held`` (the
    bottom cards a landlord still holds) were in that hand, so they count
    against the caps, and a turn they contradict shows a player of another kind.
    """
    cap = [4] * NUM_RANKS
    for s, lo, hi, k, before in rules:
        if s != seat:
            continue
        certain = plays - before + held
        for r in range(lo, hi + 1):
            room = k - 1 - ((certain >> (4 * r)) & 15)
            if room < 0:
                return None
            if room < cap[r]:
                cap[r] = room
    return cap
