"""One conformance suite over every registered game (docs/architecture.md, Tests).

Seeded random playouts end; legal actions are never empty mid-game; illegal
actions raise and change nothing; seed + log replays to the same state even
with the global RNG disturbed; cards are conserved; results are zero-sum
where the game says so; no view leaks hidden cards; views and events
round-trip through msgpack.
"""

from __future__ import annotations

import copy
import dataclasses
import random
from collections import Counter
from typing import Any

import msgpack
import pytest

from engine.cards import Card
from engine.codec import from_plain, to_plain
from engine.game import Game, IllegalAction
from engine.policy import Policy, RandomPolicy
from engine.registry import GAMES, get_policy, policy_names

GAME_IDS = sorted(GAMES)
MAX_STEPS = 20_000
SEEDS = range(8)
PLAYED_WELL = 3  # the last seeds are played by the game's "greedy" policy, which
# reaches positions random play rarely does (e.g. Rufer deals in Schafkopf)


def playout(
    game: Game[Any, Any, Any, Any], seed: int, policy_seed: int = 0, policy: Policy | None = None
) -> list[Any]:
    """Play a seeded random game; return the list of (state, seat, action) steps and the end."""
    rng = random.Random(policy_seed)
    options = game.options()
    state = game.new_state(options, seed)
    trace: list[Any] = []
    policy = policy or RandomPolicy()
    for _ in range(MAX_STEPS):
        if game.is_over(state):
            break
        seats = game.to_act(state)
        assert seats, "a game that is not over must have a seat to act"
        seat = seats[0]
        legal = game.legal_actions(state, seat)
        assert legal, "legal actions are never empty mid-game"
        action = policy.choose(game.view(state, seat), legal, rng)
        trace.append((state, seat, action))
        state = game.apply(state, seat, action).state
    else:  # pragma: no cover - the assertion below reports it
        pytest.fail(f"{game.id} seed {seed} did not finish in {MAX_STEPS} steps")
    trace.append((state, None, None))
    return trace


@pytest.fixture(scope="module", params=GAME_IDS)
def traces(request: pytest.FixtureRequest) -> tuple[Game[Any, Any, Any, Any], list[list[Any]]]:
    game = GAMES[request.param]
    greedy = "greedy" if "greedy" in policy_names(game.id) else "random"
    return game, [
        playout(
            game,
            seed,
            policy_seed=seed + 100,
            policy=get_policy(game.id, greedy) if seed >= len(SEEDS) - PLAYED_WELL else None,
        )
        for seed in SEEDS
    ]


def _sample_points(trace: list[Any], k: int, seed: int) -> list[Any]:
    rng = random.Random(seed)
    steps = trace[:-1]
    return rng.sample(steps, min(k, len(steps))) + [trace[-1]]


def test_playouts_finish_with_a_result(traces: Any) -> None:
    game, all_traces = traces
    for trace in all_traces:
        final = trace[-1][0]
        assert game.is_over(final)
        assert game.to_act(final) == ()
        result = game.result(final)
        assert result is not None
        assert len(result.scores) == game.num_seats(final.options)
        for state, _, _ in trace[:-1]:
            assert game.result(state) is None


def test_results_are_consistent_and_zero_sum_where_the_rules_say_so(traces: Any) -> None:
    game, all_traces = traces
    for trace in all_traces:
        result = game.result(trace[-1][0])
        if game.zero_sum:
            assert sum(result.scores) == 0
        best = max(result.scores)
        assert all(result.scores[s] == best for s in result.winners), (
            "every winner has the best score"
        )


def test_contests_partition_the_seats_and_agree_with_the_result(traces: Any) -> None:
    """Issue 55: a finished game's rated contests split every seat into sides with
    places; a game rated as one match (Scopa, Cicera, Dou Dizhu) has one, whose
    first-placed side holds exactly the result's winners; nothing is rated mid-game."""
    game, all_traces = traces
    for trace in all_traces:
        final = trace[-1][0]
        seats = frozenset(range(game.num_seats(final.options)))
        contests = game.contests(final)
        for contest in contests:
            assert frozenset().union(*contest.sides) == seats
            assert sum(len(side) for side in contest.sides) == len(seats)
            assert all(side for side in contest.sides)
        if game.id != "schafkopf":
            (contest,) = contests
            result = game.result(final)
            assert result is not None
            if result.winners:
                assert contest.sides[contest.ranks.index(0)] == result.winners
                assert sorted(contest.ranks) == [0, 1]
            else:
                assert contest.ranks == (0, 0)
        for state, _, _ in trace[:-1:17]:
            assert game.contests(state) == ()


def test_views_list_exactly_the_legal_actions(traces: Any) -> None:
    game, all_traces = traces
    for trace in all_traces:
        for state, _seat, _ in _sample_points(trace, 40, 1):
            n = game.num_seats(state.options)
            for s in range(n):
                view = game.view(state, s)
                assert tuple(view.legal) == game.legal_actions(state, s)
                if s not in game.to_act(state):
                    assert view.legal == ()
            assert game.view(state, None).legal == ()


def test_cards_are_conserved(traces: Any) -> None:
    game, all_traces = traces
    deck = Counter(game.deck.cards)
    for trace in all_traces:
        for state, _, _ in trace:
            zones = game.card_zones(state)
            held = Counter(c for cards in zones.values() for c in cards)
            assert held == deck, f"cards not conserved in {game.id}"


def _mutations(game: Game[Any, Any, Any, Any], action: Any, rng: random.Random) -> list[Any]:
    """Near-miss variants of a legal action: one card field swapped for another card."""
    out = []
    if not dataclasses.is_dataclass(action):
        return out
    for f in dataclasses.fields(action):
        value = getattr(action, f.name)
        for _ in range(3):
            card = rng.choice(game.deck.cards)
            if isinstance(value, Card):
                out.append(dataclasses.replace(action, **{f.name: card}))
            elif isinstance(value, frozenset | tuple) and all(isinstance(c, Card) for c in value):
                items = list(value)
                if items and rng.random() < 0.5:
                    items[rng.randrange(len(items))] = card
                else:
                    items.append(card)
                new = frozenset(items) if isinstance(value, frozenset) else tuple(items)
                out.append(dataclasses.replace(action, **{f.name: new}))
            elif isinstance(value, int) and not isinstance(value, bool):
                out.append(dataclasses.replace(action, **{f.name: value + rng.choice((-1, 1, 7))}))
    return out


def _listed_in_other_suits(
    game: Game[Any, Any, Any, Any], state: Any, seat: int, candidate: Any, legal: set[Any]
) -> bool:
    """Dou Dizhu (rules/doudizhu.md, Cards, Decision): a listed play in other held suits."""
    cards = getattr(candidate, "cards", None)
    if game.id != "doudizhu" or not isinstance(cards, frozenset):
        return False
    ranks = sorted(c.rank for c in cards)
    return cards <= set(game.view(state, seat).hand) and any(
        getattr(a, "combo", None) == candidate.combo
        and sorted(c.rank for c in getattr(a, "cards", ())) == ranks
        for a in legal
    )


def test_illegal_actions_raise_and_change_nothing(traces: Any) -> None:
    game, all_traces = traces
    rng = random.Random(7)
    refused = 0
    for trace in all_traces:
        for state, seat, action in _sample_points(trace, 25, 2):
            before = copy.deepcopy(state)
            n = game.num_seats(state.options)
            if seat is None:  # the finished game refuses everything
                with pytest.raises(IllegalAction) as err:
                    game.apply(state, 0, trace[-2][2])
                assert err.value.code == "game_over"
                assert state == before
                continue
            legal = set(game.legal_actions(state, seat))
            for other in range(n):
                if other not in game.to_act(state):
                    with pytest.raises(IllegalAction) as err:
                        game.apply(state, other, action)
                    assert err.value.code == "not_your_turn"
            for candidate in _mutations(game, action, rng):
                if candidate in legal:
                    continue
                if _listed_in_other_suits(game, state, seat, candidate, legal):
                    game.apply(state, seat, candidate)  # legal though not listed
                    continue
                with pytest.raises(IllegalAction):
                    game.apply(state, seat, candidate)
                refused += 1
            with pytest.raises(IllegalAction) as err:
                game.apply(state, seat, "not an action")
            assert err.value.code == "unknown_action"
            for garbage in ({"type": "nope"}, 17, {"type": None}, [1, 2]):
                with pytest.raises(IllegalAction) as err:
                    game.decode_action(garbage)
                assert err.value.code == "bad_action"
            assert state == before, "a refused action changed the state"
    assert refused > 0, "the near-miss generator produced no illegal action to test"


def test_actions_round_trip_through_plain_data(traces: Any) -> None:
    game, all_traces = traces
    for trace in all_traces:
        for _, _, action in trace[:-1]:
            wire = msgpack.unpackb(msgpack.packb(to_plain(action)))
            assert game.decode_action(wire) == action


def test_replay_from_seed_and_log_is_deterministic(traces: Any) -> None:
    game, all_traces = traces
    for seed, trace in zip(SEEDS, all_traces, strict=True):
        state = game.new_state(game.options(), seed)
        for i, (expected, seat, action) in enumerate(trace[:-1]):
            random.seed(i * 7919)  # disturb the global RNG between steps
            random.random()
            assert state == expected
            state = game.apply(state, seat, action).state
        assert state == trace[-1][0]


def test_no_view_leaks_hidden_cards(traces: Any) -> None:
    game, all_traces = traces
    rng = random.Random(11)
    changed = 0
    for trace in all_traces:
        for state, _, _ in _sample_points(trace, 30, 3):
            n = game.num_seats(state.options)
            for seat in [*range(n), None]:
                other = game.redeal_hidden(state, seat, rng)
                if other != state:
                    changed += 1
                assert game.view(other, seat) == game.view(state, seat), (
                    f"{game.id}: the view of seat {seat} depends on cards it may not see"
                )
    assert changed > 0, "redeal_hidden never changed a state: the leak check would be empty"


def test_sampled_worlds_are_consistent_with_the_view(traces: Any) -> None:
    game, all_traces = traces
    rng = random.Random(13)
    deck = Counter(game.deck.cards)
    for trace in all_traces:
        for state, _, _ in _sample_points(trace, 20, 4):
            n = game.num_seats(state.options)
            for seat in [*range(n), None]:
                view = game.view(state, seat)
                world = game.sample_world(view, rng)
                assert game.view(world, seat) == view
                held = Counter(c for cards in game.card_zones(world).values() for c in cards)
                assert held == deck


def test_views_round_trip_through_msgpack(traces: Any) -> None:
    game, all_traces = traces
    for trace in all_traces:
        for state, _, _ in _sample_points(trace, 15, 5):
            for seat in [*range(game.num_seats(state.options)), None]:
                view = game.view(state, seat)
                wire = msgpack.packb(to_plain(view))
                assert from_plain(game.view_type, msgpack.unpackb(wire)) == view


def test_events_are_plain_and_addressed(traces: Any) -> None:
    game, all_traces = traces
    for trace in all_traces[:2]:
        state0 = trace[0][0]
        n = game.num_seats(state0.options)
        events = list(game.start_events(state0))
        for state, seat, action in trace[:-1]:
            events.extend(game.apply(state, seat, action).events)
        assert events, "apply must report what happened"
        for event in events:
            msgpack.packb(to_plain(event.data))
            assert event.audience is None or event.audience <= frozenset(range(n))
