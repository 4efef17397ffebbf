"""AI decisions off the event loop, in worker threads or processes, with a deadline.

The policy gets the seat's view and legal actions only (never the state).
If it misses the deadline or fails, the fallback policy (``normal`` where the
game has one, else its weakest) decides instead, so an AI seat always moves.

``mode="thread"`` (the default) starts instantly and suits light policies;
``mode="process"`` runs each decision in a pool of worker processes, so a
CPU-heavy search never competes with the event loop for the GIL.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import random
import secrets
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from typing import Any

from engine.game import Budget
from engine.registry import get_policy
from server.logs import get_logger
from server.metrics import Metrics


def decide(
    game_id: str,
    level: str,
    view: Any,
    legal: tuple[Any, ...],
    seed: int,
    budget: Budget | None,
) -> Any:
    """One decision by a fresh policy ``level`` (picklable: runs in a worker process too)."""
    return get_policy(game_id, level).choose(view, legal, random.Random(seed), budget)


class AiRunner:
    """Runs policies off the loop with a time budget and a hard deadline."""

    def __init__(
        self,
        workers: int,
        think: float,
        deadline: float,
        metrics: Metrics | None = None,
        mode: str = "thread",
    ) -> None:
        self.think = think
        self.deadline = deadline
        self.metrics = metrics or Metrics()
        self.mode = mode
        self._executor: Executor
        if mode == "process":
            context = multiprocessing.get_context("spawn")
            self._executor = ProcessPoolExecutor(max_workers=workers, mp_context=context)
        elif mode == "thread":
            self._executor = ThreadPoolExecutor(
                max_workers=workers, thread_name_prefix="cardavia-ai"
            )
        else:
            raise ValueError(f"unknown AI mode {mode!r} (thread or process)")
        self._log = get_logger(component="ai")

    async def choose(
        self, game_id: str, level: str, fallback: str, view: Any, legal: tuple[Any, ...]
    ) -> Any:
        """An action of ``legal`` chosen by policy ``level`` (``fallback`` past the deadline)."""
        seed = secrets.randbits(64)
        budget = Budget(seconds=self.think) if self.think > 0 else None
        loop = asyncio.get_running_loop()
        started = loop.time()
        job = loop.run_in_executor(
            self._executor, decide, game_id, level, view, legal, seed, budget
        )
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
            self.metrics.observe(
                "cardavia_ai_decision_duration_seconds",
                loop.time() - started,
                game=game_id,
                outcome=outcome,
            )
        budget = Budget(seconds=min(self.think, 0.2)) if self.think > 0 else None
        try:
            return decide(game_id, fallback, view, legal, seed, budget)
        except Exception as exc:
            self._log.error("ai_fallback_failed", game=game_id, level=fallback, error=repr(exc))
            return legal[random.Random(seed).randrange(len(legal))]

    def shutdown(self) -> None:
        """Stop the workers (running decisions finish in the background)."""
        self._executor.shutdown(wait=False, cancel_futures=True)
