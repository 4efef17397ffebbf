"""``cardavia bot`` against a real server: bots take seats, play, report JSON results."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from client_cli.client import Client
from client_cli.main import main
from engine import registry
from tests.client_cli.live_server import LiveServer, live_server
from tests.told import Told

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def srv() -> Iterator[LiveServer]:
    with live_server() as server:
        yield server


def last_json(out: str) -> dict[str, Any]:
    lines = out.strip().splitlines()
    data: dict[str, Any] = json.loads(lines[-1])
    return data


def test_two_bots_quick_play_each_other(
    srv: LiveServer, capsys: pytest.CaptureFixture[str]
) -> None:
    rc = main(
        ["bot", "--url", srv.url, "--game", "scopa", "--count", "2", "--policy", "random",
         "--seed", "3"]
    )  # fmt: skip
    out = capsys.readouterr().out
    assert rc == 0, out
    data = last_json(out)
    assert data["game"] == "scopa" and data["policy"] == "random"
    bots = data["bots"]
    assert [b["name"] for b in bots] == ["bot-1", "bot-2"]
    assert bots[0]["table"] == bots[1]["table"]  # quick-play seated them together
    assert sorted(b["seat"] for b in bots) == [0, 1]
    assert bots[0]["scores"] == bots[1]["scores"]
    assert max(bots[0]["scores"]) >= 11  # a whole match to the default target
    for b in bots:
        assert b["error"] is None and b["moves"] > 0
        assert b["won"] == (b["seat"] in b["winners"])
    assert "bot-1: table" in out


@pytest.mark.parametrize("game", ["cicera", "doudizhu", "schafkopf"])
def test_bot_fills_a_table_with_ai_for_every_game(
    srv: LiveServer, capsys: pytest.CaptureFixture[str], game: str
) -> None:
    assert main(["bot", "--url", srv.url, "--game", game, "--policy", "greedy"]) == 0
    (bot,) = last_json(capsys.readouterr().out)["bots"]
    assert bot["error"] is None and bot["moves"] > 0
    assert len(bot["scores"]) == {"cicera": 4, "doudizhu": 3, "schafkopf": 4}[game]


def test_bot_joins_a_given_table(srv: LiveServer, capsys: pytest.CaptureFixture[str]) -> None:
    owner = srv.run(Client.connect(srv.url, "owner"))
    try:
        joined = srv.run(
            owner.create_table(
                "doudizhu", {"seat": None, "ai": [{"seat": 1}, {"seat": 2, "level": "random"}]}
            )
        )
        assert (
            main(["bot", "--url", srv.url, "--game", "doudizhu", f"--table={joined.table.id}"]) == 0
        )
        (bot,) = last_json(capsys.readouterr().out)["bots"]
        assert bot["table"] == joined.table.id and bot["seat"] == 0
        assert sum(bot["scores"]) == 0  # Dou Dizhu is zero-sum
    finally:
        srv.run(owner.close())


def test_a_bot_is_told_who_sits_at_its_table(
    srv: LiveServer, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """As the server tells its own AI: the level of each AI seat, ``None`` for a person."""
    real = registry.get_policy
    told: list[tuple[str | None, ...]] = []
    monkeypatch.setattr(registry, "get_policy", lambda game, name: Told(real(game, "greedy"), told))
    owner = srv.run(Client.connect(srv.url, "owner"))
    try:
        ai = [{"seat": 1, "level": "normal"}, {"seat": 2, "level": "random"}]
        joined = srv.run(owner.create_table("doudizhu", {"seat": None, "ai": ai}))
        args = ["bot", "--url", srv.url, "--game", "doudizhu", f"--table={joined.table.id}"]
        assert main(args) == 0
        (bot,) = last_json(capsys.readouterr().out)["bots"]
        assert bot["error"] is None and bot["moves"] > 0
        assert told == [(None, "normal", "random")]  # told once: the seating held
    finally:
        srv.run(owner.close())


def test_unknown_table_game_and_policy(srv: LiveServer, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bot", "--url", srv.url, "--game", "scopa", "--table", "nope"]) == 1
    assert "table 'nope' not found" in capsys.readouterr().err
    assert main(["bot", "--url", srv.url, "--game", "chess"]) == 2
    assert "unknown game 'chess'" in capsys.readouterr().err
    assert main(["bot", "--url", srv.url, "--game", "scopa", "--policy", "oracle"]) == 2
    assert "unknown policy 'oracle'" in capsys.readouterr().err


def test_unreachable_server(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bot", "--url", "ws://127.0.0.1:1", "--game", "scopa"]) == 3
    assert "cannot reach the server" in capsys.readouterr().err


def test_readme_example_bot_runs(srv: LiveServer) -> None:
    """examples/bot.py (docs/bots.md, "Write a bot") plays a whole game."""
    proc = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "bot.py"), srv.url, "cicera"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert "playing cicera at table" in proc.stdout
    assert "scores [" in proc.stdout and "winners [" in proc.stdout
