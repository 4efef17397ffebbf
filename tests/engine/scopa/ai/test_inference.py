"""Scopa ``hard`` reads the opponent's last play as evidence about its hand."""

from __future__ import annotations

import random

from engine.scopa.ai.sim import INDEX, VAL, best_move, score_moves
from engine.scopa.ai.worlds import Evidence, known_part, sample_deal
from tests.engine.scopa.helpers import GAME, cards, play, position


def ints(text: str) -> list[int]:
    return [INDEX[c] for c in cards(text)]


def test_the_rollout_player_plays_its_best_scored_move():
    rng = random.Random(3)
    for _ in range(300):
        deck = list(range(40))
        rng.shuffle(deck)
        hand, table = deck[:3], deck[3 : 3 + rng.randrange(0, 6)]
        last = rng.random() < 0.2
        card, positions = best_move(hand, table, last)
        scored = score_moves(hand, table, last)
        top = max(s for _, _, s in scored)
        chosen = [
            s for c, t, s in scored if c == card and t == frozenset(table[i] for i in positions)
        ]
        assert chosen == [top]


def _after_lay() -> tuple[object, object]:
    # seat 0 lays KS on 3S 4H although 7C would have swept it (3 + 4 = 7)
    state = position("KS 2H 5C", "AS 6H QD", "3S 4H", dealer=1, turn=0)
    state = GAME.apply(state, 0, play("KS")).state
    return state, GAME.view(state, 1)


def test_a_lay_is_evidence_against_holding_the_sweep():
    _, view = _after_lay()
    evidence = Evidence.of(view)
    assert evidence is not None
    assert evidence.card == INDEX[cards("KS")[0]]
    assert sorted(evidence.table) == sorted(ints("3S 4H"))
    with_sweep = evidence.likelihood(ints("7C 2D"))
    without = evidence.likelihood(ints("2D 5D"))
    assert with_sweep < 0.05 < 0.2 < without


def test_a_capture_is_evidence_too():
    # seat 0 takes 3S with 3C; holding 7C it would rather have swept 3S + 4H
    state = position("3C 2H 5C", "AS 6H QD", "3S 4H", dealer=1, turn=0)
    state = GAME.apply(state, 0, play("3C", "3S")).state
    evidence = Evidence.of(GAME.view(state, 1))
    assert evidence is not None
    assert evidence.taken == frozenset(ints("3S"))
    assert evidence.likelihood(ints("7C 2D")) < evidence.likelihood(ints("2D 5D"))


def test_no_evidence_from_own_play_or_a_fresh_hand():
    state, view = _after_lay()
    assert Evidence.of(GAME.view(state, 0)) is None  # seat 0's own play
    # the dealer's last card of a round: both hands are refilled, nothing left to read
    state = position("", "AS", "3S 4H", dealer=1, turn=1)
    state = GAME.apply(state, 1, play("AS")).state
    view = GAME.view(state, 0)
    assert view.hand_counts == (3, 3)
    assert Evidence.of(view) is None


def test_worlds_follow_the_evidence():
    _, view = _after_lay()
    base, unseen = known_part(view)
    evidence = Evidence.of(view)
    sevens = {i for i in unseen if VAL[i] == 7}
    plain = inferred = 0
    for k in range(400):
        rng = random.Random(k)
        plain += bool(sevens & set(sample_deal(base, unseen, 2, rng).hands[0]))
        rng = random.Random(k)
        inferred += bool(sevens & set(sample_deal(base, unseen, 2, rng, evidence).hands[0]))
    # about a fifth of plain worlds give seat 0 a seven; hardly any inferred ones
    assert plain > 40
    assert inferred < plain / 4
