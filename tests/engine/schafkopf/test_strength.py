"""Schafkopf ``hard`` against ``normal``: a fixed-seed, fixed-iteration regression.

Duplicate deals (``cardavia arena``): every deal is played four times, with
``hard`` in each seat and ``normal`` in the other three, so the luck of the
cards cancels.  The sample is small and fixed (deterministic with an
iteration budget, a few seconds of CPU), so the test fails when a change
makes ``hard`` weaker than ``normal`` on it, never by chance.
"""

from __future__ import annotations

from client_cli.arena import run
from engine.game import Budget


def test_hard_outscores_normal_on_fixed_duplicate_deals() -> None:
    report = run("schafkopf", "hard", "normal", 16, 7, {"deals": 1}, budget=Budget(iterations=40))
    assert report["games"] == 64
    # units per deal of the hard seat (0.66 when written); the normal seats share the loss
    assert report["points_per_deal"] > 0.25
    assert report["margin_per_deal"] > 0
