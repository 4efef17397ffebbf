"""The policy interface: telling a policy who sits where (engine.policy.seated)."""

from __future__ import annotations

from engine.doudizhu.ai.search import HardPolicy
from engine.policy import PeerAware, RandomPolicy, seated
from engine.registry import get_policy


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
