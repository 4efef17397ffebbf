"""Random-playout throughput of a game through the public Game interface.

    python -m bench.engine --game scopa --seconds 10 [--vs openspiel|rlcard]

Each decision is one ``legal_actions`` call plus one ``apply`` of a uniformly
random legal action.  With ``--vs``, a peer engine plays uniformly random
deals in the same run, in alternating rounds, so machine noise hits both
alike: ``openspiel`` runs OpenSpiel's C++ ``dou_dizhu`` (the yardstick,
reported as ``yardstick_decisions_per_s``), ``rlcard`` runs RLCard's Dou
Dizhu (``peer_deals_per_s``).  The last line is one JSON object; ``ratio``
compares ours with the peer: deals/s when we measure Dou Dizhu too (the same
game), otherwise decisions/s against the yardstick.
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
    peer: Callable[[float], dict[str, float]] | None,
    seconds: float,
) -> tuple[dict[str, float], dict[str, float] | None]:
    """Run both in alternating rounds; average each figure over the rounds."""
    rounds = ROUNDS if peer is not None else 1
    slice_s = seconds / rounds
    mine: list[dict[str, float]] = []
    theirs: list[dict[str, float]] = []
    for _ in range(rounds):
        mine.append(ours(slice_s))
        if peer is not None:
            theirs.append(peer(slice_s))

    def mean(rows: list[dict[str, float]]) -> dict[str, float]:
        return {k: sum(r[k] for r in rows) / len(rows) for k in rows[0]}

    return mean(mine), (mean(theirs) if theirs else None)


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
    parser.add_argument("--vs", choices=sorted(PEERS), default=None)
    args = parser.parse_args(argv)

    peer_fn: Callable[[float], dict[str, float]] | None = None
    if args.vs is not None:
        try:
            module = importlib.import_module(PEERS[args.vs])
        except ImportError as exc:
            print(
                f"bench.engine: peer {args.vs!r} is not available ({exc}); "
                "install the optional dependencies: pip install -e '.[peers]'",
                file=sys.stderr,
            )
            return 2
        peer_fn = lambda s: module.measure(s, args.seed)  # noqa: E731

    mine, theirs = _alternate(
        lambda s: measure_ours(args.game, s, args.seed), peer_fn, args.seconds
    )
    out: dict[str, Any] = {
        "game": args.game,
        "seconds": args.seconds,
        "deals_per_s": round(mine["deals_per_s"], 1),
        "games_per_s": round(mine["games_per_s"], 1),
        "decisions_per_s": round(mine["decisions_per_s"], 1),
    }
    print(f"{args.game}: {out['deals_per_s']} deals/s, {out['decisions_per_s']} decisions/s")
    if theirs is not None:
        out["peer"] = args.vs
        out["peer_deals_per_s"] = round(theirs["deals_per_s"], 1)
        out["peer_decisions_per_s"] = round(theirs["decisions_per_s"], 1)
        if args.vs == "openspiel":
            out["yardstick"] = "openspiel dou_dizhu"
            out["yardstick_decisions_per_s"] = out["peer_decisions_per_s"]
        if args.game == PEER_GAME:
            # the same game on both sides: compare whole deals
            out["ratio"] = round(mine["deals_per_s"] / theirs["deals_per_s"], 3)
        else:
            # another game: compare decisions against the yardstick
            out["ratio"] = round(mine["decisions_per_s"] / theirs["decisions_per_s"], 3)
        print(
            f"{args.vs}: {out['peer_deals_per_s']} deals/s, "
            f"{out['peer_decisions_per_s']} decisions/s; ratio {out['ratio']}"
        )
    print(json.dumps(out, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
