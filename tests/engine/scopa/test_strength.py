"""Regression: Scopa ``hard`` stays stronger than ``normal`` on a fixed small sample.

Duplicate deals (each deal played from both seats) of single-deal matches
(target 1), with a fixed iteration budget: deterministic, a few seconds.  A
change that makes ``hard`` weaker than ``normal`` turns the sums below.
"""

from __future__ import annotations

from client_cli.arena import run
from engine.game import Budget


def test_hard_outscores_normal_on_duplicate_deals():
    report = run("scopa", "hard", "normal", 8, 2, {"target": 1}, budget=Budget(iterations=100))
    assert report["games"] == 16
    assert report["margin_per_deal"] > 0
    assert report["win_rate"] > 0.5
