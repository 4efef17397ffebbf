"""RLCard's Dou Dizhu driven from Python: the peer of bench/engine.py (``--vs rlcard``).

Uniformly random playouts from the deal to the end through RLCard's game
object (``rlcard.games.doudizhu.game.DoudizhuGame``), not its RL environment,
so no observation tensors are built: the closest match to our
``legal_actions`` + ``apply`` loop.  Every ``step`` is one decision.  RLCard
has no auction (seat 0 is always the landlord), so its deals have no bidding
decisions while ours do; its legal moves are rank strings, ours concrete
cards.  Requires the optional dependency ``rlcard``.
"""

from __future__ import annotations

import random
import time


def measure(seconds: float, seed: int) -> dict[str, float]:
    """Random playouts of RLCard's Dou Dizhu for ``seconds``; deals/s and decisions/s."""
    import numpy as np
    from rlcard.games.doudizhu.game import DoudizhuGame

    game = DoudizhuGame()
    game.np_random = np.random.RandomState(seed)
    rng = random.Random(seed)
    deals = decisions = 0
    started = time.perf_counter()
    deadline = started + seconds
    while time.perf_counter() < deadline:
        state, _ = game.init_game()
        while not game.is_over():
            actions = state["actions"]
            state, _ = game.step(actions[rng.randrange(len(actions))])
            decisions += 1
        deals += 1
    elapsed = time.perf_counter() - started
    return {"deals_per_s": deals / elapsed, "decisions_per_s": decisions / elapsed}
