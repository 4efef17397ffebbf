"""Scopa's AI levels, weakest first: the table of names (docs/architecture.md, AI).

Each decides from a seat's view only; the code lies in :mod:`engine.scopa.ai`.

* ``random`` — any legal play.
* ``easy`` — ``greedy`` that now and then plays at random.
* ``greedy`` — the best immediate value (:func:`engine.scopa.ai.greedy.greedy_score`).
* ``normal`` — counts the unseen cards and weighs each play against the
  opponent's best answer, expected over the hands the opponent may hold:
  guards against sweeps, goes for the settebello, sevens and diamonds
  (:mod:`engine.scopa.ai.normal`).
* ``hard`` — determinized search on a fast Scopa simulator
  (:mod:`engine.scopa.ai.search`): every play is rolled out to the end of the
  deal in the same worlds sampled from the view (drawn in proportion to how
  well they explain the opponent's last play), scored by the chance to win
  the match; solved exactly once the stock is empty.

:func:`engine.scopa.ai.determinized.determinized_policy` is the generic
:mod:`engine.search` on Scopa (the earlier ``hard``), kept as the baseline the
Scopa search is measured against.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from engine.policy import Policy, RandomPolicy
from engine.scopa.ai.greedy import EasyPolicy, GreedyPolicy
from engine.scopa.ai.normal import NormalPolicy
from engine.scopa.ai.search import ScopaSearch

POLICIES: Mapping[str, Callable[[], Policy]] = {
    "random": RandomPolicy,
    "easy": EasyPolicy,
    "greedy": GreedyPolicy,
    "normal": NormalPolicy,
    "hard": ScopaSearch,
}
"""The levels, weakest first (``hard`` is :class:`ScopaSearch` under its default name)."""
