"""``cardavia play`` in a pseudo-terminal as a card player uses it: the seat survives a
killed client, typed cards that fit several moves ask, refusals name the rule, words
pick moves, and an 80×24 screen holds the hand and the moves without wrapping a card."""

from __future__ import annotations

import os
import re
import signal
import stat
import sys
from collections.abc import Iterator
from pathlib import Path

import pexpect
import pytest

from tests.client_cli.live_server import FAST, LiveServer, live_server
from tests.client_cli.spawn import LIVE, ROOT, settle, spawn_cli

pytestmark = pytest.mark.heavy  # tens of seconds: run first (tests/conftest.py)

PROMPT = r"(Your move|Which one\?) \[([^\]]+)\]:" + LIVE
AGAIN = r"Again\? \[y/n\]" + LIVE
ESCAPES = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
CODE = re.compile(r"^[2-9ATJQKFCROUB][SHDCBEG]$")


@pytest.fixture
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("PROMPT_TOOLKIT_NO_CPR", "1")  # pexpect does not answer the query
    return tmp_path / "cardavia" / "seats.json"


@pytest.fixture(scope="module")
def srv() -> Iterator[LiveServer]:
    """A server whose grace outlasts a restarted client (the AI would play on after it)."""
    with live_server(FAST.replace(disconnect_grace=60.0)) as server:
        yield server


def spawn(*args: str, rows: int = 24, cols: int = 80, **env: str) -> pexpect.spawn:
    return spawn_cli("play", *args, rows=rows, cols=cols, env={**os.environ, **env})


def first_key(child: pexpect.spawn) -> str:
    return str(re.split(r"[-, ]", child.match.group(2))[0])


def moves_on_screen(text: str) -> dict[str, list[str]]:
    """``{key: [card codes]}`` of the move lines above the prompt.

    Only the last screen counts: ``text`` may hold an earlier turn's move list
    too (a prompt redrawn while output went on), whose keys must not mix in.
    """
    at = text.rfind("Your hand (")
    if at >= 0:
        text = text[at:]
    out: dict[str, list[str]] = {}
    for key, label in re.findall(r"(?:^|\s)(\d+)\) (.+?)(?=\s{2,}\d+\)|\r?$)", text, re.M):
        codes = re.findall(r"\((\w\w)\)", label) or [
            w for w in re.findall(r"\b\w\w\b", label) if CODE.match(w)
        ]
        out[key] = codes
    return out


def hand_on_screen(text: str) -> list[str]:
    """The card codes of the last ``Your hand`` line(s) above the prompt."""
    at = text.rfind("Your hand (")
    assert at >= 0, text
    lines = text[at:].splitlines()
    hand = lines[0].split(":", 1)[1].split()
    for line in lines[1:]:
        if not line.startswith("    "):
            break
        hand += line.split()
    return [w for w in hand if CODE.match(w)]


def finish(child: pexpect.spawn) -> None:
    child.sendline("quit")
    if child.expect([r"\[y/N\]", pexpect.EOF]) == 0:  # a game on: asked first
        child.sendline("y")
        child.expect(pexpect.EOF)
    child.close()


def test_the_seat_survives_a_killed_client(srv: LiveServer, state: Path) -> None:
    args = ("scopa", "--url", srv.url, "--name", "dana", "--level", "random",
            "--ai-delay", "0", "-o", "target=1")  # fmt: skip
    first = spawn(*args, cols=160)
    first.expect(r"Scopa at table (\S+) on \S+, seat 0")
    table = first.match.group(1)
    first.expect(PROMPT)
    assert stat.S_IMODE(state.stat().st_mode) == 0o600
    assert table in state.read_text() and "dana@" in state.read_text()
    first.kill(signal.SIGKILL)  # window closed, laptop dead: nothing is sent
    first.close()
    again = spawn(*args, cols=160)
    again.expect(rf"Resumed your place at table {re.escape(table)} \(seat 0\)")
    again.expect(PROMPT)  # our turn again, with the table shown
    assert "Your hand (" in again.before
    again.sendline("quit")  # an explicit quit gives the seat up, once confirmed
    again.expect(r"Give up your seat\? The AI plays it from now on\. \[y/N\]")
    again.sendline("y")
    again.expect("Bye.")
    again.expect(pexpect.EOF)
    again.close()
    assert "dana@" not in state.read_text()
    third = spawn(*args, cols=160)
    third.expect(r"Scopa at table (\S+) on \S+, seat 0")
    assert third.match.group(1) != table  # a new table: nothing held any more
    finish(third)


def test_a_typed_card_that_fits_several_moves_asks(state: Path) -> None:
    child = spawn("cicera", "--level", "random", "--ai-delay", "0")
    for _ in range(12):
        child.expect(PROMPT)
        moves = moves_on_screen(settle(child, PROMPT))
        by_card: dict[str, list[str]] = {}
        for key, codes in moves.items():
            if codes:
                by_card.setdefault(codes[0], []).append(key)
        several = [(card, keys) for card, keys in by_card.items() if len(keys) > 1]
        if several:
            card, keys = several[0][0], sorted(several[0][1], key=int)
            child.sendline(card)
            child.expect(rf"'{card}' fits {len(keys)} moves:")
            child.expect(r"Which one\? \[([^\]]+)\]:" + LIVE)
            assert child.match.group(1).split(", ") == keys
            child.sendline(keys[0])
            child.expect(r"You play ")
            finish(child)
            return
        child.sendline(first_key(child))
    pytest.fail("no card with a capture choice in twelve turns")


def test_a_refused_card_names_the_rule(state: Path) -> None:
    child = spawn("schafkopf", "--level", "random", "--ai-delay", "0", rows=40, cols=120)
    for _ in range(80):
        i = child.expect([PROMPT, AGAIN])
        if i == 1:
            break
        screen = settle(child, PROMPT)
        moves = moves_on_screen(screen)
        plays = {codes[0] for codes in moves.values() if len(codes) == 1}
        hand = hand_on_screen(screen)
        barred = [c for c in hand if c not in plays]
        if plays and barred and "Contract:" in screen:
            child.sendline(barred[0])
            child.expect(r"Not allowed: ([^\r\n]+)")
            assert re.search(r"must|may not", child.match.group(1)), child.match.group(1)
            child.expect(PROMPT)  # asked again, nothing played
            finish(child)
            return
        child.sendline("pass" if "1) Pass" in screen else first_key(child))
    pytest.fail("never held a card the rules barred")


def test_words_pick_moves(state: Path) -> None:
    for _ in range(10):  # an AI bidding 3 before us ends the bidding: deal again
        child = spawn("doudizhu", "--level", "random", "--ai-delay", "0")
        child.expect(PROMPT)
        asked = ESCAPES.sub("", settle(child, PROMPT))  # the moves may follow the prompt
        asked = asked[asked.rfind("Your turn.") :]
        if "0) Pass" in asked and "Bid " in asked:  # a bidding prompt, not a play
            break
        finish(child)
    else:
        pytest.fail("never asked to bid in ten deals")
    child.sendline("bid 3" if "3) Bid 3" in asked else "pass")
    child.expect(r"You bid 3|You pass")
    finish(child)
    child = spawn("schafkopf", "--level", "random", "--ai-delay", "0")
    child.expect(PROMPT)
    child.sendline("weiter")
    child.expect("You pass")
    finish(child)


def test_an_80x24_screen_holds_hand_and_moves(state: Path) -> None:
    """The landlord's free lead has a hundred moves or more: the screen shows the hand,
    and as many moves as fit, every line within 80 columns (no card cut in two)."""
    for _ in range(10):
        child = spawn("doudizhu", "--level", "random", "--ai-delay", "0", "-o", "pattern=french")
        child.expect(PROMPT)
        asked = ESCAPES.sub("", settle(child, PROMPT))  # the moves may follow the prompt
        if "3) Bid 3" not in asked[asked.rfind("Your turn.") :]:  # an AI bid 3 first
            finish(child)
            continue
        child.sendline("3")
        child.expect(PROMPT)
        seen = settle(child, PROMPT)
        screen = ESCAPES.sub("", seen[seen.rfind("Your turn.") :])
        lines = screen.splitlines()
        assert all(len(line) <= 80 for line in lines), screen
        assert len(lines) <= 23, screen
        assert "Your hand (20):" in screen and "Free lead" in screen
        assert re.search(r"  [Ss]ingle: 1\) \w\w", screen)  # the page's term (en.json)
        finish(child)
        return
    pytest.fail("never could bid 3 in ten deals")


def test_rules_at_the_prompt(state: Path) -> None:
    child = spawn("scopa", "--level", "random", "--ai-delay", "0", rows=200)
    child.expect(PROMPT)
    child.sendline("rules")
    child.expect("Primiera")
    child.expect(PROMPT)
    finish(child)


@pytest.mark.parametrize(
    ("argv", "allowed"),
    [
        (["--ai-delay", "-1"], "from 0 to 3600"),
        (["--turn-timer", "0"], "from 1 to 3600"),
        (["--turn-timer", "soon"], "from 1 to 3600"),
        (["--port", "70000"], "from 0 to 65535"),
        (["--humans", "0"], "from 1 to 16"),
    ],
)
def test_a_bad_argument_is_one_line_saying_what_is_allowed(
    argv: list[str], allowed: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from client_cli.main import main

    with pytest.raises(SystemExit) as exit_:
        main(["play", "scopa", *argv])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and allowed in err and "Traceback" not in err


def test_colour_and_suit_symbols_only_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    from client_cli.render import Seats, renderer_for
    from client_cli.style import Style, colour_wanted

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    assert colour_wanted(Tty()) and not colour_wanted(io.StringIO())
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("PROMPT_TOOLKIT_NO_CPR", "1")  # pexpect does not answer the query
    assert not colour_wanted(Tty())
    render = renderer_for("doudizhu", Seats(me=0), "french")
    render.style = Style(colour=True)
    assert render.code("7H") == "\x1b[31m7H\x1b[0m"  # hearts red
    lines = renderer_for("scopa", Seats(me=0), "french")
    lines.style = Style(colour=True)
    assert "♦" in lines.hand_lines(["7D", "AS"])[0]
    plain = renderer_for("scopa", Seats(me=0), "french")
    assert plain.hand_lines(["7D", "AS"]) == ["Your hand (2): Spades AS  Diamonds 7D"]


RULES_DRAWN = r"r(\x1b\[[0-9;?]*[A-Za-z])*u(\x1b\[[0-9;?]*[A-Za-z])*l(\x1b\[[0-9;?]*[A-Za-z])*es"
""""rules" as the terminal draws it: a busy machine may draw the typed "rul" and the
completed "es" in two updates, with cursor codes between them."""


def test_the_prompt_completes_and_remembers(state: Path) -> None:
    """prompt_toolkit on a terminal: Tab completes a command, the up arrow recalls one."""
    child = spawn("scopa", "--level", "random", "--ai-delay", "0", rows=200)
    child.expect(PROMPT)
    child.send("rul\t")
    child.expect(RULES_DRAWN)
    child.send("\r")
    child.expect("Primiera")
    child.expect(PROMPT)
    child.send("\x1b[A")  # up: the last line typed
    child.expect(RULES_DRAWN)
    child.send("\r")
    child.expect("Primiera")
    finish(child)


def test_piped_input_reads_plain_lines(state: Path) -> None:
    """Not a terminal (a pipe, a bot): plain lines, no prompt_toolkit, no colour."""
    import subprocess

    done = subprocess.run(
        [sys.executable, "-m", "client_cli.main", "play", "scopa", "--level", "random"],
        input="who\nquit\ny\n",
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "0: you" in done.stdout and "Bye." in done.stdout
    assert "\x1b" not in done.stdout


def test_replay_of_a_finished_game(srv: LiveServer, capsys: pytest.CaptureFixture[str]) -> None:
    from client_cli.client import Client, play_table, random_chooser
    from client_cli.main import main
    from protocol.models import AiSeat, TableOptions

    async def finished_game() -> str:
        async with await Client.connect(srv.url, "eve") as eve:
            opts = TableOptions(seat=0, ai=tuple(AiSeat(seat=s, level="random") for s in (1, 2)))
            table = (await eve.create_table("doudizhu", opts)).table.id
            await play_table(eve, table, random_chooser(3))
            return table

    table = srv.run(finished_game())
    assert main(["replay", "--url", srv.url, table, "--all"]) == 0
    out = capsys.readouterr().out
    assert f"Replay of game 1 (doudizhu) at table {table}" in out
    for who in ("eve gets:", "AI 1 gets:", "AI 2 gets:"):  # every hand, once it is over
        assert who in out, out[:1500]
    assert "[1/" in out and "Game over." in out
    assert main(["replay", "--url", srv.url, "no-such-table"]) == 1
    assert "no replay of table 'no-such-table'" in capsys.readouterr().err


def test_hint_at_the_prompt_and_tables_without_hints(state: Path) -> None:
    child = spawn("scopa", "--level", "random", "--ai-delay", "0", rows=60, cols=160)
    child.expect(PROMPT)
    child.sendline("hint")
    child.expect(r"Hint: (\d+)\) Play ")
    child.expect(PROMPT)
    finish(child)
    child = spawn("scopa", "--level", "random", "--ai-delay", "0", "--no-hints")
    child.expect(PROMPT)
    child.sendline("hint")
    child.expect("Hints are off at this table.")
    finish(child)


async def test_auto_pass_passes_only_when_pass_is_the_only_move() -> None:
    import asyncio
    import io

    from client_cli.play_session import PlaySession
    from client_cli.terminal import Screen
    from protocol import server_messages as sm
    from protocol.models import SeatInfo, TableInfo

    sent: list[object] = []

    class FakeClient:
        token, name, player_id = "t", "me", "p"

        async def act(self, table: str, action: object, **_: object) -> None:
            sent.append(action)

    seats = tuple(SeatInfo(seat=i, kind="human" if i == 0 else "ai") for i in range(3))
    info = TableInfo(
        id="T", game="doudizhu", title="Dou Dizhu", status="playing", seats=seats,
        spectators=0, private=False, quick=False, owner="p", game_no=1, version=1,
        turn_timer=None, ai_delay=0.0, options={"pattern": "french"},
    )  # fmt: skip
    session = PlaySession(
        FakeClient(),  # type: ignore[arg-type]
        sm.Joined(table=info, seat=0),
        Screen(io.StringIO()),
        auto_pass=True,
    )
    view = {"seat": 0, "to_act": [0], "phase": "play", "hand": ["3S"], "legal": []}
    beatable = {**view, "legal": [{"type": "pass"}, {"type": "play", "cards": ["3S"]}]}
    session.on_message(sm.Snapshot(table="T", game_no=1, version=2, seat=0, view=beatable))
    await asyncio.sleep(0)
    assert sent == [] and session.moves  # a choice: the player decides
    only_pass = {**view, "legal": [{"type": "pass"}]}
    session.on_message(sm.Snapshot(table="T", game_no=1, version=3, seat=0, view=only_pass))
    for _ in range(3):
        await asyncio.sleep(0)
    assert sent == [{"type": "pass"}]
