"""rules/schafkopf.md — Deal and The table: 4+4 dealing, rotation, series totals."""

from __future__ import annotations

import pytest

from engine.cards import GERMAN_32
from engine.game import IllegalAction, OptionsError
from engine.rng import derive_rng
from engine.schafkopf import Announce, Pass, SchafkopfDeal, SchafkopfOptions
from tests.engine.schafkopf.helpers import GAME, apply_all, cards, deal

SIE_HAND = "OE OG OH OS UE UG UH US"


def test_dealing_two_rounds_of_four_from_the_dealers_left() -> None:
    for seed in (1, 2, 3):
        state = GAME.new_state(GAME.options(), seed)
        dealer = state.dealer
        assert dealer == derive_rng(seed, "first-dealer").randrange(4)
        order = list(GERMAN_32.cards)
        derive_rng(seed, "deal", 0).shuffle(order)
        for k in range(1, 5):
            seat = (dealer + k) % 4
            first, second = order[4 * (k - 1) : 4 * k], order[16 + 4 * (k - 1) : 16 + 4 * k]
            assert set(state.hands[seat]) == set(first) | set(second)
            assert len(state.hands[seat]) == 8


def test_the_player_left_of_the_dealer_bids_first_and_leads() -> None:
    state = deal(
        "AE TE KE 9E 8E 7E AG TG",
        "OE OG OH OS UE UG UH US",
        "KG 9G 8G 7G AH TH KH 9H",
        "8H 7H AS TS KS 9S 8S 7S",
        dealer=2,
    )
    assert GAME.to_act(state) == (3,)
    state, _ = apply_all(state, [Pass(), Pass(), Pass(), Announce("wenz")])
    assert state.contract is not None and state.contract.declarer == 2
    assert GAME.to_act(state) == (3,)  # left of the dealer leads, not the declarer
    assert state.leader == 3


def test_the_deal_passes_left_after_a_played_deal_and_after_a_passed_out_one() -> None:
    state = deal(
        SIE_HAND, "AE TE KE 9E 8E 7E AG TG", "KG 9G 8G 7G AH TH KH 9H", "8H 7H AS TS KS 9S 8S 7S"
    )
    assert state.dealer == 3
    state, _ = apply_all(state, [Announce("sie")])  # a played (at once won) deal
    assert (state.deal_no, state.dealer, GAME.to_act(state)) == (1, 0, (1,))
    state, events = apply_all(state, [Pass(), Pass(), Pass(), Pass()])
    assert "passed_out" in [e.kind for e in events]
    assert (state.deal_no, state.dealer, GAME.to_act(state)) == (2, 1, (2,))
    # the redeal is the seeded shuffle of deal 2, dealt from the new dealer's left
    order = list(GERMAN_32.cards)
    derive_rng(0, "deal", 2).shuffle(order)
    assert set(state.hands[2]) == set(order[0:4]) | set(order[16:20])


def test_a_series_plays_the_option_number_of_deals_with_running_totals() -> None:
    hands = (
        SIE_HAND,
        "AE TE KE 9E 8E 7E AG TG",
        "KG 9G 8G 7G AH TH KH 9H",
        "8H 7H AS TS KS 9S 8S 7S",
    )
    state = deal(*hands, deals=2)
    state, _ = apply_all(state, [Announce("sie")])
    assert state.totals == (156, -52, -52, -52) and not GAME.is_over(state)
    state, events = apply_all(state, [Pass()] * 4)
    assert GAME.is_over(state) and GAME.to_act(state) == ()
    assert events[-1].kind == "game_over"
    result = GAME.result(state)
    assert result is not None
    assert result.scores == (156, -52, -52, -52) and sum(result.scores) == 0
    assert result.winners == frozenset({0})
    assert result.summary["deals"] == 2 and result.summary["passed_out"] == 1
    assert result.summary["contract_sie"] == 1 and result.summary["declarer_wins"] == 1
    with pytest.raises(IllegalAction) as err:
        GAME.apply(state, 0, Pass())
    assert err.value.code == "game_over"


def test_default_series_is_four_deals_and_the_option_is_checked() -> None:
    assert GAME.options().deals == 4
    assert GAME.options({"deals": 8}).deals == 8
    assert GAME.options().pattern == "bavarian"
    assert GAME.options({"pattern": "salzburg"}).pattern == "salzburg"
    for bad in ({"deals": 0}, {"deals": "4"}, {"pattern": "napoletane"}, {"rounds": 3}):
        with pytest.raises(OptionsError):
            GAME.options(bad)


def test_an_explicit_deal_must_be_the_whole_pack() -> None:
    hands = (cards(SIE_HAND), cards("AE TE KE 9E 8E 7E AG TG"))
    options = SchafkopfOptions(pattern="bavarian")
    with pytest.raises(ValueError):
        GAME.from_deal(options, SchafkopfDeal(dealer=0, hands=(*hands, *hands)))
    full = (
        cards(SIE_HAND),
        cards("AE TE KE 9E 8E 7E AG TG"),
        cards("KG 9G 8G 7G AH TH KH 9H"),
        cards("8H 7H AS TS KS 9S 8S 7S"),
    )
    GAME.from_deal(options, SchafkopfDeal(dealer=0, hands=full))
    for bad in (
        {"dealer": 4},
        {"deal_no": 4},
        {"totals": (1, 0, 0, 0)},
        {"hands": (full[1], full[0], full[2], full[3][:7] + full[0][:1])},
    ):
        args = {"dealer": 0, "hands": full} | bad
        with pytest.raises(ValueError):
            GAME.from_deal(options, SchafkopfDeal(**args))  # type: ignore[arg-type]


def test_start_events_show_each_hand_to_its_owner_only() -> None:
    state = GAME.new_state(GAME.options(), 5)
    events = GAME.start_events(state)
    hands = [e for e in events if e.kind == "hand"]
    assert len(hands) == 4
    for e in hands:
        assert e.audience == frozenset({e.data["seat"]})
        assert e.data["hand"] == state.hands[e.data["seat"]]
    public = [e for e in events if e.audience is None]
    assert all("hand" not in e.data for e in public)
