"""The RLCard rule-agent adapter (arena ``rlcard-rule``): own-seat information only."""

from __future__ import annotations

import random

import pytest

from client_cli.arena import EXTERNAL_POLICIES, make_policy, run
from client_cli.rlcard_agent import RLCardRulePolicy, action_for, raw_observation
from engine.doudizhu.state import Pass
from engine.registry import UnknownPolicy
from tests.engine.doudizhu.helpers import GAME, play, position, states
from tests.engine.doudizhu.helpers import run as steps

PASS_ = Pass()


def test_the_observation_is_the_seats_own() -> None:
    state = position(("3S 3H 9S", "4S 5S", "KS QS"), landlord=0)
    state = steps(state, play("9S", "single"), PASS_, play("KS", "single"))
    obs = raw_observation(GAME.view(state, 0))
    assert obs["self"] == 0 and obs["landlord"] == 0
    assert obs["current_hand"] == "33"
    assert obs["trace"] == [(0, "9"), (1, "pass"), (2, "K")]
    assert obs["played_cards"] == ["9", "", "K"]
    assert obs["num_cards_left"] == [2, 2, 1]
    assert obs["others_hand"].count("3") == 2  # two threes are ours, two unseen
    assert obs["others_hand"].count("9") == 3 and obs["others_hand"].count("K") == 3


def test_the_observation_does_not_change_when_hidden_cards_are_permuted() -> None:
    rng = random.Random(4)
    for state in states(30, 2, level="normal", phase="play"):
        (seat,) = GAME.to_act(state)  # type: ignore[arg-type]
        other = GAME.redeal_hidden(state, seat, rng)  # type: ignore[arg-type]
        assert raw_observation(GAME.view(state, seat)) == raw_observation(GAME.view(other, seat))  # type: ignore[arg-type]


def test_answers_map_back_to_legal_actions() -> None:
    state = position(("3S 3H 3D 4S 4H 9S", "5S", "6S"), landlord=0)
    legal = GAME.view(state, 0).legal
    assert action_for(legal, "33344") == play("3S 3H 3D 4S 4H", "triple_pair")
    assert action_for(legal, "9") == play("9S", "single")
    assert action_for(legal, "pass") is None  # a leader cannot pass
    assert action_for(legal, "KK") is None


def test_the_policy_plays_legal_moves_through_whole_deals() -> None:
    policy = RLCardRulePolicy()
    for state in states(40, 5, level="normal", phase="play"):
        (seat,) = GAME.to_act(state)  # type: ignore[arg-type]
        view = GAME.view(state, seat)  # type: ignore[arg-type]
        action = policy.choose(view, view.legal, random.Random(1))
        assert action in view.legal
        assert action == policy.choose(view, view.legal, random.Random(1))


def test_the_policy_follows_with_the_smallest_move_of_the_same_type() -> None:
    state = position(("3S 9S", "4S 6S KS 6H", "5S 7S QS"), landlord=0)
    state = steps(state, play("3S", "single"))
    view = GAME.view(state, 1)
    assert RLCardRulePolicy().choose(view, view.legal, random.Random(0)) == play("4S", "single")


def test_the_arena_knows_the_external_policy() -> None:
    assert ("doudizhu", "rlcard-rule") in EXTERNAL_POLICIES
    assert isinstance(make_policy("doudizhu", "rlcard-rule"), RLCardRulePolicy)
    with pytest.raises(UnknownPolicy):
        make_policy("scopa", "rlcard-rule")
    report = run("doudizhu", "normal", "rlcard-rule", 2, 1, {})
    assert report["games"] == 6 and 0.0 <= report["win_rate"] <= 1.0
