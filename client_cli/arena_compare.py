"""``cardavia arena-compare NEW OLD``: two arena runs of the same deals, paired deal by deal.

Two versions of a policy (two checkouts, two settings) measured on the same
duplicate deals differ by far less than two independent win rates' intervals
suggest: a deal's cards favour side a in both runs alike.  So each deal's
win rate in ``NEW`` less its win rate in ``OLD`` is taken, and the mean of
those differences is reported with a 95% interval over the deals (normal
approximation), beside each run's own win rate and points per deal.

Both files come from ``cardavia arena ... --per-deal FILE``.  They must be
runs of the same game, opponent, seed, options and roles (so deal *i* is the
same games in both); only the deals both hold are paired.  The budgets may
differ (that is how two think times are compared); the report names them.
More pairs (``NEW OLD NEW OLD ...``, e.g. one per seed) pool their deals into
one comparison.  The last line of the output is one JSON object (``deals``,
``new_win_rate``, ``old_win_rate``, ``difference``, ``difference_ci95``,
``points_difference``, ``points_difference_ci95``, and the runs' budgets
``new_budget`` and ``old_budget``).
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
from collections.abc import Sequence
from typing import Any

from client_cli.arena import ci95

SAME_DEALS = ("game", "b", "seed", "fixed_roles", "role", "options")
"""What two runs must share to have dealt the same cards (side a's policy may differ)."""


class CompareError(ValueError):
    """Two per-deal files that cannot be paired; the message says why."""


def load(path: str) -> dict[str, Any]:
    """A ``--per-deal`` file; raise :class:`CompareError` if it is not one."""
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError) as exc:
        raise CompareError(f"{path}: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("run"), dict):
        raise CompareError(f"{path}: not a file written by cardavia arena --per-deal")
    deals = data.get("deals")
    if not isinstance(deals, list) or not all(_is_deal(d) for d in deals):
        raise CompareError(f"{path}: its deals are missing or malformed")
    return data


def _is_deal(deal: object) -> bool:
    """Whether ``deal`` is one deal's games: as many wins as points, all numbers."""
    if not isinstance(deal, dict):
        return False
    wins, points = deal.get("wins"), deal.get("points")
    return (
        isinstance(wins, list)
        and isinstance(points, list)
        and 0 < len(wins) == len(points)
        and all(_number(v) for v in (*wins, *points))
    )


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


BUDGET = ("iterations", "bid_iterations", "think_ms")
"""What a run spent on each decision (it may differ between the two sides of a pair)."""


def budget(run: dict[str, Any]) -> str:
    """A run's budget as text: ``iterations 1400, bid_iterations 300`` or ``own budget``."""
    parts = [f"{key} {run[key]}" for key in BUDGET if run.get(key) is not None]
    return ", ".join(parts) or "own budget"


def _paired_deals(
    new: dict[str, Any], old: dict[str, Any]
) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """The deals both runs hold, paired; raise :class:`CompareError` for other cards."""
    for key in SAME_DEALS:
        if new["run"].get(key) != old["run"].get(key):
            raise CompareError(
                f"the runs differ in {key} ({new['run'].get(key)!r} against "
                f"{old['run'].get(key)!r}): their deals are not the same cards"
            )
    n = min(len(new["deals"]), len(old["deals"]))
    pairs = list(zip(new["deals"][:n], old["deals"][:n], strict=True))
    for i, (a, b) in enumerate(pairs):
        if len(a["wins"]) != len(b["wins"]):
            raise CompareError(
                f"deal {i} has {len(a['wins'])} games in one run, not {len(b['wins'])}"
            )
    return pairs


def compare(new: dict[str, Any], old: dict[str, Any]) -> dict[str, Any]:
    """The paired comparison of two loaded runs (see the module docstring)."""
    return compare_pooled([(new, old)])


def compare_pooled(runs: Sequence[tuple[dict[str, Any], dict[str, Any]]]) -> dict[str, Any]:
    """The paired comparison of the deals of several ``(new, old)`` pairs of loaded runs
    pooled (one pair per seed, say); each pair must hold the same cards."""
    for side, index in (("new", 0), ("old", 1)):
        first = runs[0][index]["run"]
        for pair in runs[1:]:
            other = pair[index]["run"]
            if (other.get("a"), budget(other)) != (first.get("a"), budget(first)):
                raise CompareError(
                    f"the {side} runs differ in policy or budget ({other.get('a')}, "
                    f"{budget(other)} against {first.get('a')}, {budget(first)}): "
                    "pooled pairs compare the same two players"
                )
    seen: dict[str, int] = {}
    for i, (run, _) in enumerate(runs, 1):
        deals = json.dumps([run["run"].get(key) for key in SAME_DEALS], sort_keys=True)
        if deals in seen:
            raise CompareError(f"pair {i} plays the deals of pair {seen[deals]} again")
        seen[deals] = i
    pairs = [pair for a, b in runs for pair in _paired_deals(a, b)]
    if not pairs:
        raise CompareError("no deal to pair")
    n = len(pairs)
    new, old = runs[0]  # all pairs share each side's policy and budget (checked above)
    new_wins = [statistics.fmean(a["wins"]) for a, _ in pairs]
    old_wins = [statistics.fmean(b["wins"]) for _, b in pairs]
    diffs = [x - y for x, y in zip(new_wins, old_wins, strict=True)]
    points = [statistics.fmean(a["points"]) - statistics.fmean(b["points"]) for a, b in pairs]
    return {
        "deals": n,
        "new": new["run"].get("a"),
        "old": old["run"].get("a"),
        "new_win_rate": round(statistics.fmean(new_wins), 4),
        "old_win_rate": round(statistics.fmean(old_wins), 4),
        "difference": round(statistics.fmean(diffs), 4),
        "difference_ci95": round(ci95(diffs), 4),
        "points_difference": round(statistics.fmean(points), 4),
        "points_difference_ci95": round(ci95(points), 4),
        "new_budget": budget(new["run"]),
        "old_budget": budget(old["run"]),
    }


def add_parser(sub: Any) -> None:
    """Register ``cardavia arena-compare``."""
    p = sub.add_parser(
        "arena-compare",
        help="pair two arena runs of the same deals (written with --per-deal)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("new", help="per-deal file of the run to judge")
    p.add_argument("old", help="per-deal file of the run to compare it with")
    p.add_argument(
        "more",
        nargs="*",
        metavar="NEW OLD",
        help="more pairs of runs (other seeds) whose deals are pooled with the first pair's",
    )
    p.set_defaults(func=_main)


def _main(args: argparse.Namespace) -> int:
    paths = [args.new, args.old, *args.more]
    if len(paths) % 2:
        print(f"cardavia arena-compare: {paths[-1]} has no run to pair it with")
        return 2
    try:
        runs = [(load(paths[i]), load(paths[i + 1])) for i in range(0, len(paths), 2)]
        report = compare_pooled(runs)
    except CompareError as exc:
        print(f"cardavia arena-compare: {exc}")
        return 2
    pooled = f" in {len(runs)} pairs of runs" if len(runs) > 1 else ""
    print(f"new: {report['new_budget']}; old: {report['old_budget']}")
    print(
        f"{report['deals']} deals{pooled}: new {report['new_win_rate']:.3f}, old "
        f"{report['old_win_rate']:.3f}; difference {report['difference']:+.3f} "
        f"± {report['difference_ci95']:.3f} (95%, paired by deal)"
    )
    print(
        f"  points per deal: {report['points_difference']:+.3f} "
        f"± {report['points_difference_ci95']:.3f}"
    )
    print(json.dumps(report, sort_keys=True))
    return 0
