"""``cardavia history``, ``cardavia profile`` and ``cardavia replay GAME_ID`` against a real
server: stored games listed and replayed, private ones kept from strangers, and the live
``cardavia replay TABLE [GAME_NO]`` still told apart."""

from __future__ import annotations

import asyncio
import io
from collections.abc import Iterator
from pathlib import Path

import pytest

from client_cli.client import Client, play_table, random_chooser
from client_cli.main import main
from client_cli.replay import is_game_id
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


def log_in(srv: LiveServer, monkeypatch: pytest.MonkeyPatch, name: str, register: bool) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(PASSWORD + "\n"))
    args = ["login", "--url", srv.url, "--name", name, "--password-stdin"]
    assert main([*args, "--register"] if register else args) == 0


def play(srv: LiveServer, private: bool) -> str:
    """Ann and Bea (accounts) play one Scopa game to 1 point; its stored id."""

    async def go() -> str:
        ann = await Client.connect(srv.url, login=("Ann", PASSWORD))
        bea = await Client.connect(srv.url, login=("Bea", PASSWORD))
        options = {"seat": 0, "private": private, "game": {"target": 1}}
        joined = await ann.create_table("scopa", options)
        await bea.join(joined.table.id, seat=1, invite=joined.invite)
        await asyncio.gather(
            play_table(ann, joined.table.id, random_chooser(1)),
            play_table(bea, joined.table.id, random_chooser(2)),
        )
        await asyncio.wait_for(srv.server.record_writer.drain(), 10)
        await ann.close()
        await bea.close()
        return f"{joined.table.id}.1"

    return srv.run(go())


def test_game_ids_and_table_ids_are_told_apart() -> None:
    assert is_game_id("2Z23AlWn.1") and is_game_id("2Z23AlWn.12")
    assert not is_game_id("2Z23AlWn") and not is_game_id(".1") and not is_game_id("a.b")


def test_history_profile_and_stored_replay(
    srv: LiveServer, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    log_in(srv, monkeypatch, "Bea", register=True)
    log_in(srv, monkeypatch, "Ann", register=True)  # the account kept from now on
    public = play(srv, private=False)
    secret = play(srv, private=True)
    capsys.readouterr()
    assert main(["history", "--url", srv.url]) == 0
    lines = [  # the server, in this process, logs to stdout too
        line for line in capsys.readouterr().out.splitlines() if line.startswith((secret, public))
    ]
    assert lines[0].startswith(secret) and "(private)" in lines[0]
    assert lines[1].startswith(public) and "Bea" in lines[1]
    assert main(["history", "--url", srv.url, "--game", "cicera"]) == 0
    assert "no stored games yet" in capsys.readouterr().out
    assert main(["profile", "--url", srv.url]) == 0
    assert "scopa: 2 played" in capsys.readouterr().out
    assert main(["replay", "--url", srv.url, secret, "--all"]) == 0  # Ann sat there
    out = capsys.readouterr().out
    assert "seed " in out and "Game over." in out and "Replay of game 1 (scopa)" in out
    table = public.split(".")[0]
    assert main(["replay", "--url", srv.url, table, "1", "--all"]) == 0  # the live table's
    assert "seed " not in capsys.readouterr().out
    assert main(["replay", "--url", srv.url, public, "1"]) == 2
    assert main(["logout", "--url", srv.url]) == 0
    # a stranger: the public game and profiles, not the private game nor a history
    assert main(["replay", "--url", srv.url, public, "--all"]) == 0
    assert main(["replay", "--url", srv.url, secret, "--all"]) == 1
    assert f"no stored game {secret!r}" in capsys.readouterr().err
    assert main(["profile", "--url", srv.url, "bea"]) == 0
    assert "Bea, member since" in capsys.readouterr().out
    assert main(["profile", "--url", srv.url, "nobody here"]) == 1
    assert main(["history", "--url", srv.url]) == 1
    assert "cardavia login" in capsys.readouterr().err
