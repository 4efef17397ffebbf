"""engine/search.py and budgets: the generic determinized search."""

from __future__ import annotations

import random

from engine.game import Budget, resolve_budget
from engine.scopa.policies import determinized_policy
from engine.search import survivors
from tests.engine.scopa.helpers import GAME, position


def test_a_callers_budget_caps_the_default():
    default = Budget(iterations=400, seconds=0.2)
    assert resolve_budget(None, default) == default
    # a server's time cap keeps the policy's iteration count
    assert resolve_budget(Budget(seconds=1.0), default) == Budget(iterations=400, seconds=1.0)
    # an iteration-only budget has no time limit: reproducible
    assert resolve_budget(Budget(iterations=10), default) == Budget(iterations=10, seconds=None)


def test_search_spends_exactly_the_iterations_given():
    state = position("7S 5S KS", "AS 2S 3S", "7H 2D 3D 4C", turn=0)
    view = GAME.view(state, 0)
    policy = determinized_policy()
    policy.choose(view, view.legal, random.Random(1), Budget(iterations=25))
    assert policy.last_iterations == 25


def test_search_finds_the_sweep():
    # 5S sweeps 2D+3D; nothing else comes close
    state = position("5S KS QS", "AS 2S 3S", "2D 3D", turn=0)
    view = GAME.view(state, 0)
    choice = determinized_policy().choose(view, view.legal, random.Random(3), Budget(iterations=60))
    assert str(choice.card) == "5S"


def test_survivors_drop_a_clearly_worse_candidate_and_keep_a_close_one():
    best = [1.0, 1.0, 0.0, 1.0] * 4
    close = [1.0, 0.0, 1.0, 1.0] * 4  # as good on average, different worlds
    worse = [0.0, 0.0, 0.0, 1.0] * 4  # loses every world the leader loses and more
    assert survivors([0, 1, 2], [best, close, worse], 2.5) == [0, 1]


def test_survivors_keep_equal_candidates_and_only_the_active_ones():
    same = [1.0, 0.0] * 8
    assert survivors([0, 1], [same, same[:]], 2.5) == [0, 1]
    worse = [0.0] * 16
    assert survivors([1, 2], [worse, same, same[:]], 2.5) == [1, 2]


def test_survivors_drop_more_with_a_smaller_margin():
    lead = [1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 0.0, 1.0]
    behind = [1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0]
    assert survivors([0, 1], [lead, behind], 5.0) == [0, 1]
    assert survivors([0, 1], [lead, behind], 0.5) == [0]
