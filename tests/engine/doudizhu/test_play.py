"""The card play: leading, beating, passing, new leads, card choice, the end (Tricks)."""

from __future__ import annotations

import pytest

from engine.doudizhu.state import Pass, Play
from engine.game import IllegalAction

from .helpers import GAME, play, position, run

PASS = Pass()


def test_the_leader_cannot_pass() -> None:
    state = position(("3S 4S", "5S", "6S"))
    assert PASS not in GAME.legal_actions(state, 0)
    with pytest.raises(IllegalAction) as err:
        GAME.apply(state, 0, PASS)
    assert err.value.code == "must_lead"


def test_the_leader_may_play_any_combination() -> None:
    state = position(("3S 3H 4S 5S 6S 7S", "TS", "JS"))
    legal = set(GAME.legal_actions(state, 0))
    assert play("3S 3H", "pair") in legal
    assert play("3S 4S 5S 6S 7S", "straight") in legal
    assert play("7S", "single") in legal
    assert len(legal) == 5 + 1 + 1  # five singles (one per rank), a pair, a straight


def test_followers_beat_with_the_same_type_and_size_or_pass() -> None:
    state = position(("5S 5H KS", "4S 4H 6S 6H 7S AS", "3S"))
    state = run(state, play("5S 5H", "pair"))
    legal = GAME.legal_actions(state, 1)
    assert set(legal) == {PASS, play("6S 6H", "pair")}
    with pytest.raises(IllegalAction) as err:
        GAME.apply(state, 1, play("4S 4H", "pair"))
    assert err.value.code == "does_not_beat"
    with pytest.raises(IllegalAction) as err:
        GAME.apply(state, 1, play("AS", "single"))
    assert err.value.code == "does_not_beat"


def test_a_bomb_beats_ordinary_play_and_a_higher_bomb_beats_it() -> None:
    state = position(("AS AH KS", "3S 3H 3D 3C 9S", "4S 4H 4D 4C TS"))
    state = run(state, play("AS AH", "pair"))
    assert play("3S 3H 3D 3C", "bomb") in GAME.legal_actions(state, 1)
    state = run(state, play("3S 3H 3D 3C", "bomb"))
    assert set(GAME.legal_actions(state, 2)) == {PASS, play("4S 4H 4D 4C", "bomb")}
    state = run(state, play("4S 4H 4D 4C", "bomb"))
    assert state.bombs == 2


def test_the_rocket_beats_a_bomb_and_nothing_beats_the_rocket() -> None:
    state = position(("2S 2H 2D 2C 3S", "BJ RJ 4S", "5S 5H 5D 5C 6S"))
    state = run(state, play("2S 2H 2D 2C", "bomb"), play("BJ RJ", "rocket"))
    assert GAME.legal_actions(state, 2) == (PASS,)


def test_after_two_passes_the_last_player_to_play_leads_again() -> None:
    state = position(("3S 9S", "4S 8S", "5S"))
    state = run(state, play("3S", "single"), play("4S", "single"), PASS, PASS)
    assert GAME.to_act(state) == (1,)
    assert state.last is None
    assert PASS not in GAME.legal_actions(state, 1)


def test_one_pass_does_not_end_the_trick() -> None:
    state = position(("3S 9S", "4S 8S", "5S"))
    state = run(state, play("3S", "single"), PASS)
    assert GAME.to_act(state) == (2,)
    assert state.last == play("3S", "single")
    assert play("5S", "single") in GAME.legal_actions(state, 2)


def test_cards_must_be_in_hand() -> None:
    state = position(("3S 4S", "5S", "6S"))
    with pytest.raises(IllegalAction) as err:
        GAME.apply(state, 0, play("5S", "single"))
    assert err.value.code == "not_in_hand"


def test_the_stated_reading_must_fit_the_cards() -> None:
    state = position(("3S 3H 4S", "5S", "6S"))
    with pytest.raises(IllegalAction) as err:
        GAME.apply(state, 0, play("3S 3H", "single"))
    assert err.value.code == "not_a_combination"
    with pytest.raises(IllegalAction) as err:
        GAME.apply(state, 0, Play(frozenset(), "single"))
    assert err.value.code == "bad_cards"
    with pytest.raises(IllegalAction) as err:
        GAME.apply(state, 0, Play(frozenset(play("3S", "single").cards), "solo"))  # type: ignore[arg-type]
    assert err.value.code == "unknown_combo"


def test_the_deal_ends_when_a_hand_is_empty() -> None:
    state = position(("3S", "4S 5S", "6S 7S"))
    state = run(state, play("3S", "single"))
    assert GAME.is_over(state)
    assert GAME.to_act(state) == ()
    assert state.winner == 0
    with pytest.raises(IllegalAction) as err:
        GAME.apply(state, 1, play("4S", "single"))
    assert err.value.code == "game_over"


def test_a_turn_out_of_order_is_refused() -> None:
    state = position(("3S 4S", "5S", "6S"))
    with pytest.raises(IllegalAction) as err:
        GAME.apply(state, 1, play("5S", "single"))
    assert err.value.code == "not_your_turn"


def test_refused_actions_change_nothing() -> None:
    state = position(("3S 4S", "5S", "6S"))
    before = state
    for bad in (PASS, play("5S", "single"), play("3S 4S", "pair")):
        with pytest.raises(IllegalAction):
            GAME.apply(state, 0, bad)
    assert state == before


def test_played_cards_are_public_in_the_history() -> None:
    state = position(("3S 9S", "4S TS", "5S JS"))
    state = run(state, play("3S", "single"), PASS, play("5S", "single"))
    for seat in (0, 1, 2, None):
        view = GAME.view(state, seat)
        assert [(t.seat, t.play) for t in view.history] == [
            (0, play("3S", "single")),
            (1, None),
            (2, play("5S", "single")),
        ]
        assert view.last == play("5S", "single") and view.last_seat == 2


def test_malformed_plays_are_refused_with_a_code() -> None:
    state = position(("3S 4S", "5S", "6S"))
    for bad, code in (
        (Play(frozenset(["3S"]), "single"), "bad_cards"),  # type: ignore[list-item]
        (Play(frozenset(play("3S", "single").cards), ["single"]), "unknown_combo"),  # type: ignore[arg-type]
        (Play(("3S", "3S"), "pair"), "bad_cards"),  # type: ignore[arg-type]
        (Play(frozenset(play("3S 4S", "pair").cards), "pair"), "not_a_combination"),
    ):
        with pytest.raises(IllegalAction) as err:
            GAME.apply(state, 0, bad)
        assert err.value.code == code


def test_decoded_plays_from_the_wire_are_accepted() -> None:
    from engine.codec import to_plain

    state = position(("3S 3H 4S", "5S", "6S"))
    for action in GAME.legal_actions(state, 0):
        wire = to_plain(action)
        decoded = GAME.decode_action(wire)
        assert decoded == action
        GAME.apply(state, 0, decoded)


@pytest.mark.parametrize(
    ("cards_text", "combo"),
    [
        ("3S 3H 3D 4S 4H 4D 3C 4C", "airplane_single_wings"),  # 333444 + 34
        ("3S 3H 3D 3C 4S 4H 4D 4C", "four_two_pairs"),  # 3333 + 44 + 44
        ("3S 3H 3D 4S 4H 4D BJ RJ", "airplane_single_wings"),  # 333444 + BJ RJ
        ("TS JS QS KS AS 2S", "straight"),  # a straight with a 2
        ("JS QS KS AS 2S", "straight"),
        ("3S 4S 5S 6S", "straight"),  # a 4-card straight
    ],
)
def test_the_issues_near_misses_are_refused_by_the_game(cards_text: str, combo: str) -> None:
    state = position((cards_text + " 9H", "5H", "6H"))
    candidate = play(cards_text, combo)  # type: ignore[arg-type]
    assert candidate not in GAME.legal_actions(state, 0)
    with pytest.raises(IllegalAction) as err:
        GAME.apply(state, 0, candidate)
    assert err.value.code == "not_a_combination"
