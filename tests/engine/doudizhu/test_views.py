"""Views show only what a seat may see; sampled worlds fit the view (docs/architecture.md)."""

from __future__ import annotations

import random

from engine.codec import from_plain, to_plain
from engine.doudizhu.state import Bid, DoudizhuView, Pass
from engine.policy import RandomPolicy

from .helpers import GAME, OPTIONS, deal, run

PASS = Pass()


def _random_states(n: int, seed: int) -> list:  # type: ignore[type-arg]
    rng = random.Random(seed)
    policy = RandomPolicy()
    out = []
    for game_seed in range(n):
        state = GAME.new_state(OPTIONS, game_seed + 1000 * seed)
        while not GAME.is_over(state):
            out.append(state)
            (seat,) = GAME.to_act(state)
            legal = GAME.legal_actions(state, seat)
            state = GAME.apply(state, seat, policy.choose(None, legal, rng)).state
        out.append(state)
    return out


def test_a_view_holds_the_own_hand_and_only_counts_of_the_others() -> None:
    state = run(deal(first_bidder=0), Bid(3))
    view = GAME.view(state, 1)
    zones = GAME.card_zones(state)
    assert set(view.hand) == set(zones["hand1"])
    assert view.hand_counts == (20, 17, 17)
    assert GAME.view(state, None).hand == ()
    text = repr(view)
    for card in zones["hand0"]:
        if card not in view.bottom:
            assert repr(card) not in text


def test_legal_actions_only_on_ones_turn() -> None:
    state = deal(first_bidder=2)
    assert GAME.view(state, 2).legal == (PASS, Bid(1), Bid(2), Bid(3))
    assert GAME.view(state, 0).legal == ()
    assert GAME.legal_actions(state, 0) == ()


def test_views_round_trip_through_plain_data() -> None:
    for state in _random_states(2, 1)[::7]:
        for seat in (0, 1, 2, None):
            view = GAME.view(state, seat)
            assert from_plain(DoudizhuView, to_plain(view)) == view


def test_sampled_worlds_keep_the_bottom_cards_in_the_landlords_hand() -> None:
    rng = random.Random(5)
    for state in _random_states(4, 2)[::3]:
        if state.landlord is None:
            continue
        for seat in (0, 1, 2, None):
            view = GAME.view(state, seat)
            world = GAME.sample_world(view, rng)
            assert GAME.view(world, seat) == view
            played = set(GAME.card_zones(world)["played"])
            landlord_hand = set(GAME.card_zones(world)[f"hand{state.landlord}"])
            for card in view.bottom:
                assert card in played or card in landlord_hand


def test_sampled_worlds_play_on_like_the_real_one() -> None:
    """A sampled world accepts the same legal actions (the determinization hook)."""
    rng = random.Random(6)
    for state in _random_states(3, 3)[::5]:
        if GAME.is_over(state):
            continue
        (seat,) = GAME.to_act(state)
        world = GAME.sample_world(GAME.view(state, seat), rng)
        assert GAME.legal_actions(world, seat) == GAME.legal_actions(state, seat)
        for action in GAME.legal_actions(state, seat)[:5]:
            GAME.apply(world, seat, action)


def test_events_show_hands_only_to_their_owner() -> None:
    state = GAME.new_state(OPTIONS, 3)
    for event in GAME.start_events(state):
        if event.kind == "hand":
            assert event.audience == frozenset({event.data["seat"]})
        else:
            assert "hand" not in event.data
    redeal = GAME.apply(run(state, PASS, PASS), GAME.to_act(run(state, PASS, PASS))[0], PASS)
    hands = [e for e in redeal.events if e.kind == "hand"]
    assert len(hands) == 3
    for event in hands:
        assert event.audience == frozenset({event.data["seat"]})
