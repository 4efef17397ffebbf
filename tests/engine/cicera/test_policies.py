"""Cicera policies: weakest first, deciding from the view only (ARCHITECTURE.md, AI)."""

from __future__ import annotations

import random

from engine.cicera.policies import EXTRA_POLICIES, POLICIES, GreedyPolicy
from engine.registry import get_policy, policy_names
from tests.engine.cicera.helpers import GAME, OPTIONS, apply, play, position


def choose(state: object, seed: int = 0) -> object:
    (seat,) = GAME.to_act(state)  # type: ignore[arg-type]
    view = GAME.view(state, seat)  # type: ignore[arg-type]
    return GreedyPolicy().choose(view, view.legal, random.Random(seed))


def test_policies_are_listed_weakest_first() -> None:
    assert list(POLICIES) == ["random", "easy", "greedy", "normal"]
    assert policy_names("cicera")[: len(POLICIES)] == tuple(POLICIES)
    assert get_policy("cicera", "greedy").name == "greedy"
    assert list(EXTRA_POLICIES) == ["hard"]


def test_greedy_takes_the_capture_with_three_bonuses() -> None:
    # 6S sweeps A-2-3 of swords (Scùa, Simili, Quadriglia); 3C could only match 3S
    state = position(["6S 3C", "9D 8C", "8S 7S", "9B 8B"], "AS 2S 3S")
    assert choose(state) == play("6S", "AS 2S 3S")


def test_greedy_takes_back_a_placed_card_for_picada() -> None:
    state = position(["5C 9C", "5D 8C", "8S 7S", "9B 8B"], "")
    state = apply(state, 0, "5C").state
    assert choose(state) == play("5D", "5C")


def test_greedy_does_not_leave_the_opponent_a_sweep() -> None:
    # placing 3D would leave 2C+3D (a five sweeps it); the Re leaves no sum
    state = position(["3D RB", "5D RC", "8S 7S", "9B 8B"], "2C")
    assert {choose(state, seed) for seed in range(8)} == {play("RB")}


def test_greedy_counts_the_simili_bonus() -> None:
    # four ways to make 7 from equally worthy cards: only 3B+4B is all batons
    state = position(["7B 9C", "9D 8C", "8S 7S", "9B 8B"], "3B 4B 3C 4C 9S")
    assert {choose(state, seed) for seed in range(8)} == {play("7B", "3B 4B")}


def test_greedy_decides_from_the_view_only() -> None:
    rng = random.Random(1)
    state = GAME.new_state(OPTIONS, 21)
    for _ in range(20):
        (seat,) = GAME.to_act(state)
        choices = set()
        for _ in range(4):
            world = GAME.redeal_hidden(state, seat, rng)
            view = GAME.view(world, seat)
            choices.add(GreedyPolicy().choose(view, view.legal, random.Random(5)))
        assert len(choices) == 1
        state = GAME.apply(state, seat, choices.pop()).state


def test_greedy_partners_beat_random_partners() -> None:
    rng = random.Random(2)
    margin = 0
    wins = 0
    for seed in range(20):
        state = GAME.new_state(OPTIONS, seed)
        policies = [get_policy("cicera", n) for n in ("greedy", "random", "greedy", "random")]
        while not GAME.is_over(state):
            (seat,) = GAME.to_act(state)
            view = GAME.view(state, seat)
            state = GAME.apply(state, seat, policies[seat].choose(view, view.legal, rng)).state
        result = GAME.result(state)
        assert result is not None
        margin += result.scores[0] - result.scores[1]
        wins += result.winners == frozenset({0, 2})
    assert wins >= 16
    assert margin > 0
