"""The random and greedy policies decide from the view and finish deals."""

from __future__ import annotations

import random

from engine.doudizhu.ai.greedy import GreedyPolicy
from engine.doudizhu.combos import pack
from engine.doudizhu.game import read_play
from engine.doudizhu.policies import POLICIES
from engine.doudizhu.state import Bid, Pass, Play
from engine.registry import get_policy

from ..helpers import GAME, OPTIONS, deal, play, position, run

PASS = Pass()


def _play_deal(seed: int, names: tuple[str, str, str]) -> object:
    rng = random.Random(seed)
    policies = [get_policy("doudizhu", n) for n in names]
    state = GAME.new_state(OPTIONS, seed)
    steps = 0
    while not GAME.is_over(state):
        (seat,) = GAME.to_act(state)
        view = GAME.view(state, seat)
        action = policies[seat].choose(view, view.legal, rng)
        assert action in view.legal
        state = GAME.apply(state, seat, action).state
        steps += 1
        assert steps < 2000
    return GAME.result(state)


def test_policies_are_registered_weakest_first() -> None:
    names = list(POLICIES)
    assert names[0] == "random"
    assert "greedy" in names


def test_every_policy_mix_finishes_deals() -> None:
    for seed in range(4):
        assert _play_deal(seed, ("greedy", "random", "greedy")) is not None
        assert _play_deal(seed, ("greedy", "greedy", "greedy")) is not None


def test_greedy_beats_random_as_a_team() -> None:
    """Over some deals the greedy seats score more than the random ones."""
    greedy = random_ = 0
    for seed in range(24):
        names = ("greedy", "random", "random") if seed % 2 else ("random", "greedy", "greedy")
        result = _play_deal(seed, names)
        for seat, name in enumerate(names):
            score = result.scores[seat]  # type: ignore[attr-defined]
            if name == "greedy":
                greedy += score
            else:
                random_ += score
    assert greedy > random_


def test_greedy_bids_high_with_a_strong_hand_and_passes_a_weak_one() -> None:
    strong = deal(hands=("BJ RJ 2S 2H 2D AS", "", ""), first_bidder=0)
    view = GAME.view(strong, 0)
    assert GreedyPolicy().choose(view, view.legal, random.Random(0)) == Bid(3)
    weak = deal(
        hands=("3S 4H 5D 6C 7S 8H 9D TC JS 3H 4D 5C 6S 7H 8D 9C TS", "", ""), first_bidder=0
    )
    view = GAME.view(weak, 0)
    assert GreedyPolicy().choose(view, view.legal, random.Random(0)) == PASS


def test_greedy_goes_out_when_it_can() -> None:
    state = position(("3S 4S 5S 6S 7S", "9S", "TS"))
    view = GAME.view(state, 0)
    assert GreedyPolicy().choose(view, view.legal, random.Random(0)) == play(
        "3S 4S 5S 6S 7S", "straight"
    )


def test_greedy_follows_cheaply_and_lets_a_fellow_farmer_stand() -> None:
    state = position(("3S 8S 9S", "4S 6S KS 2S", "5S 7S QS"), landlord=0)
    state = run(state, play("3S", "single"))
    view = GAME.view(state, 1)
    assert GreedyPolicy().choose(view, view.legal, random.Random(0)) == play("4S", "single")
    state = run(state, play("4S", "single"))
    view = GAME.view(state, 2)  # seat 1 is a fellow farmer
    assert GreedyPolicy().choose(view, view.legal, random.Random(0)) == PASS


def test_greedy_keeps_its_bomb_unless_the_opponent_is_close_to_out() -> None:
    state = position(("3S 8S 9S TS JS", "4S 4H 4D 4C KS", "5S"), landlord=0)
    state = run(state, play("3S", "single"))
    view = GAME.view(state, 1)
    choice = GreedyPolicy().choose(view, view.legal, random.Random(0))
    assert choice == play("KS", "single")
    assert all(isinstance(a, (Play, Pass)) for a in view.legal)


# -- hard: paired search and bidding (engine.doudizhu.ai.search) -------------------


def ranks(text: str) -> int:
    """Packed rank counts from rank letters, e.g. ``"3334"`` (``B``/``R`` jokers)."""
    counts = [0] * 15
    for ch in text:
        counts["3456789TJQKA2BR".index(ch)] += 1
    return pack(tuple(counts))


def _hard_choice(state: object, iterations: int, seed: int) -> object:
    from engine.doudizhu.ai.search import HardPolicy
    from engine.game import Budget

    (seat,) = GAME.to_act(state)  # type: ignore[arg-type]
    view = GAME.view(state, seat)  # type: ignore[arg-type]
    policy = HardPolicy()
    choice = policy.choose(view, view.legal, random.Random(seed), Budget(iterations=iterations))
    assert policy.last_iterations <= iterations
    return choice


def test_paired_search_is_deterministic_for_a_seed_and_an_iteration_budget() -> None:
    state = position(("3S 4S 5S 9S 9H KS", "6S 8S", "7S TS JS"), landlord=0)
    first = _hard_choice(state, 60, 5)
    assert _hard_choice(state, 60, 5) == first


def test_paired_search_with_fewer_iterations_than_moves_still_answers() -> None:
    state = position(("3S 4S 5S 9S 9H KS", "6S 8S", "7S TS JS"), landlord=0)
    assert _hard_choice(state, 2, 1) in GAME.view(state, 0).legal


def test_paired_search_avoids_the_losing_lead() -> None:
    # a single three is answered by the farmer's last card; the pair or the two win
    state = position(("3S 3H 2S", "KS", "QS"), landlord=0)
    assert _hard_choice(state, 60, 2) in (play("3S 3H", "pair"), play("2S", "single"))


def test_hard_bids_three_or_passes() -> None:
    from engine.doudizhu.ai.search import HardPolicy
    from engine.game import Budget

    strong = deal(hands=("BJ RJ 2S 2H 2D AS AH KS KH QS QH", "", ""), first_bidder=0)
    view = GAME.view(strong, 0)
    choice = HardPolicy().choose(view, view.legal, random.Random(0), Budget(iterations=30))
    assert choice == Bid(3)


def test_an_eager_follower_beats_with_its_lowest_card_of_the_type_even_a_partner() -> None:
    from engine.doudizhu.ai.normal import Situation
    from engine.doudizhu.ai.search import eager_follow

    five = read_play(play("5S", "single"))[0]
    # seat 2 answers its partner's five: normal would let it stand, eager plays the seven
    sit = Situation(2, 0, (10, 5, 4), 1, ranks("89TJQKA"))
    assert eager_follow(ranks("7K99"), five, sit) == read_play(play("7S", "single"))[0]
    triple = read_play(play("5S 5H 5D 3S", "triple_single"))[0]
    answer = eager_follow(ranks("999KKK4A"), triple, sit)
    assert answer is not None and answer.main == 6 and answer.packed == ranks("9994")


def test_an_eager_follower_without_the_type_leaves_it_to_the_normal_core() -> None:
    from engine.doudizhu.ai.normal import Situation
    from engine.doudizhu.ai.search import eager_follow

    pair = read_play(play("5S 5H", "pair"))[0]
    sit = Situation(2, 0, (10, 5, 4), 1, ranks("89TJQKA"))
    assert eager_follow(ranks("79K"), pair, sit) is None
