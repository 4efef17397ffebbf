"""rules/schafkopf.md — Contracts and bidding, Eligibility."""

from __future__ import annotations

import random
from typing import Any

import pytest

from engine.cards import GERMAN_32
from engine.game import IllegalAction
from engine.schafkopf import Announce, Pass, PlayCard, SchafkopfState
from engine.schafkopf.rules import (
    ANNOUNCE,
    CONTRACTS,
    announcements,
    eligibility_error,
    suit_error,
)
from tests.engine.schafkopf.helpers import GAME, apply_all, bid, card, cards, deal

# seat 0: OE UE AE 9E | 7G | AH 8H | 7S  (holds AE; plain 7G, 7S)
# seat 1: OG OS UG TE | TG KG | 9H | KS   (no plain hearts other than 9H)
# seat 2: OH UH KE 8E 7E | AG | TH | AS
# seat 3: US 9G 8G | KH 7H | TS 9S 8S
HANDS = (
    "OE UE AE 9E 7G AH 8H 7S",
    "OG OS UG TE TG KG 9H KS",
    "OH UH KE 8E 7E AG TH AS",
    "US 9G 8G KH 7H TS 9S 8S",
)


def fresh() -> SchafkopfState:
    return deal(*HANDS)


def refused(state: SchafkopfState, action: Any, code: str) -> IllegalAction:
    (seat,) = GAME.to_act(state)
    with pytest.raises(IllegalAction) as err:
        GAME.apply(state, seat, action)
    assert err.value.code == code
    return err.value


def test_announcements_must_rise_strictly() -> None:
    state = bid(fresh(), "wenz")
    refused(state, Announce("rufer", "E"), "not_higher")
    refused(state, Announce("wenz"), "not_higher")
    state = bid(state, "solo G")
    refused(state, Announce("wenz"), "not_higher")
    state = bid(state, "wenz_tout", "solo_tout S")
    assert state.contract is not None
    assert (state.contract.kind, state.contract.suit, state.contract.declarer) == (
        "solo_tout",
        "S",
        3,
    )


def test_an_equal_contract_cannot_overtake_the_earlier_seat_keeps_it() -> None:
    state = bid(fresh(), "solo E")
    refused(state, Announce("solo", "G"), "not_higher")
    assert Announce("solo", "G") not in GAME.legal_actions(state, 1)
    state = bid(state, "pass", "pass", "pass")
    assert state.contract is not None and state.contract.declarer == 0
    assert state.contract.suit == "E"


def test_the_highest_announcement_wins_even_if_others_pass_later() -> None:
    state = bid(fresh(), "pass", "rufer E", "pass", "pass")
    assert state.contract is not None
    assert (state.contract.kind, state.contract.declarer, state.contract.suit) == ("rufer", 1, "E")
    assert state.phase == "play"


def test_each_player_speaks_once() -> None:
    state = bid(fresh(), "rufer G", "wenz", "pass")
    assert GAME.to_act(state) == (3,)
    state = bid(state, "pass")
    assert state.phase == "play" and state.contract is not None
    assert state.contract.declarer == 1 and len(state.bids) == 4


def test_announcement_names_the_contract_in_full() -> None:
    state = fresh()
    refused(state, Announce("rufer", None), "bad_suit")
    refused(state, Announce("solo", None), "bad_suit")
    refused(state, Announce("solo_tout", "X"), "bad_suit")
    refused(state, Announce("wenz", "E"), "bad_suit")
    refused(state, Announce("sie", "H"), "bad_suit")


def test_rufer_never_calls_the_ace_of_hearts() -> None:
    err = refused(bid(fresh(), "pass"), Announce("rufer", "H"), "bad_suit")
    assert "hearts" in err.message


def test_rufer_caller_may_not_hold_the_called_ace() -> None:
    state = fresh()  # seat 0 holds AE
    refused(state, Announce("rufer", "E"), "not_eligible")
    assert Announce("rufer", "E") not in GAME.legal_actions(state, 0)
    assert Announce("rufer", "G") in GAME.legal_actions(state, 0)


def test_rufer_caller_needs_a_plain_card_of_the_suit() -> None:
    # seat 0's only acorns are OE and UE: trumps, not plain cards of the suit
    s = deal(
        "OE UE AH TH KH 9H 8H 7H",
        "AE TE KE 9E 8E 7E AG TG",
        "KG 9G 8G 7G OG UG OH UH",
        "OS US AS TS KS 9S 8S 7S",
    )
    for suit in "EGS":
        refused(s, Announce("rufer", suit), "not_eligible")
    rufer = [
        a for a in GAME.legal_actions(s, 0) if isinstance(a, Announce) and a.contract == "rufer"
    ]
    assert rufer == []
    # with one plain acorn (9E) and without AE the call is allowed
    assert Announce("rufer", "E") in GAME.legal_actions(bid(fresh(), "pass"), 1)


def test_solo_needs_a_card_of_the_suit_other_than_its_ober_and_unter() -> None:
    s = deal(
        "OE UE AH TH KH 9H 8H 7H",
        "AE TE KE 9E 8E 7E AG TG",
        "KG 9G 8G 7G OG UG OH UH",
        "OS US AS TS KS 9S 8S 7S",
    )
    refused(s, Announce("solo", "E"), "not_eligible")  # only OE UE of acorns
    refused(s, Announce("solo_tout", "E"), "not_eligible")
    assert Announce("solo", "H") in GAME.legal_actions(s, 0)
    assert Announce("solo_tout", "H") in GAME.legal_actions(s, 0)
    s = bid(s, "solo H", "pass", "pass", "pass")
    assert s.contract is not None and s.contract.suit == "H"


def test_sie_needs_all_obers_and_unters_wenz_needs_nothing() -> None:
    state = fresh()
    refused(state, Announce("sie"), "not_eligible")
    legal = GAME.legal_actions(state, 0)
    assert Announce("wenz") in legal and Announce("wenz_tout") in legal
    assert Announce("sie") not in legal


def test_sie_overtakes_and_ends_the_bidding_at_once() -> None:
    state = deal(
        "AE TE KE 9E 8E 7E AG TG",
        "OE OG OH OS UE UG UH US",
        "KG 9G 8G 7G AH TH KH 9H",
        "8H 7H AS TS KS 9S 8S 7S",
        dealer=3,
    )
    assert Announce("sie") in GAME.legal_actions(bid(state, "wenz"), 1)
    state, events = apply_all(state, [Announce("wenz"), Announce("sie")])
    kinds = [e.kind for e in events]
    assert kinds[:4] == ["bid", "bid", "contract", "deal_scored"]
    record = events[3].data["record"]
    assert record.declarer == 1 and record.settlement == (-52, 156, -52, -52)
    assert state.deal_no == 1  # seats 2 and 3 had nothing left to say


def test_all_four_pass_and_the_next_dealer_deals() -> None:
    state, events = apply_all(fresh(), [Pass()] * 4)
    assert [e.kind for e in events][:5] == ["bid", "bid", "bid", "bid", "passed_out"]
    assert state.dealer == 0 and state.deal_no == 1 and state.totals == (0, 0, 0, 0)
    assert state.history[-1].contract is None


def test_bidding_lists_pass_and_every_higher_eligible_announcement() -> None:
    state = bid(fresh(), "solo H")
    legal = GAME.legal_actions(state, 1)
    # seat 1: OG OS UG TE TG KG 9H KS -> solo_tout in E (TE), G (TG KG), H (9H), S (KS)
    assert set(legal) == {
        Pass(),
        Announce("wenz_tout"),
        Announce("solo_tout", "E"),
        Announce("solo_tout", "G"),
        Announce("solo_tout", "H"),
        Announce("solo_tout", "S"),
    }
    assert GAME.legal_actions(state, 0) == ()


def test_cards_are_played_only_after_the_bidding_and_bids_only_before() -> None:
    state = fresh()
    refused(state, PlayCard(card("OE")), "not_playing")
    state = bid(state, "wenz", "pass", "pass", "pass")
    refused(state, Pass(), "not_bidding")
    refused(state, Announce("sie"), "not_bidding")


def test_listed_announcements_agree_with_the_eligibility_rules() -> None:
    rng = random.Random(4)
    for _ in range(300):
        hand = tuple(rng.sample(GERMAN_32.cards, 8))
        above = rng.randrange(-1, 5)
        expected = {
            Announce(kind, suit)
            for kind in CONTRACTS[above + 1 :]
            for suit in (None, *"EGHS")
            if suit_error(kind, suit) is None and eligibility_error(hand, kind, suit) is None
        }
        assert set(announcements(hand, above)) == expected
    sie = cards("OE OG OH OS UE UG UH US")
    assert Announce("sie") in announcements(sie, 4)


def test_each_announcement_is_one_object_and_every_suitable_one_is_there() -> None:
    """The legal moves hold one Announce per contract and suit (``Announce.interned``)."""
    suitable = {
        (kind, suit)
        for kind in CONTRACTS
        for suit in (None, *"EGHS")
        if suit_error(kind, suit) is None
    }
    assert set(ANNOUNCE) == suitable
    assert all(a == Announce(*key) for key, a in ANNOUNCE.items())
    rng = random.Random(5)
    for _ in range(100):
        hand = tuple(rng.sample(GERMAN_32.cards, 8))
        for a in announcements(hand, -1):
            assert a is ANNOUNCE[a.contract, a.suit]
