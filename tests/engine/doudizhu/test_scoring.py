"""Multiplier, spring, reverse spring and the zero-sum payoffs (End and scoring)."""

from __future__ import annotations

from engine.doudizhu.state import Pass

from .helpers import GAME, play, position, run

PASS = Pass()


def _result(state):  # type: ignore[no-untyped-def]
    result = GAME.result(state)
    assert result is not None
    assert sum(result.scores) == 0
    return result


def test_landlord_wins_plainly() -> None:
    state = position(("3S 9S", "4S KS", "5S"), landlord=0, bid=2)
    state = run(state, play("3S", "single"), play("4S", "single"), PASS, play("9S", "single"))
    result = _result(state)
    assert result.scores == (4, -2, -2)
    assert result.winners == frozenset({0})
    assert result.summary["landlord"] == 0
    assert result.summary["landlord_won"] is True
    assert result.summary["bid"] == 2
    assert result.summary["multiplier"] == 1
    assert result.summary["spring"] is False
    assert result.summary["reverse_spring"] is False
    assert result.summary["bombs"] == 0


def test_farmers_win_together_when_either_goes_out() -> None:
    state = position(("3S 9S 8S", "4S KS", "5S 6S"), landlord=0, bid=1)
    state = run(
        state,
        play("3S", "single"),
        play("4S", "single"),
        PASS,
        play("8S", "single"),
        play("KS", "single"),
    )
    result = _result(state)
    assert result.scores == (-2, 1, 1)
    assert result.winners == frozenset({1, 2})
    assert result.summary["landlord_won"] is False
    assert result.summary["reverse_spring"] is False  # the landlord played twice


def test_each_bomb_doubles_the_multiplier() -> None:
    state = position(("4S 3S 3H 3D 3C", "5S KS", "6S"), landlord=0, bid=3)
    state = run(state, play("4S", "single"), play("5S", "single"), PASS)
    state = run(state, play("3S 3H 3D 3C", "bomb"))
    result = _result(state)
    assert result.summary["bombs"] == 1
    assert result.summary["multiplier"] == 2
    assert result.scores == (12, -6, -6)


def test_the_rocket_doubles_too_and_bombs_add_up() -> None:
    state = position(("4S BJ RJ", "5S 9S 9H 9D 9C KS", "6S"), landlord=0, bid=1)
    state = run(
        state,
        play("4S", "single"),
        play("9S 9H 9D 9C", "bomb"),
        PASS,
        play("BJ RJ", "rocket"),
    )
    result = _result(state)
    assert result.summary["bombs"] == 2
    assert result.summary["multiplier"] == 4
    assert result.scores == (8, -4, -4)


def test_spring_doubles_when_no_farmer_played_a_card() -> None:
    state = position(("3S 4S", "5S", "6S"), landlord=0, bid=3)
    state = run(state, play("4S", "single"), PASS, PASS, play("3S", "single"))
    result = _result(state)
    assert result.summary["spring"] is True
    assert result.summary["multiplier"] == 2
    assert result.scores == (12, -6, -6)


def test_reverse_spring_doubles_when_the_landlord_played_only_the_opening_lead() -> None:
    state = position(("3S 9S", "4S", "5S 6S"), landlord=0, bid=2)
    state = run(state, play("3S", "single"), play("4S", "single"))
    result = _result(state)
    assert result.summary["reverse_spring"] is True
    assert result.summary["spring"] is False
    assert result.summary["multiplier"] == 2
    assert result.scores == (-8, 4, 4)


def test_spring_and_bombs_multiply() -> None:
    state = position(("5S", "3S 3H 3D 3C 4S", "6S"), landlord=1, bid=2)
    state = run(state, play("3S 3H 3D 3C", "bomb"), PASS, PASS, play("4S", "single"))
    result = _result(state)
    assert result.summary["landlord"] == 1
    assert result.summary["spring"] is True
    assert result.summary["multiplier"] == 4
    assert result.scores == (-8, 16, -8)


def test_seat_roles_follow_the_landlord() -> None:
    state = position(("5S", "3S 3H 3D 3C 4S", "6S"), landlord=1, bid=2)
    state = run(state, play("3S 3H 3D 3C", "bomb"), PASS, PASS, play("4S", "single"))
    result = _result(state)
    roles = [GAME.seat_role(result, s) for s in range(3)]
    assert roles == ["farmer_before", "landlord", "farmer_after"]


def test_the_final_view_shows_the_final_multiplier() -> None:
    state = position(("3S 4S", "5S", "6S"), landlord=0, bid=3)
    state = run(state, play("4S", "single"), PASS, PASS, play("3S", "single"))
    for seat in (0, 1, 2, None):
        view = GAME.view(state, seat)
        assert view.phase == "over"
        assert view.multiplier == 2
        assert view.winner == 0
