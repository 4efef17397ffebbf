"""Dou Dizhu's AI levels, weakest first: the table of names (docs/architecture.md, AI).

Each decides from a seat's view only; the code lies in :mod:`engine.doudizhu.ai`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from engine.doudizhu.ai.greedy import EasyPolicy, GreedyPolicy
from engine.doudizhu.ai.normal import NormalPolicy
from engine.doudizhu.ai.search import HardPolicy
from engine.policy import Policy, RandomPolicy

POLICIES: Mapping[str, Callable[[], Policy]] = {
    "random": RandomPolicy,
    "easy": EasyPolicy,
    "greedy": GreedyPolicy,
    "normal": NormalPolicy,
    "hard": HardPolicy,
}
"""The levels, weakest first."""
