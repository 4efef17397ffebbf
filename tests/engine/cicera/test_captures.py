"""A turn: Match, Sum, Place, courts, and refusals (rules/cicera.md, A turn)."""

from __future__ import annotations

import copy

import pytest

from engine.cicera.rules import capture_options
from engine.game import IllegalAction
from tests.engine.cicera.helpers import GAME, apply, card, cards, play, position


def captures_of(text: str, table: str) -> set[frozenset[str]]:
    return {frozenset(map(str, g)) for g in capture_options(card(text), cards(table))}


def legal_for(state: object, text: str) -> set[frozenset[str]]:
    (seat,) = GAME.to_act(state)  # type: ignore[arg-type]
    return {
        frozenset(map(str, p.capture))
        for p in GAME.legal_actions(state, seat)  # type: ignore[arg-type]
        if p.card == card(text)
    }


def test_the_rules_example_seven_on_seven_three_four() -> None:
    state = position(["7D 5C", "5D 8C", "5S 8S", "5B 8B"], "7C 3S 4B")
    assert legal_for(state, "7D") == {
        frozenset({"7C"}),  # match
        frozenset({"3S", "4B"}),  # sum
        frozenset(),  # place
    }


def test_match_takes_one_card_of_the_same_rank_either_one() -> None:
    assert captures_of("5D", "5C 5S 2B") == {frozenset({"5C"}), frozenset({"5S"})}
    state = position(["5D 9C", "9D 8C", "9S 8S", "9B 8B"], "5C 5S 2B")
    after = apply(state, 0, "5D", "5S").state
    assert after.table == cards("5C 2B")
    assert after.piles[0] == cards("5S 5D")


def test_sum_takes_two_or_more_number_cards_adding_up() -> None:
    assert captures_of("6D", "AC 2C 3C 4B") == {
        frozenset({"AC", "2C", "3C"}),
        frozenset({"2C", "4B"}),
    }
    # the ace counts 1: two aces make a two
    assert captures_of("2D", "AC AS") == {frozenset({"AC", "AS"})}
    # ten is the largest value: 4 + 6, never a court
    assert captures_of("TD", "4C 6C FC") == {frozenset({"4C", "6C"})}
    # a sum never takes a single card: a lone 3 is not taken by a 7
    assert captures_of("7D", "3C") == set()


def test_sum_of_cards_with_the_played_rank_plus_others_is_not_possible() -> None:
    assert captures_of("4D", "4C AC 3C") == {frozenset({"4C"}), frozenset({"AC", "3C"})}


def test_capturing_is_never_mandatory() -> None:
    state = position(["7D 5C", "5D 8C", "5S 8S", "5B 8B"], "7C 3S 4B")
    assert play("7D") in GAME.legal_actions(state, 0)
    after = apply(state, 0, "7D").state
    assert after.table == cards("7C 3S 4B 7D")
    assert after.piles[0] == ()
    assert after.last_play is not None and after.last_play.captured == ()


def test_both_match_and_sum_may_be_chosen() -> None:
    state = position(["7D 5C", "5D 8C", "5S 8S", "5B 8B"], "7C 3S 4B")
    by_match = apply(state, 0, "7D", "7C").state
    assert by_match.table == cards("3S 4B")
    assert by_match.piles[0] == cards("7C 7D")
    by_sum = apply(state, 0, "7D", "3S 4B").state
    assert by_sum.table == cards("7C")
    assert by_sum.piles[0] == cards("3S 4B 7D")


def test_a_court_captures_only_a_single_court_of_its_rank() -> None:
    assert captures_of("FD", "FC FS CB RB 3C") == {frozenset({"FC"}), frozenset({"FS"})}
    assert captures_of("CD", "FC 3C") == set()
    state = position(["FD 9C", "9D 8C", "9S 8S", "9B 8B"], "FC FS CB 3C")
    for capture, code in (
        ("FC FS", "court_capture"),
        ("CB", "court_capture"),
        ("3C", "court_capture"),
    ):
        with pytest.raises(IllegalAction) as err:
            apply(state, 0, "FD", capture)
        assert err.value.code == code


def test_courts_never_join_a_sum_and_numbers_never_take_courts() -> None:
    state = position(["7D 9C", "9D 8C", "9S 8S", "9B 8B"], "3C 4C FC")
    with pytest.raises(IllegalAction) as err:
        apply(state, 0, "7D", "3C 4C FC")
    assert err.value.code == "court_in_sum"
    with pytest.raises(IllegalAction) as err:
        apply(state, 0, "7D", "FC")
    assert err.value.code == "rank_mismatch"


def test_refusals_have_stable_codes_and_change_nothing() -> None:
    state = position(["7D 9C", "9D 8C", "9S 8S", "9B 8B"], "3C 5C 7C")
    before = copy.deepcopy(state)
    cases = [
        (0, play("8D"), "not_in_hand"),
        (0, play("7D", "3C 4C"), "not_on_table"),
        (0, play("7D", "3C"), "rank_mismatch"),
        (0, play("7D", "3C 5C"), "sum_mismatch"),
        (1, play("9D"), "not_your_turn"),
    ]
    for seat, action, code in cases:
        with pytest.raises(IllegalAction) as err:
            GAME.apply(state, seat, action)
        assert err.value.code == code, action
        assert state == before


def test_a_capture_moves_the_played_and_taken_cards_to_the_pile() -> None:
    state = position(["7D 9C", "9D 8C", "9S 8S", "9B 8B"], "3C 5C 4B 7C", rest_to=1)
    team1 = state.piles[1]
    after = apply(state, 0, "7D", "3C 4B").state
    assert after.hands[0] == cards("9C")
    assert after.table == cards("5C 7C")
    assert after.piles == (cards("3C 4B 7D"), team1)
    assert after.last_capturer == 0


def test_the_game_over_refuses_everything() -> None:
    state = position(["7D", "", "", ""], "3C 4C", dealer=0)  # the dealer plays last
    after = apply(state, 0, "7D", "3C 4C").state
    assert GAME.is_over(after)
    with pytest.raises(IllegalAction) as err:
        apply(after, 1, "7D")
    assert err.value.code == "game_over"


def test_actions_arrive_as_plain_data() -> None:
    state = position(["7D 9C", "9D 8C", "9S 8S", "9B 8B"], "3C 4B 7C")
    action = GAME.decode_action({"type": "play", "card": "7D", "capture": ["3C", "4B"]})
    assert action == play("7D", "3C 4B")
    assert GAME.decode_action({"type": "play", "card": "7D"}) == play("7D")
    assert GAME.apply(state, 0, action).state.table == cards("7C")
    for bad in (
        {"type": "play", "card": "7X"},
        {"type": "play", "card": "7D", "capture": ["3C", "3C"]},
        {"type": "place", "card": "7D"},
    ):
        with pytest.raises(IllegalAction) as err:
            GAME.decode_action(bad)
        assert err.value.code == "bad_action"
