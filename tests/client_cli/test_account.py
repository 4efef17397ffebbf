"""``cardavia login`` / ``cardavia logout`` against a real server: the credentials file
(mode 0600), wrong passwords, registration, and a later session logged in by itself."""

from __future__ import annotations

import io
import json
import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from client_cli.client import Client
from client_cli.credentials import CredentialFile, Credentials
from client_cli.lang import language
from client_cli.main import main
from client_cli.render import chat_name, seat_name
from protocol.models import SeatInfo
from protocol.server_messages import ChatLine
from tests.client_cli.live_server import FAST, LiveServer, live_server

PASSWORD = "correct horse battery"
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def srv() -> Iterator[LiveServer]:
    with live_server(FAST.replace(login_backoff=0.01)) as server:
        yield server


@pytest.fixture
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    return tmp_path / "cardavia" / "accounts.json"


def typed(monkeypatch: pytest.MonkeyPatch, password: str) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(password + "\n"))


def test_register_keeps_the_credentials_owner_only(
    srv: LiveServer,
    state: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    typed(monkeypatch, PASSWORD)
    args = ["login", "--url", srv.url, "--name", "Cli", "--register", "--password-stdin"]
    assert main(args) == 0
    assert "as Cli" in capsys.readouterr().out
    assert stat.S_IMODE(state.stat().st_mode) == 0o600
    assert json.loads(state.read_text())[srv.url] == {"name": "Cli", "password": PASSWORD}
    kept = CredentialFile().get(srv.url)
    assert kept is not None and PASSWORD not in repr(kept)
    # a later session logs in with what was kept
    client = srv.run(Client.connect(srv.url, login=kept.login))
    assert client.account is not None and client.name == "Cli"
    srv.run(client.close())
    assert main(["logout", "--url", srv.url]) == 0
    assert srv.url not in json.loads(state.read_text())
    assert "logged out" in capsys.readouterr().out


def test_a_wrong_password_keeps_nothing(
    srv: LiveServer,
    state: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    typed(monkeypatch, PASSWORD)
    assert main(["login", "--url", srv.url, "--name", "Dee", "--register", "--password-stdin"]) == 0
    state.unlink()
    typed(monkeypatch, "not the password")
    assert main(["login", "--url", srv.url, "--name", "Dee", "--password-stdin"]) == 1
    err = capsys.readouterr().err
    assert "bad_credentials" in err and "not the password" not in err
    assert not state.exists()
    typed(monkeypatch, "")
    assert main(["login", "--url", srv.url, "--name", "Dee", "--password-stdin"]) == 2


def test_logout_without_an_account_says_so(state: Path, capsys: pytest.CaptureFixture[str]) -> None:
    CredentialFile().put(Credentials("ws://elsewhere:1", "Ann", PASSWORD))
    assert main(["logout", "--url", "ws://nowhere:1"]) == 0
    assert "no account kept" in capsys.readouterr().out
    assert CredentialFile().get("ws://elsewhere:1") is not None


def make_bot_token(srv: LiveServer, owner: str, bot: str) -> str:
    """A new bot account ``bot`` of a new account ``owner``, and one of its API tokens."""

    async def make(url: str) -> str:
        async with await Client.connect(url, owner) as client:
            await client.register(owner, PASSWORD)
            made = await client.create_bot(bot)
            return (await client.create_api_token(made.account_id, "cli")).token

    return srv.call(make)


def test_the_example_bot_plays_as_a_bot_account(srv: LiveServer) -> None:
    """examples/bot.py with CARDAVIA_BOT_TOKEN logs in to the bot and plays a game."""
    token = make_bot_token(srv, "Owner", "Example Bot")
    proc = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "bot.py"), srv.url, "scopa"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "CARDAVIA_BOT_TOKEN": token},
    )
    assert proc.returncode == 0, proc.stderr
    assert "as Example Bot" in proc.stdout and "winners [" in proc.stdout
    assert token not in proc.stdout + proc.stderr


def test_cardavia_bot_plays_as_a_bot_account(
    srv: LiveServer, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--api-token`` (or CARDAVIA_BOT_TOKEN) logs every bot in to the bot account; a
    token that is no bot's is refused before any seat is taken."""
    token = make_bot_token(srv, "Keeper", "Cli Bot")
    monkeypatch.delenv("CARDAVIA_BOT_TOKEN", raising=False)
    args = ["bot", "--url", srv.url, "--game", "scopa", "--policy", "random", "--seed", "1"]
    for how, extra in (("flag", ["--api-token", token]), ("environment", [])):
        if how == "environment":
            monkeypatch.setenv("CARDAVIA_BOT_TOKEN", token)
        assert main([*args, *extra]) == 0, how
        out, err = capsys.readouterr()
        (bot,) = json.loads(out.strip().splitlines()[-1])["bots"]
        assert bot["name"] == "Cli Bot" and bot["error"] is None and bot["moves"] > 0, how
        assert token not in out + err
    monkeypatch.setenv("CARDAVIA_BOT_TOKEN", "")  # empty: an anonymous bot
    assert main(args) == 0
    (bot,) = json.loads(capsys.readouterr().out.strip().splitlines()[-1])["bots"]
    assert bot["name"] == "bot-1"
    assert main([*args, "--api-token", "not-a-token"]) == 1
    assert "bad_credentials" in capsys.readouterr().err


def test_bots_are_labelled_in_seats_and_chat() -> None:
    lang = language("de")
    seat = SeatInfo(seat=1, kind="human", player_id="p_1", name="Robo", bot=True)
    assert seat_name(seat, lang=lang) == "Robo (Bot)"
    assert seat_name(seat.model_copy(update={"bot": False}), lang=lang) == "Robo"
    line = ChatLine(table="t", player_id="p_1", name="Robo", seat=1, text="hi", bot=True)
    assert chat_name(line, lang) == "Robo (Bot)"
