"""Cicera policies: weakest first, deciding from the view only (docs/architecture.md, AI)."""

from __future__ import annotations

import random

from engine.cicera.ai.greedy import GreedyPolicy
from engine.cicera.ai.normal import NormalPolicy, Worth, expected_max
from engine.cicera.policies import POLICIES
from engine.registry import get_policy, policy_names
from tests.engine.cicera.helpers import DECK, GAME, OPTIONS, apply, cards, play, position


def choose(state: object, seed: int = 0) -> object:
    (seat,) = GAME.to_act(state)  # type: ignore[arg-type]
    view = GAME.view(state, seat)  # type: ignore[arg-type]
    return GreedyPolicy().choose(view, view.legal, random.Random(seed))


def test_policies_are_listed_weakest_first() -> None:
    assert list(POLICIES) == ["random", "easy", "greedy", "normal", "hard"]
    assert policy_names("cicera") == tuple(POLICIES)
    assert get_policy("cicera", "greedy").name == "greedy"


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


def normal_choice(state: object, seed: int = 0) -> object:
    (seat,) = GAME.to_act(state)  # type: ignore[arg-type]
    view = GAME.view(state, seat)  # type: ignore[arg-type]
    return NormalPolicy().choose(view, view.legal, random.Random(seed))


def test_normal_takes_back_a_placed_card_for_picada() -> None:
    state = position(["5C 9C", "5D 8C", "8S 7S", "9B 8B"], "")
    state = apply(state, 0, "5C").state
    assert normal_choice(state) == play("5D", "5C")


def test_normal_places_a_rank_whose_other_cards_are_all_seen() -> None:
    # the other fives are in a pile, so nobody can take 5C back for a Picada;
    # the nines are out, so 9C would be at risk
    state = position(["5C 9C", "9D 8C", "8S 7S", "9B 8B"], "RB", pile1="5D 5S 5B")
    assert {normal_choice(state, seed) for seed in range(8)} == {play("5C")}


def test_normal_does_not_leave_a_lone_card_the_next_player_can_sweep() -> None:
    # 7B taking 3C+4D leaves 2C (twos are out: a Scùa for the next player);
    # 5B taking 2C+3C leaves 4D, and every other four is already in a pile
    state = position(["5B 7B", "9D 2D", "8S 7S", "9B 2B"], "2C 3C 4D", pile1="4S 4B 4C")
    assert normal_choice(state) == play("5B", "2C 3C")


def test_normal_counts_the_bonuses_of_a_capture() -> None:
    # 6S sweeps A-2-3 of swords: Scùa, Simili, Quadriglia and the Napula keys
    state = position(["6S 3C", "9D 8C", "8S 7S", "9B 8B"], "AS 2S 3S")
    assert normal_choice(state) == play("6S", "AS 2S 3S")


def test_expected_max_weights_by_hypergeometric_odds() -> None:
    # one winning card of four, a hand of one: a quarter of its gain; of all four: all of it
    assert expected_max([2.0, 0.0, 0.0, 0.0], 1) == (0.5, 0.25)
    assert expected_max([2.0, 0.0, 0.0, 0.0], 4) == (2.0, 1.0)
    assert expected_max([2.0, 1.0, 0.0], 0) == (0.0, 0.0)


def test_worth_drops_a_decided_award_and_a_dead_napula() -> None:
    fresh = Worth(((), ()))
    assert fresh.of(0, cards("2S")) > 1.0 + fresh.of(0, cards("2C"))
    # team 1 holds 27 cards, the ace of swords among them: most cards is decided,
    # and the three of swords can only deny team 1, no longer complete team 0's Napula
    clubs_and_coins = tuple(c for c in DECK.cards if c.suit in "CD")
    decided = Worth(((), (*cards("AS"), *clubs_and_coins)))
    assert decided.of(0, cards("5B")) == 0.0
    assert decided.of(0, cards("3S")) < fresh.of(0, cards("3S"))
