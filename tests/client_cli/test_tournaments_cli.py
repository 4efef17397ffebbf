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
    # starting at once, it could end empty before Ann registers: a moment's margin
    assert main([*create, "--rounds", "1", "--start-in", "2", "--json"]) == 0
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


def test_standings_lines_show_every_tie_break_and_duplicate_matchpoints() -> None:
    from client_cli.lang import language
    from client_cli.tournaments import standings_lines
    from protocol import server_messages as sm

    t = sm.TournamentInfo(
        id="T1", name="x", game="doudizhu", kind="duplicate-swiss", status="running",
        starts_at=0.0, rounds=3, duration=None, turn_timer=None, level="normal", round=1,
        players=2, registered=False,
    )  # fmt: skip
    line = sm.StandingLine(
        rank=1, name="Ann", points=1.5, buchholz=2.0, head_to_head=0.5, game_score=7,
        games=2, withdrawn=False, matchpoints=6,
    )  # fmt: skip
    plain = line.model_copy(update={"matchpoints": None, "rank": 2, "name": "Bo"})
    shown = standings_lines(sm.Standings(tournament=t, standings=(line, plain)), language("en"))
    assert shown == [
        "1. Ann: 6 matchpoints, 1.5 points, Buchholz 2, head-to-head 0.5, game score 7, 2 games",
        "2. Bo: 1.5 points, Buchholz 2, head-to-head 0.5, game score 7, 2 games",
    ]
    for code in ("de", "hu", "it", "tr", "zh"):
        lang = language(code)
        (first,) = standings_lines(sm.Standings(tournament=t, standings=(line,)), lang)
        assert lang.t("tournament.matchpoints", n=6) in first
        assert "0.5" in first and "7" in first  # head-to-head, game score
