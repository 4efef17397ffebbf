"""Setup, seats and partnerships (rules/cicera.md: Partnerships and seats, Setup)."""

from __future__ import annotations

from collections import Counter

import pytest

from engine.cicera import CiceraDeal
from engine.cicera.rules import team_of
from engine.game import IllegalAction, OptionsError
from tests.engine.cicera.helpers import DECK, GAME, OPTIONS, apply, cards, full_deal, position


def test_a_deal_gives_twelve_cards_each_and_four_to_the_table() -> None:
    for seed in range(5):
        state = GAME.new_state(OPTIONS, seed)
        assert [len(h) for h in state.hands] == [12, 12, 12, 12]
        assert len(state.table) == 4
        everything = [c for h in state.hands for c in h] + list(state.table)
        assert Counter(everything) == Counter(DECK.cards)  # nothing left over
        assert state.piles == ((), ())


def test_the_dealer_is_random_and_the_seed_decides_it() -> None:
    dealers = {GAME.new_state(OPTIONS, seed).dealer for seed in range(40)}
    assert dealers == {0, 1, 2, 3}
    assert GAME.new_state(OPTIONS, 7) == GAME.new_state(OPTIONS, 7)
    assert GAME.new_state(OPTIONS, 7).hands != GAME.new_state(OPTIONS, 8).hands


def test_the_player_right_of_the_dealer_plays_first() -> None:
    for seed in range(12):
        state = GAME.new_state(OPTIONS, seed)
        assert GAME.to_act(state) == ((state.dealer + 1) % 4,)
    for dealer in range(4):
        state = full_deal(["", "", "", ""], "4C 5C 6C 7C", dealer=dealer)
        assert GAME.to_act(state) == ((dealer + 1) % 4,)


def test_play_goes_on_seat_by_seat() -> None:
    state = full_deal(["RC", "RD", "RS", "RB"], "4C 5C 6C 7C", dealer=1)
    assert GAME.to_act(state) == (2,)
    for seat, text in ((2, "RS"), (3, "RB"), (0, "RC"), (1, "RD")):
        assert GAME.to_act(state) == (seat,)
        for other in {0, 1, 2, 3} - {seat}:
            assert GAME.legal_actions(state, other) == ()
        state = apply(state, seat, text).state
    assert GAME.to_act(state) == (2,)


def test_partners_sit_opposite_and_share_a_pile() -> None:
    state = position(["5C", "5D", "6C", "6D"], "5S 5B 6S 6B", dealer=3, rest_to=1)
    team1_before = state.piles[1]
    state = apply(state, 0, "5C", "5S").state
    assert state.piles[0] == cards("5S 5C")
    state = apply(state, 1, "5D", "5B").state
    assert state.piles[1] == team1_before + cards("5B 5D")
    state = apply(state, 2, "6C", "6S").state
    assert state.piles[0] == cards("5S 5C 6S 6C")  # seat 2 adds to seat 0's pile
    state = apply(state, 3, "6D", "6B").state
    assert state.piles[1] == team1_before + cards("5B 5D 6B 6D")


def test_only_the_bresciane_pattern_names_the_cards() -> None:
    assert OPTIONS.pattern == "bresciane"
    with pytest.raises(OptionsError):
        GAME.options({"pattern": "french"})
    with pytest.raises(OptionsError):
        GAME.options({"target": 11})


def test_from_deal_refuses_impossible_positions() -> None:
    good = full_deal(["", "", "", ""], "4C 5C 6C 7C")
    hands = good.hands
    with pytest.raises(ValueError, match="52 cards"):
        GAME.from_deal(OPTIONS, CiceraDeal(3, hands, good.table[:3]))
    # seat 1 holding fewer cards than seat 0 before seat 0 has played
    uneven = (hands[0] + hands[1][:1], hands[1][1:], hands[2], hands[3])
    with pytest.raises(ValueError, match="turn order"):
        GAME.from_deal(OPTIONS, CiceraDeal(3, uneven, good.table))
    with pytest.raises(ValueError, match="dealer"):
        GAME.from_deal(OPTIONS, CiceraDeal(4, hands, good.table))
    with pytest.raises(ValueError, match="last_capturer"):
        GAME.from_deal(OPTIONS, CiceraDeal(3, hands, good.table, last_capturer=0))


def test_hand_sizes_decide_who_is_to_act_in_a_position() -> None:
    # seats 0 and 1 have played one card more than seats 2 and 3: seat 2 is to act
    state = position(["5C", "5D", "6C 7C", "6D 7D"], "", dealer=3)
    assert GAME.to_act(state) == (2,)
    with pytest.raises(IllegalAction) as err:
        apply(state, 0, "5C")
    assert err.value.code == "not_your_turn"


def test_teams_are_the_partnerships_seated_opposite() -> None:
    # Partnerships and seats: seats 0 and 2 against seats 1 and 3
    teams = GAME.teams(OPTIONS)
    assert teams == (frozenset({0, 2}), frozenset({1, 3}))
    assert all(team_of(s) == k for k, team in enumerate(teams) for s in team)
