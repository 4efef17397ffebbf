"""``cardavia tournaments`` and ``cardavia join-tournament ID --bot`` against a real server:
created, listed, joined and played to the end, standings printed."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from client_cli.main import main
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


def test_create_list_join_and_standings(
    srv: LiveServer, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(PASSWORD + "\n"))
    login = ["login", "--url", srv.url, "--name", "Ann", "--password-stdin", "--register"]
    assert main(login) == 0
    capsys.readouterr()
    assert main(["tournaments", "--url", srv.url]) == 0
    assert "No tournaments" in capsys.readouterr().out
    create = ["tournaments", "--url", srv.url, "--create", "Evening", "--game", "doudizhu"]
    assert main([*create, "--rounds", "1", "--start-in", "0", "--json"]) == 0
    made = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert made["name"] == "Evening" and made["status"] == "scheduled"
    assert main(["join-tournament", made["id"], "--url", srv.url, "--bot", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert f"{made['id']} is over" in out and "1. Ann" in out
    assert main(["tournaments", "--url", srv.url, "--standings", made["id"], "--json"]) == 0
    shown = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert shown["tournament"]["status"] == "finished"
    assert [(s["name"], s["games"]) for s in shown["standings"]] == [("Ann", 1)]
    assert main(["tournaments", "--url", srv.url, "--standings", "Tnope"]) != 0
