"""``cardavia lobby`` against a real server: tables, games, JSON, clear errors."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from client_cli.client import Client
from client_cli.main import main
from tests.client_cli.live_server import LiveServer, live_server


@pytest.fixture(scope="module")
def srv() -> Iterator[LiveServer]:
    with live_server() as server:
        yield server


def test_lists_waiting_table_with_its_seats(
    srv: LiveServer, capsys: pytest.CaptureFixture[str]
) -> None:
    alice = srv.run(Client.connect(srv.url, "alice"))
    try:
        joined = srv.run(
            alice.create_table("cicera", {"seat": 0, "ai": [{"seat": 2, "level": "random"}]})
        )
        assert main(["lobby", "--url", srv.url]) == 0
        out = capsys.readouterr().out
        row = next(line for line in out.splitlines() if line.startswith(joined.table.id))
        assert "cicera" in row and "waiting" in row
        assert "0: alice" in row and "2: AI 2 (random)" in row and "1: (empty seat 1)" in row

        assert main(["lobby", "--url", srv.url, "--game", "scopa"]) == 0
        assert joined.table.id not in capsys.readouterr().out
    finally:
        srv.run(alice.close())


def test_json_and_games(srv: LiveServer, capsys: pytest.CaptureFixture[str]) -> None:
    bob = srv.run(Client.connect(srv.url, "bob"))
    try:
        joined = srv.run(bob.create_table("schafkopf", {"seat": 1}))
        assert main(["lobby", "--url", srv.url, "--json", "--games"]) == 0
        data = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
        tables = {t["id"]: t for t in data["tables"]}
        assert tables[joined.table.id]["game"] == "schafkopf"
        assert tables[joined.table.id]["seats"][1]["name"] == "bob"
        assert {g["id"] for g in data["games"]} >= {"scopa", "cicera", "doudizhu", "schafkopf"}

        assert main(["lobby", "--url", srv.url, "--games"]) == 0
        out = capsys.readouterr().out
        assert "Dou Dizhu" in out and "3 seats" in out
    finally:
        srv.run(bob.close())


def test_empty_lobby_says_so(srv: LiveServer, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lobby", "--url", srv.url, "--game", "nosuchgame"]) == 0
    assert "No nosuchgame tables." in capsys.readouterr().out


def test_unreachable_server_is_one_clear_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lobby", "--url", "ws://127.0.0.1:1"]) == 3
    err = capsys.readouterr().err
    assert "cannot reach the server at ws://127.0.0.1:1" in err
    assert "Traceback" not in err


def test_bad_url(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lobby", "--url", "http//nowhere"]) == 2
    assert "bad server URL" in capsys.readouterr().err
