"""CPU per move of a table's core, without sockets: the part of the hot path that is ours.

``python -m bench.core --game schafkopf --moves 20000 [--against DIR]``

Seats a human at every seat of one table (:class:`~server.tables.core.TableCore`),
then plays random legal moves as the clients would (each seat picks from the
``legal`` of its last update): validate, apply, build each seat's update and
encode every message once, as the server does before writing.  Finished
games are rematched.  It reports the process CPU microseconds per move.

``--against DIR`` measures another checkout (its ``server``, ``engine`` and
``protocol`` packages) in alternating rounds in subprocesses, as the
yardstick of the same run, and reports ``ratio`` (ours / theirs: below 1 is
faster).  Progress goes to stderr; the last line of stdout is one JSON object.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from typing import Any

from engine.codec import to_plain
from engine.registry import GAMES

ROUNDS = 3
WARM_UP = 1000


def measure(game_id: str, moves: int, seed: int) -> float:
    """CPU microseconds per move of ``moves`` moves (after a warm-up) in this process."""
    from protocol.codec import Frame, encode
    from protocol.models import TableOptions
    from protocol.server_messages import Ok, Update
    from server.tables.core import TableCore
    from server.tables.options import check_options

    setup = check_options(GAMES[game_id], TableOptions())
    seeds = itertools.count(seed)
    core = TableCore(
        "t1", setup, owner=None, quick=False, invite=None, seed_source=lambda: next(seeds),
        ai_delay=0.0, disconnect_grace=5.0,
    )  # fmt: skip
    players = [f"p{i}" for i in range(len(core.seats))]
    for i, pid in enumerate(players):
        core.join(pid, pid.upper(), i, 0.0)
    rng = random.Random(seed)
    legal: dict[str, list[Any]] = {}

    def play(count: int) -> None:
        done = 0
        while done < count:
            if core.status == "finished":
                for pid in players:
                    core.rematch(pid, 0.0)
                continue
            seat = core.game.to_act(core.state)[0]
            pid = players[seat]
            options = legal.get(pid) or to_plain(core.game.legal_actions(core.state, seat))
            eff = core.act(pid, seat, core.version, rng.choice(options), "human", 1.0)
            frames: dict[int, Frame] = {}
            legal.clear()
            for to, out in eff.outs:
                if isinstance(out, Frame):  # an update, encoded as it was made
                    message = out.message
                else:
                    message = out
                    if id(out) not in frames:
                        frames[id(out)] = Frame.of(out)
                if isinstance(message, Update):
                    legal[to] = message.view.get("legal") or []
            encode(Ok(ref=done))
            done += 1

    play(WARM_UP)
    started = time.process_time()
    play(moves)
    return 1e6 * (time.process_time() - started) / moves


def _in_checkout(path: str, game_id: str, moves: int, seed: int) -> float:
    """:func:`measure` run by a subprocess on the checkout at ``path`` (this file,
    loaded by its path, with that checkout's packages first on the path)."""
    env = {**os.environ, "PYTHONPATH": os.path.abspath(path)}
    code = (
        "import importlib.util, sys\n"
        "spec = importlib.util.spec_from_file_location('bench_core', sys.argv[1])\n"
        "module = importlib.util.module_from_spec(spec)\n"
        "spec.loader.exec_module(module)\n"
        "print(module.measure(sys.argv[2], int(sys.argv[3]), int(sys.argv[4])))\n"
    )
    argv = [sys.executable, "-c", code, os.path.abspath(__file__), game_id, str(moves), str(seed)]
    out = subprocess.run(argv, env=env, cwd=path, capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark; print the JSON report last."""
    parser = argparse.ArgumentParser(prog="python -m bench.core", description=__doc__)
    parser.add_argument("--game", default="scopa", choices=sorted(GAMES))
    parser.add_argument("--moves", type=int, default=10000)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--against", default=None, help="another checkout to measure too")
    args = parser.parse_args(argv)
    if not 1 <= args.moves <= 1_000_000:
        raise SystemExit("--moves must be 1 to 1000000")
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ours: list[float] = []
    theirs: list[float] = []
    for i in range(ROUNDS if args.against else 1):
        if args.against:
            theirs.append(_in_checkout(args.against, args.game, args.moves, args.seed))
            print(f"round {i + 1}: theirs {theirs[-1]:.1f} us/move", file=sys.stderr)
            ours.append(_in_checkout(here, args.game, args.moves, args.seed))
        else:
            ours.append(measure(args.game, args.moves, args.seed))
        print(f"round {i + 1}: ours {ours[-1]:.1f} us/move", file=sys.stderr)
    report: dict[str, Any] = {
        "game": args.game,
        "moves": args.moves,
        "us_per_move": round(statistics.median(ours), 1),
    }
    if theirs:
        report["theirs_us_per_move"] = round(statistics.median(theirs), 1)
        report["ratio"] = round(report["us_per_move"] / report["theirs_us_per_move"], 3)
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
