"""Play-outs per CPU second of a game's ``hard`` search on fixed decisions (issue 15).

    python -m bench.search --game doudizhu [--deals 4] [--iterations 1000]
        [--default [--think S]]

Decisions come from ``--deals`` seeded deals played by ``normal`` (every
decision with a choice, every seat, bids too, start to end).  Each one is
decided by a fresh ``hard`` policy with a fixed iteration budget and a fixed
seed, so the work, and every choice, is the same from run to run:
``choices`` is a digest of the actions chosen (equal digests: the search
decides exactly as before, e.g. compiled and plain, or before and after a
change meant only to be faster).  CPU time (``thread_time``) per play-out is
the figure; a fixed pure-Python loop timed before every decision is the
yardstick (``loop_ms_min``), and ``playouts_per_loop`` (the play-outs one
yardstick loop's time buys) compares machines, loads and builds.

With ``--default`` each decision is also made at the server's own budget
(``ServerConfig.ai_think`` as the time cap, what ``server.ai.pool.decide``
passes; ``--think`` sets another cap): ``default_iterations_p50`` is the
median play-outs such a decision bought here, and
``default_iterations_idle`` the median of each decision's play-outs over its
CPU share (what it would buy on an idle core).

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

from bench.ai_latency import spin
from bench.report import log, percentile
from compiled.runtime import loaded as compiled_loaded
from engine.codec import to_plain
from engine.game import Budget
from engine.registry import GAMES, get_game, get_policy
from server.config import ServerConfig

LOOP_STEPS = 200_000
"""Steps of the yardstick loop (about 20 ms of CPU on an idle core)."""


def decisions(game_id: str, deals: int, seed: int) -> list[tuple[Any, tuple[Any, ...]]]:
    """``(view, legal)`` of every decision with a choice in ``deals`` deals played by
    ``normal`` (each deal seeded from ``seed``)."""
    game = get_game(game_id)
    options = game.options()
    rng = random.Random(seed)
    normal = get_policy(game_id, "normal")
    out: list[tuple[Any, tuple[Any, ...]]] = []
    for k in range(deals):
        state = game.new_state(options, seed * 1000 + k)
        while not game.is_over(state):
            seat = game.to_act(state)[0]
            view = game.view(state, seat)
            legal = game.legal_actions(state, seat)
            if len(legal) > 1:
                out.append((view, legal))
            action = normal.choose(view, legal, rng)
            state = game.apply(state, seat, action).state
    return out


def fixed_run(
    game_id: str, views: list[tuple[Any, tuple[Any, ...]]], iterations: int
) -> dict[str, Any]:
    """Decide every view at ``iterations`` play-outs: CPU time, play-outs, the choices."""
    digest = hashlib.sha256()
    playouts = 0
    cpu = 0.0
    loops: list[float] = []
    for i, (view, legal) in enumerate(views):
        t0 = time.thread_time()
        spin(LOOP_STEPS)
        loops.append(time.thread_time() - t0)
        policy = get_policy(game_id, "hard")
        t0 = time.thread_time()
        choice = policy.choose(view, legal, random.Random(i), Budget(iterations=iterations))
        cpu += time.thread_time() - t0
        playouts += getattr(policy, "last_iterations", 0)
        digest.update(json.dumps(to_plain(choice), sort_keys=True).encode() + b";")
        if (i + 1) % 25 == 0:
            log(f"  {i + 1}/{len(views)} decisions, {playouts / max(cpu, 1e-9):.0f} play-outs/s")
    loop_min = min(loops)
    return {
        "playouts": playouts,
        "cpu_s": round(cpu, 3),
        "playouts_per_s": round(playouts / max(cpu, 1e-9), 1),
        "loop_ms_min": round(loop_min * 1000, 3),
        "loop_ms_p50": round(statistics.median(loops) * 1000, 3),
        "playouts_per_loop": round(playouts / max(cpu, 1e-9) * loop_min, 2),
        "choices": digest.hexdigest()[:16],
    }


def default_run(
    game_id: str, views: list[tuple[Any, tuple[Any, ...]]], think: float
) -> dict[str, Any]:
    """Decide every view at the server's time cap: the play-outs it buys, here and idle."""
    bought: list[float] = []
    idle: list[float] = []
    for i, (view, legal) in enumerate(views):
        policy = get_policy(game_id, "hard")
        c0 = time.thread_time()
        t0 = time.perf_counter()
        policy.choose(view, legal, random.Random(i), Budget(seconds=think))
        wall = time.perf_counter() - t0
        share = min(1.0, (time.thread_time() - c0) / wall) if wall > 0 else 1.0
        n = getattr(policy, "last_iterations", 0)
        if n:  # a decision settled without a search (one sensible move) bought nothing
            bought.append(n)
            idle.append(n / max(share, 0.05))
    return {
        "think_s": think,
        "default_iterations_p50": round(percentile(bought, 0.5)) if bought else 0,
        "default_iterations_idle": round(percentile(idle, 0.5)) if idle else 0,
    }


def main(argv: list[str] | None = None, game_id: str | None = None) -> int:
    """Run the benchmark; progress on stderr, the JSON report last on stdout.
    ``game_id`` fixes the game (``bench.cicera_search``); else ``--game`` says."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    if game_id is None:
        parser.add_argument("--game", choices=sorted(GAMES), required=True)
    parser.add_argument("--deals", type=int, default=4, help="deals the decisions come from")
    parser.add_argument("--iterations", type=int, default=1000, help="play-outs per decision")
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
    game = game_id if game_id is not None else args.game
    views = decisions(game, args.deals, args.seed)
    log(f"{game} hard: {len(views)} decisions at {args.iterations} play-outs")
    report: dict[str, Any] = {
        "game": game,
        "decisions": len(views),
        "iterations": args.iterations,
        "compiled": len(compiled_loaded()),
    }
    report.update(fixed_run(game, views, args.iterations))
    if args.default:
        log(f"  the same decisions at a {args.think * 1000:.0f} ms cap")
        report.update(default_run(game, views, args.think))
    print(json.dumps(report, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
