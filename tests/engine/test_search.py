"""engine/search.py and budgets: the generic determinized search."""

from __future__ import annotations

import math
import random

from engine.game import Budget, resolve_budget
from engine.scopa.ai.determinized import determinized_policy
from engine.search import ChoiceChance, keep_likely, survivors
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


def test_choice_chance_is_a_softmax_over_the_moves_of_the_hand():
    # card 0 lays (score 0), card 1 takes 5 or 6 (score 1 each), card 2 lays (score 3)
    scored = [(0, frozenset(), 0.0), (1, frozenset({5}), 1.0), (1, frozenset({6}), 1.0)]
    scored.append((2, frozenset(), 3.0))
    e = math.e
    lay = ChoiceChance(scored, 0, frozenset(), 1.0, 7)
    assert math.isclose(lay([1]), 1 / (1 + 2 * e))
    assert math.isclose(lay([1, 2]), 1 / (1 + 2 * e + e**3))
    assert lay([]) == 1.0
    assert math.isclose(ChoiceChance(scored, 1, frozenset({5}), 1.0, 7)([0]), e / (1 + 2 * e))
    assert ChoiceChance(scored, 1, frozenset({4}), 1.0, 7)([0]) == 0.0  # no such move
    # a colder player all but never makes the worse move
    assert ChoiceChance(scored, 0, frozenset(), 0.01, 7)([1]) < 1e-9


def test_keep_likely_keeps_a_deal_that_explains_the_play():
    rng = random.Random(3)
    cards = list(range(10))
    rng.shuffle(cards)
    # only a hand holding card 0 at the front explains the play
    keep_likely(cards, slice(0, 1), lambda hand: float(hand == [0]), rng, 1000)
    assert cards[0] == 0
    assert sorted(cards) == list(range(10))


def test_keep_likely_gives_up_after_its_tries():
    rng = random.Random(4)
    cards = list(range(10))
    seen: list[list[int]] = []

    def never(hand: list[int]) -> float:
        seen.append(hand)
        return 0.0

    keep_likely(cards, slice(2, 5), never, rng, 6)
    assert len(seen) == 5  # five redeals after the first deal
    assert all(len(h) == 3 for h in seen)
