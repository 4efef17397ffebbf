"""Random-playout throughput of a game through the public Game interface.

    python -m bench.engine --game scopa --seconds 10 [--vs openspiel] [--vs rlcard]

Each decision is one ``legal_actions`` call plus one ``apply`` of a uniformly
random legal action.  With ``--vs`` (once per peer: several peers are measured
in one run), a peer engine plays uniformly random deals in the same run, in
alternating rounds, so machine noise hits all alike: ``openspiel`` runs
OpenSpiel's C++ ``dou_dizhu`` (the yardstick, reported as
``yardstick_decisions_per_s``), ``rlcard`` runs RLCard's Dou Dizhu.  The last
line is one JSON object.  A ratio compares ours with a peer: deals/s when we
measure Dou Dizhu too (the same game), otherwise decisions/s against the
yardstick.  ``ratios`` maps each peer to its ratio and ``peers`` gives each
peer's deals/s and decisions/s; with one peer, ``peer`` and ``ratio`` say it
flat as well.
"""

from __future__ import annotations

import argparse
import importlib
import json
import random
import sys
import time
from collections.abc import Callable
from typing import Any

from bench.peers import PEERS
from engine.registry import GAMES, get_game

ROUNDS = 5
PEER_GAME = "doudizhu"  # every peer plays Dou Dizhu


def measure_ours(game_id: str, seconds: float, seed: int) -> dict[str, float]:
    """Random playouts of ``game_id`` for ``seconds``: deals/s and decisions/s."""
    game = get_game(game_id)
    options = game.options()
    rng = random.Random(seed)
    games = deals = decisions = 0
    started = time.perf_counter()
    deadline = started + seconds
    legal_actions, apply, to_act, is_over = (
        game.legal_actions,
        game.apply,
        game.to_act,
        game.is_over,
    )
    while time.perf_counter() < deadline:
        state = game.new_state(options, rng.getrandbits(63))
        while not is_over(state):
            seat = to_act(state)[0]
            legal = legal_actions(state, seat)
            state = apply(state, seat, legal[rng.randrange(len(legal))]).state
            decisions += 1
        result = game.result(state)
        assert result is not None
        games += 1
        deals += int(result.summary.get("deals", 1))
    elapsed = time.perf_counter() - started
    return {
        "games_per_s": games / elapsed,
        "deals_per_s": deals / elapsed,
        "decisions_per_s": decisions / elapsed,
    }


def _alternate(
    ours: Callable[[float], dict[str, float]],
    peers: dict[str, Callable[[float], dict[str, float]]],
    seconds: float,
) -> tuple[dict[str, float], dict[str, dict[str, float]]]:
    """Run ours and each peer in alternating rounds; average each figure over the rounds."""
    rounds = ROUNDS if peers else 1
    slice_s = seconds / rounds
    mine: list[dict[str, float]] = []
    theirs: dict[str, list[dict[str, float]]] = {name: [] for name in peers}
    for _ in range(rounds):
        mine.append(ours(slice_s))
        for name, peer in peers.items():
            theirs[name].append(peer(slice_s))

    def mean(rows: list[dict[str, float]]) -> dict[str, float]:
        return {k: sum(r[k] for r in rows) / len(rows) for k in rows[0]}

    return mean(mine), {name: mean(rows) for name, rows in theirs.items()}


def _peer(module: Any, seed: int) -> Callable[[float], dict[str, float]]:
    """A peer module's ``measure`` for a slice of seconds."""
    return lambda seconds: dict(module.measure(seconds, seed))


def main(argv: list[str] | None = None) -> int:
    """Entry point: print figures, last line JSON."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.engine",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--game", required=True, choices=sorted(GAMES))
    parser.add_argument(
        "--seconds",
        type=float,
        default=10.0,
        help="time for our engine (the peer gets as much again)",
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--vs",
        choices=sorted(PEERS),
        action="append",
        default=[],
        help="a peer engine to measure in the same run (repeat for several)",
    )
    args = parser.parse_args(argv)

    peer_fns: dict[str, Callable[[float], dict[str, float]]] = {}
    for name in dict.fromkeys(args.vs):  # each peer once, in the order given
        try:
            module = importlib.import_module(PEERS[name])
        except ImportError as exc:
            print(
                f"bench.engine: peer {name!r} is not available ({exc}); "
                "install the optional dependencies: pip install -e '.[peers]'",
                file=sys.stderr,
            )
            return 2
        peer_fns[name] = _peer(module, args.seed)

    mine, theirs = _alternate(
        lambda s: measure_ours(args.game, s, args.seed), peer_fns, args.seconds
    )
    out: dict[str, Any] = {
        "game": args.game,
        "seconds": args.seconds,
        "deals_per_s": round(mine["deals_per_s"], 1),
        "games_per_s": round(mine["games_per_s"], 1),
        "decisions_per_s": round(mine["decisions_per_s"], 1),
    }
    print(f"{args.game}: {out['deals_per_s']} deals/s, {out['decisions_per_s']} decisions/s")
    ratios: dict[str, float] = {}
    peers: dict[str, dict[str, float]] = {}
    for name, figures in theirs.items():
        if args.game == PEER_GAME:  # the same game on both sides: compare whole deals
            ratio = round(mine["deals_per_s"] / figures["deals_per_s"], 3)
        else:  # another game: compare decisions against the yardstick
            ratio = round(mine["decisions_per_s"] / figures["decisions_per_s"], 3)
        ratios[name] = ratio
        peers[name] = {
            "deals_per_s": round(figures["deals_per_s"], 1),
            "decisions_per_s": round(figures["decisions_per_s"], 1),
        }
        if name == "openspiel":
            out["yardstick"] = "openspiel dou_dizhu"
            out["yardstick_decisions_per_s"] = peers[name]["decisions_per_s"]
        print(
            f"{name}: {peers[name]['deals_per_s']} deals/s, "
            f"{peers[name]['decisions_per_s']} decisions/s; ratio {ratio}"
        )
    if len(theirs) == 1:  # one peer: the flat keys of earlier runs
        (name,) = theirs
        out["peer"] = name
        out["peer_deals_per_s"] = peers[name]["deals_per_s"]
        out["peer_decisions_per_s"] = peers[name]["decisions_per_s"]
        out["ratio"] = ratios[name]
    if theirs:
        out["ratios"] = ratios
        out["peers"] = peers
    print(json.dumps(out, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
