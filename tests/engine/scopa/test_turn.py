"""rules/scopa.md — Cards and A turn: values, captures, priority, mandatory capture."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cards import SCOPA_40
from engine.game import IllegalAction
from engine.scopa.rules import VALUE, capture_allowed, capture_options
from tests.engine.scopa.helpers import GAME, cards, play, position


def legal_for(state, seat, card):
    return {a.capture for a in GAME.legal_actions(state, seat) if str(a.card) == card}


def test_capture_values_of_the_cards_section():
    assert [VALUE[r] for r in "A234567JQK"] == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]


def test_courts_take_part_in_sums():
    # K (10) on J (8) + 2: the court's value counts in the sum
    state = position("KS AS 2S", "3S 4S 5S", "JH 2H 6C", turn=0)
    assert legal_for(state, 0, "KS") == {frozenset(cards("JH 2H"))}
    # and a court can be captured as part of a group
    state = position("KS AS 2S", "3S 4S 5S", "QH AH 6C", turn=0)
    assert frozenset(cards("QH AH")) in legal_for(state, 0, "KS")


def test_a_same_value_card_captures_exactly_one_of_the_players_choice():
    state = position("7S AS 2S", "3S 4S 5S", "7H 7C 3D 4D", turn=0)
    assert legal_for(state, 0, "7S") == {frozenset(cards("7H")), frozenset(cards("7C"))}
    after = GAME.apply(state, 0, play("7S", "7C")).state
    assert cards("7H 3D 4D") == after.table
    with pytest.raises(IllegalAction) as err:
        GAME.apply(state, 0, play("7S", "7H 7C"))
    assert err.value.code == "bad_capture"


def test_single_card_priority_over_sums_example_of_the_rules():
    # "playing a 7 on a table of 7, 3, 4 must take the 7"
    state = position("7S AS 2S", "3S 4S 5S", "7H 3D 4D", turn=0)
    assert legal_for(state, 0, "7S") == {frozenset(cards("7H"))}
    with pytest.raises(IllegalAction) as err:
        GAME.apply(state, 0, play("7S", "3D 4D"))
    assert err.value.code == "bad_capture"


def test_free_choice_among_sum_groups_example_of_the_rules():
    # "on a table of 3, 4, 5, 2 it may take 3+4 or 5+2"
    state = position("7S AS KS", "3S 4S 5S", "3D 4D 5D 2D", turn=0)
    assert legal_for(state, 0, "7S") == {frozenset(cards("3D 4D")), frozenset(cards("5D 2D"))}
    for group in ("3D 4D", "5D 2D"):
        after = GAME.apply(state, 0, play("7S", group)).state
        assert set(after.piles[0]) >= set(cards(group + " 7S"))


def test_sums_need_two_or_more_cards_and_any_size_group():
    state = position("6S AS KS", "3S 4S 5S", "AD 2D 3D", turn=0)
    assert legal_for(state, 0, "6S") == {frozenset(cards("AD 2D 3D"))}


def test_capturing_is_mandatory_for_the_chosen_card():
    state = position("7S AS KS", "3S 4S 5S", "7H 3D JD", turn=0)
    with pytest.raises(IllegalAction) as err:
        GAME.apply(state, 0, play("7S"))
    assert err.value.code == "must_capture"
    assert legal_for(state, 0, "7S") == {frozenset(cards("7H"))}


def test_a_card_that_cannot_capture_may_be_chosen_and_is_laid_on_the_table():
    # 7S could capture, but the player may still choose AS, which cannot
    state = position("7S AS KS", "3S 4S 5S", "7H 3D JD", turn=0)
    assert legal_for(state, 0, "AS") == {frozenset()}
    after = GAME.apply(state, 0, play("AS")).state
    assert after.table == cards("7H 3D JD AS")
    assert after.piles[0] == ()
    assert after.hands[0] == cards("7S KS")


def test_a_card_that_cannot_capture_may_not_pretend_to():
    state = position("7S AS KS", "3S 4S 5S", "7H 3D JD", turn=0)
    with pytest.raises(IllegalAction) as err:
        GAME.apply(state, 0, play("AS", "7H"))
    assert err.value.code == "bad_capture"


def test_a_capture_moves_played_and_captured_cards_to_the_pile():
    state = position("5S AS KS", "3S 4S 6S", "2D 3D JD", turn=0)
    after = GAME.apply(state, 0, play("5S", "2D 3D")).state
    assert set(after.piles[0]) == set(cards("2D 3D 5S"))
    assert after.table == cards("JD")
    assert after.last_capturer == 0


def test_playing_a_card_not_in_hand_is_refused():
    state = position("5S AS KS", "3S 4S 6S", "2D 3D JD", turn=0)
    with pytest.raises(IllegalAction) as err:
        GAME.apply(state, 0, play("3S"))
    assert err.value.code == "not_in_hand"


def test_players_alternate():
    state = position("5S AS KS", "3S 4S 6S", "2D 3D JD", turn=0)
    after = GAME.apply(state, 0, play("AS")).state
    assert GAME.to_act(after) == (1,)
    with pytest.raises(IllegalAction) as err:
        GAME.apply(after, 0, play("KS"))
    assert err.value.code == "not_your_turn"


def test_refill_three_each_when_both_hands_are_empty_none_to_the_table():
    state = position("AS", "2S", "KD QD JD", dealer=1, turn=0, stock="3S 4S 5S 6S 7S 3H")
    after = GAME.apply(state, 0, play("AS")).state
    assert after.stock == cards("3S 4S 5S 6S 7S 3H")  # seat 1 still holds a card
    after = GAME.apply(after, 1, play("2S")).state
    assert after.hands == (cards("3S 4S 5S"), cards("6S 7S 3H"))  # non-dealer first
    assert after.table == cards("KD QD JD AS 2S")
    assert after.stock == ()
    assert GAME.to_act(after) == (0,)


def test_the_stock_lasts_exactly_six_rounds():
    state = GAME.new_state(GAME.options(), 5)
    refills = 0
    while state.deal_no == 0 and not GAME.is_over(state):
        seat = GAME.to_act(state)[0]
        stock_before = len(state.stock)
        state = GAME.apply(state, seat, GAME.legal_actions(state, seat)[0]).state
        if state.deal_no == 0 and len(state.stock) < stock_before:
            refills += 1
    assert refills == 5  # the first round is dealt, five more come from the stock


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(SCOPA_40.cards),
    st.lists(st.sampled_from(SCOPA_40.cards), unique=True, max_size=9),
)
def test_capture_options_follow_the_rules(card, table):
    table = [c for c in table if c != card]
    options = capture_options(card, table)
    value = VALUE[card.rank]
    singles = [t for t in table if VALUE[t.rank] == value]
    if singles:
        assert set(options) == {frozenset((t,)) for t in singles}
    else:
        for group in options:
            assert len(group) >= 2
            assert sum(VALUE[c.rank] for c in group) == value
            assert group <= set(table)
        # exhaustive: every subset that sums is present
        from itertools import combinations

        expected = {
            frozenset(combo)
            for k in range(2, len(table) + 1)
            for combo in combinations(table, k)
            if sum(VALUE[c.rank] for c in combo) == value
        }
        assert set(options) == expected


@settings(max_examples=400)
@given(
    st.lists(st.sampled_from(SCOPA_40.cards), min_size=1, max_size=11, unique=True),
    st.sets(st.integers(0, 10), max_size=4),
    st.integers(0, 2),
)
def test_a_capture_is_allowed_exactly_when_it_is_among_the_options(deal, picks, extra):
    """The shortcut that checks a move's capture without listing the options
    (capture_allowed) agrees with the options: the chosen capture must be one of
    them, and laying the card is allowed only when there is none."""
    card, table = deal[0], tuple(deal[1:])
    options = capture_options(card, table)
    outside = [c for c in SCOPA_40.cards if c not in deal][:extra]  # not on the table
    capture = frozenset([table[i] for i in picks if i < len(table)] + outside)
    expected = capture in options or not (options or capture)
    assert capture_allowed(card, capture, table) is expected
    for option in options:  # each option, and laying when there is none
        assert capture_allowed(card, option, table)
    assert capture_allowed(card, frozenset(), table) is (not options)
