"""AI decisions off the event loop: a bounded pool, fair between tables, with a deadline.

The policy gets the seat's view and legal actions only (never the state).
No policy ever runs on the event loop, the fallbacks included.

Design:

* **The pool.** ``workers`` worker processes (``mode="process"``, the
  default: a CPU-heavy search then competes with the loop for a core, not
  for the GIL) or threads (``mode="thread"``: starts at once, suits light
  policies and tests).  Processes are forked from a ``forkserver`` that
  imported the engine once (``spawn`` where there is none, which imports
  it in every worker); :meth:`AiRunner.warm` starts them all when the
  server starts instead of on the first decisions.  A pool is always
  started from a thread, and no decision goes to it until its workers are
  up: the first start of a forkserver imports the server, which would hold
  the event loop most of a second (at start-up, and again when a broken
  pool is replaced after its forkserver died).
* **Per-table fairness.** Decisions queue per table (``table`` argument of
  :meth:`AiRunner.choose`), and a table has at most one decision in a worker
  at a time.  Tables with queued work wait in a ring; a free worker takes
  the oldest decision of the table at the head of the ring, and that table
  goes to the back of the ring when its decision ends.  So the pool serves
  tables round-robin: one table with many AI seats or a fast ``ai_delay``
  gets one worker's turn per round, never the whole pool, and a decision
  waits for at most one decision of each other table ahead of it.
* **Global budget.** At most ``queue_limit`` decisions wait for a worker at
  once, over all tables.  Past that a new decision is not queued: the fast
  fallback policy makes it at once (outcome ``shed``), so overload degrades
  the AI's play, never the server's latency or memory.
* **Deadline.** ``deadline`` seconds cover queueing and thinking.  A
  decision still queued then leaves the queue; one still running keeps its
  worker (and its table's turn) until it ends, so the pool never holds more
  than ``workers`` decisions; either way the fallback moves instead
  (outcome ``deadline``; ``error`` when the policy raised).
* **AI-only tables are paced.** Tables where nobody plays (no human
  seated) share at most ``ai_only_rate`` moves per second
  (:mod:`server.ai.pace`), so watched all-AI games at ``ai_delay`` 0 cannot
  fill the event loop with their updates; tables with humans are never paced.
* **Priority.** Worker processes run at a lower CPU priority
  (``WORKER_NICE``): when the cores are busy, the loop comes first.
  (``SCHED_IDLE`` measured no better and could starve the AI on a busy host.)

Measured with ``python -m bench.ai_fairness`` (docs/performance.md, The server
process): beside all-AI tables a human's act→update p99 stays near idle in
process mode and not in thread mode (the searches hold the GIL), hence
processes by default; with cheap policies the AI-only pace keeps it near idle
in both modes.
* **Fallbacks off the loop too.** The fallback policy (``normal`` where the
  game has one, else its weakest) runs in a small pool of its own
  (``FALLBACK_WORKERS`` processes or threads, as the main pool), apart from
  the main pool, which may be the one that is full.  Only if it
  fails too, or misses its own short deadline, does a uniformly random legal
  move — one random number on the loop — stand in, so an AI seat always moves.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import multiprocessing
import os
import random
import secrets
import threading
from collections import deque
from concurrent.futures import (
    BrokenExecutor,
    Executor,
    Future,
    ProcessPoolExecutor,
    ThreadPoolExecutor,
)
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any

from engine.collector import held_off, settle
from engine.game import Budget
from engine.policy import Peers, Policy
from engine.registry import GAMES, get_policy
from server.ai.pace import Pacer
from server.ops.logs import get_logger
from server.ops.metrics import Metrics

FALLBACK_WORKERS = 2
"""Workers of the fallback pool (fallback policies take milliseconds)."""
FALLBACK_DEADLINE = 1.0
"""Seconds a fallback decision may take before the random legal move stands in."""
FALLBACK_THINK = 0.2
"""Time cap (seconds) handed to a fallback policy that searches."""
PACE_BURST = 4
"""Moves of AI-only tables granted at once after a quiet spell."""
WORKER_NICE = 10
"""How much lower the CPU priority of worker processes is: when the cores are
busy, the event loop (the humans' moves) comes before the AI's searches."""


def decide(
    game_id: str,
    level: str,
    view: Any,
    legal: tuple[Any, ...],
    seed: int,
    budget: Budget | None,
    peers: Peers = (),
) -> Any:
    """One decision by a fresh policy ``level`` (picklable: runs in a worker process too),
    told what the table shows of each seat (``peers``, engine.policy.Peers).

    In a worker process (:func:`setup_worker` ran there) the garbage collector
    is held off while the policy thinks, and what the decision left alive is
    frozen (:mod:`engine.collector`); in the server's own process (thread
    mode) the collector is left alone.
    """
    policy = get_policy(game_id, level, peers)
    return seeded_choice(policy, view, legal, seed, budget, hold_collector=_IN_WORKER)


def seeded_choice(
    policy: Policy,
    view: Any,
    legal: tuple[Any, ...],
    seed: int,
    budget: Budget | None,
    hold_collector: bool = False,
) -> Any:
    """``policy``'s choice among ``legal``, its chance drawn from ``seed`` alone; with
    ``hold_collector``, the garbage collector held off meanwhile (only in a process
    that does nothing else: :mod:`engine.collector`)."""
    with held_off(hold_collector):
        return policy.choose(view, legal, random.Random(seed), budget)


_IN_WORKER = False
"""Whether this process is an AI worker process (set by :func:`setup_worker`)."""


def setup_worker(lifeline: Connection | None = None) -> None:
    """Set up a worker process: a lower CPU priority than the server (``WORKER_NICE``),
    the garbage collector held off during decisions (:func:`decide`), and an end
    of its own once the server is gone (``lifeline``: see :func:`_exit_with_server`)."""
    global _IN_WORKER
    _IN_WORKER = True
    with contextlib.suppress(OSError, AttributeError):  # not permitted, or not POSIX
        os.nice(WORKER_NICE)
    if lifeline is not None:
        threading.Thread(target=_exit_with_server, args=(lifeline,), daemon=True).start()


def _exit_with_server(lifeline: Connection) -> None:
    """End this worker as soon as its server is gone, however it ended (SIGKILL gives it
    no chance to stop its pool; a worker blocked on the pool's queue would linger).

    ``lifeline`` is the read end of a pipe whose write end only the server holds
    (:class:`AiRunner`): nothing is ever written, so the read returns when the
    server's end closes, at its death or its :meth:`AiRunner.shutdown`.  (The
    worker's parent is no guide: a ``forkserver`` worker's parent is the
    forkserver, which outlives the server while any of its workers runs.)
    """
    with contextlib.suppress(EOFError, OSError):
        while True:
            lifeline.recv_bytes()
    os._exit(0)


def warm_worker() -> int:
    """Load every game and policy in a worker (their imports are the slow part); its pid.

    A worker process then collects and freezes what it loaded
    (:func:`engine.collector.settle`): modules live as long as the worker,
    and its decisions run with the collector held off (:func:`decide`).
    """
    for game_id in GAMES:
        get_policy(game_id, "random")
    if _IN_WORKER:
        settle()
    return os.getpid()


FORKSERVER_PRELOAD = ["__main__", "server.app"]
"""What the forkserver imports once: the server (this module and all it uses), and a
main script (``"__main__"``), which every worker runs again as ``__mp_main__``.  A main
*module* (``python -m server.main``) is left to the workers: preloaded, they would run
it over a loaded copy (``runpy`` warns); it imports little beyond the server."""


def _process_context() -> multiprocessing.context.BaseContext:
    """How worker processes start: forked from a ``forkserver`` that imported this module
    (so the engine, every game and policy) once, not each worker importing it after a
    ``spawn``: on 2 CPUs (1 worker, 2 fallbacks) they start in about 0.5 s of CPU, not 1.3 s."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(FORKSERVER_PRELOAD)
        return context
    return multiprocessing.get_context("spawn")


@dataclass(eq=False)
class _Job:
    """One queued decision: its arguments and the future its caller waits on."""

    table: str
    args: tuple[Any, ...]
    result: asyncio.Future[Any] = field(repr=False)


class AiBusy(Exception):
    """A suggestion (:meth:`AiRunner.advise`) the pool could not make in time, or at all."""


class AiRunner:
    """Runs policies in a bounded pool, round-robin over tables (see module docstring)."""

    def __init__(
        self,
        workers: int,
        think: float,
        deadline: float,
        metrics: Metrics | None = None,
        mode: str = "process",
        queue_limit: int = 200,
        ai_only_rate: float = 0.0,
    ) -> None:
        if workers < 1 or queue_limit < 0:
            raise ValueError("workers must be at least 1 and queue_limit not negative")
        self.think = think
        self.deadline = deadline
        self.metrics = metrics or Metrics()
        self.mode = mode
        self.workers = workers
        self.queue_limit = queue_limit
        self.pacer = Pacer(ai_only_rate, burst=PACE_BURST)
        """The shared pace of AI-only tables' moves (:mod:`server.ai.pace`)."""
        if mode not in ("process", "thread"):
            raise ValueError(f"unknown AI mode {mode!r} (thread or process)")
        self._lifeline: tuple[Connection, Connection] | None = None
        self._starts: dict[Executor, asyncio.Task[None]] = {}
        """Each pool's start, from a thread (:meth:`_ready`): once it is done (its
        workers are up, or failed to start), decisions may go to the pool."""
        self._executor = self._make_executor(workers, "cardavia-ai")
        self._fallback = self._make_executor(FALLBACK_WORKERS, "cardavia-ai-fallback")
        self._queues: dict[str, deque[_Job]] = {}
        self._ring: deque[str] = deque()  # tables with queued work and none running
        self._busy: set[str] = set()  # tables with a decision in a worker
        self._queued = 0
        self._running = 0
        self._closed = False
        self._log = get_logger(component="ai")

    # -- lifecycle -------------------------------------------------------------
    def _make_executor(self, workers: int, name: str) -> Executor:
        if self.mode == "process":
            context = _process_context()
            if self._lifeline is None:  # (workers' end, the server's end)
                self._lifeline = context.Pipe(duplex=False)
            return ProcessPoolExecutor(
                max_workers=workers,
                mp_context=context,
                initializer=setup_worker,
                initargs=(self._lifeline[0],),
            )
        return ThreadPoolExecutor(max_workers=workers, thread_name_prefix=name)

    async def warm(self) -> None:
        """Start every worker now, without holding up the event loop (raises if they
        could not start)."""
        pools = ((self._executor, self.workers), (self._fallback, FALLBACK_WORKERS))
        for pool, workers in pools:
            self._ready(pool, workers)
        await asyncio.gather(*(self._starts[pool] for pool, _ in pools))

    def _ready(self, pool: Executor, workers: int) -> bool:
        """Whether ``pool``'s workers are up; if not, have them started (once).

        The warm-up jobs are handed to the pool from a thread: a pool starts its
        worker processes as jobs come, and the first start waits for the
        forkserver to have imported the server, and a submission meanwhile
        waits for the pool's lock.  When the start ends, the queue is pumped.
        """
        start = self._starts.get(pool)
        if start is None:
            start = asyncio.get_running_loop().create_task(self._start(pool, workers))
            start.add_done_callback(self._started)
            self._starts[pool] = start
        return start.done()

    async def _start(self, pool: Executor, workers: int) -> None:
        """Start ``pool``'s ``workers`` (see :meth:`_ready`)."""

        def submit_all() -> list[Future[int]]:
            return [pool.submit(warm_worker) for _ in range(workers)]

        jobs = await asyncio.get_running_loop().run_in_executor(None, submit_all)
        await asyncio.gather(*(asyncio.wrap_future(job) for job in jobs))

    def _started(self, task: asyncio.Task[None]) -> None:
        """A pool's start ended: decisions may go to it now (a failure is logged; the
        pool then fails its decisions, and is replaced)."""
        if not task.cancelled() and task.exception() is not None and not self._closed:
            self._log.error("ai_pool_start_failed", error=repr(task.exception()))
        self._pump()

    def shutdown(self) -> None:
        """Stop: queued decisions are dropped, worker processes end (running ones too)."""
        self._closed = True
        for queue in self._queues.values():
            for job in queue:
                job.result.cancel()
        self._queues.clear()
        self._ring.clear()
        self._queued = 0
        for start in self._starts.values():
            start.cancel()
        self._starts.clear()
        self._stop(self._fallback)
        self._stop(self._executor)
        if self._lifeline is not None:
            for end in self._lifeline:
                end.close()
            self._lifeline = None

    @staticmethod
    def _stop(executor: Executor) -> None:
        """Shut a pool down; a process pool's workers end now.

        A decision still running is abandoned anyway, and a worker left
        waiting for work could outlive a server that runs in a
        ``multiprocessing`` child (whose exit joins its children before the
        pool's own exit hook runs).  ``_processes``, the pool's map of worker
        processes, is read before ``shutdown`` clears it.
        """
        processes = list((getattr(executor, "_processes", None) or {}).values())
        executor.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            with contextlib.suppress(Exception):
                process.terminate()

    async def pace(self) -> None:
        """Wait for the turn of an AI-only table's move (see :mod:`server.ai.pace`)."""
        await self.pacer.wait()

    @property
    def queued(self) -> int:
        """Decisions waiting for a worker (over all tables)."""
        return self._queued

    @property
    def running(self) -> int:
        """Decisions in a worker now (at most ``workers``)."""
        return self._running

    # -- deciding --------------------------------------------------------------
    async def choose(
        self,
        game_id: str,
        level: str,
        fallback: str,
        view: Any,
        legal: tuple[Any, ...],
        table: str = "",
        peers: Peers = (),
        seed: int | None = None,
    ) -> Any:
        """An action of ``legal`` chosen by policy ``level`` for ``table``, whose seats
        show ``peers`` (engine.policy.Peers); ``seed`` (``None``: a fresh one) draws its
        chance (a duplicate board's AI seats pass their own, issue 56).

        ``fallback`` decides instead when the queue is full, the deadline
        passes or the policy fails; a random legal move if even that fails.
        """
        if not legal:
            raise ValueError("no legal action to choose from")
        if seed is None:
            seed = secrets.randbits(64)
        loop = asyncio.get_running_loop()
        started = loop.time()
        outcome = "ok"
        try:
            if self._queued >= self.queue_limit or self._closed:
                outcome = "shed"
                self._log.warning("ai_queue_full", game=game_id, level=level, table=table)
            else:
                budget = Budget(seconds=self.think) if self.think > 0 else None
                args = (game_id, level, view, legal, seed, budget, peers)
                try:
                    return await self._queued_decision(table, args)
                except TimeoutError:
                    outcome = "deadline"
                    self._log.warning("ai_deadline_missed", game=game_id, level=level)
                except Exception as exc:  # a policy bug must not stop the table
                    outcome = "error"
                    self._log.error("ai_failed", game=game_id, level=level, error=repr(exc))
        finally:
            self.metrics.inc("cardavia_ai_decisions_total", game=game_id, outcome=outcome)
            self.metrics.observe(
                "cardavia_ai_decision_duration_seconds",
                loop.time() - started,
                game=game_id,
                outcome=outcome,
            )
        return await self._fall_back(game_id, fallback, view, legal, seed, peers)

    async def advise(
        self,
        game_id: str,
        level: str,
        view: Any,
        legal: tuple[Any, ...],
        seed: int,
        budget: Budget | None,
        table: str = "",
        peers: Peers = (),
    ) -> Any:
        """``level``'s choice for a player who asked for a hint: queued with the table's
        decisions (fair, bounded, within the deadline), with the caller's ``seed`` and
        ``budget`` so that one view always gets one answer. No fallback stands in:
        a hint nobody asked the weaker policy for is no hint, so a full queue or a
        missed deadline raises :class:`AiBusy`."""
        if self._queued >= self.queue_limit or self._closed:
            raise AiBusy("the AI is busy")
        try:
            return await self._queued_decision(
                table, (game_id, level, view, legal, seed, budget, peers)
            )
        except TimeoutError:
            raise AiBusy("the AI did not answer in time") from None

    async def _queued_decision(self, table: str, args: tuple[Any, ...]) -> Any:
        """Queue one decision (:func:`decide`'s ``args``) for ``table`` and wait for it
        up to the deadline; past it (``TimeoutError``) or when the caller is cancelled,
        a decision still queued leaves the queue."""
        job = _Job(table, args, asyncio.get_running_loop().create_future())
        self._enqueue(job)
        try:
            return await asyncio.wait_for(asyncio.shield(job.result), self.deadline)
        except (TimeoutError, asyncio.CancelledError):
            self._give_up(job)
            raise

    async def _fall_back(
        self,
        game_id: str,
        level: str,
        view: Any,
        legal: tuple[Any, ...],
        seed: int,
        peers: Peers = (),
    ) -> Any:
        """The fallback policy's choice, in the fallback pool; a random legal move past that."""
        budget = Budget(seconds=min(self.think, FALLBACK_THINK)) if self.think > 0 else None
        loop = asyncio.get_running_loop()
        pool = self._fallback

        async def run() -> Any:
            if not self._ready(pool, FALLBACK_WORKERS):
                await asyncio.shield(self._starts[pool])
            return await loop.run_in_executor(
                pool, decide, game_id, level, view, legal, seed, budget, peers
            )

        try:
            if self._closed:
                raise RuntimeError("the AI runner has stopped")
            return await asyncio.wait_for(run(), FALLBACK_DEADLINE)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            if isinstance(exc, BrokenExecutor) and pool is self._fallback and not self._closed:
                self._log.error("ai_fallback_pool_broken", error=repr(exc))
                self.metrics.inc("cardavia_ai_pool_restarts_total")
                self._stop(pool)
                self._starts.pop(pool, None)
                self._fallback = self._make_executor(FALLBACK_WORKERS, "cardavia-ai-fallback")
            self.metrics.inc("cardavia_ai_decisions_total", game=game_id, outcome="last_resort")
            self._log.error("ai_fallback_failed", game=game_id, level=level, error=repr(exc))
            return legal[random.Random(seed).randrange(len(legal))]

    # -- the fair queue ----------------------------------------------------------
    def _enqueue(self, job: _Job) -> None:
        queue = self._queues.get(job.table)
        if queue is None:
            queue = self._queues[job.table] = deque()
        queue.append(job)
        self._queued += 1
        if job.table not in self._busy and job.table not in self._ring:
            self._ring.append(job.table)
        self._pump()

    def _pump(self) -> None:
        """Hand queued decisions to free workers, one table after the other (once the
        pool is up: :meth:`_ready`)."""
        if not self._ring or self._closed or not self._ready(self._executor, self.workers):
            return
        while self._running < self.workers and self._ring:
            table = self._ring.popleft()
            job = self._next_job(table)
            if job is None:
                continue
            self._busy.add(table)  # its other decisions wait until this one ends
            self._running += 1
            pool = self._executor
            try:
                work = pool.submit(decide, *job.args)
            except Exception as exc:  # the pool is broken or shut down
                self._finished(table, job, pool, None, exc)
                continue
            work.add_done_callback(functools.partial(self._wake, table, job, pool))

    def _wake(self, table: str, job: _Job, pool: Executor, done: Future[Any]) -> None:
        """From the worker's side: let the loop handle the end of a decision."""
        with contextlib.suppress(RuntimeError):  # the loop has closed (the server stopped)
            loop = job.result.get_loop()
            loop.call_soon_threadsafe(self._finished, table, job, pool, done, None)

    def _next_job(self, table: str) -> _Job | None:
        """The oldest queued decision of ``table``, out of its queue."""
        queue = self._queues.get(table)
        job = None
        while queue and job is None:
            job = queue.popleft()
            self._queued -= 1
            if job.result.done():  # given up on by its caller
                job = None
        if not queue:
            self._queues.pop(table, None)
        return job

    def _give_up(self, job: _Job) -> None:
        """The caller stopped waiting: a queued decision leaves its queue (a running one
        keeps its worker until it ends, so the pool stays bounded)."""
        job.result.cancel()
        queue = self._queues.get(job.table)
        if queue is not None and job in queue:
            queue.remove(job)
            self._queued -= 1
            if not queue:
                del self._queues[job.table]
                if job.table in self._ring:
                    self._ring.remove(job.table)

    def _finished(
        self,
        table: str,
        job: _Job,
        pool: Executor,
        done: Future[Any] | None,
        error: BaseException | None,
    ) -> None:
        """A decision ended: pass its result on, give the table its next turn in the ring.

        A pool broken under it (a worker process died) is replaced, once.
        """
        self._running -= 1
        failure = error if done is None else done.exception() if not done.cancelled() else None
        if isinstance(failure, BrokenExecutor) and pool is self._executor and not self._closed:
            self._log.error("ai_pool_broken", error=repr(failure))
            self.metrics.inc("cardavia_ai_pool_restarts_total")
            self._stop(pool)
            self._starts.pop(pool, None)
            self._executor = self._make_executor(self.workers, "cardavia-ai")
        self._busy.discard(table)
        if not job.result.done():
            if done is not None:
                if done.cancelled():
                    job.result.cancel()
                elif done.exception() is not None:
                    job.result.set_exception(done.exception())  # type: ignore[arg-type]
                else:
                    job.result.set_result(done.result())
            else:
                job.result.set_exception(error or RuntimeError("the AI pool failed"))
        if self._queues.get(table) and table not in self._ring:
            self._ring.append(table)
        self._pump()
