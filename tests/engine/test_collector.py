"""The collector held off during decisions (engine.collector), and searches that need it not."""

from __future__ import annotations

import gc
import random
import weakref
from collections.abc import Iterator

import pytest

from engine import collector
from engine.game import Budget
from engine.registry import GAMES, get_game, get_policy


@pytest.fixture
def clean_collector() -> Iterator[None]:
    """Start thawed and collected; leave the collector on and thawed afterwards."""
    gc.unfreeze()
    gc.collect()
    yield
    gc.enable()
    gc.unfreeze()


class Node:
    """A container that can point at itself (a reference cycle)."""

    def __init__(self) -> None:
        self.other: Node | None = None


def test_the_collector_is_off_inside_and_on_after(clean_collector: None) -> None:
    assert gc.isenabled()
    with collector.held_off():
        assert not gc.isenabled()
        kept = [Node() for _ in range(50)]
    assert gc.isenabled()
    assert gc.get_freeze_count() > 0  # what the block left alive is frozen
    assert all(gc.is_tracked(n) for n in kept)


def test_an_error_in_the_block_turns_it_back_on(clean_collector: None) -> None:
    with pytest.raises(KeyError), collector.held_off():
        raise KeyError("boom")
    assert gc.isenabled()


def test_not_holding_and_nesting_leave_the_collector_alone(clean_collector: None) -> None:
    with collector.held_off(False):
        assert gc.isenabled()
    assert gc.get_freeze_count() == 0
    gc.disable()
    with collector.held_off():
        assert not gc.isenabled()
    assert not gc.isenabled()  # it was off before: still off
    assert gc.get_freeze_count() == 0


def test_frozen_cycles_are_collected_once_the_heap_has_grown(
    clean_collector: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    collector.settle()
    baseline = gc.get_freeze_count()
    with collector.held_off():
        loop = Node()
        loop.other = loop
        dead = weakref.ref(loop)
        del loop
    assert dead() is not None  # a cycle, frozen: not collected yet
    grow = int(collector.THAW_GROWTH * baseline) + 10
    with collector.held_off():
        bulk = [[i] for i in range(grow)]  # the frozen heap outgrows its bound
    for _ in range(collector.CHECK_EVERY - 3):
        with collector.held_off():
            pass
    assert dead() is not None  # its size is looked at every CHECK_EVERY blocks
    with collector.held_off():
        pass
    assert dead() is None  # thawed and collected at the end of that block
    assert gc.get_freeze_count() >= len(bulk)  # and frozen again after it


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_searches_and_rules_leave_no_garbage_cycles(game_id: str, clean_collector: None) -> None:
    """Holding the collector off is only sound if nothing a decision makes needs it:
    ``hard``'s search and the rules (legal actions, views, moves) of two deals,
    with the collector off, leave nothing that only it could free (a recursive
    closure, for one, is a cycle per call)."""
    game = get_game(game_id)
    hard = get_policy(game_id, "hard")
    gc.disable()
    for seed in (3, 4):
        state = game.new_state(game.options(), seed)
        n = 0
        while not game.is_over(state) and n < 40:
            seat = game.to_act(state)[0]
            legal = game.legal_actions(state, seat)
            view = game.view(state, seat)
            action = legal[0]
            if len(legal) > 1:
                budget = Budget(iterations=40, seconds=None)
                action = hard.choose(view, legal, random.Random(n), budget)
            n += 1
            state = game.apply(state, seat, action).state
    gc.enable()
    assert gc.collect() == 0
