"""AI decisions off the event loop: a worker thread per decision, with a deadline.

The policy gets the seat's view and legal actions only (never the state).
If it misses the deadline or fails, the game's weakest policy (random,
instant) decides instead, so an AI seat always moves.
"""

from __future__ import annotations

import asyncio
import random
import secrets
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from engine.game import Budget
from engine.registry import get_policy
from server.logs import get_logger
from server.metrics import Metrics


class AiRunner:
    """Runs ``policy.choose`` in worker threads with a time budget and a hard deadline."""

    def __init__(
        self, workers: int, think: float, deadline: float, metrics: Metrics | None = None
    ) -> None:
        self.think = think
        self.deadline = deadline
        self.metrics = metrics or Metrics()
        self._executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="cardavia-ai")
        self._log = get_logger(component="ai")

    async def choose(
        self, game_id: str, level: str, fallback: str, view: Any, legal: tuple[Any, ...]
    ) -> Any:
        """An action of ``legal`` chosen by policy ``level`` (``fallback`` past the deadline)."""
        rng = random.Random(secrets.randbits(64))
        policy = get_policy(game_id, level)
        budget = Budget(seconds=self.think) if self.think > 0 else None
        loop = asyncio.get_running_loop()
        started = loop.time()
        job = loop.run_in_executor(self._executor, policy.choose, view, legal, rng, budget)
        outcome = "ok"
        try:
            return await asyncio.wait_for(job, self.deadline)
        except TimeoutError:
            outcome = "deadline"
            self._log.warning("ai_deadline_missed", game=game_id, level=level)
        except Exception as exc:  # a policy bug must not stop the table
            outcome = "error"
            self._log.error("ai_failed", game=game_id, level=level, error=repr(exc))
        finally:
            self.metrics.inc("cardavia_ai_decisions_total", game=game_id, outcome=outcome)
            self.metrics.inc(
                "cardavia_ai_decision_seconds_total", loop.time() - started, game=game_id
            )
        return get_policy(game_id, fallback).choose(view, legal, rng, None)

    def shutdown(self) -> None:
        """Stop the workers (running decisions finish in the background)."""
        self._executor.shutdown(wait=False, cancel_futures=True)
