"""The policy interface: telling a policy who sits where (engine.policy.seated), and the
prologue every policy's choose shares (engine.policy.BasePolicy)."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest

from engine.doudizhu.ai.search import HardPolicy
from engine.game import Budget
from engine.policy import BasePolicy, NoisyPolicy, PeerAware, RandomPolicy, seated
from engine.registry import GAMES, POLICIES, get_policy
from engine.scopa.ai.determinized import determinized_policy


def test_a_policy_that_does_not_use_the_seats_is_left_as_it_is() -> None:
    policy = RandomPolicy()
    assert not isinstance(policy, PeerAware)
    assert seated(policy, ("normal", None, "hard")) is policy


def test_no_peers_leave_a_peer_aware_policy_as_it_is() -> None:
    policy = HardPolicy()
    assert seated(policy, ()) is policy


def test_the_registry_hands_out_policies_told_the_table() -> None:
    told = get_policy("doudizhu", "hard", ("normal", None, "rlcard-rule"))
    assert isinstance(told, HardPolicy) and told.known == frozenset({0})
    assert isinstance(get_policy("doudizhu", "hard"), HardPolicy)
    assert get_policy("doudizhu", "hard").known == frozenset()  # type: ignore[attr-defined]


# -- the prologue every choose shares (engine.policy.BasePolicy) ----------------------


class Counting(BasePolicy[None, str]):
    """Records what reached decide; picks the last legal action, drawing one number."""

    name = "counting"

    def __init__(self) -> None:
        self.decided: list[tuple[str, ...]] = []

    def decide(
        self, view: None, legal: Sequence[str], rng: random.Random, budget: Budget | None
    ) -> str:
        self.decided.append(tuple(legal))
        rng.random()
        return legal[-1]


class Forced(Counting):
    """:class:`Counting` that returns a lone legal action undecided."""

    lone_is_forced = True


@pytest.mark.parametrize("kind", [Counting, Forced])
def test_no_legal_action_is_refused_before_deciding(kind: type[Counting]) -> None:
    policy = kind()
    rng = random.Random(1)
    before = rng.getstate()
    with pytest.raises(ValueError, match="no legal action"):
        policy.choose(None, (), rng)
    assert policy.decided == [] and rng.getstate() == before


def test_a_lone_action_is_returned_undecided_only_where_the_policy_says_so() -> None:
    forced, deciding = Forced(), Counting()
    rng = random.Random(1)
    before = rng.getstate()
    assert forced.choose(None, ("a",), rng) == "a"
    assert forced.decided == [] and rng.getstate() == before
    assert deciding.choose(None, ("a",), rng) == "a"
    assert deciding.decided == [("a",)] and rng.getstate() != before
    assert forced.choose(None, ("a", "b"), rng) == "b" and forced.decided == [("a", "b")]


def test_a_search_that_is_forced_records_no_iterations() -> None:
    policy = determinized_policy()
    policy.last_iterations = 7
    view = GAMES["scopa"].view(GAMES["scopa"].new_state(GAMES["scopa"].options(), 1), 0)
    assert policy.choose(view, view.legal[:1], random.Random(1)) == view.legal[0]
    assert policy.last_iterations == 0


def test_noise_draws_first_then_asks_the_steady_policy() -> None:
    class Noisy(NoisyPolicy[None, str]):
        noise = 0.5

    steady = Counting()
    noisy = Noisy(steady)
    picks = [noisy.choose(None, ("a", "b", "c"), random.Random(seed)) for seed in range(60)]
    # steady always picks "c"; the noise picks any, so some are not "c"
    assert len(steady.decided) < 60 and {"a", "b"} & set(picks)
    assert picks.count("c") >= len(steady.decided)


def test_every_level_of_every_game_starts_with_the_shared_prologue() -> None:
    for game_id, levels in POLICIES.items():
        for name, make in levels.items():
            policy = make()
            assert isinstance(policy, BasePolicy), (game_id, name)
            assert policy.name == name, (game_id, name)
            with pytest.raises(ValueError, match="no legal action"):
                policy.choose(None, (), random.Random(1))
