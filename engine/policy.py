"""The policy interface shared by every AI (docs/architecture.md, AI).

A policy is a function of one seat's *view* and its legal actions, plus a
random generator and a budget.  It never receives a full state, so it cannot
peek.  Each game's AI lives in its ``ai/`` package beside the rules
(``engine/<game>/ai/``); ``engine/<game>/policies.py`` names its levels, and
:mod:`engine.registry` looks them up by name.  Every policy of the engine
derives from :class:`BasePolicy`, which holds the checks every ``choose``
starts with.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any, ClassVar, Generic, Protocol, TypeVar, runtime_checkable

from engine.game import Budget

V = TypeVar("V")
A = TypeVar("A")

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


NO_LEGAL_ACTION = "no legal action to choose from"


class BasePolicy(ABC, Generic[V, A]):
    """A :class:`Policy` whose ``choose`` starts with the checks every policy makes.

    ``choose`` refuses an empty ``legal`` (a seat asked to move must have a
    move: ``ValueError``); where :attr:`lone_is_forced`, it returns a lone
    legal action without deciding (nothing to think about, so a search spends
    no budget on it); otherwise it asks :meth:`decide`.  Policies that draw
    from ``rng`` even for a lone action keep ``lone_is_forced`` off, so the
    numbers they draw, and the decisions of a caller that shares ``rng``
    across decisions (``cardavia arena``), stay as they were.
    """

    name: str
    lone_is_forced: ClassVar[bool] = False

    def choose(
        self, view: V, legal: Sequence[A], rng: random.Random, budget: Budget | None = None
    ) -> A:
        """One element of ``legal`` for the seat whose ``view`` it is."""
        if not legal:
            raise ValueError(NO_LEGAL_ACTION)
        if self.lone_is_forced and len(legal) == 1:
            self.forced()
            return legal[0]
        return self.decide(view, legal, rng, budget)

    def forced(self) -> None:
        """Called instead of :meth:`decide` when a lone legal action is returned."""

    @abstractmethod
    def decide(self, view: V, legal: Sequence[A], rng: random.Random, budget: Budget | None) -> A:
        """One element of the non-empty ``legal`` (see the class docstring)."""


class SearchPolicy(BasePolicy[V, A]):
    """A policy that searches: a lone legal action is returned unsearched, and
    :attr:`last_iterations` records what the last decision bought (0 then)."""

    lone_is_forced = True
    last_iterations: int = 0

    def forced(self) -> None:
        self.last_iterations = 0


class RandomPolicy(BasePolicy[Any, Any]):
    """Uniformly random among the legal actions: the baseline of every game."""

    name = "random"

    def decide(
        self, view: Any, legal: Sequence[Any], rng: random.Random, budget: Budget | None
    ) -> Any:
        """A uniformly random legal action."""
        return legal[rng.randrange(len(legal))]


class NoisyPolicy(BasePolicy[V, A]):
    """Another policy with noise: a plausible but beatable player (every game's ``easy``).

    Where :meth:`noisy` allows, a decision is a uniformly random legal action
    with chance :attr:`noise` (drawn first, before anything else); the rest are
    :attr:`steady`'s.
    """

    name = "easy"
    noise: ClassVar[float] = 0.3

    def __init__(self, steady: Policy) -> None:
        self.steady = steady

    def noisy(self, view: V) -> bool:
        """Whether this decision may be a random one (every decision, unless overridden)."""
        return True

    def decide(self, view: V, legal: Sequence[A], rng: random.Random, budget: Budget | None) -> A:
        """Usually the steady policy's choice, sometimes any legal action."""
        if self.noisy(view) and rng.random() < self.noise:
            return legal[rng.randrange(len(legal))]
        choice: A = self.steady.choose(view, legal, rng, budget)
        return choice
