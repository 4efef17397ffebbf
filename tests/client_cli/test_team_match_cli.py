"""``cardavia team-match`` against a real server: a match created and listed, joined by
three library clients, played to its end by ``play --bot`` and shown; refusals as
one-line errors."""

from __future__ import annotations

import asyncio
import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from client_cli.client import Client, random_chooser
from client_cli.main import main
from client_cli.team_play import play_match
from client_cli.tournament import bot_player
from tests.client_cli.live_server import FAST, LiveServer, live_server

PASSWORD = "correct horse battery"


@pytest.fixture(scope="module")
def srv() -> Iterator[LiveServer]:
    with live_server(FAST.replace(login_backoff=0.01)) as server:
        yield server


@pytest.fixture(autouse=True)
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    return tmp_path / "cardavia" / "accounts.json"


async def _others(url: str, match_id: str) -> list[Client]:
    clients = []
    for name in ("Bob", "Cat", "Dan"):
        client = await Client.connect(url, name)
        await client.register(name, PASSWORD)
        await client.join_team_match(match_id)
        clients.append(client)
    return clients


async def _play(clients: list[Client], match_id: str) -> None:
    try:
        await asyncio.gather(
            *(play_match(c, match_id, bot_player(random_chooser(i))) for i, c in enumerate(clients))
        )
    finally:
        for c in clients:
            await c.close()


def test_create_join_play_and_show(
    srv: LiveServer, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(PASSWORD + "\n"))
    login = ["login", "--url", srv.url, "--name", "Ann", "--password-stdin", "--register"]
    assert main(login) == 0
    capsys.readouterr()
    assert main(["team-match", "list", "--url", srv.url]) == 0
    assert "No public team matches" in capsys.readouterr().out
    create = ["team-match", "create", "scopa", "--url", srv.url, "--boards", "1"]
    assert main([*create, "--level", "easy", "--json"]) == 0
    made = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    mid = made["match_id"]
    assert made["status"] == "forming" and made["my_team"] == "a"
    assert main(["team-match", "list", "--url", srv.url]) == 0
    assert mid in capsys.readouterr().out
    assert main(["team-match", "play", "Mnothing", "--url", srv.url, "--bot"]) != 0
    assert "unknown_match" in capsys.readouterr().err
    clients = srv.run(_others(srv.url, mid))
    others = asyncio.run_coroutine_threadsafe(_play(clients, mid), srv.loop)
    assert main(["team-match", "play", mid, "--url", srv.url, "--bot", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "The match is over." in out and "team A: 0: Ann" in out
    others.result(30)
    assert main(["team-match", "show", mid, "--url", srv.url, "--json"]) == 0
    shown = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert shown["status"] == "finished" and shown["results"][0]["imps"] is not None
    assert main(["team-match", "board", mid, "1", "--url", srv.url]) == 0
    board = capsys.readouterr().out
    assert "1 replays of the other tables" in board
    assert f"{shown['results'][0]['imps']:+d} IMPs for team A" in board  # the board's line
    assert main(["team-match", "leave", mid, "--url", srv.url]) != 0
    assert "match_started" in capsys.readouterr().err
