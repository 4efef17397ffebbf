"""``cardavia arena``: measure one policy against another on duplicate deals.

Every deal (one whole game from one seed) is played once per *lineup*: side
``a`` takes each position in turn (in two-team games, each team's seats), so
both sides get the same cards and the luck of the deal cancels.  Reports side
a's win rate with a 95% confidence interval (normal approximation over the
paired deals), the win rate over decided games (draws left out), the win
rate by position, side a's points per deal (with a 95% interval), and
decision-time percentiles.  The last line is one JSON object.  Deals are
independent, so ``jobs`` > 1 plays them in worker processes with the same
results as one process.

A win rate of one half is not always what equal players get: in Dou Dizhu
with bidding one seat against two is the landlord a third of the time
(``normal`` against itself wins 0.44 so), in Schafkopf one seat against
three.  ``--par`` measures that yardstick in the same run: every lineup is
played again with b in a's seats too, and the report gives b's win rate in
a's seats (``par_win_rate``) and a's *edge* over it, with a 95% interval
over the paired deals (``edge``, ``edge_ci95``).
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import statistics
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from client_cli.arena_roles import FIXED_ROLES, Lineup
from client_cli.options import add_option_argument
from compiled.runtime import loaded as compiled_loaded
from engine.collector import held_off
from engine.game import Budget, Game, OptionsError
from engine.policy import Policy, seated
from engine.registry import GAMES, get_game, get_policy
from engine.rng import derive_rng, new_seed

PolicyFactory = Callable[[], Policy]

EXTERNAL_POLICIES: dict[tuple[str, str], str] = {
    ("doudizhu", "rlcard-rule"): "client_cli.rlcard_agent:RLCardRulePolicy",
}
"""Opponents from outside the engine (optional dependencies), ``module:class``, loaded lazily."""


def make_policy(game_id: str, name: str) -> Policy:
    """A registered policy, or an external one from :data:`EXTERNAL_POLICIES`."""
    target = EXTERNAL_POLICIES.get((game_id, name))
    if target is None:
        return get_policy(game_id, name)
    module, _, attr = target.partition(":")
    factory: PolicyFactory = getattr(importlib.import_module(module), attr)
    return factory()


def lineups(game: Game[Any, Any, Any, Any], options: Any) -> list[tuple[str, ...]]:
    """Seat assignments for duplicate play: 'a' through every position.

    Games with partnerships declare ``teams(options)``; there side a holds
    one whole team at a time.  Otherwise one seat is a and the rest are b.
    """
    seats = game.num_seats(options)
    teams = getattr(game, "teams", None)
    if callable(teams):
        out = []
        for team in teams(options):
            out.append(tuple("a" if s in team else "b" for s in range(seats)))
        return out
    return [tuple("a" if s == k else "b" for s in range(seats)) for k in range(seats)]


@dataclass
class ArenaTally:
    """Per-deal outcomes of side a, per-game results, and decision times of both sides."""

    deal_wins: list[float] = field(default_factory=list)
    deal_points: list[float] = field(default_factory=list)
    deal_margin: list[float] = field(default_factory=list)
    times: dict[str, list[float]] = field(default_factory=lambda: {"a": [], "b": []})
    games: int = 0
    a_wins: int = 0
    b_wins: int = 0
    draws: int = 0
    position_wins: list[list[float]] = field(default_factory=list)
    role_wins: dict[str, list[float]] = field(default_factory=dict)
    deal_par: list[float] = field(default_factory=list)


@dataclass(frozen=True)
class DealOutcome:
    """One duplicate deal: side a's (win, points, margin) per lineup, and decision times.

    ``roles``: per lineup, side a's role: the one the lineup sets (fixed roles), else
    its seat's :meth:`Game.seat_role`, or ``None`` where the game has no roles or side a
    holds several seats.
    """

    games: tuple[tuple[float, float, float], ...]
    times: dict[str, list[float]]
    roles: tuple[str | None, ...] = ()
    par: tuple[float, ...] = ()
    """With ``par``: per lineup, the win of b's policy in side a's seats."""


def play_lineup(
    game: Game[Any, Any, Any, Any],
    options: Any,
    seed: int,
    up: Lineup,
    policies: dict[str, Policy],
    times: dict[str, list[float]],
    budget: Budget | None = None,
    bid_budget: Budget | None = None,
) -> tuple[tuple[float, float, float], str | None]:
    """Play one game; return side a's win (1, ½ for a draw, 0), points and margin,
    and the role of side a's seat (if it holds one seat and the game has roles).

    Each decision's time is appended to ``times`` under its side.  The
    lineup's ``script`` (fixed roles) may take a decision out of the policies'
    hands; those are not timed, and its ``shown`` is what the policies see of
    each view.  ``bid_budget``, if given, replaces ``budget`` for the decisions
    of an auction (a view whose ``phase`` is ``"bidding"``).
    """
    lineup, script, shown = up.seats, up.script, up.shown
    rng = derive_rng(seed, "arena", "".join(lineup))
    state = game.new_state(options, seed)
    while not game.is_over(state):
        seat = game.to_act(state)[0]
        side = lineup[seat]
        view = game.view(state, seat)
        action = script(view) if script is not None else None
        if action is None:
            if shown is not None:
                view = shown(view)
            t0 = time.perf_counter()
            spend = budget
            if bid_budget is not None and getattr(view, "phase", None) == "bidding":
                spend = bid_budget
            with held_off():  # as the server's AI worker processes do (engine.collector)
                action = policies[side].choose(view, view.legal, rng, spend)
            times[side].append(time.perf_counter() - t0)
        state = game.apply(state, seat, action).state
    result = game.result(state)
    assert result is not None
    a_seats = [s for s, side in enumerate(lineup) if side == "a"]
    b_seats = [s for s, side in enumerate(lineup) if side == "b"]
    if not result.winners:
        win = 0.5
    else:
        win = 1.0 if any(s in result.winners for s in a_seats) else 0.0
    a_points = statistics.fmean(result.scores[s] for s in a_seats)
    b_points = statistics.fmean(result.scores[s] for s in b_seats)
    role = game.seat_role(result, a_seats[0]) if len(a_seats) == 1 else None
    return (win, a_points, a_points - b_points), role


def play_deal(
    game_id: str,
    raw_options: dict[str, Any],
    a: str,
    b: str,
    seed: int,
    index: int,
    budget: Budget | None = None,
    make_policy: Callable[[str, str], Policy] = make_policy,
    fixed_roles: bool = False,
    par: bool = False,
    bid_budget: Budget | None = None,
    anonymous: bool = False,
    role: str | None = None,
) -> DealOutcome:
    """Play deal number ``index`` of an arena run once per lineup (a worker's unit of work).

    ``fixed_roles``: the lineups of :data:`client_cli.arena_roles.FIXED_ROLES`
    (roles set by script) instead of side a through every seat.  ``par``: each
    lineup is played again with b's policy in a's seats (its times are not kept).
    Each policy is told which policy sits in each seat of the lineup, as a
    server table shows its AI seats (engine.policy.Peers), unless ``anonymous``.
    ``role`` (with ``fixed_roles``): only the lineups that give side a this role.
    """
    game = get_game(game_id)
    options = game.options(raw_options)
    policies = {"a": make_policy(game_id, a), "b": make_policy(game_id, b)}
    deal_seed = new_seed(derive_rng(seed, "arena-deal", index))
    times: dict[str, list[float]] = {"a": [], "b": []}
    if fixed_roles:
        ups = [up for up in FIXED_ROLES[game_id](options) if role in (None, up.role)]
    else:
        ups = [Lineup(seats) for seats in lineups(game, options)]

    def told(up: Lineup, sides: dict[str, Policy], names: dict[str, str]) -> dict[str, Policy]:
        if anonymous:
            return sides
        peers = tuple(names[side] for side in up.seats)
        return {side: seated(policy, peers) for side, policy in sides.items()}

    played = [
        play_lineup(
            game,
            options,
            deal_seed,
            up,
            told(up, policies, {"a": a, "b": b}),
            times,
            budget,
            bid_budget,
        )
        for up in ups
    ]
    par_wins: tuple[float, ...] = ()
    if par:
        both_b = {"a": policies["b"], "b": policies["b"]}
        spare: dict[str, list[float]] = {"a": [], "b": []}
        par_wins = tuple(
            play_lineup(
                game,
                options,
                deal_seed,
                up,
                told(up, both_b, {"a": b, "b": b}),
                spare,
                budget,
                bid_budget,
            )[0][0]
            for up in ups
        )
    return DealOutcome(
        tuple(g for g, _ in played),
        times,
        tuple(up.role or role for up, (_, role) in zip(ups, played, strict=True)),
        par_wins,
    )


def record(tally: ArenaTally, outcome: DealOutcome) -> None:
    """Add one duplicate deal's outcome to ``tally``."""
    games = outcome.games
    tally.games += len(games)
    tally.deal_wins.append(statistics.fmean(g[0] for g in games))
    tally.deal_points.append(statistics.fmean(g[1] for g in games))
    tally.deal_margin.append(statistics.fmean(g[2] for g in games))
    if outcome.par:
        tally.deal_par.append(statistics.fmean(outcome.par))
    if not tally.position_wins:
        tally.position_wins = [[] for _ in games]
    for position, (win, _, _) in enumerate(games):
        tally.position_wins[position].append(win)
        if win == 1.0:
            tally.a_wins += 1
        elif win == 0.0:
            tally.b_wins += 1
        else:
            tally.draws += 1
    for role, (win, _, _) in zip(outcome.roles, games, strict=False):
        if role is not None:
            tally.role_wins.setdefault(role, []).append(win)
    for side, times in outcome.times.items():
        tally.times[side].extend(times)


def ci95(values: Sequence[float]) -> float:
    """Half-width of the 95% normal-approximation interval of the mean of ``values``
    (infinite for fewer than two)."""
    if len(values) < 2:
        return math.inf
    return 1.96 * statistics.stdev(values) / math.sqrt(len(values))


def _rate_ci95(wins: int, n: int) -> float:
    """Half-width of the 95% normal-approximation interval of a binomial rate."""
    if n < 2:
        return math.inf
    p = wins / n
    return 1.96 * math.sqrt(p * (1.0 - p) / n)


def _pct(values: Sequence[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))
    return ordered[k] * 1000.0


def _outcomes(
    game_id: str,
    a: str,
    b: str,
    deals: int,
    seed: int,
    raw_options: dict[str, Any],
    make_policy: Callable[[str, str], Policy],
    budget: Budget | None,
    jobs: int,
    fixed_roles: bool,
    par: bool,
    bid_budget: Budget | None = None,
    anonymous: bool = False,
    role: str | None = None,
) -> Iterator[DealOutcome]:
    """The deals' outcomes in deal order, played here or by ``jobs`` worker processes."""
    args = (budget, make_policy, fixed_roles, par, bid_budget, anonymous, role)
    if jobs <= 1:
        for i in range(deals):
            yield play_deal(game_id, raw_options, a, b, seed, i, *args)
        return
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        futures = [
            pool.submit(play_deal, game_id, raw_options, a, b, seed, i, *args) for i in range(deals)
        ]
        for future in futures:
            yield future.result()


def run(
    game_id: str,
    a: str,
    b: str,
    deals: int,
    seed: int,
    raw_options: dict[str, Any],
    make_policy: Callable[[str, str], Policy] = make_policy,
    progress: Callable[[int, ArenaTally], None] | None = None,
    budget: Budget | None = None,
    jobs: int = 1,
    fixed_roles: bool = False,
    par: bool = False,
    per_deal: list[dict[str, Any]] | None = None,
    bid_budget: Budget | None = None,
    anonymous: bool = False,
    role: str | None = None,
) -> dict[str, Any]:
    """Play ``deals`` duplicate deals of ``a`` against ``b``; return the report.

    ``budget`` goes to every decision of both sides (``None``: each policy's
    default); an iteration-only budget makes the run reproducible.  With
    ``jobs`` > 1 the deals are shared among worker processes (``make_policy``
    must then be a module-level function); the report is the same.
    ``fixed_roles`` sets the roles by script (games in
    :data:`client_cli.arena_roles.FIXED_ROLES`) instead of letting them be bid for.
    ``par`` adds b's win rate in a's seats and a's edge over it (module docstring).
    ``per_deal``, if given, gets each deal's games in deal order: side a's win
    (1, ½, 0) and points per lineup (:mod:`client_cli.arena_compare` pairs two runs).
    ``bid_budget`` replaces ``budget`` in the auction (games that have one: the
    server's bid budget buys other counts than its play budget).
    ``anonymous``: the policies are not told who sits where (:func:`play_deal`).
    ``role`` (with ``fixed_roles``): only the lineups that give side a this role
    (Dou Dizhu: ``landlord`` or ``farmers``), at half the cost when one role is studied.
    """
    if fixed_roles and game_id not in FIXED_ROLES:
        raise KeyError(f"{game_id} has no fixed roles (only: {', '.join(sorted(FIXED_ROLES))})")
    game = get_game(game_id)
    options = game.options(raw_options)  # bad options fail here, before any worker starts
    if role is not None:
        if not fixed_roles:
            raise KeyError("a role can only be chosen with fixed roles")
        roles = sorted({up.role for up in FIXED_ROLES[game_id](options) if up.role})
        if role not in roles:
            raise KeyError(f"{game_id} has no role {role!r} (only: {', '.join(roles)})")
    make_policy(game_id, a)
    make_policy(game_id, b)
    if bid_budget is not None:
        if fixed_roles:
            raise KeyError(
                f"a bid budget does not apply to {game_id}:"
                " its auction is scripted with fixed roles"
            )
        if getattr(game.view(game.new_state(options, seed), 0), "phase", None) != "bidding":
            raise KeyError(f"a bid budget does not apply to {game_id}: it has no auction")
    tally = ArenaTally()
    outcomes = _outcomes(
        game_id,
        a,
        b,
        deals,
        seed,
        raw_options,
        make_policy,
        budget,
        jobs,
        fixed_roles,
        par,
        bid_budget,
        anonymous,
        role,
    )
    for i, outcome in enumerate(outcomes):
        record(tally, outcome)
        if per_deal is not None:
            per_deal.append(
                {"wins": [g[0] for g in outcome.games], "points": [g[1] for g in outcome.games]}
            )
        if progress is not None:
            progress(i + 1, tally)
    decided = tally.a_wins + tally.b_wins
    report: dict[str, Any] = {
        "game": game_id,
        "a": a,
        "b": b,
        "deals": deals,
        "games": tally.games,
        "seed": seed,
        "fixed_roles": fixed_roles,
        "role": role,
        "anonymous": anonymous,
        "win_rate": round(statistics.fmean(tally.deal_wins), 4),
        "ci95": round(ci95(tally.deal_wins), 4),
        "a_wins": tally.a_wins,
        "b_wins": tally.b_wins,
        "draws": tally.draws,
        "decided_win_rate": round(tally.a_wins / decided, 4) if decided else None,
        "decided_ci95": round(_rate_ci95(tally.a_wins, decided), 4) if decided else None,
        "win_rate_by_position": [round(statistics.fmean(w), 4) for w in tally.position_wins],
        "by_role": {
            role: {"games": len(wins), "win_rate": round(statistics.fmean(wins), 4)}
            for role, wins in sorted(tally.role_wins.items())
        },
        "points_per_deal": round(statistics.fmean(tally.deal_points), 4),
        "points_ci95": round(ci95(tally.deal_points), 4),
        "margin_per_deal": round(statistics.fmean(tally.deal_margin), 4),
        "margin_ci95": round(ci95(tally.deal_margin), 4),
        "decision_ms_p50": round(_pct(tally.times["a"], 0.5), 3),
        "decision_ms_p99": round(_pct(tally.times["a"], 0.99), 3),
        "b_decision_ms_p50": round(_pct(tally.times["b"], 0.5), 3),
        "b_decision_ms_p99": round(_pct(tally.times["b"], 0.99), 3),
        "compiled": len(compiled_loaded()),  # decision times depend on it (compiled.build)
    }
    if par:
        edges = [w - p for w, p in zip(tally.deal_wins, tally.deal_par, strict=True)]
        report["par_win_rate"] = round(statistics.fmean(tally.deal_par), 4)
        report["edge"] = round(statistics.fmean(edges), 4)
        report["edge_ci95"] = round(ci95(edges), 4)
    return report


def add_parser(sub: Any) -> None:
    """Register ``cardavia arena``."""
    p = sub.add_parser("arena", help="measure policy a against policy b on duplicate deals")
    p.add_argument("--game", required=True, choices=sorted(GAMES))
    p.add_argument("--a", required=True, help="policy of side a")
    p.add_argument("--b", required=True, help="policy of side b")
    p.add_argument("--deals", type=int, default=100, help="duplicate deals (default 100)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument(
        "--iterations",
        type=int,
        default=None,
        help="search iterations per decision, no time limit (reproducible runs)",
    )
    p.add_argument(
        "--bid-iterations",
        type=int,
        default=None,
        help="search iterations per auction decision (Dou Dizhu, Schafkopf; default:"
        " --iterations): the server's bid budget buys fewer than its play budget",
    )
    p.add_argument(
        "--think-ms",
        type=float,
        default=None,
        help="time cap per decision in ms (default: each policy's own budget)",
    )
    p.add_argument(
        "--jobs",
        type=int,
        default=1,
        help="worker processes playing deals in parallel (same results; default 1)",
    )
    p.add_argument(
        "--fixed-roles",
        action="store_true",
        help="set the roles instead of bidding (Dou Dizhu: a as landlord, then as both farmers)",
    )
    p.add_argument(
        "--role",
        default=None,
        help="with --fixed-roles: play only the lineups that give a this role"
        " (Dou Dizhu: landlord or farmers)",
    )
    p.add_argument(
        "--anonymous",
        action="store_true",
        help="do not tell the policies which policy sits in each seat (a server table shows"
        " its AI seats' levels, and hard models the server's own AI without hedges)",
    )
    p.add_argument(
        "--par",
        action="store_true",
        help="also play b in a's seats: report b's win rate there and a's edge over it",
    )
    p.add_argument(
        "--per-deal",
        metavar="FILE",
        default=None,
        help="also write every deal's games to FILE (JSON), to pair with another run"
        " (cardavia arena-compare)",
    )
    add_option_argument(p, "deals=1")
    p.set_defaults(func=_main)


def _main(args: argparse.Namespace) -> int:
    if args.deals < 1:
        print("cardavia arena: --deals must be at least 1")
        return 2
    if args.jobs < 1:
        print("cardavia arena: --jobs must be at least 1")
        return 2
    if args.bid_iterations is not None and args.bid_iterations < 1:
        print("cardavia arena: --bid-iterations must be at least 1")
        return 2
    budget = None
    seconds = None if args.think_ms is None else args.think_ms / 1000.0
    if args.iterations is not None or args.think_ms is not None:
        budget = Budget(iterations=args.iterations, seconds=seconds)
    bid_budget = None
    if args.bid_iterations is not None:
        bid_budget = Budget(iterations=args.bid_iterations, seconds=seconds)
    started = time.perf_counter()
    per_deal: list[dict[str, Any]] | None = None
    if args.per_deal:
        try:  # a file that cannot be written fails now, not after the run
            open(args.per_deal, "w", encoding="utf-8").close()
        except OSError as exc:
            print(f"cardavia arena: --per-deal: {exc}")
            return 2
        per_deal = []

    def progress(done: int, tally: ArenaTally) -> None:
        if done == args.deals or done % max(1, args.deals // 10) == 0:
            rate = statistics.fmean(tally.deal_wins)
            print(
                f"  {done}/{args.deals} deals, a wins {rate:.3f}, "
                f"{time.perf_counter() - started:.0f}s",
                file=sys.stderr,
                flush=True,
            )

    try:
        report = run(
            args.game,
            args.a,
            args.b,
            args.deals,
            args.seed,
            dict(args.option),
            progress=progress,
            budget=budget,
            jobs=args.jobs,
            fixed_roles=args.fixed_roles,
            par=args.par,
            per_deal=per_deal,
            bid_budget=bid_budget,
            anonymous=args.anonymous,
            role=args.role,
        )
    except (KeyError, OptionsError, ImportError) as exc:
        print(f"cardavia arena: {exc}")
        return 2
    if per_deal is not None:
        keys = ("game", "a", "b", "seed", "deals", "fixed_roles", "role", "anonymous")
        run_keys = {k: report[k] for k in keys}
        run_keys |= {
            "options": dict(args.option),
            "iterations": args.iterations,
            "bid_iterations": args.bid_iterations,
            "think_ms": args.think_ms,
        }
        with open(args.per_deal, "w", encoding="utf-8") as out:
            json.dump({"run": run_keys, "deals": per_deal}, out)
    print(
        f"{report['game']}: {report['a']} vs {report['b']}, {report['deals']} duplicate deals "
        f"({report['games']} games)"
    )
    print(f"  win rate of a: {report['win_rate']:.3f} ± {report['ci95']:.3f} (95%)")
    if "par_win_rate" in report:
        print(
            f"  par (b in a's seats): {report['par_win_rate']:.3f}; edge of a "
            f"{report['edge']:+.3f} ± {report['edge_ci95']:.3f}"
        )
    if report["decided_win_rate"] is not None and report["draws"]:
        print(
            f"  decided games: a {report['a_wins']}, b {report['b_wins']} "
            f"({report['draws']} drawn): {report['decided_win_rate']:.3f} "
            f"± {report['decided_ci95']:.3f}"
        )
    positions = ", ".join(f"{w:.3f}" for w in report["win_rate_by_position"])
    print(f"  win rate of a by position: {positions}")
    for role, figures in report["by_role"].items():
        print(f"  as {role}: {figures['win_rate']:.3f} in {figures['games']} games")
    print(
        f"  points per deal: {report['points_per_deal']:.3f} ± {report['points_ci95']:.3f}, "
        f"margin {report['margin_per_deal']:.3f} ± {report['margin_ci95']:.3f}"
    )
    print(
        f"  decision time of a: p50 {report['decision_ms_p50']} ms, "
        f"p99 {report['decision_ms_p99']} ms"
        + (f" ({report['compiled']} modules compiled)" if report["compiled"] else "")
    )
    print(json.dumps(report, sort_keys=True))
    return 0
