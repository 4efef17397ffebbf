"""``cardavia arena-compare NEW OLD``: two arena runs of the same deals, paired deal by deal.

Two versions of a policy (two checkouts, two settings) measured on the same
duplicate deals differ by far less than two independent win rates' intervals
suggest: a deal's cards favour side a in both runs alike.  So each deal's
win rate in ``NEW`` less its win rate in ``OLD`` is taken, and the mean of
those differences is reported with a 95% interval over the deals (normal
approximation), beside each run's own win rate and points per deal.

Both files come from ``cardavia arena ... --per-deal FILE``.  They must be
runs of the same game, opponent, seed, options and roles (so deal *i* is the
same cards in both); only the deals both hold are paired.  The last line of
the output is one JSON object (``deals``, ``new_win_rate``,
``old_win_rate``, ``difference``, ``difference_ci95``,
``points_difference``, ``points_difference_ci95``).
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
from typing import Any

from client_cli.arena import ci95

SAME_DEALS = ("game", "b", "seed", "fixed_roles", "options")
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


def compare(new: dict[str, Any], old: dict[str, Any]) -> dict[str, Any]:
    """The paired comparison of two loaded runs (see the module docstring)."""
    for key in SAME_DEALS:
        if new["run"].get(key) != old["run"].get(key):
            raise CompareError(
                f"the runs differ in {key} ({new['run'].get(key)!r} against "
                f"{old['run'].get(key)!r}): their deals are not the same cards"
            )
    n = min(len(new["deals"]), len(old["deals"]))
    if n == 0:
        raise CompareError("no deal to pair")
    pairs = list(zip(new["deals"][:n], old["deals"][:n], strict=True))
    for i, (a, b) in enumerate(pairs):
        if len(a["wins"]) != len(b["wins"]):
            raise CompareError(
                f"deal {i} has {len(a['wins'])} games in one run, not {len(b['wins'])}"
            )
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
    p.set_defaults(func=_main)


def _main(args: argparse.Namespace) -> int:
    try:
        report = compare(load(args.new), load(args.old))
    except CompareError as exc:
        print(f"cardavia arena-compare: {exc}")
        return 2
    print(
        f"{report['deals']} deals: new {report['new_win_rate']:.3f}, old "
        f"{report['old_win_rate']:.3f}; difference {report['difference']:+.3f} "
        f"± {report['difference_ci95']:.3f} (95%, paired by deal)"
    )
    print(
        f"  points per deal: {report['points_difference']:+.3f} "
        f"± {report['points_difference_ci95']:.3f}"
    )
    print(json.dumps(report, sort_keys=True))
    return 0
