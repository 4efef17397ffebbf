"""The auction: bids 1-3 rising, passes not final, its ends, redeals (Setup and bidding)."""

from __future__ import annotations

import pytest

from engine.doudizhu.state import Bid, Pass
from engine.game import IllegalAction

from .helpers import GAME, OPTIONS, deal, run

PASS = Pass()


def test_seventeen_cards_each_and_three_bottom_cards() -> None:
    state = GAME.new_state(OPTIONS, 5)
    zones = GAME.card_zones(state)
    assert [len(zones[f"hand{s}"]) for s in range(3)] == [17, 17, 17]
    assert len(zones["bottom"]) == 3


def test_the_first_bidder_is_random_and_seeded() -> None:
    firsts = {GAME.new_state(OPTIONS, seed).first_bidder for seed in range(40)}
    assert firsts == {0, 1, 2}
    assert GAME.new_state(OPTIONS, 7) == GAME.new_state(OPTIONS, 7)
    state = deal(first_bidder=2)
    assert GAME.to_act(state) == (2,)


def test_bids_must_rise_and_run_from_one_to_three() -> None:
    state = deal(first_bidder=0)
    assert GAME.legal_actions(state, 0) == (PASS, Bid(1), Bid(2), Bid(3))
    state = run(state, Bid(2))
    assert GAME.legal_actions(state, 1) == (PASS, Bid(3))
    for bad in (Bid(1), Bid(2)):
        with pytest.raises(IllegalAction) as err:
            GAME.apply(state, 1, bad)
        assert err.value.code == "bid_too_low"
    for bad in (Bid(0), Bid(4), Bid(-1)):
        with pytest.raises(IllegalAction) as err:
            GAME.apply(state, 1, bad)
        assert err.value.code == "bad_bid"


def test_a_bid_of_three_ends_the_auction_at_once() -> None:
    state = run(deal(first_bidder=1), Bid(3))
    assert state.landlord == 1
    assert state.bid == 3
    assert GAME.to_act(state) == (1,)


def test_two_passes_after_the_latest_bid_end_it() -> None:
    state = run(deal(first_bidder=0), Bid(1), PASS)
    assert state.landlord is None
    state = run(state, PASS)
    assert state.landlord == 0 and state.bid == 1


def test_a_pass_is_not_final() -> None:
    # 0 passes, 1 bids 1, 2 passes, 0 (who passed) bids 2, then two passes
    state = run(deal(first_bidder=0), PASS, Bid(1), PASS)
    assert state.landlord is None
    assert GAME.legal_actions(state, 0) == (PASS, Bid(2), Bid(3))
    state = run(state, Bid(2), PASS)
    assert state.landlord is None
    state = run(state, PASS)
    assert state.landlord == 0 and state.bid == 2


def test_passes_before_the_first_bid_do_not_end_it() -> None:
    state = run(deal(first_bidder=0), PASS, PASS, Bid(1))
    assert state.landlord is None
    state = run(state, PASS, PASS)
    assert state.landlord == 2


def test_three_passes_without_a_bid_redeal_with_a_new_shuffle() -> None:
    state = GAME.new_state(OPTIONS, 11)
    before = GAME.card_zones(state)
    after = run(state, PASS, PASS, PASS)
    assert after.attempt == 1
    assert after.landlord is None and after.auction == () and after.bid == 0
    assert GAME.card_zones(after) != before
    # the redeal is reproducible from the seed and the calls
    assert run(GAME.new_state(OPTIONS, 11), PASS, PASS, PASS) == after
    # and a new first bidder is drawn each time: over many redeals all seats open
    firsts = set()
    for _ in range(30):
        firsts.add(after.first_bidder)
        after = run(after, PASS, PASS, PASS)
    assert firsts == {0, 1, 2}


def test_the_landlord_takes_the_bottom_and_leads_with_twenty_cards() -> None:
    state = deal(bottom="BJ RJ 2S", first_bidder=0)
    bottom = GAME.card_zones(state)["bottom"]
    state = run(state, Bid(1), Bid(2), PASS, PASS)
    assert state.landlord == 1
    hand = GAME.view(state, 1).hand
    assert len(hand) == 20
    assert set(bottom) <= set(hand)
    assert GAME.to_act(state) == (1,)
    assert GAME.view(state, 1).hand_counts == (17, 20, 17)


def test_the_bottom_is_hidden_until_the_landlord_takes_it() -> None:
    state = deal(bottom="BJ RJ 2S", first_bidder=0)
    for seat in (0, 1, 2, None):
        assert GAME.view(state, seat).bottom == ()
    state = run(state, Bid(1), PASS)
    for seat in (0, 1, 2, None):
        assert GAME.view(state, seat).bottom == ()
    events = GAME.apply(state, 2, PASS).events
    state = run(state, PASS)
    for seat in (0, 1, 2, None):
        assert set(GAME.view(state, seat).bottom) == set(
            GAME.card_zones(deal(bottom="BJ RJ 2S"))["bottom"]
        )
    shown = [e for e in events if e.kind == "landlord"]
    assert len(shown) == 1 and shown[0].audience is None


def test_no_cards_can_be_played_during_the_auction() -> None:
    from .helpers import play

    state = deal(hands=("3S", "", ""), first_bidder=0)
    with pytest.raises(IllegalAction) as err:
        GAME.apply(state, 0, play("3S", "single"))
    assert err.value.code == "auction_in_progress"


def test_bids_are_refused_once_the_auction_is_over() -> None:
    state = run(deal(first_bidder=0), Bid(3))
    with pytest.raises(IllegalAction) as err:
        GAME.apply(state, 0, Bid(3))
    assert err.value.code == "auction_over"
