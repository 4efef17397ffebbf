"""End of the deal: leftovers, awards, Napula, totals and the result (rules/cicera.md)."""

from __future__ import annotations

from collections import Counter

import pytest

from engine.cicera import TeamBonuses
from engine.cicera.rules import napula_length, score_deal
from tests.engine.cicera.helpers import DECK, GAME, OPTIONS, apply, cards, position

NONE = (TeamBonuses(), TeamBonuses())


def test_leftovers_go_to_the_last_capturing_team_without_a_bonus() -> None:
    state = position(
        ["", "", "", "9D"], "3C 4B", dealer=3, pile0="5C 5D", rest_to=1, last_capturer=0
    )
    transition = apply(state, 3, "9D")
    after = transition.state
    assert after.table == ()
    assert after.piles[0] == cards("5C 5D 3C 4B 9D")
    assert after.bonuses == NONE  # emptying the table this way is no Scùa
    assert after.score is not None and after.score.bonuses == (0, 0)
    (leftover,) = [e for e in transition.events if e.kind == "leftover"]
    assert leftover.data == {"team": 0, "cards": cards("3C 4B 9D")}


def test_leftovers_follow_the_last_capture_not_the_last_play() -> None:
    # seat 2 (team 0) captures, then seat 3 (team 1) places the last card
    state = position(["", "", "7C", "9D"], "3C 4B 5S", dealer=3, rest_to=1)
    state = apply(state, 2, "7C", "3C 4B").state
    after = apply(state, 3, "9D").state
    assert after.piles[0] == cards("3C 4B 7C 5S 9D")


def test_nobody_capturing_leaves_the_table_unclaimed() -> None:
    state = GAME.new_state(OPTIONS, 3)
    events = []
    while not GAME.is_over(state):
        (seat,) = GAME.to_act(state)
        transition = apply(state, seat, str(state.hands[seat][0]))  # always Place
        state, events = transition.state, [*events, *transition.events]
    assert state.piles == ((), ())
    assert len(state.table) == 52
    assert Counter(c for zone in GAME.card_zones(state).values() for c in zone) == Counter(
        DECK.cards
    )
    assert state.score is not None
    assert Counter(state.score.unclaimed) == Counter(DECK.cards)
    assert state.score.points == (0, 0)
    assert state.score.mata_award is None
    result = GAME.result(state)
    assert result is not None and result.winners == frozenset()
    assert [e.kind for e in events].count("unclaimed") == 1


def test_most_cards_is_two_points_and_a_tie_gives_nothing() -> None:
    more = score_deal((cards("4C 5C 6C"), cards("4D 5D")), NONE)
    assert more.cards == (3, 2) and more.cards_award == 0
    assert more.awards == (2, 0)
    tied = score_deal((cards("4C 5C"), cards("4D 5D")), NONE)
    assert tied.cards_award is None and tied.awards == (0, 0)


def test_most_swords_is_one_point_and_a_tie_gives_nothing() -> None:
    score = score_deal((cards("4S 5S 4C"), cards("6S 4D 5D 6D")), NONE)
    assert score.swords == (2, 1) and score.swords_award == 0
    assert score.awards == (1, 2)  # swords to team 0, most cards to team 1
    tied = score_deal((cards("4S 4C"), cards("5S 4D")), NONE)
    assert tied.swords_award is None and tied.awards == (0, 0)


@pytest.mark.parametrize(
    ("card_text", "field"),
    [("2S", "mata_award"), ("TD", "ten_of_coins_award"), ("FC", "fante_of_cups_award")],
)
def test_each_named_card_is_one_point_to_its_holder(card_text: str, field: str) -> None:
    # equal card counts, and a sword on each side when the card is the 2S
    filler = "4S 4C" if card_text != "2S" else "4C"
    filler_other = "5S 5C 6C" if card_text != "2S" else "5S 6C"
    score = score_deal((cards(f"{card_text} {filler}"), cards(filler_other)), NONE)
    assert getattr(score, field) == 0
    assert score.awards == (1, 0)
    flipped = score_deal((cards(filler_other), cards(f"{card_text} {filler}")), NONE)
    assert getattr(flipped, field) == 1
    nobody = score_deal((cards(filler_other), cards(filler)), NONE, unclaimed=cards(card_text))
    assert getattr(nobody, field) is None


@pytest.mark.parametrize(
    ("pile", "length"),
    [
        ("", 0),
        ("AS 2S", 0),
        ("AS 2S 4S 5S 6S 7S 8S 9S TS", 0),  # no 3 of swords: no Napula
        ("2S 3S 4S 5S", 0),  # no ace
        ("AC 2C 3C 4C", 0),  # not swords
        ("AS 2S 3S", 3),
        ("AS 2S 3S 5S 6S", 3),  # the run breaks at the missing 4
        ("AS 2S 3S 4S", 4),
        ("AS 2S 3S 4S 6S", 4),
        ("AS 2S 3S 4S 5S 6S 7S 8S 9S TS", 10),
        ("AS 2S 3S 4S 5S 6S 7S 8S 9S TS FS CS RS", 10),  # courts never extend the run
    ],
)
def test_napula_is_the_unbroken_sword_run_from_the_ace(pile: str, length: int) -> None:
    assert napula_length(cards(pile)) == length


def test_napula_adds_to_the_team_total() -> None:
    score = score_deal((cards("AS 2S 3S 4S"), cards("5C 6C 7C 8C")), NONE)
    # napula 4, most swords 1, 2S 1; cards tied
    assert score.napula == (4, 0)
    assert score.points == (6, 0)


def test_total_is_bonuses_plus_awards_plus_napula() -> None:
    bonuses = (TeamBonuses(scua=2, picada=1), TeamBonuses(simili=1, quadriglia=3))
    score = score_deal((cards("AS 2S 3S 4C"), cards("TD FC 5C 6C 7C")), bonuses)
    assert score.bonuses == (3, 4)
    assert score.awards == (2, 4)  # swords + 2S | most cards + TD + FC
    assert score.napula == (3, 0)
    assert score.points == (8, 8)
    assert score.winner is None  # equal totals are a draw


def test_a_whole_deal_result_with_every_award() -> None:
    swords = "AS 2S 3S 4S 5S 6S 7S 8S 9S TS FS CS RS"
    state = position(
        ["", "", "", "RD"], "", dealer=3, pile0=f"{swords} TD FC", rest_to=1, last_capturer=1
    )
    after = apply(state, 3, "RD").state
    score = after.score
    assert score is not None
    assert score.cards == (15, 37) and score.cards_award == 1
    assert score.swords == (13, 0) and score.swords_award == 0
    assert (score.mata_award, score.ten_of_coins_award, score.fante_of_cups_award) == (0, 0, 0)
    assert score.napula == (10, 0)
    assert score.points == (14, 2)
    result = GAME.result(after)
    assert result is not None
    assert result.scores == (14, 2, 14, 2)
    assert result.winners == frozenset({0, 2})
    assert result.summary["team0_points"] == 14 and result.summary["team1_points"] == 2
    assert result.summary["team0_won"] is True and result.summary["draw"] is False
    assert result.summary["napula_team0"] == 10


def test_equal_totals_are_a_draw() -> None:
    # team 0: Napula 4 + La Mata 1 = 5; team 1: most cards 2 + swords 1 + TD + FC = 5
    state = position(
        ["", "", "", "RD"], "", dealer=3, pile0="AS 2S 3S 4S", rest_to=1, last_capturer=1
    )
    after = apply(state, 3, "RD").state
    result = GAME.result(after)
    assert result is not None
    assert result.scores == (5, 5, 5, 5)
    assert result.winners == frozenset()
    assert result.summary["draw"] is True
    assert result.summary["team0_won"] is False and result.summary["team1_won"] is False


def test_team_one_wins_with_seats_one_and_three() -> None:
    state = position(["", "", "", "RD"], "", dealer=3, pile0="4C", rest_to=1, last_capturer=1)
    result = GAME.result(apply(state, 3, "RD").state)
    assert result is not None
    assert result.winners == frozenset({1, 3})
    assert result.scores[1] == result.scores[3] > result.scores[0] == result.scores[2]


def test_no_result_before_the_end() -> None:
    state = GAME.new_state(OPTIONS, 1)
    assert GAME.result(state) is None
    assert not GAME.is_over(state)
