"""``cardavia selfplay``: play whole games locally between engine policies.

Each game gets its own seed derived from ``--seed`` and its number, so the
same command always prints the same figures.  Policies see only their
seat's view.  The last line of output is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from client_cli.options import add_option_argument
from engine.game import Game, OptionsError, Result
from engine.policy import Policy
from engine.registry import GAMES, get_game, get_policy, policy_names
from engine.rng import derive_rng, new_seed


@dataclass
class Tally:
    """Running figures over many games."""

    games: int = 0
    decisions: int = 0
    wins: list[int] = field(default_factory=list)
    points: list[float] = field(default_factory=list)
    draws: int = 0
    numbers: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    counts: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    labels: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))

    def add(self, result: Result, decisions: int) -> None:
        """Count one finished game."""
        if not self.wins:
            self.wins = [0] * len(result.scores)
            self.points = [0.0] * len(result.scores)
        self.games += 1
        self.decisions += decisions
        for seat, score in enumerate(result.scores):
            self.points[seat] += score
        for seat in result.winners:
            self.wins[seat] += 1
        if not result.winners:
            self.draws += 1
        for key, value in result.summary.items():
            if isinstance(value, (bool, int, float)):
                self.numbers[key] += float(value)
                self.counts[key] += 1
            elif isinstance(value, str):
                self.labels[key][value] += 1

    def summary(self) -> dict[str, Any]:
        """Averages of numbers, rates of flags, frequencies of labels."""
        out: dict[str, Any] = {}
        for key, total in sorted(self.numbers.items()):
            out[key] = round(total / self.counts[key], 4)
        for key, counter in sorted(self.labels.items()):
            out[key] = {k: round(v / self.games, 4) for k, v in sorted(counter.items())}
        return out


def play_one(
    game: Game[Any, Any, Any, Any],
    options: Any,
    seed: int,
    policies: Sequence[Policy],
    policy_seed: int,
) -> tuple[Result, int]:
    """Play one whole game; return its result and the number of decisions."""
    rng = derive_rng(policy_seed, "policies")
    state = game.new_state(options, seed)
    decisions = 0
    while not game.is_over(state):
        seat = game.to_act(state)[0]
        view = game.view(state, seat)
        action = policies[seat].choose(view, view.legal, rng)
        state = game.apply(state, seat, action).state
        decisions += 1
    result = game.result(state)
    assert result is not None
    return result, decisions


def run(
    game_id: str, games: int, seed: int, policy_list: Sequence[str], raw_options: dict[str, Any]
) -> dict[str, Any]:
    """Play ``games`` games and return the report (the JSON of the last line)."""
    game = get_game(game_id)
    options = game.options(raw_options)
    seats = game.num_seats(options)
    names = [policy_list[i % len(policy_list)] for i in range(seats)]
    policies = [get_policy(game_id, n) for n in names]
    tally = Tally()
    started = time.perf_counter()
    for i in range(games):
        game_seed = new_seed(derive_rng(seed, "selfplay", i))
        result, decisions = play_one(game, options, game_seed, policies, game_seed)
        tally.add(result, decisions)
    elapsed = time.perf_counter() - started
    return {
        "game": game_id,
        "games": tally.games,
        "seed": seed,
        "policies": names,
        "wins": tally.wins,
        "win_rate": [round(w / max(1, tally.games), 4) for w in tally.wins],
        "draws": tally.draws,
        "avg_points": [round(p / max(1, tally.games), 4) for p in tally.points],
        "decisions": tally.decisions,
        "decisions_per_s": round(tally.decisions / elapsed, 1) if elapsed > 0 else None,
        "summary": tally.summary(),
    }


def add_parser(sub: Any) -> None:
    """Register ``cardavia selfplay``."""
    p = sub.add_parser("selfplay", help="play whole games locally between engine policies")
    p.add_argument("--game", required=True, choices=sorted(GAMES))
    p.add_argument("--games", type=int, default=100, help="how many games (default 100)")
    p.add_argument("--seed", type=int, default=1, help="master seed (default 1)")
    p.add_argument(
        "--policies",
        default="",
        help="comma-separated policy per seat, cycled (default: greedy)",
    )
    add_option_argument(p, "target=21")
    p.set_defaults(func=_main)


def _main(args: argparse.Namespace) -> int:
    names = [n for n in args.policies.split(",") if n] or ["greedy"]
    for name in names:
        if name not in policy_names(args.game):
            known = ", ".join(policy_names(args.game))
            print(f"cardavia selfplay: unknown policy {name!r} for {args.game} (known: {known})")
            return 2
    if args.games < 1:
        print("cardavia selfplay: --games must be at least 1")
        return 2
    try:
        report = run(args.game, args.games, args.seed, names, dict(args.option))
    except OptionsError as exc:
        print(f"cardavia selfplay: {exc}")
        return 2
    print(f"{report['game']}: {report['games']} games, seed {report['seed']}")
    for seat, name in enumerate(report["policies"]):
        print(
            f"  seat {seat} {name:>8}: wins {report['wins'][seat]:5d}  "
            f"avg points {report['avg_points'][seat]:8.3f}"
        )
    if report["draws"]:
        print(f"  draws: {report['draws']}")
    print(f"  {report['decisions']} decisions, {report['decisions_per_s']} decisions/s")
    print(json.dumps(report, sort_keys=True))
    return 0
