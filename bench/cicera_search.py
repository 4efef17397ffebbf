"""Playouts per second of Cicera ``hard`` on fixed decisions (issue 15).

    python -m bench.cicera_search [--deals 4] [--iterations 1000] [--default [--think S]]

Decisions come from ``--deals`` seeded deals played by ``normal`` (every
decision with a choice, all four seats, start to end).  Each one is decided
by a fresh :class:`~engine.cicera.ai_search.HardPolicy` with a fixed
iteration budget and a fixed seed, so the work, and every choice, is the
same from run to run: ``choices`` is a digest of the plays chosen (equal
digests: the search decides exactly as before).  CPU time (``thread_time``)
per playout is the figure; a fixed pure-Python loop timed before every
decision is the yardstick (``loop_ms_min``), and ``playouts_per_loop`` (the
playouts one yardstick loop's time buys) compares machines and loads.

With ``--default`` each decision is also made at the server's own budget
(``ServerConfig.ai_think`` as the time cap, what ``server.ai.decide``
passes; ``--think`` sets another cap): ``default_iterations_p50`` is the
median playouts such a decision bought here, and ``default_iterations_idle``
the median of each decision's playouts over its CPU share (what it would buy
on an idle core).

Progress goes to stderr; the last line of stdout is one JSON object.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import statistics
import sys
import time
from typing import Any

from bench.ai_latency import percentile, spin
from engine.cicera.ai_normal import NormalPolicy
from engine.cicera.ai_search import HardPolicy
from engine.cicera.game import CiceraGame
from engine.cicera.state import CiceraView
from engine.game import Budget
from server.config import ServerConfig

LOOP_STEPS = 200_000
"""Steps of the yardstick loop (about 20 ms of CPU on an idle core)."""


def log(text: str) -> None:
    """Progress on stderr."""
    print(text, file=sys.stderr, flush=True)


def decisions(deals: int, seed: int) -> list[CiceraView]:
    """The views of every decision with a choice in ``deals`` deals played by ``normal``."""
    game = CiceraGame()
    options = game.options()
    rng = random.Random(seed)
    normal = NormalPolicy()
    out: list[CiceraView] = []
    for k in range(deals):
        state = game.new_state(options, seed * 1000 + k)
        while not game.is_over(state):
            (seat,) = game.to_act(state)
            view = game.view(state, seat)
            if len(view.legal) > 1:
                out.append(view)
            state = game.apply(state, seat, normal.choose(view, view.legal, rng)).state
    return out


def fixed_run(views: list[CiceraView], iterations: int) -> dict[str, Any]:
    """Decide every view at ``iterations`` playouts; CPU time, playouts and the choices."""
    digest = hashlib.sha256()
    playouts = 0
    cpu = 0.0
    loops: list[float] = []
    for i, view in enumerate(views):
        t0 = time.thread_time()
        spin(LOOP_STEPS)
        loops.append(time.thread_time() - t0)
        policy = HardPolicy()
        t0 = time.thread_time()
        choice = policy.choose(view, view.legal, random.Random(i), Budget(iterations=iterations))
        cpu += time.thread_time() - t0
        playouts += policy.last_iterations
        digest.update(f"{choice.card}{sorted(map(str, choice.capture))};".encode())
        if (i + 1) % 25 == 0:
            log(f"  {i + 1}/{len(views)} decisions, {playouts / cpu:.0f} playouts/s")
    loop_min = min(loops)
    return {
        "playouts": playouts,
        "cpu_s": round(cpu, 3),
        "playouts_per_s": round(playouts / cpu, 1),
        "loop_ms_min": round(loop_min * 1000, 3),
        "loop_ms_p50": round(statistics.median(loops) * 1000, 3),
        "playouts_per_loop": round(playouts / cpu * loop_min, 2),
        "choices": digest.hexdigest()[:16],
    }


def default_run(views: list[CiceraView], think: float) -> dict[str, Any]:
    """Decide every view at the server's time cap: the playouts it buys, here and idle."""
    bought: list[float] = []
    idle: list[float] = []
    for i, view in enumerate(views):
        policy = HardPolicy()
        c0 = time.thread_time()
        t0 = time.perf_counter()
        policy.choose(view, view.legal, random.Random(i), Budget(seconds=think))
        wall = time.perf_counter() - t0
        share = min(1.0, (time.thread_time() - c0) / wall) if wall > 0 else 1.0
        bought.append(policy.last_iterations)
        idle.append(policy.last_iterations / max(share, 0.05))
    return {
        "think_s": think,
        "default_iterations_p50": round(percentile(bought, 0.5)),
        "default_iterations_idle": round(percentile(idle, 0.5)),
    }


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; progress on stderr, the JSON report last on stdout."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=4, help="deals the decisions come from")
    parser.add_argument("--iterations", type=int, default=1000, help="playouts per decision")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--default",
        action="store_true",
        help="also decide at the server's default time cap (ServerConfig.ai_think)",
    )
    parser.add_argument(
        "--think",
        type=float,
        default=ServerConfig().ai_think,
        help="the time cap of --default in seconds (default: the server's ai_think)",
    )
    args = parser.parse_args(argv)
    if args.deals < 1 or args.iterations < 1 or args.think <= 0:
        parser.error("deals and iterations must be at least 1, think above 0")
    views = decisions(args.deals, args.seed)
    log(f"cicera hard: {len(views)} decisions at {args.iterations} playouts")
    report: dict[str, Any] = {"decisions": len(views), "iterations": args.iterations}
    report.update(fixed_run(views, args.iterations))
    if args.default:
        log(f"  the same decisions at a {args.think * 1000:.0f} ms cap")
        report.update(default_run(views, args.think))
    print(json.dumps(report, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
