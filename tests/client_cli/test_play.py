"""``cardavia play``: move parsing, rendering of every game, and whole games typed
into a pseudo-terminal (embedded server, and two people on a real server)."""

from __future__ import annotations

import io
import os
import random
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pexpect
import pytest

from client_cli.common import CliError
from client_cli.lang import language
from client_cli.main import build_parser, main
from client_cli.moves import Ask, Pick, Refuse, Send, choose_move
from client_cli.play import table_options
from client_cli.render import RENDERERS, Renderer, Seats, renderer_for
from engine.codec import to_plain
from engine.registry import GAMES
from tests.client_cli.live_server import LiveServer, live_server
from tests.client_cli.names import card_name, suit_pattern
from tests.client_cli.spawn import LIVE, ROOT, spawn_cli

pytestmark = pytest.mark.heavy  # tens of seconds: run first (tests/conftest.py)

PROMPT = r"Your move \[([^\]]+)\]:" + LIVE
AGAIN = r"Again\? \[y/n\]" + LIVE


# -- choosing a move from what a person types -----------------------------------------
SCOPA_LEGAL: list[dict[str, Any]] = [
    {"type": "play", "card": "7D", "capture": ["3S", "4C"]},
    {"type": "play", "card": "7D", "capture": ["7H"]},
    {"type": "play", "card": "KS", "capture": []},
    {"type": "play", "card": "2C", "capture": ["2H"]},
]


def scopa() -> Renderer:
    return renderer_for("scopa", Seats(me=0), "napoletane")


def test_choose_by_number() -> None:
    assert choose_move("1", SCOPA_LEGAL, scopa()) == Pick(0)
    assert choose_move(" 4 ", SCOPA_LEGAL, scopa()) == Pick(3)
    assert choose_move("5", SCOPA_LEGAL, scopa()) == Refuse("Pick a number from 1 to 4.")
    assert choose_move("0", SCOPA_LEGAL, scopa()) == Refuse("Pick a number from 1 to 4.")


def test_choose_by_cards() -> None:
    assert choose_move("7d 3s 4c", SCOPA_LEGAL, scopa()) == Pick(0)  # exactly these cards
    assert choose_move("7D 7H", SCOPA_LEGAL, scopa()) == Pick(1)
    assert choose_move("KS", SCOPA_LEGAL, scopa()) == Pick(2)
    assert choose_move("2C", SCOPA_LEGAL, scopa()) == Pick(3)  # the one move holding the card
    assert choose_move("7D", SCOPA_LEGAL, scopa()) == Ask((0, 1))  # which capture? ask
    unknown = choose_move("XS", SCOPA_LEGAL, scopa())
    assert isinstance(unknown, Refuse) and "not a card of this deck" in unknown.message


def test_a_card_that_may_capture_or_be_placed_is_never_guessed() -> None:
    """Cicera: typing only the card matches "no capture" exactly, but it may capture too."""
    legal = [
        {"type": "play", "card": "3B", "capture": []},
        {"type": "play", "card": "9D", "capture": ["9C"]},
        {"type": "play", "card": "9D", "capture": []},
    ]
    render = renderer_for("cicera", Seats(me=0), "bresciane")
    assert choose_move("9D", legal, render) == Ask((1, 2))
    assert choose_move("9D 9C", legal, render) == Pick(1)
    assert choose_move("3B", legal, render) == Pick(0)


def test_choose_by_word() -> None:
    legal = [{"type": "pass"}, {"type": "bid", "value": 2}, {"type": "bid", "value": 3}]
    render = renderer_for("doudizhu", Seats(me=0), "french")
    assert render.move_keys(legal) == ["0", "2", "3"]  # a bid is picked by its value
    assert choose_move("pass", legal, render) == Pick(0)
    assert choose_move("PASS", legal, render) == Pick(0)
    assert choose_move("bid 2", legal, render) == Pick(1)
    assert choose_move("3", legal, render) == Pick(2)
    assert isinstance(choose_move("1", legal, render), Refuse)
    assert isinstance(choose_move("bid", legal, render), Ask)  # two bids: say which


def test_dou_dizhu_cards_are_the_whole_move() -> None:
    """Typed cards never pick a bigger move holding them; cards of the same ranks in
    other suits than those listed go to the server (any suit choice is a play)."""
    legal = [
        {"type": "pass"},
        {"type": "play", "cards": ["5S", "5H"], "combo": "pair"},
        {"type": "play", "cards": ["5S", "5H", "5C"], "combo": "triple"},
    ]
    view = {"phase": "play", "hand": ["5S", "5H", "5C", "6C"], "last": None, "legal": legal}
    render = renderer_for("doudizhu", Seats(me=0), "french")
    assert choose_move("5S 5H", legal, render, view) == Pick(1)
    assert choose_move("5h 5c 5s", legal, render, view) == Pick(2)
    assert choose_move("5H 5C", legal, render, view) == Send(
        {"type": "play", "cards": ["5H", "5C"], "combo": "pair"}
    )
    refused = choose_move("5H 6C", legal, render, view)
    assert isinstance(refused, Refuse) and "is not a Dou Dizhu combination" in refused.message
    missing = choose_move("5D 6C", legal, render, view)
    assert isinstance(missing, Refuse) and "5D is not in your hand" in missing.message


def test_schafkopf_words_name_contracts() -> None:
    legal = [
        {"type": "pass"},
        {"type": "announce", "contract": "rufer", "suit": "E"},
        {"type": "announce", "contract": "rufer", "suit": "S"},
        {"type": "announce", "contract": "wenz", "suit": None},
        {"type": "announce", "contract": "solo", "suit": "H"},
        {"type": "announce", "contract": "solo", "suit": "G"},
        {"type": "announce", "contract": "wenz_tout", "suit": None},
    ]
    render = renderer_for("schafkopf", Seats(me=0), "bavarian")
    assert choose_move("weiter", legal, render) == Pick(0)
    assert choose_move("rufer E", legal, render) == Pick(1)
    assert choose_move("sau schellen", legal, render) == Pick(2)
    assert choose_move("wenz", legal, render) == Pick(3)
    assert choose_move("herz solo", legal, render) == Pick(4)
    assert choose_move("Solo H", legal, render) == Pick(4)
    assert choose_move("wenz tout", legal, render) == Pick(6)
    assert choose_move("solo", legal, render) == Ask((4, 5))
    assert choose_move("rufer", legal, render) == Ask((1, 2))
    # a contract the rules do not allow here goes to the server, which says why
    refused = choose_move("sie", legal, render)
    assert refused == Send({"type": "announce", "contract": "sie", "suit": None})


# -- who sits where at a new table ---------------------------------------------------
def new_table(*argv: str, seats: int) -> tuple[int | None, dict[int, str | None]]:
    options = table_options(build_parser().parse_args(["play", "x", *argv]), seats)
    return options.seat, {a.seat: a.level for a in options.ai}


def test_default_table_is_you_against_the_ai() -> None:
    assert new_table(seats=2) == (0, {1: None})  # Scopa: you against the AI
    assert new_table(seats=4) == (0, {1: None, 2: None, 3: None})  # Cicera: AI partner
    assert new_table("--level", "random", seats=3) == (0, {1: "random", 2: "random"})


def test_humans_ai_seats_and_seats_spec() -> None:
    assert new_table("--humans", "2", seats=4) == (0, {2: None, 3: None})
    assert new_table("--humans", "2", "--seat", "3", seats=4) == (3, {1: None, 2: None})
    assert new_table("--ai-seats", "1,3", seats=4) == (0, {1: None, 3: None})  # 2 = partner
    spec = ("--seats", "human,ai:random,you,ai", "--level", "greedy")
    assert new_table(*spec, seats=4) == (2, {1: "random", 3: "greedy"})


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--seats", "you,ai"], "this game has 4 seats"),
        (["--seats", "ai,ai,ai,ai"], "name your own seat 'you' exactly once"),
        (["--seats", "you,bot,ai,ai"], "'bot' is not you, human, ai or ai:LEVEL"),
        (["--humans", "5"], "--humans must be between 1 and 4"),
        (["--seat", "4"], "--seat must be between 0 and 3"),
        (["--ai-seats", "one"], "seat numbers like 1,3"),
    ],
)
def test_bad_seat_options_say_what_is_wrong(argv: list[str], message: str) -> None:
    with pytest.raises(CliError, match=re.escape(message)):
        new_table(*argv, seats=4)


# -- rendering ---------------------------------------------------------------------
def test_cards_are_named_per_pattern() -> None:
    """In English by default, as the page names them (client_web/i18n/en.json)."""
    for game, pattern, code in (
        ("scopa", "napoletane", "7D"),
        ("scopa", "french", "KH"),
        ("schafkopf", "bavarian", "AE"),
        ("schafkopf", "south_tyrolean", "AE"),
        ("cicera", "bresciane", "CS"),
        ("doudizhu", "french", "RJ"),
    ):
        expected = f"{card_name('en', pattern, code)} ({code})"
        assert renderer_for(game, pattern=pattern).card(code) == expected
    assert renderer_for("scopa", pattern="french").card("KH") == "King of Hearts (KH)"
    assert renderer_for("doudizhu", pattern="french").card("RJ") == "Red Joker (RJ)"
    # not a card of the pattern's family: the code as it is
    assert renderer_for("scopa", pattern="napoletane").card("OE") == "OE"


def test_pattern_follows_the_view() -> None:
    render = renderer_for("scopa", Seats(me=0))
    lines = render.view_lines(
        {
            "options": {"pattern": "french"},
            "seat": 0,
            "to_act": [0],
            "table": ["QS"],
            "hand": ["QH"],
        }
    )
    assert "Your turn." in lines
    assert "Table: Queen of Spades (QS)" in lines and "Your hand (1): Hearts QH" in lines


def playout(game_id: str, seed: int) -> Iterator[tuple[dict[str, Any], list[dict[str, Any]]]]:
    """Every (plain view of a seat or a spectator, plain events) along a random game."""
    game = GAMES[game_id]
    state = game.new_state(game.options(), seed)
    rng = random.Random(seed)
    events = [to_plain(e) for e in game.start_events(state)]
    while not game.is_over(state):
        seat = game.to_act(state)[0]
        for who in (seat, None):
            yield to_plain(game.view(state, who)), events
        events = []
        tr = game.apply(state, seat, rng.choice(game.legal_actions(state, seat)))
        state = tr.state
        events = [to_plain(e) for e in tr.events]
    yield to_plain(game.view(state, None)), events
    yield {"result": to_plain(game.result(state))}, []


@pytest.mark.parametrize("game_id", sorted(GAMES))
@pytest.mark.parametrize("generic", [False, True], ids=["own", "generic"])
def test_every_view_move_event_and_result_renders(game_id: str, generic: bool) -> None:
    """The game's renderer (and the generic one, for graceful degradation) copes with
    everything a random game produces, and never prints a raw card code without its
    name where the pattern knows the card."""
    for seed in (1, 2):
        render_cls = Renderer if generic else RENDERERS[game_id]
        render = render_cls(Seats(me=0, names={1: "Ann", 2: "Bea", 3: "Cy"}))
        for view, events in playout(game_id, seed):
            if "result" in view:
                lines = render.result_lines(view["result"])
                assert lines[0] == "Game over." and any("Scores:" in x for x in lines)
                continue
            lines = render.view_lines(view)
            assert lines and all(isinstance(x, str) for x in lines)
            render.seats.me = view["seat"]
            for action in view["legal"]:
                label = render.action(action)
                assert label
                for code in render.action_cards(action):
                    # cards named per the pattern (Dou Dizhu's own renderer: short codes)
                    named = generic or game_id != "doudizhu"
                    assert (render.card(code) if named else code) in label
            assert render.moves_lines(view["legal"]) or not view["legal"]
            for event in events:
                assert all(isinstance(x, str) for x in render.event(event))


def test_many_moves_are_grouped_and_each_numbered_once() -> None:
    """A Dou Dizhu free lead has scores of moves: grouped by combination, all numbered."""
    view = next(v for v, _ in playout("doudizhu", 3) if "legal" in v and len(v["legal"]) > 40)
    lines = renderer_for("doudizhu", Seats(me=view["seat"])).moves_lines(view["legal"])
    assert len(lines) < len(view["legal"])
    numbers = [int(n) for n in re.findall(r"(\d+)\) ", "\n".join(lines))]
    assert sorted(numbers) == list(range(1, len(view["legal"]) + 1))
    single = language("en").term("doudizhu", "single")  # the page's name of the combination
    assert any(line.startswith(f"  {single}:") for line in lines)


def test_hand_event_says_whose_cards() -> None:
    render = renderer_for("scopa", Seats(me=1, names={0: "Ann"}), "napoletane")
    spade, denari = (card_name("en", "napoletane", c).split(" of ")[1] for c in ("AS", "AD"))
    assert render.event({"kind": "hand", "data": {"seat": 1, "hand": ["7D", "AS", "2D"]}}) == [
        f"You get: {spade} AS  {denari} 2D 7D"  # sorted the way players sort: by suit, then rank
    ]
    seven_d, seven_s = (card_name("en", "napoletane", c) for c in ("7D", "7S"))
    assert render.event(
        {"kind": "play", "data": {"seat": 0, "card": "7D", "captured": ["7S"], "scopa": True}}
    ) == [f"Ann plays {seven_d} (7D) and captures {seven_s} (7S) — SCOPA!"]


def test_unknown_event_degrades_to_a_generic_line() -> None:
    render = renderer_for("scopa", Seats(me=0, names={1: "Ann"}), "napoletane")
    assert render.event({"kind": "new_thing", "data": {"seat": 1, "cards": ["AD"]}}) == [
        f"New thing: seat Ann, cards {card_name('en', 'napoletane', 'AD')} (AD)"
    ]


def test_client_commands_import_without_the_server_package() -> None:
    """Only the embedded server of `cardavia play` needs server/ (imported when used)."""
    code = (
        "import sys\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] == 'server':\n"
        "            raise ImportError(name + ' is blocked')\n"
        "sys.meta_path.insert(0, Block())\n"
        "import client_cli.main, client_cli.play, client_cli.bot, client_cli.lobby\n"
        "import client_cli.watch\n"
        "client_cli.main.build_parser()\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


# -- whole games in a pseudo-terminal ----------------------------------------------------
@pytest.fixture(autouse=True)
def _own_state_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test keeps its held seats in its own state dir, and plays without colour."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("PROMPT_TOOLKIT_NO_CPR", "1")  # pexpect does not answer the query


def spawn(
    *args: str, rows: int = 50, cols: int = 160, env: dict[str, str] | None = None
) -> pexpect.spawn:
    return spawn_cli("play", *args, rows=rows, cols=cols, env={**os.environ, **(env or {})})


def first_key(child: pexpect.spawn) -> str:
    """The first move's key from the prompt (``[1-12]``, ``[0, 2, 3]``)."""
    return str(re.split(r"[-, ]", child.match.group(1))[0])


def play_to_the_end(child: pexpect.spawn, answer: Any = first_key) -> tuple[int, str]:
    """Answer every prompt until the game ends; decline another game. (moves, transcript)"""
    moves, transcript = 0, []
    while True:
        i = child.expect([PROMPT, AGAIN])
        transcript.append(child.before + child.after)
        if i == 0:
            moves += 1
            child.sendline(answer(child))
        else:
            child.sendline("n")
            child.expect(pexpect.EOF)
            transcript.append(child.before)
            child.close()
            return moves, "".join(transcript)


def test_play_scopa_in_a_terminal_against_the_ai() -> None:
    """`cardavia play scopa` with zero setup: one person against the AI to the end."""
    child = spawn("scopa", "-o", "target=1", "--level", "random", "--ai-delay", "0")
    moves, out = play_to_the_end(child)
    assert child.exitstatus == 0, out
    assert moves >= 18  # at least one whole deal of 36 cards, half of them ours
    assert "Players: 0: you, 1: AI 1 (random)" in out
    assert re.search(r"Your hand \(3\): " + suit_pattern("en", "napoletane") + r" \w\w", out)
    assert re.search(r"AI 1 plays [A-Z][a-z]+ of [A-Z][a-z]+ \(\w\w\)", out)
    assert "Game over." in out and "Scores: you: " in out
    assert "Bye." in out and "Traceback" not in out


@pytest.mark.parametrize(
    ("game", "hand", "players"),
    [
        ("cicera", r" \(12\): " + suit_pattern("en", "bresciane") + r" \w\w", 4),
        ("doudizhu", r" \(17\): (\w\w ){10}", 3),
        ("schafkopf", r" \(8\): " + suit_pattern("en", "bavarian") + r" \w\w", 4),
    ],
)
def test_play_every_other_game_in_a_terminal(game: str, hand: str, players: int) -> None:
    """The same zero-setup command plays Cicera (AI partner), Dou Dizhu and Schafkopf."""
    child = spawn(game, "--level", "random", "--ai-delay", "0")
    moves, out = play_to_the_end(child)
    assert child.exitstatus == 0, out
    assert moves >= 1
    others = ", ".join(f"{s}: AI {s} (random)" for s in range(1, players))
    assert f"Players: 0: you, {others}" in out
    assert re.search("Your hand" + hand, out), out[:2000]
    assert "Game over." in out and "Traceback" not in out


def test_updates_arrive_while_the_prompt_waits() -> None:
    """Nobody types: the turn timer runs out, the AI plays for us, and the screen says
    so and shows the next turn — the prompt never blocks what the server sends."""
    child = spawn("scopa", "--level", "random", "--ai-delay", "0", "--turn-timer", "1")
    child.expect(PROMPT)
    child.expect(r"\(The AI played your turn: your time ran out\.\)", timeout=10)
    child.expect(r"You play ")
    child.expect(PROMPT, timeout=10)  # our next turn, shown without any key pressed
    child.sendline("quit")
    child.expect(r"Leave\? This game ends and cannot be resumed\. \[y/N\]")  # asked first
    child.sendline("y")
    child.expect("Bye.")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_ctrl_c_exits_cleanly() -> None:
    child = spawn("cicera", "--level", "random", "--ai-delay", "0")
    child.logfile_read = io.StringIO()
    child.expect(PROMPT)
    child.sendintr()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130
    out = child.logfile_read.getvalue()
    assert "interrupted" in out and "Traceback" not in out


@pytest.fixture(scope="module")
def srv() -> Iterator[LiveServer]:
    with live_server() as server:
        yield server


def first_move_cards(text: str) -> str | None:
    """The first move of the last menu in ``text``, typed by its cards (``7D 3S 4C``)
    instead of its number; None when no menu shows (a prompt redrawn below a line
    printed while it waits, or one drawn before the move sent was answered)."""
    lines = re.findall(r"1\) (.*?)\r?\n", text)
    if not lines:
        return None
    # cards named in full carry their code in brackets; a label too long for the
    # width names them by code alone ("Play 6D, capture 3C + 3D", "Play 2H, no capture")
    label = re.split(r"\s{2,}\d+\) ", lines[-1])[0]  # moves in columns: the first only
    codes = re.findall(r"\((\w\w)\)", label) or re.findall(r"\b[2-9TJQKA][CDHS]\b", label)
    return " ".join(codes)


def test_two_people_play_each_other_on_a_server(srv: LiveServer) -> None:
    ann = spawn("scopa", "--url", srv.url, "--name", "ann", "--humans", "2", "-o", "target=1")
    ann.expect(r"--table[ =](\S+)")
    table = ann.match.group(1)
    bob = spawn("scopa", "--url", srv.url, "--name", "bob", f"--table={table}")
    bob.expect("Players: 0: ann, 1: you")
    players = {"ann": ann, "bob": bob}
    for child in players.values():
        child.logfile_read = io.StringIO()
    moves = {"ann": 0, "bob": 0}
    seen = {"ann": "", "bob": ""}  # what each screen printed since its last move
    done: set[str] = set()
    stuck_at = time.monotonic() + 30
    while len(done) < 2:
        if time.monotonic() > stuck_at:
            screens = {n: c.logfile_read.getvalue()[-1500:] for n, c in players.items()}
            raise AssertionError(f"nobody moved for 30 s: {moves}, {screens}")
        for name, child in players.items():
            if name in done:
                continue
            i = child.expect([PROMPT, AGAIN, pexpect.TIMEOUT], timeout=0.2)
            if i == 0:
                seen[name] += child.before
                cards = first_move_cards(seen[name])
                for _ in range(4):  # the view and moves print above the prompt drawn first
                    if cards is not None:
                        break
                    try:
                        child.expect(PROMPT, timeout=0.25)
                    except pexpect.TIMEOUT:
                        break  # what came is kept for the next expect
                    seen[name] += child.before
                    cards = first_move_cards(seen[name])
                if cards is None:
                    continue  # the same turn's prompt again: its move is on its way
                seen[name] = ""
                moves[name] += 1
                stuck_at = time.monotonic() + 30
                child.sendline(cards if name == "ann" else "1")
            elif i == 1:
                child.sendline("n")
                child.expect(pexpect.EOF)
                child.close()
                assert child.exitstatus == 0
                done.add(name)
    assert moves["ann"] >= 18 and moves["bob"] >= 18


def test_dropped_connection_resumes_the_seat(srv: LiveServer) -> None:
    """The network drops mid-game: play resumes the session with its token, gets its
    seat and a full view back, and the game goes on to the end."""
    carl = spawn("scopa", "--url", srv.url, "--name", "carl", "--level", "random",
                 "--ai-delay", "0", "-o", "target=1")  # fmt: skip
    carl.logfile_read = io.StringIO()
    carl.expect(PROMPT)

    async def drop() -> int:
        dropped = 0
        for conn in list(srv.server.connections):
            if conn.player is not None and conn.player.name == "carl":
                conn.ws.transport.abort()  # as if the network went away
                dropped += 1
        return dropped

    assert srv.run(drop()) == 1
    carl.expect("reconnecting…")
    carl.expect("Reconnected.")
    moves, out = play_to_the_end(carl)
    assert carl.exitstatus == 0, out
    assert moves >= 10 and "Game over." in out


def test_play_errors(srv: LiveServer, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "scopa", "--url", "ws://127.0.0.1:1"]) == 3
    assert "cannot reach the server" in capsys.readouterr().err
    assert main(["play", "chess", "--url", srv.url]) == 2
    assert "unknown game 'chess'; this server has: scopa" in capsys.readouterr().err
    assert main(["play", "chess"]) == 2
    assert "unknown game 'chess'" in capsys.readouterr().err
    assert main(["play", "scopa", "--url", srv.url, "--table", "nope"]) == 1
    assert "table 'nope' not found" in capsys.readouterr().err
    assert main(["play", "scopa", "--url", srv.url, "-o", "target"]) == 2
    assert "bad option 'target'" in capsys.readouterr().err
    assert main(["play", "scopa", "--url", srv.url, "-o", "target=-4"]) == 1
    assert "bad_options" in capsys.readouterr().err


def test_friends_at_a_new_cicera_table_are_partners() -> None:
    options = table_options(build_parser().parse_args(["play", "cicera", "--humans", "2"]), 4)
    assert {a.seat for a in options.ai} == {1, 3}  # seats 0 and 2 play together
    options = table_options(
        build_parser().parse_args(["play", "cicera", "--humans", "2", "--seat", "1"]), 4
    )
    assert {a.seat for a in options.ai} == {0, 2}
