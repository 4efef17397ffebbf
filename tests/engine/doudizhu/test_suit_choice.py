"""Suits never matter: any suit choice of held cards is a legal play (Cards, Decision).

``legal_actions`` lists each rank-level play once, in the canonical suits;
``apply`` accepts the same play in any suits the player holds, and the cards
actually played are the ones everybody sees.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from typing import Any

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cards import DOUDIZHU_54, Card
from engine.codec import to_plain
from engine.doudizhu.combos import Combo
from engine.doudizhu.game import read_play
from engine.doudizhu.hands import cards_of, mask_of
from engine.doudizhu.state import DoudizhuState, Play, Turn
from engine.game import Budget, IllegalAction
from engine.registry import get_policy, policy_names

from .helpers import GAME, OPTIONS, cards, play, position, run

CODES = frozenset(c.rank + c.suit for c in DOUDIZHU_54.cards)


def suit_choices(hand: str, ranks: str) -> list[frozenset[Card]]:
    """Every set of cards of ``hand`` with the rank multiset ``ranks`` (e.g. ``"5599"``)."""
    held = cards(hand)
    per_rank = [
        list(itertools.combinations([c for c in held if c.rank == rank], n))
        for rank, n in Counter(ranks).items()
    ]
    return [frozenset(c for group in pick for c in group) for pick in itertools.product(*per_rank)]


def variant(hand: int, action: Play, rng: random.Random | None = None) -> Play:
    """``action`` with its cards of each rank drawn at random from the held cards of that
    rank; without ``rng``, the held cards last in suit order (never the listed ones when
    the hand has spare suits)."""
    held = cards_of(hand)
    need = Counter(c.rank for c in action.cards)
    chosen: list[Card] = []
    for rank, n in need.items():
        suits = [c for c in held if c.rank == rank]
        chosen += rng.sample(suits, n) if rng is not None else suits[-n:]
    return Play(frozenset(chosen), action.combo)


# (hand of the leader, combination, its ranks): each hand has spare suits of
# the ranks played, or (the bomb) exactly the cards needed
CASES: list[tuple[str, Combo, str]] = [
    ("5S 5H 5D 5C KH", "pair", "55"),
    ("5S 5H 5D 5C KH", "triple", "555"),
    ("5S 5H 5D 5C KH", "bomb", "5555"),
    ("5S 5H 5D 9S 9H 9D KH", "triple_single", "5559"),
    ("5S 5H 5D 9S 9H 9D KH", "triple_pair", "55599"),
    ("3S 3H 4S 4D 5H 5C 6S 6C 7D 7H KH", "straight", "34567"),
    ("3S 3H 3D 4S 4H 4D 5S 5H 5C KH", "pair_sequence", "334455"),
    ("3S 3H 3D 3C 4S 4H 4D 4C KH", "airplane", "333444"),
    ("3S 3H 3D 3C 4S 4H 4D 4C 6S 6H 7D 7C KH", "airplane_single_wings", "33344467"),
    ("3S 3H 3D 3C 4S 4H 4D 4C 6S 6H 6D 7S 7D 7C KH", "airplane_pair_wings", "3334446677"),
    ("7S 7H 7D 7C 8S 8H 8D 9S 9C KH", "four_two_singles", "777789"),
    ("7S 7H 7D 7C 8S 8H 8D 9S 9C KH", "four_two_singles", "777788"),
    ("7S 7H 7D 7C 8S 8H 8D 9S 9H 9C KH", "four_two_pairs", "77778899"),
]


@pytest.mark.parametrize(("hand", "combo", "ranks"), CASES, ids=[c[2] for c in CASES])
def test_every_suit_choice_of_held_cards_is_played_as_chosen(
    hand: str, combo: Combo, ranks: str
) -> None:
    state = position((hand, "KS", "QS"))
    before = state.hands[0]
    listed = [a for a in GAME.legal_actions(state, 0) if isinstance(a, Play) and a.combo == combo]
    listed = [a for a in listed if sorted(c.rank for c in a.cards) == sorted(ranks)]
    assert len(listed) == 1, "the listed plays hold each rank-level play once"
    choices = suit_choices(hand, ranks)
    assert len(choices) == len(set(choices)) >= 1
    for chosen in choices:
        action = Play(chosen, combo)
        assert read_play(action)[0] is read_play(listed[0])[0]
        tr = GAME.apply(state, 0, action)
        after = tr.state
        assert after.hands[0] == before & ~mask_of(chosen), "exactly the chosen cards leave"
        assert after.last is not None and after.last.cards == chosen
        assert after.history[-1] == Turn(0, action)
        play_event = tr.events[0]
        assert play_event.kind == "play" and play_event.data["cards"] == chosen
        for seat in (0, 1, 2, None):
            view = GAME.view(after, seat)
            assert view.last is not None and view.last.cards == chosen
            assert view.history[-1].play is not None and view.history[-1].play.cards == chosen
        assert set(GAME.view(after, 0).hand) == set(cards(hand)) - chosen


def test_the_listed_pair_keeps_the_canonical_suits() -> None:
    """The list holds one pair of fives; the other two suit choices are as legal."""
    state = position(("5H 5D 5C 9S", "KS", "QS"))
    pairs = [a for a in GAME.legal_actions(state, 0) if isinstance(a, Play) and a.combo == "pair"]
    assert pairs == [play("5H 5D", "pair")]
    for text in ("5H 5D", "5H 5C", "5D 5C"):
        after = GAME.apply(state, 0, play(text, "pair")).state
        assert set(GAME.view(after, 0).hand) == set(cards("5H 5D 5C 9S")) - set(cards(text))


def test_a_suit_choice_follows_and_is_judged_by_its_ranks() -> None:
    state = position(("4S 4H KH", "5S 5H 5D 5C KS", "9S 9H 9D QS"))
    state = run(state, play("4S 4H", "pair"))
    after = run(state, play("5D 5C", "pair"), play("9D 9S", "pair"))
    assert after.last == play("9S 9D", "pair")
    assert after.hands[1] == mask_of(cards("5S 5H KS"))
    assert after.hands[2] == mask_of(cards("9H QS"))


def test_refusals_stay_as_they_were() -> None:
    state = position(("5H 5D 9S", "KS", "QS"))
    refusals = [
        (play("5D 5C", "pair"), "not_in_hand"),  # 5C is not held
        (play("5D 9S", "pair"), "not_a_combination"),
    ]
    for action, code in refusals:
        with pytest.raises(IllegalAction) as err:
            GAME.apply(state, 0, action)
        assert err.value.code == code
    follow = position(("9S 9H KH", "5S 5H 5D KS", "QS"))
    follow = run(follow, play("9H 9S", "pair"))
    before = follow
    with pytest.raises(IllegalAction) as err:
        GAME.apply(follow, 1, play("5D 5S", "pair"))
    assert err.value.code == "does_not_beat"
    assert follow == before


def _ranks_only(value: Any) -> Any:
    """Plain data with every card replaced by its rank (lists of them as multisets)."""
    if isinstance(value, str) and value in CODES:
        return value if value in ("BJ", "RJ") else value[0]
    if isinstance(value, list):
        items = [_ranks_only(v) for v in value]
        return sorted(items) if all(isinstance(i, str) for i in items) else items
    if isinstance(value, dict):
        return {k: _ranks_only(v) for k, v in value.items()}
    return value


def _check_world(state: DoudizhuState, seat: int, rng: random.Random) -> None:
    """A world sampled from ``seat``'s view keeps the deck whole and the seat's own hand."""
    world = GAME.sample_world(GAME.view(state, seat), rng)
    assert world.hands[seat] == state.hands[seat]
    assert [h.bit_count() for h in world.hands] == [h.bit_count() for h in state.hands]
    zones = GAME.card_zones(world)
    assert sorted(c for z in zones.values() for c in z) == sorted(DOUDIZHU_54.cards)
    assert zones["played"] == GAME.card_zones(state)["played"]


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**63 - 1), policy_seed=st.integers(0, 2**32))
def test_a_play_in_other_held_suits_changes_only_the_cards_shown(
    seed: int, policy_seed: int
) -> None:
    """Property: at every turn of random deals, a random suit choice of the chosen legal
    play is accepted and gives the same views and events as the listed play, card ranks
    for card ranks; the deal then goes on from the suit choice."""
    rng = random.Random(policy_seed)
    state = GAME.new_state(OPTIONS, seed)
    while not GAME.is_over(state):
        (seat,) = GAME.to_act(state)
        legal = GAME.legal_actions(state, seat)
        action = legal[rng.randrange(len(legal))]
        if not isinstance(action, Play):
            state = GAME.apply(state, seat, action).state
            continue
        chosen = variant(state.hands[seat], action, rng)
        listed = GAME.apply(state, seat, action)
        played = GAME.apply(state, seat, chosen)
        assert played.state.hands[seat] == state.hands[seat] & ~mask_of(chosen.cards)
        assert played.state.counts == listed.state.counts
        assert played.events[0].data["cards"] == chosen.cards
        assert _ranks_only(to_plain(list(played.events))) == _ranks_only(
            to_plain(list(listed.events))
        )
        for s in (0, 1, 2, None):
            view, canonical = GAME.view(played.state, s), GAME.view(listed.state, s)
            assert view.last == chosen
            assert _ranks_only(to_plain(view)) == _ranks_only(to_plain(canonical))
            if s is not None and s != seat:
                assert view.hand == canonical.hand
        state = played.state
        if not GAME.is_over(state):
            _check_world(state, GAME.to_act(state)[0], rng)
    result = GAME.result(state)
    assert result is not None and sum(result.scores) == 0
    zones = GAME.card_zones(state)
    assert sorted(c for z in zones.values() for c in z) == sorted(DOUDIZHU_54.cards)


def _deal_with_suit_choices(seed: int) -> tuple[list[tuple[int, Any]], DoudizhuState]:
    """A random deal whose every play is made in random held suits: its wire log, end state."""
    rng = random.Random(seed)
    state = GAME.new_state(OPTIONS, seed)
    log: list[tuple[int, Any]] = []
    while not GAME.is_over(state):
        (seat,) = GAME.to_act(state)
        legal = GAME.legal_actions(state, seat)
        action = legal[rng.randrange(len(legal))]
        if isinstance(action, Play):
            action = variant(state.hands[seat], action, rng)
        log.append((seat, msgpack.unpackb(msgpack.packb(to_plain(action)))))
        state = GAME.apply(state, seat, action).state
    return log, state


@pytest.mark.parametrize("seed", range(4))
def test_the_replay_of_suit_choices_rebuilds_the_same_state(seed: int) -> None:
    """Options + seed + the log as sent over the wire rebuild the deal, suit choices included."""
    log, state = _deal_with_suit_choices(seed)
    replayed = GAME.new_state(OPTIONS, seed)
    for seat, wire in log:
        replayed = GAME.apply(replayed, seat, GAME.decode_action(wire)).state
    assert replayed == state
    assert GAME.card_zones(replayed) == GAME.card_zones(state)
    for s in (0, 1, 2, None):
        assert GAME.view(replayed, s) == GAME.view(state, s)
    shown = [turn.play.cards for turn in GAME.view(replayed, None).history if turn.play]
    assert shown == [GAME.decode_action(w).cards for _, w in log if w["type"] == "play"]


@pytest.mark.parametrize("level", list(policy_names("doudizhu")))
def test_every_ai_level_plays_on_after_suit_choices(level: str) -> None:
    """Others' plays in non-listed suits in the history and views do not confuse the AI."""
    policy = get_policy("doudizhu", level)
    rng = random.Random(5)
    state = GAME.new_state(OPTIONS, 5)
    odd_plays = informed = 0
    while not GAME.is_over(state):
        (seat,) = GAME.to_act(state)
        view = GAME.view(state, seat)
        if seat == 0:
            action = policy.choose(view, view.legal, rng, Budget(iterations=16))
            assert action in view.legal
            informed += odd_plays > 0
        else:
            action = view.legal[rng.randrange(len(view.legal))]
            if isinstance(action, Play):
                chosen = variant(state.hands[seat], action)
                odd_plays += chosen != action
                action = chosen
        state = GAME.apply(state, seat, action).state
    assert GAME.result(state) is not None
    assert informed > 0, "the AI never decided after a play in non-listed suits"
