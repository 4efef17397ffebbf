"""Proof that the ratings mean something (issue 55): AI levels of known order, rated.

    python -m bench.ratings [--games 300] [--iterations 200] [--held-out 0.3]
                            [--only scopa,cicera,doudizhu,schafkopf] [--jobs 2]
                            [--postgres] [--quick]

Every level of every game (:data:`engine.registry.POLICIES`, ``random`` the
deliberately weakened one) plays rated games against the others, driven by the
engine directly: no server, and everything fixed so that a run repeats exactly
(the deal seeds, one policy random generator a game, and ``--iterations`` with
no time cap, as :mod:`bench.ai_digest` fixes them).  Game ``i`` of a game id
seats the levels of one *seat mix*: an ordered choice of as many distinct
levels as the game has seats (every level is one rated player, the system
account ``ai-LEVEL``, and a player sits at one seat of a contest), so each
level meets every other at every seat, as partner and as opponent, landlord and
farmer, declarer and defender.  The mixes are taken in a seeded order and
cycled, so any ``--games`` spreads them evenly.  Each policy is told the
table's seats (:data:`engine.policy.Peers`), as a rated table with AI seats
shows them.

The rating is the server's (:func:`server.ratings.model.rate_game` over
:meth:`engine.game.Game.contests`, the roles' pseudo-players included), fed
the games in order.  The last ``--held-out`` share of the games is the test:
each of their contests is predicted (:func:`server.ratings.model.contest_odds`)
from the ratings as they stand before its game, which is then rated, so no
prediction has seen its own result.  The score is the mean log loss of the
result (a tie counts as half a win each way) against ``baseline_log_loss``,
the 50/50 guess (ln 2), which it must beat; ``base_rate_log_loss`` is the
harder yardstick of guessing every contest by how often its side's role (or
its first side, where the game has no roles) won in the rated part, so the
ratings' share of the gain over the side's own edge shows apart.

``order_recovered`` says whether the final ratings rank the levels of
:data:`KNOWN_ORDER` as their design does (``greedy`` is rated and ranked but
not part of it: against ``easy``, greedy's noise-free self, and against
``normal`` its edge is not measurable in some games, see docs/ratings.md).
``win_chance`` says what a rating difference means in the game, by the model
with the run's own uncertainty and roles, and ``calibration`` checks it against
the held-out results.  The top level's ``update_p99_ms`` and
``leaderboard_p99_ms`` come from :mod:`bench.rating_store` (a record written
with its rating update; leaderboard pages among 100,000 rated accounts):
SQLite, and PostgreSQL too with ``--postgres``.

Progress goes to stderr; the last line of stdout is one JSON object:
``{"games": {game: {...}}, "update_p99_ms": ..., "leaderboard_p99_ms": ..., ...}``.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import math
import statistics
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

from bench import rating_store
from bench.postgres import on_each_database
from bench.report import log
from engine.collector import held_off
from engine.game import Budget, Contest
from engine.registry import GAMES, POLICIES, get_game, get_policy
from engine.rng import derive_rng, new_seed
from server.ratings.model import (
    MU0,
    NEWCOMER,
    SCALE,
    Rating,
    contest_odds,
    rate_game,
    role_key,
    win_chance,
)

GAMES_PER_ID = 300
ITERATIONS = 200
HELD_OUT = 0.3
SEED = 55
JOBS = 2
QUICK_GAMES = 8
QUICK_ITERATIONS = 8
ACCOUNTS = 100_000
UPDATES = 300
REQUESTS = 500
QUICK_ACCOUNTS = 2_000
QUICK_UPDATES = 20
QUICK_REQUESTS = 40

KNOWN_ORDER: tuple[str, ...] = ("random", "easy", "normal", "hard")
"""The levels whose order is known by design, weakest first: ``random`` any legal move,
``easy`` the greedy rule with noise, ``normal`` counting the unseen cards and weighing
the answers, ``hard`` the search (docs/ai.md)."""

DIFFERENCES: tuple[int, ...] = (50, 100, 200, 400)
"""Rating differences whose expected win chance the report gives."""

CALIBRATION_BINS: tuple[float, ...] = (0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
"""Edges of the favourite's predicted chance, for the held-out calibration."""

_FLOOR = 1e-9
"""The least chance a prediction is scored with (a certain miss would be infinite)."""


def account(level: str) -> str:
    """The rated player of an AI level: its system account's id (``ai-hard``)."""
    return f"ai-{level}"


@dataclass(frozen=True)
class Played:
    """One finished game of the schedule: who sat where, and its rated contests."""

    index: int
    mix: tuple[str, ...]
    contests: tuple[Contest, ...]
    decisions: int


def seat_mixes(game_id: str, levels: Sequence[str], seed: int) -> list[tuple[str, ...]]:
    """Every ordered choice of distinct levels for the game's seats, in a seeded order."""
    game = get_game(game_id)
    seats = game.num_seats(game.options())
    if len(levels) < seats:
        raise ValueError(f"{game_id} seats {seats} players: give at least as many levels")
    mixes = list(itertools.permutations(levels, seats))
    derive_rng(seed, "ratings-mixes", game_id).shuffle(mixes)
    return mixes


def play_game(game_id: str, mix: tuple[str, ...], seed: int, index: int, iterations: int) -> Played:
    """Play game ``index`` of ``game_id`` with ``mix[seat]`` at each seat, to its end."""
    game = get_game(game_id)
    options = game.options()
    policies = [get_policy(game_id, level, mix) for level in mix]
    state = game.new_state(options, new_seed(derive_rng(seed, "ratings-deal", game_id, index)))
    rng = derive_rng(seed, "ratings-policy", game_id, index)
    budget = Budget(iterations=iterations, seconds=None)
    decisions = 0
    while not game.is_over(state):
        seat = game.to_act(state)[0]
        view = game.view(state, seat)
        with held_off():  # as the server's AI worker processes do (engine.collector)
            action = policies[seat].choose(view, game.legal_actions(state, seat), rng, budget)
        state = game.apply(state, seat, action).state
        decisions += 1
    return Played(index, mix, game.contests(state), decisions)


def _play(job: tuple[str, tuple[str, ...], int, int, int]) -> Played:
    return play_game(*job)


def play_all(game_id: str, games: int, seed: int, iterations: int, jobs: int) -> Iterator[Played]:
    """The schedule's games in order (played in ``jobs`` processes: the same games)."""
    mixes = seat_mixes(game_id, tuple(POLICIES[game_id]), seed)
    work = [(game_id, mixes[i % len(mixes)], seed, i, iterations) for i in range(games)]
    if jobs <= 1:
        yield from map(_play, work)
        return
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        yield from pool.map(_play, work, chunksize=max(1, min(8, games // (4 * jobs))))


def _side_key(contest: Contest) -> str:
    """What the base rate is counted by: the first side's role, else the first side."""
    return contest.roles[0] if contest.roles else ""


def _first_side_score(contest: Contest) -> float:
    """1 when the first side won, 0 when it lost, ½ for a tie."""
    first, second = contest.ranks[0], contest.ranks[1]
    return 0.5 if first == second else 1.0 if first < second else 0.0


def log_loss(p_first: float, score: float) -> float:
    """The log loss of predicting the first side wins with ``p_first`` when it scored
    ``score`` (1 won, 0 lost, ½ tied)."""
    p = min(max(p_first, _FLOOR), 1.0 - _FLOOR)
    return -(score * math.log(p) + (1.0 - score) * math.log(1.0 - p))


@dataclass(frozen=True)
class Prediction:
    """A held-out contest: the first side's predicted chance, and what it scored."""

    p_first: float
    score: float
    base_rate: float


@dataclass
class RatingRun:
    """The ratings of one game id as its games are fed in order, and the held-out
    predictions (see the module docstring)."""

    game_id: str
    rated_games: int
    ratings: dict[str, Rating]
    predictions: list[Prediction]
    wins: dict[str, list[float]]
    shapes: dict[str, tuple[int, int]]
    contests: int = 0
    rated_contests: int = 0

    @classmethod
    def start(cls, game_id: str, rated_games: int) -> RatingRun:
        """Nothing rated yet; the first ``rated_games`` games train, the rest are held out."""
        return cls(game_id, rated_games, {}, [], {}, {})

    def feed(self, played: Played) -> None:
        """Predict ``played``'s contests if it is held out, then rate it."""
        seats = {seat: account(level) for seat, level in enumerate(played.mix)}
        held_out = played.index >= self.rated_games
        for contest in played.contests:
            if len(contest.sides) != 2:
                raise ValueError("the games' contests have two sides")
            score = _first_side_score(contest)
            key = _side_key(contest)
            self.shapes.setdefault(key, (len(contest.sides[0]), len(contest.sides[1])))
            if held_out:
                odds = contest_odds(contest, self.game_id, seats, self.ratings)
                base = self.wins.get(key, [])
                rate = statistics.fmean(base) if base else 0.5
                self.predictions.append(Prediction(odds[0], score, rate))
            else:
                self.wins.setdefault(key, []).append(score)
                self.rated_contests += 1
            self.contests += 1
        self.ratings.update(rate_game(played.contests, self.game_id, seats, self.ratings))


def _mean_loss(pairs: Sequence[tuple[float, float]]) -> float:
    return statistics.fmean(log_loss(p, s) for p, s in pairs) if pairs else 0.0


def _rating_json(rating: Rating) -> dict[str, Any]:
    return {
        "rating": rating.points,
        "deviation": rating.deviation,
        "interval": [rating.points - rating.deviation, rating.points + rating.deviation],
        "shown": rating.shown(),
        "games": rating.games,
    }


def _typical_sigma(ratings: Mapping[str, Rating], levels: Sequence[str]) -> float:
    rated = [ratings[account(level)].sigma for level in levels if account(level) in ratings]
    return statistics.median(rated) if rated else NEWCOMER.sigma


def win_chances(
    game_id: str,
    ratings: Mapping[str, Rating],
    levels: Sequence[str],
    shapes: Mapping[str, tuple[int, int]],
) -> dict[str, dict[str, float]]:
    """What a rating difference means in ``game_id``: for each kind of contest the run
    saw (``shapes``: its first side's role, or ``""``, to the sides' sizes), the model's
    chance that the first side wins when each of its players is ``d`` points above
    each opponent, with the run's typical uncertainty (its levels' median σ) and the
    role's rating from the run; at ``d`` = 0 it is the role's own edge.  Keyed by the
    role, or ``"1 v 1"`` / ``"2 v 2"`` where the sides have none."""
    sigma = _typical_sigma(ratings, levels)
    out: dict[str, dict[str, float]] = {}
    for role, (first_size, second_size) in sorted(shapes.items()):
        role_rating = ratings.get(role_key(game_id, role)) if role else None
        extra = (role_rating,) if role_rating is not None else ()
        second = tuple(Rating(sigma=sigma) for _ in range(second_size))
        chances: dict[str, float] = {}
        for d in (0, *DIFFERENCES):
            first = tuple(Rating(mu=MU0 + d / SCALE, sigma=sigma) for _ in range(first_size))
            chances[str(d)] = round(win_chance(game_id, (first + extra, second))[0], 4)
        out[role or f"{first_size} v {second_size}"] = chances
    return out


def calibration(predictions: Sequence[Prediction]) -> list[dict[str, Any]]:
    """The held-out contests binned by the favourite's predicted chance: the mean
    prediction and how often the favourite won (a tie half)."""
    out: list[dict[str, Any]] = []
    for low, high in itertools.pairwise(CALIBRATION_BINS):
        fav = [
            (max(p.p_first, 1 - p.p_first), p.score if p.p_first >= 0.5 else 1 - p.score)
            for p in predictions
            if low <= max(p.p_first, 1 - p.p_first) < high or (high == 1.0 and p.p_first == 1)
        ]
        if fav:
            out.append(
                {
                    "predicted": round(statistics.fmean(f for f, _ in fav), 4),
                    "observed": round(statistics.fmean(s for _, s in fav), 4),
                    "contests": len(fav),
                }
            )
    return out


def report(run: RatingRun, levels: Sequence[str], games: int, decisions: int) -> dict[str, Any]:
    """The JSON of one game id's run."""
    final = {level: run.ratings.get(account(level), NEWCOMER) for level in levels}
    ranking = sorted(levels, key=lambda level: (-final[level].points, -final[level].mu))
    known = [level for level in KNOWN_ORDER if level in final]
    order_recovered = all(final[a].points < final[b].points for a, b in itertools.pairwise(known))
    roles = {
        key[len(role_key(run.game_id, "")) :]: _rating_json(r)
        for key, r in sorted(run.ratings.items())
        if key.startswith(role_key(run.game_id, ""))
    }
    held = run.predictions
    return {
        "games": games,
        "decisions": decisions,
        "contests": run.contests,
        "rated_contests": run.rated_contests,
        "held_out_contests": len(held),
        "levels": {level: _rating_json(final[level]) for level in levels},
        "roles": roles,
        "ranking": ranking,
        "known_order": known,
        "order_recovered": order_recovered,
        "log_loss": round(_mean_loss([(p.p_first, p.score) for p in held]), 4),
        "baseline_log_loss": round(math.log(2), 4) if held else 0.0,
        "base_rate_log_loss": round(_mean_loss([(p.base_rate, p.score) for p in held]), 4),
        "win_chance": win_chances(run.game_id, run.ratings, levels, run.shapes),
        "calibration": calibration(held),
    }


def rate_game_id(
    game_id: str, games: int, seed: int, iterations: int, held_out: float, jobs: int
) -> dict[str, Any]:
    """Play and rate ``games`` games of ``game_id`` (see the module docstring)."""
    levels = tuple(POLICIES[game_id])
    rated = games - max(1, round(games * held_out)) if games > 1 else games
    run = RatingRun.start(game_id, rated)
    started = time.perf_counter()
    decisions = 0
    step = max(1, games // 10)
    for played in play_all(game_id, games, seed, iterations, jobs):
        run.feed(played)
        decisions += played.decisions
        done = played.index + 1
        if done % step == 0 or done == games:
            ranked = sorted(levels, key=lambda lv: -run.ratings.get(account(lv), NEWCOMER).mu)
            shown = ", ".join(
                f"{lv} {run.ratings.get(account(lv), NEWCOMER).points}" for lv in ranked
            )
            log(f"{game_id}: {done}/{games} games, {time.perf_counter() - started:.0f} s: {shown}")
    return report(run, levels, games, decisions)


def store_figures(postgres: bool, quick: bool, accounts: int | None = None) -> dict[str, Any]:
    """The store's figures (:func:`bench.rating_store.measure`) on a fresh SQLite file, and
    on a throw-away PostgreSQL too with ``postgres``: by database under ``store``, and
    the worst of them as ``update_p99_ms`` and ``leaderboard_p99_ms``."""
    size = {
        "accounts": accounts or (QUICK_ACCOUNTS if quick else ACCOUNTS),
        "updates_n": QUICK_UPDATES if quick else UPDATES,
        "requests": QUICK_REQUESTS if quick else REQUESTS,
    }

    def run(url: str) -> dict[str, Any]:
        return asyncio.run(rating_store.measure(url, **size))

    by_database = on_each_database(run, "ratings store", only=None if postgres else "sqlite")
    return {
        "update_p99_ms": max(f["update_p99_ms"] for f in by_database.values()),
        "leaderboard_p99_ms": max(f["leaderboard_p99_ms"] for f in by_database.values()),
        "store": by_database,
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.ratings", description=(__doc__ or "").split("\n\n")[0]
    )
    parser.add_argument(
        "--games", type=int, default=None, help=f"games per game id ({GAMES_PER_ID})"
    )
    parser.add_argument(
        "--iterations", type=int, default=None, help=f"search budget, `hard` ({ITERATIONS})"
    )
    parser.add_argument(
        "--held-out", type=float, default=HELD_OUT, help=f"share of games predicted ({HELD_OUT})"
    )
    parser.add_argument("--only", default=",".join(GAMES), help="comma-separated game ids")
    parser.add_argument("--jobs", type=int, default=None, help=f"processes playing ({JOBS})")
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument(
        "--quick",
        action="store_true",
        help=f"a test's size: {QUICK_GAMES} games a game id at {QUICK_ITERATIONS} iterations",
    )
    parser.add_argument(
        "--no-store",
        action="store_true",
        help="leave out the store's figures (update_p99_ms, leaderboard_p99_ms)",
    )
    parser.add_argument(
        "--postgres", action="store_true", help="the store's figures on PostgreSQL too"
    )
    parser.add_argument(
        "--accounts",
        type=int,
        default=None,
        help=f"rated accounts of the store's figures ({ACCOUNTS}; quick {QUICK_ACCOUNTS})",
    )
    args = parser.parse_args(argv)
    games = args.games if args.games is not None else QUICK_GAMES if args.quick else GAMES_PER_ID
    iterations = (
        args.iterations
        if args.iterations is not None
        else QUICK_ITERATIONS
        if args.quick
        else ITERATIONS
    )
    jobs = args.jobs if args.jobs is not None else 1 if args.quick else JOBS
    only = [g for g in args.only.split(",") if g]
    unknown = [g for g in only if g not in GAMES]
    if unknown:
        parser.error(f"unknown games: {', '.join(unknown)}; known: {', '.join(GAMES)}")
    if games < 2 or iterations < 1 or jobs < 1 or (args.accounts is not None and args.accounts < 4):
        parser.error("--games must be at least 2, --iterations and --jobs at least 1, --accounts 4")
    if not 0.0 < args.held_out < 1.0:
        parser.error("--held-out is a share between 0 and 1")
    out: dict[str, Any] = {
        "games": {
            game_id: rate_game_id(game_id, games, args.seed, iterations, args.held_out, jobs)
            for game_id in only
        },
        "games_per_id": games,
        "iterations": iterations,
        "held_out": args.held_out,
        "seed": args.seed,
    }
    if not args.no_store:
        log("the store: a rated game's write, leaderboard pages")
        out |= store_figures(args.postgres, args.quick, args.accounts)
    print(json.dumps(out, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
