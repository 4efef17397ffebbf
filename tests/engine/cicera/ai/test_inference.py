"""Cicera ``hard`` reads the previous player's play as evidence about its hand."""

from __future__ import annotations

import math
import random

import pytest

from engine.cicera import Play
from engine.cicera.ai.search import (
    INDEX,
    INFERENCE_TEMPERATURE,
    RANK,
    Evidence,
    Sampler,
    greedy_moves,
)
from tests.engine.cicera.helpers import GAME, card, cards, position


def ints(text: str) -> list[int]:
    return [INDEX[c] for c in cards(text)]


def _after_place():
    # seat 0 places 9C next to a lone 5S although a 5 would have swept it (a Scùa)
    state = position(["9C 2C 4C", "AC 6C 8C", "3D 4D 5C", "7D 8D 9D"], "5S", dealer=3)
    state = GAME.apply(state, 0, Play(card("9C"))).state
    return state, GAME.view(state, 1)


def test_a_place_is_evidence_against_holding_the_sweep():
    _, view = _after_place()
    evidence = Evidence.of(view)
    assert evidence is not None
    assert evidence.seat == 0 and evidence.card == INDEX[card("9C")]
    assert evidence.table == ints("5S")
    assert evidence.likelihood(ints("5C 2C")) < 0.1 < 0.3 < evidence.likelihood(ints("2C 4C"))


def test_no_evidence_from_own_play():
    state, _ = _after_place()
    assert Evidence.of(GAME.view(state, 0)) is None


def test_worlds_follow_the_evidence():
    _, view = _after_place()
    plain_fives = inferred_fives = 0
    plain, inferred = Sampler(view), Sampler(view, inference=True)
    assert plain.evidence is None and inferred.evidence is not None
    for k in range(300):
        world = plain.world(random.Random(k))
        plain_fives += any(RANK[c] == 4 for c in world.hands[0])
        world = inferred.world(random.Random(k))
        inferred_fives += any(RANK[c] == 4 for c in world.hands[0])
        # the view's own hand and counts never change
        assert sorted(world.hands[1]) == sorted(INDEX[c] for c in view.hand)
        assert [len(h) for h in world.hands] == list(view.hand_counts)
    assert plain_fives > 30
    assert inferred_fives < plain_fives / 2


def test_likelihood_is_the_softmax_of_greedy_scores_over_the_hand():
    # the per-card weights computed once give the softmax over the whole hand's moves
    _, view = _after_place()
    evidence = Evidence.of(view)
    assert evidence is not None
    for held in ("5C 2C", "2C 4C", "AC 4S 7B", ""):
        moves = greedy_moves([evidence.card, *ints(held)], evidence.table, -1)
        weights = [math.exp(score / INFERENCE_TEMPERATURE) for _, _, score in moves]
        chosen = sum(
            w
            for (c, taken, _), w in zip(moves, weights, strict=True)
            if c == evidence.card and taken == evidence.taken
        )
        assert evidence.likelihood(ints(held)) == pytest.approx(chosen / sum(weights))
