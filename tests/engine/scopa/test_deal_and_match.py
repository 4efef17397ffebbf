"""rules/scopa.md — Setup of a deal, End of a deal and The match."""

from __future__ import annotations

import pytest

from engine.cards import SCOPA_40
from engine.game import IllegalAction, OptionsError
from engine.rng import derive_rng
from engine.scopa import ScopaDeal
from engine.scopa.rules import match_winner, primiera_sum, score_deal
from tests.engine.scopa.helpers import GAME, cards, play, position


def kings(table):
    return sum(1 for c in table if c.rank == "K")


def first_shuffle_table(seed):
    order = list(SCOPA_40.cards)
    derive_rng(seed, "deal", 0, 0).shuffle(order)
    return order[6:10]


# -- Setup of a deal ---------------------------------------------------------


def test_deal_three_each_four_on_the_table_thirty_in_the_stock():
    state = GAME.new_state(GAME.options(), 3)
    assert [len(h) for h in state.hands] == [3, 3]
    assert len(state.table) == 4
    assert len(state.stock) == 30
    assert state.piles == ((), ())


def test_first_dealer_is_random_and_the_non_dealer_plays_first():
    dealers = {GAME.new_state(GAME.options(), seed).dealer for seed in range(20)}
    assert dealers == {0, 1}
    for seed in range(10):
        state = GAME.new_state(GAME.options(), seed)
        assert GAME.to_act(state) == (1 - state.dealer,)


def test_three_or_four_kings_on_the_opening_table_the_same_dealer_redeals():
    seed = next(s for s in range(10_000) if kings(first_shuffle_table(s)) >= 3)
    state = GAME.new_state(GAME.options(), seed)
    assert state.redeals >= 1
    assert kings(state.table) < 3
    assert state.deal_no == 0  # not a completed deal
    assert state.dealer == derive_rng(seed, "first-dealer").randrange(2)
    assert list(state.table) != first_shuffle_table(seed)


def test_an_explicit_opening_deal_with_three_kings_is_refused():
    rest = [c for c in SCOPA_40.cards if c not in cards("KS KH KD AS AH AD 2S 2H 2D 3S")]
    with pytest.raises(ValueError, match="redeal"):
        GAME.from_deal(
            GAME.options(),
            ScopaDeal(
                dealer=0,
                hands=(cards("AS AH AD"), cards("2S 2H 2D")),
                table=cards("KS KH KD 3S"),
                stock=tuple(rest),
            ),
        )


def test_after_a_completed_deal_the_other_player_deals():
    state = position("AS", "2S", "", dealer=1, turn=0, stock="", seed=4)
    after = GAME.apply(state, 0, play("AS")).state
    after = GAME.apply(after, 1, play("2S")).state
    assert after.deal_no == 1
    assert after.dealer == 0
    assert GAME.to_act(after) == (1,)
    assert len(after.stock) == 30


# -- End of a deal -------------------------------------------------------------


def test_a_capture_that_clears_the_table_scores_a_scopa():
    state = position("5S AS", "3S 4S", "2D 3D", turn=0)
    step = GAME.apply(state, 0, play("5S", "2D 3D"))
    assert step.state.scope == (1, 0)
    assert step.state.table == ()
    assert any(e.kind == "play" and e.data["scopa"] for e in step.events)


def test_no_scopa_on_the_very_last_play_of_the_deal():
    # stock empty, seat 1 plays the last card of the deal and clears the table
    state = position("AS", "5S", "2D 3D", dealer=0, turn=0, stock="", target=99)
    after = GAME.apply(state, 0, play("AS")).state
    step = GAME.apply(after, 1, play("5S", "2D 3D"))
    scored = next(e for e in step.events if e.kind == "deal_scored")
    assert scored.data["score"].scope == (0, 0)


def test_a_sweep_with_an_empty_stock_but_cards_in_hand_still_scores():
    state = position("5S KS", "AS", "2D 3D", dealer=1, turn=0, stock="", target=99)
    step = GAME.apply(state, 0, play("5S", "2D 3D"))
    assert step.state.scope == (1, 0)  # KS and AS are still to be played


def test_leftovers_go_to_the_last_capturer_without_scopa():
    state = position("AS", "5S", "2D 3D KD", dealer=1, turn=0, stock="", target=99)
    after = GAME.apply(state, 0, play("AS")).state  # lays AS
    step = GAME.apply(after, 1, play("5S", "2D 3D"))  # seat 1 captures last
    leftover = next(e for e in step.events if e.kind == "leftover")
    assert leftover.data["seat"] == 1
    assert set(leftover.data["cards"]) == set(cards("KD AS"))
    scored = next(e for e in step.events if e.kind == "deal_scored").data["score"]
    assert scored.scope == (0, 0)


def test_with_no_capture_in_the_whole_deal_the_table_stays_unclaimed():
    state = position("AS", "2S", "KD", dealer=1, turn=0, stock="", target=99)
    after = GAME.apply(state, 0, play("AS")).state
    step = GAME.apply(after, 1, play("2S"))
    assert not any(e.kind == "leftover" for e in step.events)
    scored = next(e for e in step.events if e.kind == "deal_scored").data["score"]
    # seat 1's pile holds the 37 filler cards of the position; KD, AS, 2S are in neither
    assert scored.cards == (0, 37)


def test_most_cards_award_and_tie():
    a = score_deal((cards("AS 2S 3S"), cards("4S 5S")), (0, 0))
    assert a.cards_award == 0
    b = score_deal((cards("AS 2S"), cards("4S 5S")), (0, 0))
    assert b.cards_award is None


def test_most_diamonds_award_and_tie():
    a = score_deal((cards("AD 2S"), cards("4D 5D")), (0, 0))
    assert a.diamonds_award == 1
    b = score_deal((cards("AD 2S"), cards("4D 5S")), (0, 0))
    assert b.diamonds_award is None


def test_settebello_award():
    assert score_deal((cards("7D"), cards("7S")), (0, 0)).settebello_award == 0
    assert score_deal((cards("7S"), cards("7D")), (0, 0)).settebello_award == 1
    assert score_deal((cards("7S"), cards("7H")), (0, 0)).settebello_award is None


def test_primiera_values_differ_from_capture_values():
    # best per suit: 7S=21, 6H=18, AD=16, KC=10
    assert primiera_sum(cards("7S 2S 6H AD KC QC")) == 21 + 18 + 16 + 10
    assert primiera_sum(cards("5S 4H 3D 2C")) == 15 + 14 + 13 + 12
    assert primiera_sum(cards("JS QH KD JC")) == 40


def test_primiera_requires_a_card_of_every_suit():
    assert primiera_sum(cards("7S 7H 7D")) is None
    only_one = score_deal((cards("2S 2H 2D 2C"), cards("7S 7H 7D 6S")), (0, 0))
    assert only_one.primiera_award == 0  # only seat 0 qualifies, despite lower cards
    neither = score_deal((cards("7S 7H"), cards("7D 7C")), (0, 0))
    assert neither.primiera_award is None


def test_primiera_higher_sum_wins_and_tie_gives_nobody():
    win = score_deal((cards("7S 7H 7D 7C"), cards("6S 6H 6D 6C")), (0, 0))
    assert win.primiera_award == 0
    tie = score_deal((cards("7S 6H 7D 6C"), cards("6S 7H 6D 7C")), (0, 0))
    assert tie.primiera_award is None


def test_deal_points_are_scope_plus_awards():
    piles = (cards("7D 7S 7H 7C AD 2D"), cards("KS QS"))
    score = score_deal(piles, (2, 1))
    # seat 0: cards, diamonds, settebello, primiera (only seat 0 qualifies) + 2 scope
    assert score.points == (6, 1)


# -- The match -----------------------------------------------------------------


def test_match_winner_needs_the_target_and_a_strictly_higher_total():
    assert match_winner((11, 5), 11) == 0
    assert match_winner((10, 9), 11) is None
    assert match_winner((12, 12), 11) is None  # tied at 11 or more: another deal
    assert match_winner((12, 13), 11) == 1
    assert match_winner((21, 3), 21) == 0
    assert match_winner((11, 3), 21) is None


def test_reaching_the_target_during_a_deal_does_not_end_it():
    # seat 0 at 10 sweeps mid-deal: 11 counting the scopa, but the deal goes on
    state = position("5S KS", "AS 4H", "2D 3D", dealer=1, turn=0, stock="", totals=(10, 0))
    after = GAME.apply(state, 0, play("5S", "2D 3D")).state
    assert after.scope == (1, 0)
    assert not GAME.is_over(after)
    assert GAME.to_act(after) == (1,)


def test_deal_points_add_to_the_match_totals_and_the_match_ends_after_the_deal():
    state = position("AS", "2S", "", dealer=1, turn=0, stock="", totals=(10, 3))
    after = GAME.apply(state, 0, play("AS")).state
    step = GAME.apply(after, 1, play("2S"))
    score = next(e for e in step.events if e.kind == "deal_scored").data["score"]
    totals = (10 + score.points[0], 3 + score.points[1])
    assert step.state.totals == totals
    if match_winner(totals, 11) is None:
        assert not GAME.is_over(step.state)
    else:
        assert GAME.is_over(step.state)
        assert GAME.result(step.state).winners == {match_winner(totals, 11)}


def test_tied_totals_at_eleven_go_on_to_another_deal():
    # seat 1's pile holds every other card: it wins 3 awards (+ primiera) = 4 points
    state = position("AS", "2S", "", dealer=1, turn=0, stock="", totals=(11, 7))
    after = GAME.apply(state, 0, play("AS")).state
    step = GAME.apply(after, 1, play("2S"))
    assert step.state.totals == (11, 11)
    assert not GAME.is_over(step.state)
    assert step.state.deal_no == 1


def test_target_is_a_table_option_defaulting_to_eleven():
    assert GAME.options().target == 11
    assert GAME.options({"target": 21}).target == 21
    with pytest.raises(OptionsError):
        GAME.options({"target": 0})
    with pytest.raises(OptionsError):
        GAME.options({"target": "eleven"})
    with pytest.raises(OptionsError):
        GAME.options({"goal": 11})
    with pytest.raises(OptionsError):
        GAME.options({"pattern": "bavarian"})


def test_a_finished_match_refuses_further_plays():
    state = position("AS", "2S", "", dealer=1, turn=0, stock="", totals=(30, 0))
    after = GAME.apply(state, 0, play("AS")).state
    done = GAME.apply(after, 1, play("2S")).state
    assert GAME.is_over(done)
    assert GAME.to_act(done) == ()
    with pytest.raises(IllegalAction) as err:
        GAME.apply(done, 0, play("AS"))
    assert err.value.code == "game_over"
