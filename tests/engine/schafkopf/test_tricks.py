"""rules/schafkopf.md — Trumps and ranks, A trick."""

from __future__ import annotations

import pytest

from engine.cards import format_cards
from engine.game import IllegalAction
from engine.schafkopf import PlayCard, SchafkopfState
from engine.schafkopf.rules import MODES, TRUMP, mode_of, trick_winner
from tests.engine.schafkopf.helpers import GAME, bid, card, cards, deal, legal_cards, play

# Seat 3 deals; seat 0 bids first and leads.  In a Rufer on leaves seat 1
# (AG) is the partner.
HANDS = (
    "OE OH UE AH 9H AE KG 7S",
    "OG US KH 7H TE 9E AG 8S",
    "OS UG UH TH 8H KE 8E TG",
    "7E 9G 8G 7G AS TS KS 9S",
)


def fresh() -> SchafkopfState:
    return deal(*HANDS)


def refuse(state: SchafkopfState, seat: int, text: str, code: str) -> IllegalAction:
    with pytest.raises(IllegalAction) as err:
        GAME.apply(state, seat, PlayCard(card(text)))
    assert err.value.code == code
    return err.value


def test_rufer_trumps_and_order() -> None:
    mode = mode_of("rufer", "G")
    assert format_cards(mode.trumps) == "OE OG OH OS UE UG UH US AH TH KH 9H 8H 7H"
    ordered = sorted(mode.trumps, key=mode.power.__getitem__, reverse=True)
    assert format_cards(ordered) == "OE OG OH OS UE UG UH US AH TH KH 9H 8H 7H"
    for suit in "EGS":  # plain suits: A T K 9 8 7
        plain = [c for c in mode.power if mode.eff[c] == suit]
        plain.sort(key=mode.power.__getitem__, reverse=True)
        assert [c.rank for c in plain] == list("ATK987")


@pytest.mark.parametrize("suit", "EGHS")
def test_solo_trumps_any_suit_in_place_of_hearts(suit: str) -> None:
    mode = mode_of("solo", suit)
    expected = f"OE OG OH OS UE UG UH US A{suit} T{suit} K{suit} 9{suit} 8{suit} 7{suit}"
    assert format_cards(mode.trumps) == expected
    assert mode_of("solo_tout", suit) is mode
    if suit != "H":
        assert mode.eff[card("AH")] == "H"  # hearts are a plain suit now


def test_wenz_only_unters_are_trumps_obers_rank_in_their_suit() -> None:
    mode = mode_of("wenz", None)
    assert format_cards(mode.trumps) == "UE UG UH US"
    assert mode_of("wenz_tout", None) is mode
    for suit in "EGHS":
        plain = sorted(
            (c for c in mode.power if mode.eff[c] == suit), key=mode.power.__getitem__, reverse=True
        )
        assert [c.rank for c in plain] == list("ATKO987")
        assert mode.eff[card("O" + suit)] == suit
    # a trick: KE beats OE (K above O in Wenz), US beats AE
    assert trick_winner(cards("OE KE 7E 8E"), mode) == 1
    assert trick_winner(cards("AE US 7E 8E"), mode) == 1


def test_trick_won_by_the_highest_trump_else_the_highest_of_the_led_suit() -> None:
    mode = MODES["H"]
    assert trick_winner(cards("AE TE KE 9E"), mode) == 0
    assert trick_winner(cards("9E TE AG AS"), mode) == 1  # off-suit aces do not win
    assert trick_winner(cards("AE 7H TE 9E"), mode) == 1  # the lowest trump beats the ace
    assert trick_winner(cards("AH OS US UE"), mode) == 1
    assert trick_winner(cards("UE UG OS UH"), mode) == 2
    assert all(mode.eff[c] == TRUMP for c in cards("OE UG AH 7H"))


def test_obers_and_unters_belong_to_the_trump_suit_not_their_printed_suit() -> None:
    state = bid(fresh(), "rufer G", "pass", "pass", "pass")
    # seat 0 leads AE: seat 1 holds TE 9E, must follow acorns with them, not with OG
    state = play(state, "AE")
    assert legal_cards(state, 1) == {"TE", "9E"}
    refuse(state, 1, "OG", "must_follow_suit")
    state = play(state, "9E")
    # seat 2 holds KE 8E (plain acorns): its OS/UG do not count as acorns
    assert legal_cards(state, 2) == {"KE", "8E"}
    state = play(state, "8E 7E")
    # a trump lead: OH (printed hearts) is led as a trump; seat 1 must play a trump
    assert state.leader == 0
    state = play(state, "OH")
    assert legal_cards(state, 1) == {"OG", "US", "KH", "7H"}
    refuse(state, 1, "AG", "must_follow_suit")


def test_in_wenz_an_ober_follows_its_printed_suit() -> None:
    state = bid(fresh(), "wenz", "pass", "pass", "pass")
    state = play(state, "KG")  # seat 0 leads leaves
    assert legal_cards(state, 1) == {"AG", "OG"}  # OG is a leaf in Wenz
    state = play(state, "OG")
    # seat 2 holds TG; its UG is a trump, not a leaf
    assert legal_cards(state, 2) == {"TG"}
    refuse(state, 2, "UG", "must_follow_suit")


def test_no_duty_to_beat_or_to_trump() -> None:
    state = bid(fresh(), "rufer G", "pass", "pass", "pass")
    state = play(state, "7S")  # seat 0 leads a bell
    # seat 1 holds 8S: must follow, but that is its only bell
    assert legal_cards(state, 1) == {"8S"}
    state = play(state, "8S")
    # seat 2 has no bells: it may trump or discard anything
    assert legal_cards(state, 2) == set(map(str, cards(HANDS[2])))
    state = play(state, "8E")
    # seat 3 may play a low bell although AS would win
    assert legal_cards(state, 3) == {"AS", "TS", "KS", "9S"}
    state = play(state, "9S")
    assert state.tricks[-1].winner == 3  # 9S beat 8S and 7S; 8E was a discard
    assert state.leader == 3 and state.points[3] == 0


def test_a_card_not_in_hand_is_refused() -> None:
    state = bid(fresh(), "wenz", "pass", "pass", "pass")
    err = refuse(state, 0, "AS", "not_in_hand")
    assert "AS" in err.message
