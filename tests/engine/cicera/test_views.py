"""Views, events and hidden information (rules/cicera.md; docs/architecture.md, engine/)."""

from __future__ import annotations

import random

import msgpack

from engine.cicera import CiceraView
from engine.codec import from_plain, to_plain
from tests.engine.cicera.helpers import GAME, OPTIONS, apply, cards, position


def test_a_seat_sees_its_own_hand_and_counts_of_the_others() -> None:
    state = GAME.new_state(OPTIONS, 5)
    for seat in range(4):
        view = GAME.view(state, seat)
        assert view.seat == seat
        assert view.hand == state.hands[seat]
        assert view.hand_counts == (12, 12, 12, 12)
        assert view.table == state.table
        flat = repr(to_plain(view))
        for other in set(range(4)) - {seat}:
            for c in state.hands[other]:
                assert f"'{c}'" not in flat, f"seat {seat} sees {c} of seat {other}"


def test_the_spectator_sees_no_hand_and_has_no_legal_actions() -> None:
    state = GAME.new_state(OPTIONS, 5)
    view = GAME.view(state, None)
    assert view.hand == () and view.legal == ()
    assert view.hand_counts == (12, 12, 12, 12)


def test_legal_actions_are_shown_only_on_ones_turn() -> None:
    state = GAME.new_state(OPTIONS, 5)
    (turn,) = GAME.to_act(state)
    for seat in range(4):
        legal = GAME.view(state, seat).legal
        assert (legal != ()) == (seat == turn)
        assert legal == GAME.legal_actions(state, seat)


def test_piles_bonuses_and_the_last_play_are_public() -> None:
    state = position(["6S 9C", "9D 8C", "8S 7S", "9B 8B"], "AS 2S 3S 4C")
    after = apply(state, 0, "6S", "AS 2S 3S").state
    for seat in (None, 1, 2):
        view = GAME.view(after, seat)
        assert view.piles[0] == cards("AS 2S 3S 6S")
        assert view.bonuses[0].simili == 1 and view.bonuses[0].quadriglia == 1
        assert view.last_play is not None
        assert view.last_play.card == cards("6S")[0]
        assert view.last_play.bonuses == ("simili", "quadriglia")
        assert view.last_capturer == 0


def test_hands_are_dealt_only_to_their_owner() -> None:
    state = GAME.new_state(OPTIONS, 9)
    events = GAME.start_events(state)
    hands = [e for e in events if e.kind == "hand"]
    assert len(hands) == 4
    for e in hands:
        seat = e.data["seat"]
        assert e.audience == frozenset({seat})
        assert e.data["hand"] == state.hands[seat]
    for e in events:
        if e.audience is None:
            assert "hand" not in e.data
            assert e.data["table"] == state.table


def test_play_events_are_public_and_show_only_played_cards() -> None:
    state = GAME.new_state(OPTIONS, 9)
    (seat,) = GAME.to_act(state)
    action = GAME.legal_actions(state, seat)[0]
    transition = GAME.apply(state, seat, action)
    (event,) = transition.events
    assert event.kind == "play" and event.audience is None
    assert event.data["card"] == action.card
    assert set(event.data["captured"]) == set(action.capture)
    flat = repr(to_plain(event.data))
    for c in set(state.hands[seat]) - {action.card}:
        assert f"'{c}'" not in flat


def test_views_hold_no_seed_and_survive_the_wire() -> None:
    state = GAME.new_state(OPTIONS, 123456789)
    for seat in (0, 1, 2, 3, None):
        view = GAME.view(state, seat)
        plain = to_plain(view)
        assert "seed" not in plain
        assert from_plain(CiceraView, msgpack.unpackb(msgpack.packb(plain))) == view


def test_sampled_worlds_match_the_view_and_keep_the_own_hand() -> None:
    state = position(["5C 9C 2C", "5D 8C 2D", "5S 8S 9S", "5B 8B 9B"], "2B 3B")
    state = apply(state, 0, "5C").state
    view = GAME.view(state, 1)
    rng = random.Random(3)
    worlds = [GAME.sample_world(view, rng) for _ in range(5)]
    for world in worlds:
        assert GAME.view(world, 1) == view
        assert world.hands[1] == state.hands[1]
        assert world.last_play == state.last_play  # Picada stays possible in every world
    assert len({w.hands[0] for w in worlds}) > 1


def test_redealing_hidden_cards_keeps_every_seats_view() -> None:
    state = GAME.new_state(OPTIONS, 4)
    rng = random.Random(0)
    for seat in (0, 1, 2, 3, None):
        other = GAME.redeal_hidden(state, seat, rng)
        assert other != state
        assert GAME.view(other, seat) == GAME.view(state, seat)
