"""The policy interface shared by every AI (docs/architecture.md, AI).

A policy is a function of one seat's *view* and its legal actions, plus a
random generator and a budget.  It never receives a full state, so it cannot
peek.  Policies live beside their game (``engine/<game>/policies.py``) and are
looked up by name through :mod:`engine.registry`.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from engine.game import Budget

Peers = tuple[str | None, ...]
"""What a table shows of each seat's player: the level of the server's AI that
plays it (``"normal"``, ``"hard"``, …, or another program's policy name in
``cardavia arena``), or ``None`` for a person or a player of unknown kind.  The
lobby lists it for every seat, so it is public, like the view."""


class Policy(Protocol):
    """Chooses one of ``legal`` for the seat whose ``view`` it is given."""

    name: str

    def choose(
        self, view: Any, legal: Sequence[Any], rng: random.Random, budget: Budget | None = None
    ) -> Any:
        """Return one element of ``legal``."""
        ...


@runtime_checkable
class PeerAware(Protocol):
    """A policy that plays differently once told who sits where (:data:`Peers`)."""

    def knowing(self, peers: Peers) -> Policy:
        """This policy for a table whose seats show ``peers``."""
        ...


def seated(policy: Policy, peers: Peers) -> Policy:
    """``policy`` told the table's :data:`Peers` where it uses them, else ``policy``."""
    if peers and isinstance(policy, PeerAware):
        return policy.knowing(peers)
    return policy


class RandomPolicy:
    """Uniformly random among the legal actions: the baseline of every game."""

    name = "random"

    def choose(
        self, view: Any, legal: Sequence[Any], rng: random.Random, budget: Budget | None = None
    ) -> Any:
        """A uniformly random legal action."""
        if not legal:
            raise ValueError("no legal action to choose from")
        return legal[rng.randrange(len(legal))]
