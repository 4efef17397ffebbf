"""The ``hard`` Dou Dizhu player: determinized Monte Carlo search (issue 7).

Each iteration deals the cards the seat cannot see to the other two hands
(by their counts; bottom cards the landlord took and has not played stay
with the landlord; worlds that contradict an opponent's pass are mostly
redrawn, see engine.doudizhu.ai.worlds.WorldSampler), then plays the deal out with the
``normal`` decision core (engine.doudizhu.ai.normal.decide) for every seat.
Root moves are compared *paired* (:meth:`HardPolicy._paired`): every move
still in the race is played out in each sampled world with the same rollout
noise, so the luck of the world cancels in the comparison, and a move whose
paired deficit to the leader is clearly significant leaves the race (it
replaced the flat UCB1 of earlier versions: on 150 forced-landlord deals
against RLCard's rule agent at 600 rollouts the paired search won 0.873,
UCB1 0.833).  A rollout scores 1 for a win of the seat's
side, else a small near-miss credit (:func:`outcome`).  In the rollouts the
opposing side makes a random move one time in ten (:data:`OPPONENT_NOISE`):
real opponents err, and a search that expects flawless ones gives up on
hands it can still win.  Nor do all players hold back as ``normal`` does:
in half the worlds (:data:`EAGER_ODDS`) each other seat follows *eagerly*,
beating any play it can with its lowest combination of the type
(:func:`eager_follow`), unless the public history shows that seat passing
by choice (:attr:`WorldSampler.voluntary`); then it is modelled as
``normal``.  A farmer seen beating its partner's play, as simple players do
(:attr:`WorldSampler.overtook`), follows eagerly in every world, dealt the
hand its turns allow such a player.  These hedges are for players of unknown
kind: a seat the table shows as the server's own AI (:data:`MODELLED`, told
by :meth:`HardPolicy.knowing`) is played as ``normal`` with none of them.
Everything runs on rank counts, so a rollout
builds no state objects; the sampler uses the view only (its own
hand, the public plays and passes, the public bottom and the hand counts).

Candidate moves: the ``normal`` choice, the first play of every group of
the cheapest hand split, the pass, and the legal moves that leave the
cheapest hands (kicker variants reduced to their best kicker).  A farmer
whose partner holds the trick (:func:`partner_holds`: the landlord passed on
the partner's play, or nothing unseen beats it) keeps only the pass and the
moves that leave it one play from going out.  With fixed roles against
RLCard's rule agent at 900 iterations (seed 1) the farmers won 0.908 of 120
games on deals 0–39 (0.892 without the rule; measured with bombs counted in
"nothing unseen beats it") and 0.933 on deals 40–79 (0.933 without: one
game won and one lost that were not): 0.921 against 0.913 on 240 games.

Bidding by expected points (:meth:`HardPolicy.bid_values`,
engine.doudizhu.ai.bidding): in sampled worlds that agree with the calls so
far, each legal call's auction is played out (the others bid by hand
strength), the landlord it ends with plays the deal out the same way, and the
call worth the most points is made.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence

from engine.doudizhu.ai.bidding import (
    auction_after,
    auction_world,
    best_call,
    call_value,
    landlord_chance,
    want_bounds,
)
from engine.doudizhu.ai.hand import cost, plan
from engine.doudizhu.ai.normal import (
    FULL_PACKED,
    Situation,
    decide,
    play_for,
    situation,
)
from engine.doudizhu.ai.worlds import WorldSampler, below, card_count, could_beat, rank_list
from engine.doudizhu.combos import Move, follow_moves, lead_moves
from engine.doudizhu.game import read_play
from engine.doudizhu.hands import mask_of, packed_counts
from engine.doudizhu.state import Action, Bid, DoudizhuView
from engine.game import Budget, decision_deadline, resolve_budget
from engine.policy import Peers, SearchPolicy
from engine.search import survivors

DEFAULT_BUDGET = Budget(iterations=2000, seconds=0.22)
BID_BUDGET = Budget(iterations=2000, seconds=0.2)
"""A bid: its play-outs (up to three a world); at the server's think time the time
cap binds, not the count (``python -m bench.ai_latency --games doudizhu``, with the
collector held off as in the AI workers; docs/performance.md)."""
NEAR_MISS = 0.3
OPPONENT_NOISE = 0.1
MAX_CANDIDATES = 10
EAGER_ODDS = 0.5
"""Share of the worlds in which another seat follows eagerly (:func:`eager_follow`),
unless the history shows it passing by choice (:attr:`WorldSampler.voluntary`)."""
MODELLED = frozenset({"normal", "hard"})
"""The table's kinds of player (engine.policy.Peers) whose play the rollouts model:
the server's own AI, which plays (or, for ``hard``, searches with) the ``normal``
core.  Such a seat gets no hedge (:data:`EAGER_ODDS`, :data:`OPPONENT_NOISE`).
Against ``normal`` (``cardavia arena --game doudizhu --a hard --b normal``,
compiled): with bidding at ``--iterations 1800 --bid-iterations 450`` (what the
server's think time buys), seeds 1–8, 720 deals, 0.610 ± 0.019, points +1.98
per deal, against 0.594 told nothing (paired +0.016 ± 0.018); with
``--fixed-roles`` at 1800, seeds 2–4, 180 deals, 0.668 ± 0.023 (farmers 0.646,
landlord 0.689).  At the server's 0.25 s (``--think-ms 250``): with bidding
0.607 ± 0.020, points +1.97 (paired +0.017 ± 0.017 against told nothing);
fixed roles, seeds 1–2, 120 deals, 0.657 ± 0.029.  Against RLCard's rule agent
nothing changes but a farmer's hard partner (fixed roles, 1400, 40 deals: 0.908
against 0.913 told nothing); fixed roles at 1800, seeds 1–8, 320 deals: farmers
0.908, landlord 0.907 (960 games each, ± 0.018), and the landlord 0.924 once it
read farmers as simple players (engine.doudizhu.ai.worlds.WorldSampler)."""
PAIRED_CHECK = 8
PAIRED_DROP = 2.5
"""Paired search: worlds between checks, and the deficit (in standard errors) that drops a move."""
_MAX_STEPS = 400


def rollout(
    hands: list[int],
    landlord: int,
    turn: int,
    last: Move | None,
    last_seat: int | None,
    passes: int = 0,
    erring: int = 0,
    rng: random.Random | None = None,
    eager: int = 0,
) -> int:
    """Play the deal out with the normal core for every seat; return the winner's seat.

    ``passes`` counts the passes since ``last`` was played (two end the trick).
    ``hands`` is updated in place to the hands at the end.  The seats in the
    bit mask ``erring`` make a random move one time in :data:`OPPONENT_NOISE`⁻¹
    (drawn from ``rng``): opponents are not perfect.  The seats in the bit
    mask ``eager`` follow as eager players do (:func:`eager_follow`).
    """
    if passes >= 2:
        last, passes = None, 0
    total = hands[0] + hands[1] + hands[2]
    left = [card_count(h) for h in hands]
    for _ in range(_MAX_STEPS):
        hand = hands[turn]
        sit = Situation(turn, landlord, (left[0], left[1], left[2]), last_seat, total - hand)
        if rng is not None and erring >> turn & 1 and rng.random() < OPPONENT_NOISE:
            options: Sequence[Move | None] = (
                lead_moves(hand) if last is None else (None, *follow_moves(hand, last))
            )
            move = options[below(rng, len(options))]
        elif last is not None and eager >> turn & 1:
            move = eager_follow(hand, last, sit)
        else:
            move = decide(hand, last, sit)
        if move is None:
            passes += 1
            if passes == 2:
                last = None
                passes = 0
        else:
            hand -= move.packed
            hands[turn] = hand
            total -= move.packed
            left[turn] -= move.size
            if hand == 0:
                return turn
            last, last_seat, passes = move, turn, 0
        turn = (turn + 1) % 3
    raise RuntimeError("a rollout did not finish")


def eager_follow(hand: int, last: Move, sit: Situation) -> Move | None:
    """An eager player's answer: the lowest combination of the same type that beats
    ``last`` (whoever played it, even a partner); with none, the normal core decides
    (pass, or a bomb).  Simple players follow so (RLCard's rule agent, ``greedy``
    against opponents)."""
    best: Move | None = None
    if last.combo not in ("bomb", "rocket"):
        for m in follow_moves(hand, last):
            if m.combo == last.combo and (
                best is None or (m.main, m.packed) < (best.main, best.packed)
            ):
                best = m  # the lowest main rank, then the lowest kickers
    return best if best is not None else decide(hand, last, sit)


def outcome(hands: Sequence[int], winner: int, seat: int, landlord: int) -> float:
    """A finished rollout's value for ``seat``: 1 for a win of its side, else a little
    for how close its side came (:data:`NEAR_MISS` × the share of cards shed), so
    that a seat facing a likely loss still prefers the lines that keep it in the game.
    """
    if (winner == landlord) == (seat == landlord):
        return 1.0
    if seat == landlord:
        left = card_count(hands[seat])
    else:
        left = min(card_count(hands[s]) for s in range(3) if s != landlord)
    return NEAR_MISS * (1.0 - min(left, 20) / 20.0)


def candidates(hand: int, last: Move | None, sit: Situation) -> list[Move | None]:
    """The root moves worth searching (``None`` is the pass)."""
    out: list[Move | None] = []
    first = decide(hand, last, sit)
    out.append(first)
    if last is None:
        index: dict[tuple[int, str], Move] = {(m.packed, m.combo): m for m in lead_moves(hand)}
        for g in plan(hand).groups:
            m = index.get((g.packed, g.combo))
            if m is not None and m not in out:
                out.append(m)
        legal: Sequence[Move] = lead_moves(hand)
    else:
        if None not in out:
            out.append(None)
        legal = follow_moves(hand, last)
    # the best reading of each shape (type, main rank, length), by the hand it leaves
    best: dict[tuple[str, int, int], tuple[float, Move]] = {}
    for m in legal:
        key = (m.combo, m.main, m.length)
        c = cost(hand - m.packed)
        if key not in best or c < best[key][0]:
            best[key] = (c, m)
    for _, m in sorted(best.values(), key=lambda cm: cm[0]):
        if len(out) >= MAX_CANDIDATES:
            break
        if m not in out:
            out.append(m)
    return out


def partner_holds(last: Move, sit: Situation) -> bool:
    """Whether the trick is the farmer partner's to keep: the partner played ``last``
    and the landlord passed on it, or no cards the seat cannot see beat it (bombs
    aside: a bomb would beat an overtaking move as well).

    The search then drops the moves that beat it but do not leave the seat one
    play from going out (:meth:`HardPolicy.choose`): taking a trick the side holds
    only spends cards and the lead.
    """
    seat, landlord, last_seat = sit.seat, sit.landlord, sit.last_seat
    if seat == landlord or last_seat is None or last_seat == landlord:
        return False
    return (last_seat + 1) % 3 == landlord or not could_beat(sit.unseen, last)


def _play_out(
    hands: list[int],
    move: Move | None,
    seat: int,
    landlord: int,
    last: Move | None,
    last_seat: int | None,
    passed: int,
    rng: random.Random,
    eager: int = 0,
    erring: int = 0,
) -> float:
    """Make ``move`` for ``seat`` in the world ``hands`` (changed in place), play the
    deal out and return its :func:`outcome` for ``seat`` (``eager``, ``erring``:
    :func:`rollout`'s seat masks)."""
    nxt = (seat + 1) % 3
    if move is None:
        winner = rollout(hands, landlord, nxt, last, last_seat, passed + 1, erring, rng, eager)
    else:
        hands[seat] -= move.packed
        if hands[seat] == 0:
            winner = seat
        else:
            winner = rollout(hands, landlord, nxt, move, seat, 0, erring, rng, eager)
    return outcome(hands, winner, seat, landlord)


def hedges(
    seat: int,
    landlord: int,
    known: frozenset[int],
    voluntary: frozenset[int],
    simple: frozenset[int] = frozenset(),
) -> tuple[tuple[float, float, float], int]:
    """How ``seat``'s rollouts hedge against the other players: each seat's chance to
    follow eagerly in a world (:data:`EAGER_ODDS`), and the mask of the seats that
    err (:data:`OPPONENT_NOISE`, :func:`rollout`).

    Another seat follows eagerly in a share of the worlds unless the history shows
    it passing by choice (``voluntary``), a farmer's partner too (modelled as a
    partner only, farmers won 0.858 against 0.908 on 40 deals with fixed roles
    against RLCard's rule agent); the opponents err now and then.  A seat in
    ``known`` (a :data:`MODELLED` kind) gets neither; one in ``simple`` (read as a
    simple player, :attr:`WorldSampler.overtook`) follows eagerly in every world.
    """
    hedged = [s != seat and s not in known for s in range(3)]
    odds = tuple(
        (1.0 if s in simple else EAGER_ODDS) if hedged[s] and s not in voluntary else 0.0
        for s in range(3)
    )
    erring = sum(1 << s for s in range(3) if hedged[s] and (s == landlord) != (seat == landlord))
    return (odds[0], odds[1], odds[2]), erring


class HardPolicy(SearchPolicy[DoudizhuView, Action]):
    """Determinized Monte Carlo search with normal-player rollouts, from the view only;
    the root moves are compared paired, over shared worlds (:meth:`_paired`).

    Default budget: 0.22 s per decision (at most 2000 rollouts), 0.2 s for a
    bid (at most 2000 play-outs); an iteration-only budget makes the choice
    deterministic for a seed.

    ``known``: the seats the table shows as players of a :data:`MODELLED` kind
    (:meth:`knowing`).  The rollouts play them as the ``normal`` core does,
    without the hedges for players of unknown kind.
    """

    name = "hard"

    def __init__(
        self, default_budget: Budget = DEFAULT_BUDGET, known: frozenset[int] = frozenset()
    ) -> None:
        self.default_budget = default_budget
        self.known = known
        self.last_iterations = 0

    def knowing(self, peers: Peers) -> HardPolicy:
        """This policy at a table whose seats show ``peers`` (engine.policy.Peers)."""
        known = frozenset(s for s, kind in enumerate(peers) if kind in MODELLED)
        return HardPolicy(self.default_budget, known)

    def _budget(self, budget: Budget | None, default: Budget) -> tuple[int, float]:
        """(iterations, seconds) of :func:`engine.game.resolve_budget`.

        Without a budget the default applies (time-capped); a caller's
        ``seconds`` is used as given (``None``: no time limit, deterministic).
        The seconds cover the whole decision, candidate generation included.
        """
        resolved = resolve_budget(budget, default)
        iterations = resolved.iterations if resolved.iterations is not None else 10**9
        return (
            iterations,
            resolved.seconds if resolved.seconds is not None else math.inf,
        )

    def decide(
        self, view: DoudizhuView, legal: Sequence[Action], rng: random.Random, budget: Budget | None
    ) -> Action:
        """The searched choice among ``legal``."""
        started = time.perf_counter()
        self.last_iterations = 0
        if view.phase == "bidding":
            return self._bid(view, legal, rng, budget)
        hand = packed_counts(mask_of(view.hand))
        last = read_play(view.last)[0] if view.last is not None else None
        sit = situation(view)
        cands = candidates(hand, last, sit)
        if last is not None and partner_holds(last, sit):
            cands = [m for m in cands if m is None or plan(hand - m.packed).plays <= 1]
        if len(cands) == 1 or (cands[0] is not None and cands[0].packed == hand):
            return play_for(legal, cands[0])
        max_iter, seconds = self._budget(budget, self.default_budget)
        deadline = decision_deadline(started, seconds)
        sampler = WorldSampler(view, self.known)
        # passes since the play to beat: the seats between its player and us
        passed = (sit.seat - sit.last_seat) % 3 - 1 if sit.last_seat is not None else 0
        seat = sit.seat
        landlord = sit.landlord
        odds, erring = hedges(seat, landlord, self.known, sampler.voluntary, sampler.overtook)
        best = self._paired(
            odds,
            erring,
            cands,
            hands_of=sampler.sample,
            rng=rng,
            seat=seat,
            landlord=landlord,
            last=last,
            last_seat=sit.last_seat,
            passed=passed,
            max_iter=max_iter,
            deadline=deadline,
        )
        return play_for(legal, cands[best])

    def _paired(
        self,
        odds: Sequence[float],
        erring: int,
        cands: Sequence[Move | None],
        hands_of: Callable[[random.Random], list[int]],
        rng: random.Random,
        seat: int,
        landlord: int,
        last: Move | None,
        last_seat: int | None,
        passed: int,
        max_iter: int,
        deadline: float,
    ) -> int:
        """Paired evaluation: every candidate still in the race is played out in each
        sampled world, with the same noise for the rollouts, so the luck of the world
        cancels when candidates are compared (``odds``: each seat's chance to follow
        eagerly in a world; ``erring``: :func:`rollout`'s mask).  Every
        :data:`PAIRED_CHECK` worlds a candidate whose paired deficit to the leader
        exceeds :data:`PAIRED_DROP` standard errors leaves the race.  Returns the
        index of the best mean (ties: the earlier candidate, the normal choice first)."""
        active = list(range(min(len(cands), max_iter)))
        results: list[list[float]] = [[] for _ in cands]
        it = 0
        worlds = 0
        while worlds == 0 or (it + len(active) <= max_iter and time.perf_counter() < deadline):
            world = hands_of(rng)
            noise = rng.getrandbits(32)
            eager = sum(1 << s for s in range(3) if odds[s] and rng.random() < odds[s])
            for i in active:
                results[i].append(
                    _play_out(
                        world[:],
                        cands[i],
                        seat,
                        landlord,
                        last,
                        last_seat,
                        passed,
                        random.Random(noise),
                        eager,
                        erring,
                    )
                )
            it += len(active)
            worlds += 1
            if worlds % PAIRED_CHECK == 0 and len(active) > 1:
                active = survivors(active, results, PAIRED_DROP)
        self.last_iterations = it
        return max(active, key=lambda k: (math.fsum(results[k]), -k))

    def bid_values(
        self,
        view: DoudizhuView,
        legal: Sequence[Action],
        rng: random.Random,
        budget: Budget | None = None,
    ) -> dict[int, float]:
        """The seat's expected points for each legal call (by bid, 0 the pass).

        Each sampled world deals the unseen cards to the other hands and the
        bottom, mostly agreeing with the calls made so far
        (engine.doudizhu.ai.bidding.auction_world); every call's auction is played out in it
        (engine.doudizhu.ai.bidding.auction_after) and each landlord it ends
        with plays the deal out once.  A landlord's wins over the worlds give
        its calibrated chance, and a call's value is the mean of
        :func:`~engine.doudizhu.ai.bidding.call_value` over the worlds.  The
        iterations are the play-outs.
        """
        assert view.seat is not None
        seat = view.seat
        started = time.perf_counter()
        own = packed_counts(mask_of(view.hand))
        pool = rank_list(FULL_PACKED - own)
        bounds = want_bounds(view.auction, seat)
        calls = [0, *(a.value for a in legal if isinstance(a, Bid))]
        max_iter, seconds = self._budget(budget, BID_BUDGET)
        deadline = decision_deadline(started, seconds)
        wins = [0, 0, 0]
        games = [0, 0, 0]
        ends: dict[int, list[tuple[int | None, int]]] = {c: [] for c in calls}
        it = 0
        while it == 0 or (it < max_iter and time.perf_counter() < deadline):
            hands, bottom, wants, _ = auction_world(seat, own, pool, bounds, rng)
            played: set[int] = set()
            for c in calls:
                landlord, bid = auction_after(view.auction, seat, c, wants)
                ends[c].append((landlord, bid))
                if landlord is None or landlord in played:
                    continue
                played.add(landlord)
                world = hands[:]
                world[landlord] += bottom
                games[landlord] += 1
                if rollout(world, landlord, landlord, None, None) == landlord:
                    wins[landlord] += 1
                it += 1
        self.last_iterations = it
        chance = [landlord_chance(wins[s] / games[s]) if games[s] else 0.5 for s in range(3)]
        return {
            c: math.fsum(
                call_value(seat, lord, bid, chance[lord] if lord is not None else 0.5)
                for lord, bid in ends[c]
            )
            / len(ends[c])
            for c in calls
        }

    def _bid(
        self,
        view: DoudizhuView,
        legal: Sequence[Action],
        rng: random.Random,
        budget: Budget | None,
    ) -> Action:
        return best_call(legal, self.bid_values(view, legal, rng, budget))
