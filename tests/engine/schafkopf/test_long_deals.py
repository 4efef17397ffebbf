"""Conformance-style checks on greedy series (Rufer and Solo deals played out).

The shared conformance suite plays uniformly random bids, which nearly always
end in a Tout lost early; greedy bidding reaches the long Rufer and Solo
deals, so the same properties are checked on those here.
"""

from __future__ import annotations

import copy
import random
from collections import Counter

import msgpack  # type: ignore[import-untyped]
import pytest

from engine.cards import GERMAN_32
from engine.codec import from_plain, to_plain
from engine.game import IllegalAction
from engine.schafkopf import PlayCard, SchafkopfState, SchafkopfView
from engine.schafkopf.ai.greedy import GreedyPolicy
from engine.schafkopf.state import Action
from tests.engine.schafkopf.helpers import GAME


def greedy_series(seed: int) -> list[tuple[SchafkopfState, int | None, Action | None]]:
    policy = GreedyPolicy()
    rng = random.Random(seed)
    state = GAME.new_state(GAME.options({"deals": 3}), 1000 + seed)
    trace: list[tuple[SchafkopfState, int | None, Action | None]] = []
    while not GAME.is_over(state):
        (seat,) = GAME.to_act(state)
        view = GAME.view(state, seat)
        action = policy.choose(view, view.legal, rng)
        trace.append((state, seat, action))
        state = GAME.apply(state, seat, action).state
    trace.append((state, None, None))
    return trace


Traces = list[list[tuple[SchafkopfState, int | None, Action | None]]]


@pytest.fixture(scope="module")
def traces() -> Traces:
    return [greedy_series(seed) for seed in range(3)]


def test_greedy_series_reach_rufer_deals(traces: Traces) -> None:
    kinds = Counter(r.contract for t in traces for r in t[-1][0].history)
    assert kinds["rufer"] >= 2
    assert all(sum(t[-1][0].totals) == 0 for t in traces)


def test_every_card_stays_accounted_for(traces: Traces) -> None:
    deck = Counter(GERMAN_32.cards)
    for trace in traces:
        for state, _, _ in trace:
            assert Counter(c for cs in GAME.card_zones(state).values() for c in cs) == deck


def test_refused_cards_change_nothing(traces: Traces) -> None:
    refused = 0
    for trace in traces:
        for state, seat, _ in trace[:-1:2]:
            if state.phase != "play" or seat is None:
                continue
            legal = set(GAME.legal_actions(state, seat))
            before = copy.deepcopy(state)
            for c in GERMAN_32.cards:
                if PlayCard(c) in legal:
                    continue
                with pytest.raises(IllegalAction):
                    GAME.apply(state, seat, PlayCard(c))
                refused += 1
            assert state == before
    assert refused > 100


def test_views_round_trip_and_list_the_legal_actions(traces: Traces) -> None:
    for trace in traces:
        for state, _, _ in trace[::4]:
            for seat in (0, 1, 2, 3, None):
                view = GAME.view(state, seat)
                wire = msgpack.unpackb(msgpack.packb(to_plain(view)))
                assert from_plain(SchafkopfView, wire) == view
                if seat is not None:
                    assert view.legal == GAME.legal_actions(state, seat)
