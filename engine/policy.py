"""The policy interface shared by every AI (ARCHITECTURE.md, AI).

A policy is a function of one seat's *view* and its legal actions, plus a
random generator and a budget.  It never receives a full state, so it cannot
peek.  Policies live beside their game (``engine/<game>/policies.py``) and are
looked up by name through :mod:`engine.registry`.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, Protocol

from engine.game import Budget


class Policy(Protocol):
    """Chooses one of ``legal`` for the seat whose ``view`` it is given."""

    name: str

    def choose(
        self, view: Any, legal: Sequence[Any], rng: random.Random, budget: Budget | None = None
    ) -> Any:
        """Return one element of ``legal``."""
        ...


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
