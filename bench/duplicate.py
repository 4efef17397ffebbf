"""How much luck the duplicate comparison removes (issue 56): ``duplicate_variance_ratio``.

    python -m bench.duplicate [--games scopa,cicera,doudizhu,schafkopf] [--level normal]
                              [--boards 40] [--players 6] [--iterations 40]

One AI level plays against itself: on each of ``--boards`` seeded boards (one deal
each, :data:`server.duplicate.boards.BOARD_OPTIONS`) ``--players`` copies of the level
take the set's seat in turn, each with its own generator, against the same AI seats
(their own generator per board and seat, as at a duplicate table).  Every copy is the
same player, so all the spread of their scores is luck: the deal's (which duplicate
scoring cancels) and the play's own chance (which it cannot).  The ratio is the
standard deviation of the duplicate-scored results (each score less the board's mean,
what matchpoints and IMPs compare) over that of the raw scores: below 1, and the
smaller, the more of the luck of the cards comparing removes.

Everything is seeded and the search budget is iterations only, so a run repeats
exactly.  Progress goes to stderr; the last line of stdout is one JSON object:
``{"duplicate_variance_ratio": {game: ratio}, "raw_sd": {...}, "duplicate_sd": {...}, ...}``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass

from engine.game import Budget
from engine.registry import get_policy
from engine.rng import derive_rng, new_seed
from server.duplicate.boards import BOARD_OPTIONS
from server.duplicate.play import play_board

GAMES = tuple(BOARD_OPTIONS)
SEED = 56


@dataclass(frozen=True, slots=True)
class Spread:
    """One game's figures: the ratio and the two standard deviations it divides."""

    game: str
    ratio: float
    raw_sd: float
    duplicate_sd: float
    boards: int
    players: int


def spread(
    game: str,
    level: str = "normal",
    boards: int = 40,
    players: int = 6,
    iterations: int = 40,
    seed: int = SEED,
) -> Spread:
    """Play ``boards`` x ``players`` boards of ``game`` and measure the two spreads."""
    if boards < 1 or players < 2 or iterations < 1:
        raise ValueError("at least one board, two players and one iteration")
    budget = Budget(iterations=iterations, seconds=None)
    ai = get_policy(game, level)
    player = get_policy(game, level)
    raw: list[float] = []
    centred: list[float] = []
    for b in range(boards):
        board_seed = new_seed(derive_rng(seed, "duplicate-bench", game, b))
        scores = [
            float(
                play_board(
                    game, board_seed, 0, player, derive_rng(board_seed, "player", p), ai, budget
                ).score
            )
            for p in range(players)
        ]
        mean = statistics.fmean(scores)
        raw.extend(scores)
        centred.extend(s - mean for s in scores)
    raw_sd = statistics.pstdev(raw)
    dup_sd = statistics.pstdev(centred)
    ratio = dup_sd / raw_sd if raw_sd else 0.0
    return Spread(game, ratio, raw_sd, dup_sd, boards, players)


def variance_ratio(
    games: Sequence[str] = GAMES,
    level: str = "normal",
    boards: int = 40,
    players: int = 6,
    iterations: int = 40,
    seed: int = SEED,
) -> dict[str, float]:
    """``duplicate_variance_ratio`` per game (see the module docstring), rounded to 3."""
    return {g: round(spread(g, level, boards, players, iterations, seed).ratio, 3) for g in games}


def main(argv: Sequence[str] | None = None) -> int:
    """Run the measurement; the last line of stdout is the JSON report."""
    parser = argparse.ArgumentParser(prog="python -m bench.duplicate", description=__doc__)
    parser.add_argument("--games", default=",".join(GAMES))
    parser.add_argument("--level", default="normal")
    parser.add_argument("--boards", type=int, default=40)
    parser.add_argument("--players", type=int, default=6)
    parser.add_argument("--iterations", type=int, default=40)
    parser.add_argument("--seed", type=int, default=SEED)
    args = parser.parse_args(argv)
    games = [g for g in args.games.split(",") if g]
    unknown = [g for g in games if g not in BOARD_OPTIONS]
    if unknown:
        parser.error(f"no duplicate play of {', '.join(unknown)}")
    if args.boards < 1 or args.players < 2 or args.iterations < 1:
        parser.error("--boards and --iterations at least 1, --players at least 2")
    out: dict[str, dict[str, float]] = {
        "duplicate_variance_ratio": {},
        "raw_sd": {},
        "duplicate_sd": {},
        "seconds": {},
    }
    for g in games:
        t0 = time.perf_counter()
        s = spread(g, args.level, args.boards, args.players, args.iterations, args.seed)
        took = time.perf_counter() - t0
        print(
            f"{g}: ratio {s.ratio:.3f} (raw sd {s.raw_sd:.2f}, duplicate sd "
            f"{s.duplicate_sd:.2f}) in {took:.0f} s",
            file=sys.stderr,
        )
        out["duplicate_variance_ratio"][g] = round(s.ratio, 3)
        out["raw_sd"][g] = round(s.raw_sd, 3)
        out["duplicate_sd"][g] = round(s.duplicate_sd, 3)
        out["seconds"][g] = round(took, 1)
    report = {
        **out,
        "level": args.level,
        "boards": args.boards,
        "players": args.players,
        "iterations": args.iterations,
    }
    print(json.dumps(report, sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
