"""sample_world: hidden cards placed by the counts and the public facts."""

from __future__ import annotations

import random

from engine.cards import Card
from engine.schafkopf.hidden import _assign
from engine.schafkopf.rules import mode_of
from tests.engine.schafkopf.helpers import GAME, bid, cards, columns, deal, play
from tests.engine.schafkopf.test_scoring_examples import RUFER_SCHNEIDER, WENZ_77


def test_assignment_repairs_a_dead_end_by_augmenting_paths() -> None:
    x, y, z = cards("7E 8E 9E")
    allowed = {x: (1, 2), y: (1, 3), z: (2, 3)}
    for seed in range(60):
        got = _assign([x, y, z], {1: 1, 2: 1, 3: 1}, allowed, random.Random(seed))
        assert got is not None
        for seat, held in got.items():
            assert len(held) == 1 and seat in allowed[held[0]]


def test_assignment_reports_an_impossible_constraint() -> None:
    x, y = cards("7E 8E")
    assert _assign([x, y], {1: 1, 2: 1}, {x: (1,), y: (1,)}, random.Random(0)) is None


def test_sampled_worlds_keep_shown_voids() -> None:
    state = bid(deal(*columns(WENZ_77)), "wenz", "pass", "pass", "pass")
    state = play(state, "UE UH US 7S AE 9E 8E 8S")  # seat 3 showed void in trumps, acorns
    eff = mode_of("wenz", None).eff
    view = GAME.view(state, 0)
    rng = random.Random(2)
    for _ in range(50):
        world = GAME.sample_world(view, rng)
        assert GAME.view(world, 0) == view
        assert all(eff[c] not in ("T", "E") for c in world.hands[3])
        assert len(world.hands[3]) == 6


def test_sampled_worlds_keep_the_announcers_eligible() -> None:
    state = bid(deal(*columns(RUFER_SCHNEIDER)), "rufer G", "pass", "pass", "pass")
    view = GAME.view(state, 1)
    rng = random.Random(3)
    partners = set()
    for _ in range(80):
        world = GAME.sample_world(view, rng)
        assert GAME.view(world, 1) == view
        hand0 = world.hands[0]
        assert Card("A", "G") not in hand0
        assert any(c.suit == "G" and c.rank not in "OU" for c in hand0)
        assert world.partner is not None
        partners.add(world.partner)
    assert partners == {2, 3}


def test_a_spectator_world_places_every_unplayed_card() -> None:
    state = GAME.new_state(GAME.options(), 11)
    view = GAME.view(state, None)
    world = GAME.sample_world(view, random.Random(1))
    assert GAME.view(world, None) == view
    assert sorted(len(h) for h in world.hands) == [8, 8, 8, 8]
    assert world.seed != state.seed or world.hands != state.hands
