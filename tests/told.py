"""A policy that records the seats it is told (engine.policy.seated), for the tests of
whoever tells it: the server's AI runner, ``cardavia bot``, the client library."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from engine.game import Budget
from engine.policy import Peers, Policy, seated


class Told:
    """``inner``, appending each seating it is told to ``log``; told, it plays as
    ``inner`` told the same."""

    def __init__(self, inner: Policy, log: list[Peers]) -> None:
        self.inner = inner
        self.log = log

    def knowing(self, peers: Peers) -> Policy:
        self.log.append(peers)
        return seated(self.inner, peers)

    def choose(
        self, view: Any, legal: Sequence[Any], rng: random.Random, budget: Budget | None = None
    ) -> Any:
        return self.inner.choose(view, legal, rng, budget)
