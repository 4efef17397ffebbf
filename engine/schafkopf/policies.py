"""Schafkopf's AI levels, weakest first: the table of names (docs/architecture.md, AI).

Each decides from a seat's view only; the code lies in :mod:`engine.schafkopf.ai`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from engine.policy import Policy, RandomPolicy
from engine.schafkopf.ai.greedy import EasyPolicy, GreedyPolicy
from engine.schafkopf.ai.normal import NormalPolicy
from engine.schafkopf.ai.search import HardPolicy

POLICIES: Mapping[str, Callable[[], Policy]] = {
    "random": RandomPolicy,
    "easy": EasyPolicy,
    "greedy": GreedyPolicy,
    "normal": NormalPolicy,
    "hard": HardPolicy,
}
"""The levels, weakest first."""
