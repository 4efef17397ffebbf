"""Cicera's AI levels, weakest first: the table of names (docs/architecture.md, AI).

Each decides from a seat's view only; the code lies in :mod:`engine.cicera.ai`.

* ``random`` — any legal play.
* ``easy`` — ``greedy`` that now and then plays at random.
* ``greedy`` — the best immediate value
  (:func:`engine.cicera.ai.greedy.greedy_score`).
* ``normal`` — counts the unseen cards and weighs each play's bonuses and
  cards against the next opponent's expected reply and the partner's
  chances (:mod:`engine.cicera.ai.normal`).
* ``hard`` — determinized search over the rest of the deal with a fast
  simulator, in worlds drawn in proportion to how well they explain the
  previous player's play, scored by the team's deal points minus the other team's
  (:mod:`engine.cicera.ai.search`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from engine.cicera.ai.greedy import EasyPolicy, GreedyPolicy
from engine.cicera.ai.normal import NormalPolicy
from engine.cicera.ai.search import HardPolicy
from engine.policy import Policy, RandomPolicy

POLICIES: Mapping[str, Callable[[], Policy]] = {
    "random": RandomPolicy,
    "easy": EasyPolicy,
    "greedy": GreedyPolicy,
    "normal": NormalPolicy,
    "hard": HardPolicy,
}
"""The levels, weakest first."""
