"""How long the ``hard`` level of every game takes per decision in the server (issue 15).

    python -m bench.ai_latency [--games scopa,cicera,doudizhu,schafkopf] [--decisions 60]

Each game's ``hard`` plays every seat of real deals (fresh seeds), and each
decision makes the call a server worker makes (:func:`server.ai.pool.decide`: a
fresh policy's ``choose``) with the server's default time cap
(``ServerConfig.ai_think``) as its budget: policy construction, setup, world
sampling and search are all in the figure.  Decisions with one legal action
are left out (they cost nothing).  Goal: p50 ≤ 250 ms and p99 ≤ 400 ms per
game.  It also reports the median iterations a search bought in that time,
per phase (``iterations_p50``: what ``cardavia arena --iterations`` should be
given to measure the server's strength), and how many modules ran compiled
(``compiled``, see ``python -m compiled.build``).

The yardstick, measured in the same run: a fixed pure-Python loop (about
20 ms of CPU on an idle core) timed before every decision; its median over
its fastest run (``loop_stretch``) says how loaded the machine was.  Each
decision's CPU time is reported beside its wall time (``cpu_p50_ms``,
``cpu_max_ms``, and ``cpu_share`` = CPU over wall): a time-capped search
stops at its cap whatever the load, but gets only that share of a core in it.

Progress goes to stderr; the last line of stdout is one JSON object: per
game ``decisions``, ``p50_ms``, ``p99_ms``, ``max_ms``, the CPU figures,
``over_cap`` (decisions longer than the cap), ``iterations_p50`` and ``meets_goal``; the
yardstick's ``loop_ms_min``/``loop_ms_p50``/``loop_ms_p99`` and
``loop_stretch``; ``think_s``; and ``ok`` (every game meets the goal).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from dataclasses import dataclass, field
from typing import Any

from bench.report import log, percentile
from compiled.runtime import loaded as compiled_loaded
from engine import collector
from engine.game import Budget
from engine.registry import GAMES, get_game, get_policy
from server.ai.pool import seeded_choice
from server.config import ServerConfig

LEVEL = "hard"
GOAL_P50_MS = 250.0
GOAL_P99_MS = 400.0
LOOP_STEPS = 200_000
"""Steps of the yardstick loop (about 20 ms of CPU on an idle core)."""


def spin(steps: int = LOOP_STEPS) -> int:
    """The yardstick: a fixed amount of pure-Python work."""
    total = 0
    for i in range(steps):
        total = (total + i * i) % 1_000_003
    return total


@dataclass
class GameTimes:
    """Wall and CPU seconds of one game's decisions, and the yardstick's wall seconds."""

    wall: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    loop: list[float] = field(default_factory=list)
    iterations: dict[str, list[int]] = field(default_factory=dict)
    """Per phase of the game (``phase`` of the view; ``play`` without one), the
    iterations each search decision bought (``last_iterations``)."""


def measure_game(
    game_id: str, decisions: int, think: float, seed: int, hold_collector: bool = True
) -> GameTimes:
    """Time ``decisions`` decisions (with a choice) of ``hard`` at every seat of real deals.

    ``hold_collector``: hold the garbage collector off during each decision and
    freeze what it left, as the server's worker processes do
    (:func:`server.ai.pool.decide`, :mod:`engine.collector`).
    """
    game = get_game(game_id)
    options = game.options()
    rng = random.Random(seed)
    budget = Budget(seconds=think)
    times = GameTimes()
    while len(times.wall) < decisions:
        state = game.new_state(options, rng.getrandbits(63))
        while not game.is_over(state) and len(times.wall) < decisions:
            seat = game.to_act(state)[0]
            view = game.view(state, seat)
            legal = game.legal_actions(state, seat)
            if len(legal) == 1:
                action = legal[0]
            else:
                t0 = time.perf_counter()
                spin()
                times.loop.append(time.perf_counter() - t0)
                c0 = time.thread_time()
                t0 = time.perf_counter()
                # server.ai.pool.decide, keeping the policy to read what it bought
                policy = get_policy(game_id, LEVEL)
                action = seeded_choice(
                    policy, view, legal, rng.getrandbits(64), budget, hold_collector
                )
                times.wall.append(time.perf_counter() - t0)
                times.cpu.append(time.thread_time() - c0)
                bought = getattr(policy, "last_iterations", 0)
                if bought:
                    phase = str(getattr(view, "phase", "play"))
                    times.iterations.setdefault(phase, []).append(bought)
                if len(times.wall) % 20 == 0:
                    log(f"  {game_id}: {len(times.wall)}/{decisions} decisions")
            state = game.apply(state, seat, action).state
    return times


def summary(times: GameTimes, think: float) -> dict[str, Any]:
    """The figures of one game (milliseconds)."""
    p50 = percentile(times.wall, 0.5) * 1000
    p99 = percentile(times.wall, 0.99) * 1000
    return {
        "decisions": len(times.wall),
        "p50_ms": round(p50, 1),
        "p99_ms": round(p99, 1),
        "max_ms": round(max(times.wall, default=0.0) * 1000, 1),
        "cpu_p50_ms": round(percentile(times.cpu, 0.5) * 1000, 1),
        "cpu_max_ms": round(max(times.cpu, default=0.0) * 1000, 1),
        "cpu_share": round(sum(times.cpu) / sum(times.wall), 2) if times.wall else 0.0,
        "over_cap": sum(1 for t in times.wall if t > think),
        "iterations_p50": {
            phase: round(percentile([float(n) for n in bought], 0.5))
            for phase, bought in sorted(times.iterations.items())
        },
        "meets_goal": p50 <= GOAL_P50_MS and p99 <= GOAL_P99_MS,
    }


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; print progress to stderr and the JSON report last."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default=",".join(sorted(GAMES)), help="comma-separated")
    parser.add_argument("--decisions", type=int, default=60, help="timed decisions per game")
    parser.add_argument(
        "--think",
        type=float,
        default=ServerConfig().ai_think,
        help="time cap per decision in seconds (default: the server's ai_think)",
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--collector",
        choices=("held", "on"),
        default="held",
        help="the garbage collector during decisions: held off, as in the server's worker "
        "processes (default), or left on, as in its thread mode (engine.collector)",
    )
    args = parser.parse_args(argv)
    games = [g for g in args.games.split(",") if g]
    unknown = [g for g in games if g not in GAMES]
    if unknown or args.decisions < 1 or args.think <= 0:
        parser.error(f"unknown games {unknown}" if unknown else "decisions and think must be > 0")
    report: dict[str, Any] = {
        "level": LEVEL,
        "think_s": args.think,
        "compiled": len(compiled_loaded()),
        "collector": args.collector,
        "games": {},
    }
    if args.collector == "held":  # as a worker process after start-up (server.ai.pool.warm_worker)
        collector.settle()
    loops: list[float] = []
    for game_id in games:
        log(f"{game_id}: {args.decisions} decisions of {LEVEL} at {args.think * 1000:.0f} ms")
        times = measure_game(
            game_id, args.decisions, args.think, args.seed, args.collector == "held"
        )
        figures = summary(times, args.think)
        loops.extend(times.loop)
        log(f"  {game_id}: {figures}")
        report["games"][game_id] = figures
    fastest = min(loops)
    report["yardstick"] = {
        "loop_ms_min": round(fastest * 1000, 3),
        "loop_ms_p50": round(percentile(loops, 0.5) * 1000, 3),
        "loop_ms_p99": round(percentile(loops, 0.99) * 1000, 3),
        "loop_stretch": round(percentile(loops, 0.5) / fastest, 2),
    }
    report["ok"] = all(g["meets_goal"] for g in report["games"].values())
    print(json.dumps(report, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
