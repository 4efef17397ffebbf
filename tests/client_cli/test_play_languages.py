"""``cardavia play --lang`` in a pseudo-terminal: Italian when asked, the locale's
language by default, and a clear error for a language the client does not speak;
``watch`` and ``replay`` in German."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pexpect
import pytest

from client_cli.client import Client
from client_cli.main import main
from tests.client_cli.live_server import LiveServer, live_server
from tests.client_cli.names import suit_names
from tests.client_cli.spawn import LIVE, ROOT, settle, spawn_cli


def spawn(env: dict[str, str], *args: str) -> pexpect.spawn:
    argv = ("play", *args, "--level", "random", "--ai-delay", "0")
    return spawn_cli(*argv, timeout=30, env=env)


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """The environment of a player with no language set anywhere."""
    out = {k: v for k, v in os.environ.items() if k not in ("CARDAVIA_LANG", "LC_ALL")}
    out.update(XDG_STATE_HOME=str(tmp_path), NO_COLOR="1", PROMPT_TOOLKIT_NO_CPR="1")
    out.update(LC_MESSAGES="", LANG="C.UTF-8")
    return out


def test_play_scopa_in_italian(env: dict[str, str]) -> None:
    child = spawn(env, "scopa", "--lang", "it", "-o", "target=1")
    child.expect(r"Scrivi 'help' per i comandi\.")
    prompt = r"La tua mossa \[([^\]]+)\]:" + LIVE
    child.expect(prompt)
    screen = settle(child, prompt)
    suits = "(" + "|".join(suit_names("it", "napoletane")) + ")"
    assert "Tocca a te." in screen
    assert re.search(r"La tua mano \(3\): " + suits + r" \w\w", screen), screen
    assert re.search(r"In tavola: \w+ di " + suits + r" \(\w\w\)", screen), screen
    # moves name their cards in full, or by code when a label would not fit the width
    # (a capture of two named cards): the deal is random
    move = r"\d\) Gioca (\w+ di " + suits + r" \(\w\w\)|\w\w\b)"
    assert re.search(move, screen), screen
    # typed cards that are not a card of this deck: refused in Italian, nothing sent
    # (the server's errors by code in Italian: tests/client_cli/test_lang.py)
    child.sendline("ZZ")
    child.expect(r"ZZ non è una carta di questo mazzo")
    child.expect(prompt)
    child.sendline("help")
    child.expect("gioca la mossa con quel numero")
    child.sendline("quit")
    child.expect(r"Esci\? .* \[s/N\]")
    child.sendline("s")
    child.expect("Ciao.")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_the_locale_picks_the_language(env: dict[str, str]) -> None:
    """``LANG=de_DE.UTF-8`` and nothing else: German (and English cards codes typed)."""
    child = spawn({**env, "LANG": "de_DE.UTF-8"}, "schafkopf")
    prompt = r"Dein Zug \[([^\]]+)\]:" + LIVE
    child.expect(prompt)
    screen = settle(child, prompt)
    suits = "(" + "|".join(suit_names("de", "bavarian")) + ")"
    assert "Du bist dran." in screen
    assert re.search(r"Deine Karten \(8\): " + suits + r" \w\w", screen), screen
    child.sendline("ZZ")  # not a card: refused in German, nothing sent
    child.expect(r"ZZ ist keine Karte dieses Blatts")
    child.sendline("quit")
    child.expect(r"Gehen\? .* \[j/N\]")
    child.sendline("j")
    child.expect("Servus.")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_an_unknown_language_is_refused_before_anything_starts(env: dict[str, str]) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "client_cli.main", "play", "scopa", "--lang", "xx"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "unknown language 'xx'; choose one of en, it, de, hu, tr, zh" in done.stderr
    assert "Traceback" not in done.stderr


# -- watch and replay speak it too --------------------------------------------------------
@pytest.fixture(scope="module")
def srv() -> Iterator[LiveServer]:
    with live_server() as server:
        yield server


def test_watch_and_replay_in_german(srv: LiveServer, capsys: pytest.CaptureFixture[str]) -> None:
    owner = srv.run(Client.connect(srv.url, "owner"))
    try:
        opts = {"seat": None, "ai": [{"seat": s, "level": "random"} for s in range(4)]}
        joined = srv.run(owner.create_table("schafkopf", {**opts, "game": {"deals": 1}}))
        srv.run(owner.wait_for(lambda m: getattr(m, "type", "") == "game_over", timeout=30))
        table = joined.table.id
        assert main(["watch", "--url", srv.url, f"--table={table}", "--lang", "de"]) == 0
        out = capsys.readouterr().out
        assert out.startswith(f"Du schaust Schafkopf an Tisch {table} zu")
        assert "Spieler: 0: KI 0" in out and "Dieses Spiel ist vorbei." in out
        assert main(["replay", table, "--url", srv.url, "--all", "--lang", "de"]) == 0
        out = capsys.readouterr().out
        assert out.startswith(f"Wiederholung von Spiel 1 (schafkopf) an Tisch {table}")
        suits = "(" + "|".join(suit_names("de", "bavarian")) + ")"
        assert re.search(r"KI \d bekommt: " + suits + r" \w\w", out), out
        assert "Spiel vorbei." in out
    finally:
        srv.run(owner.close())
