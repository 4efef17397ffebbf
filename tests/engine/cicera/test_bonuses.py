"""Capture bonuses: Scùa, Picada, Simili, Quadriglia, stacking (rules/cicera.md)."""

from __future__ import annotations

from engine.cicera import CiceraState, TeamBonuses
from tests.engine.cicera.helpers import GAME, apply, position, run

# four equal hands, seat 0 first (dealer 3); the played cards are chosen per test
HANDS = ["5C 9C 2C", "5D 8C 2D", "5S 8S 9S", "5B 8B 9B"]


def bonuses_of_last_play(state: CiceraState) -> tuple[str, ...]:
    assert state.last_play is not None
    return state.last_play.bonuses


def test_scua_when_a_capture_empties_the_table() -> None:
    state = position(["7D 9C", "9D 8C", "8S 7S", "9B 8B"], "3C 4B")
    after = apply(state, 0, "7D", "3C 4B").state
    assert bonuses_of_last_play(after) == ("scua",)
    assert after.bonuses[0] == TeamBonuses(scua=1)
    assert after.bonuses[1] == TeamBonuses()


def test_no_scua_while_cards_stay_on_the_table() -> None:
    state = position(["7D 9C", "9D 8C", "8S 7S", "9B 8B"], "3C 4B 5C")
    after = apply(state, 0, "7D", "3C 4B").state
    assert bonuses_of_last_play(after) == ()
    assert after.bonuses == (TeamBonuses(), TeamBonuses())


def test_scua_counts_on_the_last_play_of_the_deal() -> None:
    state = position(["", "", "", "7D"], "3C 4B", dealer=3)
    after = apply(state, 3, "7D", "3C 4B").state
    assert GAME.is_over(after)
    assert bonuses_of_last_play(after) == ("scua",)
    assert after.score is not None and after.score.bonuses == (0, 1)


def test_picada_takes_back_exactly_the_card_just_placed() -> None:
    state = position(HANDS, "2B 3B")
    state = apply(state, 0, "5C").state
    after = apply(state, 1, "5D", "5C").state
    assert bonuses_of_last_play(after) == ("picada",)
    assert after.bonuses[1] == TeamBonuses(picada=1)


def test_picada_and_scua_on_one_capture() -> None:
    state = position(HANDS, "")
    state = apply(state, 0, "5C").state
    after = apply(state, 1, "5D", "5C").state
    assert bonuses_of_last_play(after) == ("scua", "picada")
    assert after.bonuses[1].total == 2


def test_no_picada_for_a_sum_that_includes_the_placed_card() -> None:
    state = position(["3C 9C", "7D 8C", "8S 7S", "9B 8B"], "4B 9S")
    state = apply(state, 0, "3C").state
    after = apply(state, 1, "7D", "3C 4B").state
    assert bonuses_of_last_play(after) == ()


def test_no_picada_for_another_card_of_the_same_rank() -> None:
    state = position(["5C 9C 2C", "5D 8C 2D", "5S 8S 9S", "7B 8B 9B"], "5B 9D")
    state = apply(state, 0, "5C").state
    after = apply(state, 1, "5D", "5B").state
    assert bonuses_of_last_play(after) == ()
    # the card just placed, by contrast, earns it
    assert bonuses_of_last_play(apply(state, 1, "5D", "5C").state) == ("picada",)


def test_no_picada_when_the_previous_player_captured() -> None:
    state = position(HANDS, "2B 7C")
    state = run(state, ("5C", ""), ("2D", "2B"))  # seat 0 places, seat 1 captures
    after = apply(state, 2, "5S", "5C").state
    assert bonuses_of_last_play(after) == ()


def test_no_picada_for_a_card_placed_earlier_in_the_round() -> None:
    state = position(HANDS, "2B 7C")
    state = run(state, ("5C", ""), ("8C", ""), ("8S", ""))
    after = apply(state, 3, "5B", "5C").state
    assert bonuses_of_last_play(after) == ()


def test_simili_when_played_and_captured_cards_share_a_suit() -> None:
    state = position(["7S 9C", "9D 8C", "8S 6S", "9B 8B"], "3S 4S 9S 4C")
    after = apply(state, 0, "7S", "3S 4S").state
    assert bonuses_of_last_play(after) == ("simili",)
    mixed = apply(state, 0, "7S", "3S 4C").state
    assert bonuses_of_last_play(mixed) == ()


def test_quadriglia_for_three_or_more_table_cards_at_once() -> None:
    state = position(["6D 5D", "9D 8C", "8S 6S", "9B 8B"], "AC 2S 3B 9C")
    after = apply(state, 0, "6D", "AC 2S 3B").state
    assert bonuses_of_last_play(after) == ("quadriglia",)
    two = apply(state, 0, "5D", "2S 3B").state
    assert bonuses_of_last_play(two) == ()


def test_worked_example_scua_simili_quadriglia_on_one_capture() -> None:
    # 6 of swords on A-2-3 of swords: the table is swept (Scùa), all one suit
    # (Simili) and three table cards go at once (Quadriglia): 3 points.
    state = position(["6S 9C", "9D 8C", "8S 7S", "9B 8B"], "AS 2S 3S")
    after = apply(state, 0, "6S", "AS 2S 3S").state
    assert bonuses_of_last_play(after) == ("scua", "simili", "quadriglia")
    assert after.bonuses[0] == TeamBonuses(scua=1, simili=1, quadriglia=1)
    assert after.bonuses[0].total == 3


def test_worked_example_four_batons_summed_by_the_ten() -> None:
    # T of batons takes A+2+3+4 of batons: Scùa + Simili + Quadriglia again
    state = position(["TB 9C", "9D 8C", "8S 7S", "9B 8B"], "AB 2B 3B 4B")
    after = apply(state, 0, "TB", "AB 2B 3B 4B").state
    assert bonuses_of_last_play(after) == ("scua", "simili", "quadriglia")


def test_three_bonuses_on_the_last_play_by_a_partner_go_to_the_team() -> None:
    state = position(["", "", "6S", ""], "AS 2S 3S", dealer=2, rest_to=0)
    after = apply(state, 2, "6S", "AS 2S 3S").state
    assert GAME.is_over(after)
    assert after.bonuses == (TeamBonuses(scua=1, simili=1, quadriglia=1), TeamBonuses())
    assert after.score is not None and after.score.bonuses == (3, 0)


def test_bonuses_are_reported_in_the_play_event() -> None:
    state = position(["6S 9C", "9D 8C", "8S 7S", "9B 8B"], "AS 2S 3S")
    events = apply(state, 0, "6S", "AS 2S 3S").events
    (event,) = [e for e in events if e.kind == "play"]
    assert event.audience is None
    assert event.data["bonuses"] == ("scua", "simili", "quadriglia")
