"""The hard level's fast simulator agrees with the engine, and the search behaves."""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.cards import Card
from engine.cicera import CiceraState
from engine.cicera.ai.search import (
    CARDS,
    INDEX,
    VAL,
    HardPolicy,
    Sampler,
    captures,
    playout,
    rollout_play,
    table_sums,
)
from engine.game import Budget
from engine.policy import RandomPolicy
from tests.engine.cicera.helpers import GAME, OPTIONS, apply, card, cards, play, position


@pytest.mark.parametrize("seed", range(6))
def test_simulator_plays_a_deal_exactly_like_the_engine(seed: int) -> None:
    rng = random.Random(seed)
    state = GAME.new_state(OPTIONS, seed)
    first = GAME.to_act(state)[0]
    world = Sampler(GAME.view(state, first)).world(random.Random(0))
    world.hands = [[INDEX[c] for c in h] for h in state.hands]
    while not GAME.is_over(state):
        (seat,) = GAME.to_act(state)
        assert world.turn == seat
        legal = GAME.legal_actions(state, seat)
        sim_legal = {
            (CARDS[card], frozenset(CARDS[c] for c in group))
            for card in world.hands[seat]
            for group in [(), *captures(card, world.table)]
        }
        assert sim_legal == {(p.card, p.capture) for p in legal}
        action = RandomPolicy().choose(None, legal, rng)
        capture = tuple(INDEX[c] for c in state.table if c in action.capture)
        state = GAME.apply(state, seat, action).state
        world.play(INDEX[action.card], capture)
        if not GAME.is_over(state):
            assert [CARDS[c] for c in world.table] == list(state.table)
        assert world.bonus == [state.bonuses[0].total, state.bonuses[1].total]
    assert state.score is not None
    assert world.finish() == state.score.points


@pytest.mark.parametrize("seed", range(6))
def test_playout_is_the_rollout_player_step_by_step(seed: int) -> None:
    # playout inlines World.play: both must end in the same piles, bonuses and points
    state = GAME.new_state(OPTIONS, seed)
    for _ in range(seed * 3):
        (seat,) = GAME.to_act(state)
        state = GAME.apply(state, seat, GAME.legal_actions(state, seat)[-1]).state
    (seat,) = GAME.to_act(state)
    world = Sampler(GAME.view(state, seat)).world(random.Random(seed))
    stepped = world.copy()
    fast = playout(world, random.Random(seed))
    rng = random.Random(seed)
    while stepped.hands[stepped.turn]:
        stepped.play(*rollout_play(stepped, rng))
    assert stepped.finish() == fast
    assert (stepped.piles, stepped.bonus, stepped.turn) == (world.piles, world.bonus, world.turn)


def test_sampled_worlds_keep_the_view_and_deal_only_unseen_cards() -> None:
    state = GAME.new_state(OPTIONS, 12)
    for _ in range(9):
        (seat,) = GAME.to_act(state)
        state = GAME.apply(state, seat, GAME.legal_actions(state, seat)[0]).state
    (seat,) = GAME.to_act(state)
    view = GAME.view(state, seat)
    world = Sampler(view).world(random.Random(3))
    assert [CARDS[c] for c in world.hands[seat]] == list(view.hand)
    assert [len(h) for h in world.hands] == list(view.hand_counts)
    dealt = {CARDS[c] for s, h in enumerate(world.hands) if s != seat for c in h}
    assert dealt == {c for s, h in enumerate(state.hands) if s != seat for c in h}


def test_hard_takes_the_sweep_worth_three_bonuses() -> None:
    # 6S sweeps A-2-3 of swords: Scùa, Simili, Quadriglia, and the Napula keys
    state = position(["6S 3C 9C", "9D 8C RB", "8S 7S FB", "9B 8B CB"], "AS 2S 3S")
    view = GAME.view(state, 0)
    choice = HardPolicy().choose(view, view.legal, random.Random(0), Budget(iterations=200))
    assert choice == play("6S", "AS 2S 3S")


def test_hard_keeps_the_last_capture_for_its_team() -> None:
    # last play of the deal: taking 5B with 5C makes the team last capturer of the
    # table's other cards too, and earns Scùa for an empty table
    state = position(["5C", "", "", ""], "5B TD 7S", dealer=0, pile0="AS 2S", rest_to=1)
    view = GAME.view(state, 0)
    choice = HardPolicy().choose(view, view.legal, random.Random(0), Budget(iterations=20))
    assert choice == play("5C", "5B")


def rollout_choice(state: CiceraState) -> tuple[Card, frozenset[Card]]:
    (seat,) = GAME.to_act(state)
    world = Sampler(GAME.view(state, seat)).world(random.Random(0))
    world.hands = [[INDEX[c] for c in h] for h in state.hands]
    card, capture = rollout_play(world, NoNoise())
    return CARDS[card], frozenset(CARDS[c] for c in capture)


class NoNoise(random.Random):
    """A generator whose ``random()`` never triggers the rollout player's random plays."""

    def random(self) -> float:
        return 0.99


def test_rollout_player_takes_back_a_placed_card_for_picada() -> None:
    state = position(["5C 9C", "5D 8C", "8S 7S", "9B 8B"], "")
    state = apply(state, 0, "5C").state
    assert rollout_choice(state) == (card("5D"), frozenset(cards("5C")))


def test_rollout_player_places_a_rank_whose_other_cards_are_all_seen() -> None:
    state = position(["9C 5C", "9D 8C", "8S 7S", "9B 8B"], "RB", pile1="5D 5S 5B")
    assert rollout_choice(state) == (card("5C"), frozenset())


def test_rollout_player_does_not_leave_a_lone_card_to_sweep() -> None:
    state = position(["7B 5B", "9D 2D", "8S 7S", "9B 2B"], "2C 3C 4D", pile1="4S 4B 4C")
    assert rollout_choice(state) == (card("5B"), frozenset(cards("2C 3C")))


@given(st.lists(st.sampled_from(range(len(CARDS))), min_size=0, max_size=9, unique=True))
def test_table_sums_are_every_group_of_two_or_more_number_cards(table: list[int]) -> None:
    # the position getters build, for any table, exactly the groups the rules allow
    sums = table_sums(tuple(VAL[t] for t in table))
    found = {(total, getter(table)) for total, getters in sums.items() for getter in getters}
    numbers = [t for t in table if VAL[t]]
    expected = {
        (sum(VAL[c] for c in group), group)
        for size in range(2, len(numbers) + 1)
        for group in itertools.combinations(numbers, size)
        if sum(VAL[c] for c in group) <= 10
    }
    assert found == expected
    assert sum(len(g) for g in sums.values()) == len(expected)
