"""``cardavia watch`` against a real server: the public game as it happens, nothing private."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from client_cli.client import Client
from client_cli.main import main
from tests.client_cli.live_server import LiveServer, live_server


@pytest.fixture(scope="module")
def srv() -> Iterator[LiveServer]:
    with live_server() as server:
        yield server


def test_watches_a_game_to_its_end(srv: LiveServer, capsys: pytest.CaptureFixture[str]) -> None:
    owner = srv.run(Client.connect(srv.url, "owner"))
    try:
        # seat 0 stays empty until the AI takes it after fill_after: the watcher is in first
        opts = {"seat": None, "ai": [{"seat": 1}, {"seat": 2}], "fill_after": 1.5}
        joined = srv.run(owner.create_table("doudizhu", opts))
        assert joined.table.status == "waiting"
        assert main(["watch", "--url", srv.url, f"--table={joined.table.id}"]) == 0
        out = capsys.readouterr().out
        lines = out.splitlines()
        assert lines[0] == f"Watching Dou Dizhu at table {joined.table.id} (waiting)"
        assert "=== Game 1 ===" in lines
        assert any(" is the landlord for " in line for line in lines)
        assert any(" plays " in line for line in lines)
        assert "Game over." in lines
        assert any(line.startswith("Scores: AI 0: ") for line in lines)
        # a spectator sees no hand: no dealt-hand lines, no "your hand"
        assert not any(" gets: " in line or "Your hand" in line for line in lines)
    finally:
        srv.run(owner.close())


def test_finished_table_prints_its_final_view(
    srv: LiveServer, capsys: pytest.CaptureFixture[str]
) -> None:
    owner = srv.run(Client.connect(srv.url, "owner2"))
    try:
        opts = {"seat": None, "ai": [{"seat": s, "level": "random"} for s in range(3)]}
        joined = srv.run(owner.create_table("doudizhu", opts))
        srv.run(owner.wait_for(lambda m: getattr(m, "type", "") == "game_over", timeout=20))
        assert main(["watch", "--url", srv.url, f"--table={joined.table.id}"]) == 0
        out = capsys.readouterr().out
        assert "This game is over." in out
    finally:
        srv.run(owner.close())


def test_table_not_found(srv: LiveServer, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["watch", "--url", srv.url, "--table", "nosuchtable"]) == 1
    assert "table 'nosuchtable' not found" in capsys.readouterr().err
