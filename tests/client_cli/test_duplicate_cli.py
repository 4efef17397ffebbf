"""``cardavia duplicate`` against a real server (issue 56): list today's sets, make one,
its standings and a board's results, shown only once the board is played."""

from __future__ import annotations

import io
import json
import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from client_cli.client import Client, play_table, random_chooser
from client_cli.main import main
from protocol import server_messages as sm
from tests.client_cli.live_server import FAST, LiveServer, live_server

pytestmark = pytest.mark.heavy

PASSWORD = "correct horse battery"
LOG_LINE = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \[")
"""A line the server (in this process) logs to stdout."""


@pytest.fixture(scope="module")
def srv() -> Iterator[LiveServer]:
    with live_server(FAST.replace(login_backoff=0.01)) as server:
        yield server


def printed(capsys: pytest.CaptureFixture[str]) -> list[str]:
    return [x for x in capsys.readouterr().out.splitlines() if not LOG_LINE.match(x)]


def test_list_create_standings_and_board(
    srv: LiveServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    monkeypatch.setattr("sys.stdin", io.StringIO(PASSWORD + "\n"))
    login = ["login", "--url", srv.url, "--name", "Dee", "--password-stdin", "--register"]
    assert main(login) == 0
    os.environ.setdefault("PROMPT_TOOLKIT_NO_CPR", "1")
    capsys.readouterr()

    assert main(["duplicate", "list", "--url", srv.url]) == 0
    out = printed(capsys)
    assert sum(x.startswith("daily-") for x in out) == 4
    assert all("next board 1" in x for x in out if x.startswith("daily-"))

    assert main(["duplicate", "create", "scopa", "--url", srv.url, "--level", "easy",
                 "--boards", "1", "--minutes", "30", "--json"]) == 0  # fmt: skip
    made = sm.DuplicateSets.model_validate_json(printed(capsys)[-1]).sets[0]
    assert (made.game, made.level, made.boards) == ("scopa", "easy", 1)

    assert main(["duplicate", "board", made.set_id, "1", "--url", srv.url]) != 0
    assert "board 1 is shown once you have played it" in capsys.readouterr().err

    dee = srv.run(Client.connect(srv.url, login=("Dee", PASSWORD)))
    joined = srv.run(dee.play_duplicate(made.set_id))
    srv.run(play_table(dee, joined.table.id, random_chooser(3)))
    srv.run(srv.server.record_writer.drain())
    srv.run(dee.close())

    assert main(["duplicate", "board", made.set_id, "1", "--url", srv.url]) == 0
    out = printed(capsys)
    assert out[0].startswith(f"{made.set_id} board 1:") and out[1].startswith("  Dee  ")
    assert main(["duplicate", "standings", made.set_id, "--url", srv.url, "--json"]) == 0
    table = json.loads(printed(capsys)[-1])
    assert [(s["name"], s["boards"]) for s in table["standings"]] == [("Dee", 1)]
    assert main(["duplicate", "standings", "set-000000000000", "--url", srv.url]) != 0
    assert "no duplicate set 'set-000000000000'" in capsys.readouterr().err
