"""``cardavia selfplay``: whole games between policies, reproducible from the seed."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from client_cli.main import main
from client_cli.selfplay import run
from engine.registry import GAMES, policy_names


def test_selfplay_prints_a_json_summary_last(capsys):
    assert (
        main(
            [
                "selfplay",
                "--game",
                "scopa",
                "--games",
                "20",
                "--seed",
                "1",
                "--policies",
                "greedy,random",
            ]
        )
        == 0
    )
    last = capsys.readouterr().out.strip().splitlines()[-1]
    report = json.loads(last)
    assert report["game"] == "scopa"
    assert report["games"] == 20
    assert sum(report["wins"]) + report["draws"] == 20
    assert len(report["avg_points"]) == 2
    assert report["decisions_per_s"] > 0
    assert report["policies"] == ["greedy", "random"]


def test_same_seed_same_result_and_another_seed_differs():
    a = run("scopa", 15, 1, ["greedy", "random"], {})
    b = run("scopa", 15, 1, ["greedy", "random"], {})
    c = run("scopa", 15, 2, ["greedy", "random"], {})
    for r in (a, b, c):
        r.pop("decisions_per_s")
    assert a == b
    assert a != c


def test_greedy_beats_random_at_scopa():
    report = run("scopa", 60, 3, ["greedy", "random"], {})
    assert report["wins"][0] > report["wins"][1] * 2


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_selfplay_runs_every_registered_game(game_id):
    names = list(policy_names(game_id))
    report = run(game_id, 3, 1, names, {})
    assert report["games"] == 3
    assert len(report["wins"]) == len(report["policies"])


def test_bad_arguments_are_reported_not_raised(capsys):
    assert main(["selfplay", "--game", "scopa", "--policies", "wizard"]) == 2
    assert "unknown policy 'wizard'" in capsys.readouterr().out
    assert main(["selfplay", "--game", "scopa", "-o", "target=0"]) == 2
    assert "target" in capsys.readouterr().out


def test_console_script_entry_point_runs():
    out = subprocess.run(
        [sys.executable, "-m", "client_cli.main", "selfplay", "--game", "scopa", "--games", "2"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout.strip().splitlines()[-1])["games"] == 2
