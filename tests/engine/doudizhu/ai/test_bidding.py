"""Hard's bidding by value (engine.doudizhu.ai.bidding) and a hard-vs-normal regression."""

from __future__ import annotations

import random

import pytest

from client_cli.arena import run as arena_run
from engine.doudizhu.ai import bidding as ai_bidding
from engine.doudizhu.ai.bidding import (
    FARMER_HANDICAP,
    AuctionWorld,
    auction_after,
    auction_world,
    best_call,
    call_value,
    landlord_chance,
    landlord_points,
    misfits,
    modeled_want,
    want_bounds,
)
from engine.doudizhu.ai.normal import BID_THRESHOLDS, FULL_PACKED, choose_bid
from engine.doudizhu.ai.search import HardPolicy
from engine.doudizhu.hands import mask_of, packed_counts
from engine.doudizhu.state import Bid, Call, Pass
from engine.game import Budget

from ..helpers import GAME, cards, deal, run

pytestmark = pytest.mark.heavy  # tens of seconds: run first (tests/conftest.py)

PASS = Pass()
STRONG = "BJ RJ 2S 2H 2D AS AH KS KH"
HOPELESS = "3S 4S 6S 7S 9S TS QS KS 3H 4H 6H 7H 9H TH QH 5D 8D"


def test_the_chance_rises_with_the_raw_rate() -> None:
    chances = [landlord_chance(x / 10) for x in range(11)]
    assert chances == sorted(chances)
    assert all(0.0 < c < 1.0 for c in chances)
    assert landlord_chance(0.577) == pytest.approx(0.5, abs=0.01)


def test_landlord_points_are_twice_the_bid_either_way() -> None:
    assert landlord_points(1.0, 3) == 6.0
    assert landlord_points(0.0, 2) == -4.0
    assert landlord_points(0.5, 3) == 0.0


def test_the_modelled_want_is_normals_bid() -> None:
    for hand in (STRONG, HOPELESS, "BJ 2S 2H AS 3D 4D 5D 6D 7D"):
        view = GAME.view(deal(hands=(hand, "", "")), 0)
        bid = choose_bid(view, view.legal, BID_THRESHOLDS)
        want = modeled_want(packed_counts(mask_of(view.hand)))
        assert want == (bid.value if isinstance(bid, Bid) else 0)
    assert modeled_want(packed_counts(mask_of(cards(STRONG)))) == 3


def test_want_bounds_read_the_other_seats_calls() -> None:
    # seat 1 passed on no bid, seat 2 bid 2, seat 1 passed on 2 (seat 0 decides)
    auction = (Call(1, 0), Call(2, 2), Call(0, 0), Call(1, 0))
    assert want_bounds(auction, 0) == {1: (0, 0), 2: (2, 2)}
    assert want_bounds((Call(2, 1), Call(0, 0)), 1) == {2: (1, 1), 0: (0, 1)}
    assert want_bounds((), 0) == {}
    bounds = want_bounds(auction, 0)
    assert misfits([0, 0, 2], bounds) == 0
    assert misfits([0, 1, 3], bounds) == 2


def test_the_modelled_auction_ends_as_the_rules_say() -> None:
    # seat 0 opens: a bid of 3 ends it at once
    assert auction_after((), 0, 3, [0, 3, 3]) == (0, 3)
    # seat 0 passes: seat 1 bids 2, seat 2 (wants 1) and seat 0 pass
    assert auction_after((), 0, 0, [0, 2, 1]) == (1, 2)
    # everybody passes: a redeal
    assert auction_after((), 0, 0, [0, 0, 0]) == (None, 0)
    # seat 0 bids 1, seat 1 tops it with 2, seat 2 with 3
    assert auction_after((), 0, 1, [0, 2, 3]) == (2, 3)
    # seat 0 bids 1, nobody tops it
    assert auction_after((), 0, 1, [0, 1, 0]) == (0, 1)
    # after seat 1 bid 1 and seat 2 passed, seat 0's pass ends the auction
    assert auction_after((Call(1, 1), Call(2, 0)), 0, 0, [0, 3, 3]) == (1, 1)


def test_a_call_is_worth_the_stake_times_the_sides_edge() -> None:
    assert call_value(0, 0, 3, 1.0) == 6.0
    assert call_value(0, 0, 3, 0.25) == -3.0
    # a farmer's side: its chance less the handicap, for the stake alone
    weak = 1.0 - 0.25 - FARMER_HANDICAP
    assert call_value(0, 1, 2, 0.25) == pytest.approx(2.0 * (2.0 * weak - 1.0))
    assert call_value(0, 1, 2, 1.0 - FARMER_HANDICAP) == pytest.approx(-2.0)
    assert call_value(0, None, 0, 0.9) == 0.0  # a redeal


def test_best_call_takes_the_most_valuable_legal_call() -> None:
    legal = (PASS, Bid(1), Bid(2), Bid(3))
    assert best_call(legal, {0: -1.0, 1: -0.5, 2: 0.5, 3: 2.0}) == Bid(3)
    assert best_call(legal, {0: 0.5, 1: -0.5, 2: 0.0, 3: -2.0}) == PASS
    assert best_call(legal, {0: 0.0, 1: 0.5, 2: 0.5, 3: 0.4}) == Bid(1)  # ties: the lower
    assert best_call(legal, {0: -1.0, 1: -1.0, 2: -1.0, 3: -3.0}) == PASS
    assert best_call((PASS, Bid(3)), {0: -1.0, 3: -0.5}) == Bid(3)


def _hard_bid(hand: str, *calls: object) -> object:
    state = run(deal(hands=("", "", hand), first_bidder=(2 - len(calls)) % 3), *calls)
    view = GAME.view(state, 2)
    return HardPolicy().choose(view, view.legal, random.Random(0), Budget(iterations=60))


def test_hard_bids_3_with_a_strong_hand_and_passes_a_hopeless_one() -> None:
    assert _hard_bid(STRONG) == Bid(3)
    # low pairs and singles with holes: no chain, no control card
    assert _hard_bid(HOPELESS) == PASS
    assert _hard_bid(STRONG, PASS, Bid(2)) == Bid(3)
    assert _hard_bid(HOPELESS, PASS, PASS) == PASS


def test_bid_values_cover_every_legal_call_within_the_budget() -> None:
    state = run(deal(hands=("", "", STRONG), first_bidder=0), PASS, Bid(1))
    view = GAME.view(state, 2)
    policy = HardPolicy()
    values = policy.bid_values(view, view.legal, random.Random(3), Budget(iterations=30))
    assert set(values) == {0, 2, 3}
    assert 30 <= policy.last_iterations <= 32  # a world plays out up to three landlords
    assert values[3] > values[0]
    again = HardPolicy().bid_values(view, view.legal, random.Random(3), Budget(iterations=30))
    assert again == values


def test_hard_stays_stronger_than_normal_on_a_fixed_sample() -> None:
    """Regression: 4 duplicate deals with fixed roles (24 games) at 120 iterations.

    Fixed seed and iterations, so the result is deterministic; a change that
    makes ``hard`` weaker than ``normal`` shows here as a win rate at or below
    one half or a negative point margin (this sample: 0.542, +1.1 points; told
    nothing of the seats, 0.583, +2.6).  At 40 iterations ``hard`` is no
    stronger than ``normal`` (0.49 on 12 deals), so it is run at 120 (0.60 on
    8 deals); still a tripwire for gross regressions, not a measurement.
    """
    report = arena_run(
        "doudizhu", "hard", "normal", 4, 2, {}, budget=Budget(iterations=120), fixed_roles=True
    )
    assert report["win_rate"] > 0.5
    assert report["margin_per_deal"] > 0


def test_hard_outscores_normal_with_bidding_on_a_fixed_sample() -> None:
    """Regression with the auction: 4 duplicate deals (12 games) at 40 iterations.

    Fixed seed and iterations, so deterministic; hard bidding by expected points
    and playing must keep its side ahead of ``normal`` in wins and in points
    (this sample: 0.67 won, +2.75 points per deal).
    """
    report = arena_run("doudizhu", "hard", "normal", 4, 2, {}, budget=Budget(iterations=40))
    assert report["win_rate"] > 0.5
    assert report["points_per_deal"] > 0


WEAK = "3S 4S 5S 6S 8S 9S TS 3H 4H 5H 8H 9H TH 3D 4D 5D 8D"


def _auction_worlds(
    hand: str, calls: tuple[object, ...], n: int, seed: int, blind: bool = False
) -> tuple[list[AuctionWorld], dict[int, tuple[int, int]]]:
    """``n`` auction worlds of seat 2 after seats 0 and 1 made ``calls`` (read blind:
    no calls taken into account), and the bounds the calls set."""
    state = run(deal(hands=("", "", hand), first_bidder=0), *calls)
    view = GAME.view(state, 2)
    own = packed_counts(mask_of(view.hand))
    pool = [r for r in range(15) for _ in range(((FULL_PACKED - own) >> (4 * r)) & 15)]
    bounds = want_bounds(view.auction, 2)
    rng = random.Random(seed)
    worlds = [auction_world(2, own, pool, {} if blind else bounds, rng) for _ in range(n)]
    for hands, bottom, wants, _ in worlds:
        assert hands[0] + hands[1] + hands[2] + bottom == FULL_PACKED
        assert hands[2] == own
        assert wants == [modeled_want(hands[0]), modeled_want(hands[1]), 0]
    return worlds, bounds


def _misfits(worlds: list[AuctionWorld], bounds: dict[int, tuple[int, int]]) -> int:
    return sum(misfits(w.wants, bounds) for w in worlds)


def test_auction_worlds_lean_towards_the_calls_made() -> None:
    # seat 0 passed, seat 1 bid 2: seat 2's worlds break fewer of those calls (in
    # the model of the others' bids) than worlds dealt blind
    hand = "BJ 2S AS KS QS JS 3H 4H 5H 6H 8D 9D TD 3C 7C"
    read, bounds = _auction_worlds(hand, (PASS, Bid(2)), 40, 5)
    assert bounds == {0: (0, 0), 1: (2, 2)}
    blind, _ = _auction_worlds(hand, (PASS, Bid(2)), 40, 6, blind=True)
    assert _misfits(read, bounds) < _misfits(blind, bounds)


def test_auction_worlds_rarely_fall_back() -> None:
    # two exact bids to match (seat 0 bid 1, seat 1 bid 2): a whole world is drawn
    # and read one seat at a time, and the rare fallback draws each seat on its own
    worlds, bounds = _auction_worlds(WEAK, (Bid(1), Bid(2)), 200, 9)
    assert bounds == {0: (1, 1), 1: (2, 2)}
    # about 0.085 of the worlds (whole-world rejection within 12 draws: 0.33)
    assert sum(w.fallback for w in worlds) <= 30


def test_the_fallback_draws_each_seat_towards_its_calls(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ai_bidding, "WORLD_TRIES", 0)
    worlds, bounds = _auction_worlds(WEAK, (Bid(1), Bid(2)), 100, 4)
    blind, _ = _auction_worlds(WEAK, (Bid(1), Bid(2)), 100, 5, blind=True)
    assert all(w.fallback for w in worlds)
    assert _misfits(worlds, bounds) < _misfits(blind, bounds)
