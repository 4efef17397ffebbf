"""``cardavia arena-compare``: two runs of the same deals, paired deal by deal."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from client_cli.arena import run
from client_cli.arena_compare import CompareError, compare, load
from client_cli.main import main

pytestmark = pytest.mark.heavy  # tens of seconds: run first (tests/conftest.py)


def _arena(tmp_path: Path, name: str, a: str, *extra: str) -> Path:
    out = tmp_path / name
    args = ["arena", "--game", "scopa", "--a", a, "--b", "random", "--deals", "6"]
    assert main([*args, "--seed", "3", "-o", "target=3", *extra, "--per-deal", str(out)]) == 0
    return out


def test_per_deal_holds_each_deals_games_in_order():
    per_deal: list[dict[str, object]] = []
    report = run("scopa", "greedy", "random", 5, 2, {}, per_deal=per_deal)
    assert len(per_deal) == 5 and all(len(d["wins"]) == 2 for d in per_deal)  # type: ignore[arg-type]
    deal_rates = [sum(d["wins"]) / 2 for d in per_deal]  # type: ignore[arg-type]
    assert round(sum(deal_rates) / 5, 4) == report["win_rate"]


def test_a_run_against_itself_differs_by_nothing(tmp_path, capsys):
    first = _arena(tmp_path, "a.json", "greedy")
    again = _arena(tmp_path, "b.json", "greedy")
    capsys.readouterr()
    assert main(["arena-compare", str(first), str(again)]) == 0
    report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert report["deals"] == 6
    assert report["difference"] == 0 and report["difference_ci95"] == 0
    assert report["new_win_rate"] == report["old_win_rate"]


def test_the_difference_is_the_mean_of_the_deals_differences(tmp_path):
    greedy = load(str(_arena(tmp_path, "g.json", "greedy")))
    rand = load(str(_arena(tmp_path, "r.json", "random")))
    report = compare(greedy, rand)
    diffs = [
        sum(a["wins"]) / len(a["wins"]) - sum(b["wins"]) / len(b["wins"])
        for a, b in zip(greedy["deals"], rand["deals"], strict=True)
    ]
    assert report["difference"] == round(sum(diffs) / len(diffs), 4)
    assert report["new"] == "greedy" and report["old"] == "random"
    assert report["difference_ci95"] > 0


def test_runs_of_other_deals_are_refused(tmp_path, capsys):
    first = _arena(tmp_path, "a.json", "greedy")
    other = tmp_path / "c.json"
    args = ["arena", "--game", "scopa", "--a", "greedy", "--b", "random", "--deals", "6"]
    assert main([*args, "--seed", "4", "-o", "target=3", "--per-deal", str(other)]) == 0
    capsys.readouterr()
    assert main(["arena-compare", str(first), str(other)]) == 2
    assert "differ in seed" in capsys.readouterr().out


def test_a_one_role_run_is_not_paired_with_a_run_of_both_roles(tmp_path, capsys):
    args = ["arena", "--game", "doudizhu", "--a", "greedy", "--b", "random", "--deals", "2"]
    both, alone = tmp_path / "both.json", tmp_path / "alone.json"
    assert main([*args, "--fixed-roles", "--per-deal", str(both)]) == 0
    assert main([*args, "--fixed-roles", "--role", "landlord", "--per-deal", str(alone)]) == 0
    capsys.readouterr()
    assert main(["arena-compare", str(alone), str(both)]) == 2
    assert "differ in role" in capsys.readouterr().out
    assert main(["arena-compare", str(alone), str(alone)]) == 0


@pytest.mark.parametrize(
    "text",
    [
        "not json",
        "[]",
        '{"run": {}, "deals": [{}]}',
        '{"run": {}, "deals": [{"wins": ["1"], "points": [2]}]}',
        '{"run": {}, "deals": [{"wins": [1, 0], "points": [2]}]}',
        '{"run": {}, "deals": [{"wins": [true], "points": [2]}]}',
    ],
)
def test_a_file_not_written_by_the_arena_is_refused(tmp_path, text):
    bad = tmp_path / "bad.json"
    bad.write_text(text)
    with pytest.raises(CompareError):
        load(str(bad))


def test_an_unwritable_per_deal_file_fails_before_the_run(tmp_path, capsys):
    target = tmp_path / "missing" / "deals.json"
    args = ["arena", "--game", "scopa", "--a", "greedy", "--b", "random", "--deals", "2"]
    assert main([*args, "--per-deal", str(target)]) == 2
    assert "--per-deal" in capsys.readouterr().out


def test_a_reader_that_goes_away_stops_the_command_quietly(tmp_path):
    # ``cardavia arena-compare NEW OLD | head -1``: the pipe closes before the report
    first = _arena(tmp_path, "a.json", "greedy")
    again = _arena(tmp_path, "b.json", "greedy")
    read, write = os.pipe()
    os.close(read)  # nobody will read: the first write meets a broken pipe
    argv = [sys.executable, "-m", "client_cli.main", "arena-compare", str(first), str(again)]
    done = subprocess.run(argv, stdout=write, stderr=subprocess.PIPE, text=True, timeout=60)
    os.close(write)
    assert done.returncode == 141
    assert done.stderr == ""  # no traceback


def test_the_report_names_both_runs_budgets(tmp_path, capsys):
    fixed = _arena(tmp_path, "a.json", "greedy", "--iterations", "40")
    own = _arena(tmp_path, "b.json", "greedy")
    capsys.readouterr()
    assert main(["arena-compare", str(fixed), str(own)]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0] == "new: iterations 40; old: own budget"
    report = json.loads(lines[-1])
    assert (report["new_budget"], report["old_budget"]) == ("iterations 40", "own budget")


def _seeded(tmp_path: Path, name: str, a: str, seed: int) -> Path:
    out = tmp_path / name
    args = ["arena", "--game", "scopa", "--a", a, "--b", "random", "--deals", "4"]
    assert main([*args, "--seed", str(seed), "-o", "target=3", "--per-deal", str(out)]) == 0
    return out


def test_pairs_of_runs_on_other_seeds_pool_their_deals(tmp_path, capsys):
    files = {
        (a, seed): _seeded(tmp_path, f"{a}{seed}.json", a, seed)
        for a in ("greedy", "random")
        for seed in (1, 2)
    }
    one = compare(load(str(files["greedy", 1])), load(str(files["random", 1])))
    two = compare(load(str(files["greedy", 2])), load(str(files["random", 2])))
    capsys.readouterr()
    argv = [str(files[a, s]) for s in (1, 2) for a in ("greedy", "random")]
    assert main(["arena-compare", *argv]) == 0
    out = capsys.readouterr().out
    assert "8 deals in 2 pairs of runs" in out
    report = json.loads(out.strip().splitlines()[-1])
    assert report["deals"] == 8
    assert report["difference"] == pytest.approx(
        (one["difference"] + two["difference"]) / 2, abs=1e-4
    )


def test_pooled_pairs_must_compare_the_same_players_on_new_deals(tmp_path, capsys):
    g1, r1 = _seeded(tmp_path, "g1.json", "greedy", 1), _seeded(tmp_path, "r1.json", "random", 1)
    g2, r2 = _seeded(tmp_path, "g2.json", "greedy", 2), _seeded(tmp_path, "r2.json", "random", 2)
    capsys.readouterr()
    assert main(["arena-compare", str(g1), str(r1), str(r2), str(g2)]) == 2
    assert "the new runs differ in policy or budget" in capsys.readouterr().out
    assert main(["arena-compare", str(g1), str(r1), str(g1), str(r1)]) == 2
    assert "pair 2 plays the deals of pair 1 again" in capsys.readouterr().out
    assert main(["arena-compare", str(g1), str(r1), str(g2)]) == 2
    assert "has no run to pair it with" in capsys.readouterr().out
