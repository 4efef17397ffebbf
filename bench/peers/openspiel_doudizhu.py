"""OpenSpiel's C++ ``dou_dizhu`` driven from Python: the yardstick of bench/engine.py.

Uniformly random playouts from the deal to the end; chance nodes (the deal)
are sampled by their outcome probabilities and are not counted as decisions.
Requires the optional dependency ``open-spiel``.
"""

from __future__ import annotations

import random
import time


def measure(seconds: float, seed: int) -> dict[str, float]:
    """Random playouts of OpenSpiel's dou_dizhu for ``seconds``; deals/s and decisions/s."""
    import pyspiel

    game = pyspiel.load_game("dou_dizhu")
    rng = random.Random(seed)
    deals = decisions = 0
    started = time.perf_counter()
    deadline = started + seconds
    while time.perf_counter() < deadline:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
            else:
                legal = state.legal_actions()
                state.apply_action(legal[rng.randrange(len(legal))])
                decisions += 1
        deals += 1
    elapsed = time.perf_counter() - started
    return {"deals_per_s": deals / elapsed, "decisions_per_s": decisions / elapsed}
