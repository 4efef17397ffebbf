"""Rated quick play in the terminal (issue 55) against a real server: the queue seats two
waiting accounts at one rated table while the terminal says how long it waited, Ctrl-C
(a cancelled wait) takes the player out of the queue, and ``cardavia play GAME --quick
--rated`` in a pseudo-terminal waits, then plays at the rated table the AI filled."""

from __future__ import annotations

import asyncio
import io
import json
import os
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pexpect
import pytest

from client_cli.client import Client
from client_cli.lang import language
from client_cli.main import main
from client_cli.rated_game import RatingChange, rating_line
from client_cli.rated_queue import wait_in_queue
from client_cli.rating_view import change_text, rating_text, sparkline
from client_cli.terminal import Screen
from protocol import server_messages as sm
from server.persist.db.game_record import SeatKind
from tests.client_cli.live_server import FAST, LiveServer, live_server
from tests.client_cli.spawn import LIVE, spawn_cli
from tests.server.test_rating_store import one_on_one
from tests.server.test_rating_store import rated as rated_record

pytestmark = pytest.mark.heavy

PASSWORD = "correct horse battery"
EN = language("en")


@pytest.fixture(scope="module")
def srv() -> Iterator[LiveServer]:
    with live_server(FAST.replace(login_backoff=0.01)) as server:
        yield server


async def account(url: str, name: str) -> Client:
    client = await Client.connect(url, "x")
    await client.register(name, PASSWORD)
    return client


def logged_in(
    srv: LiveServer, name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> dict[str, str]:
    """Register ``name`` with ``cardavia login`` (kept under ``tmp_path``); the environment
    a ``cardavia`` child process then runs in, logged in the same way."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    monkeypatch.setattr("sys.stdin", io.StringIO(PASSWORD + "\n"))
    login = ["login", "--url", srv.url, "--name", name, "--password-stdin"]
    assert main([*login, "--register"]) == 0
    return {**os.environ, "XDG_STATE_HOME": str(tmp_path), "PROMPT_TOOLKIT_NO_CPR": "1"}


def quit_at_the_prompt(child: pexpect.spawn) -> None:
    """At the player's move prompt: quit, say yes to giving the seat up, see it end."""
    child.expect(r"Your move \[[^\]]+\]:" + LIVE)
    child.sendline("quit")
    child.expect(r"\[y/N\]")
    child.sendline("y")
    child.expect(pexpect.EOF, timeout=10)


def test_two_queued_players_are_seated_together_and_told_how_long_they_waited(
    srv: LiveServer,
) -> None:
    srv.server.rated.fill_wait = 10.0  # long enough for Bo to come: no AI

    async def go() -> tuple[str, sm.Joined, sm.Joined]:
        ann, bo = await account(srv.url, "Queen Ann"), await account(srv.url, "Queen Bo")
        out = io.StringIO()
        waiting = asyncio.create_task(
            wait_in_queue(
                ann,
                srv.url,
                "scopa",
                "Scopa",
                with_bots=False,
                screen=Screen(out),
                lang=EN,
                tick=0.2,
            )
        )
        await asyncio.sleep(0.7)  # Ann waits alone a while
        assert isinstance(await bo.queue_rated("scopa"), sm.Queued)
        client, joined = await asyncio.wait_for(waiting, 10)
        assert client is ann
        other = await bo.wait_for(lambda m: isinstance(m, sm.Joined), 10)
        await ann.close()
        await bo.close()
        return out.getvalue(), joined, other

    screen, joined, other = srv.run(go())
    lines = screen.splitlines()
    assert lines[0] == EN.t("queue.waiting", game="Scopa", rating=1500, wait=10)
    assert EN.t("queue.still", s=0) in lines[1:] or EN.t("queue.still", s=1) in lines[1:]
    assert joined.table.id == other.table.id and joined.table.rated
    assert {joined.seat, other.seat} == {0, 1}


def test_a_cancelled_wait_leaves_the_queue(srv: LiveServer) -> None:
    srv.server.rated.fill_wait = 30.0

    async def go() -> str:
        ann = await account(srv.url, "Leaving Ann")
        assert ann.account is not None
        out = io.StringIO()
        waiting = asyncio.create_task(
            wait_in_queue(
                ann, srv.url, "cicera", "Cicera", with_bots=True, screen=Screen(out), lang=EN
            )
        )
        queue = srv.server.rated.queue
        async with asyncio.timeout(15):
            while await queue.find(ann.account.account_id) is None:
                await asyncio.sleep(0.02)
        waiting.cancel()  # what Ctrl-C does to the command's task
        with pytest.raises(asyncio.CancelledError):
            await waiting
        assert await queue.find(ann.account.account_id) is None  # nobody seats her now
        await ann.close()
        return out.getvalue()

    lines = srv.run(go()).splitlines()
    assert lines[0] == EN.t("queue.waiting_bots", game="Cicera", rating=1500, wait=30)
    assert lines[-1] == EN.t("queue.left")


def test_cardavia_play_quick_rated_waits_then_plays_at_a_rated_table(
    srv: LiveServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = logged_in(srv, "Terminal Tess", tmp_path, monkeypatch)
    srv.server.rated.fill_wait = 0.5  # nobody else comes: the AI level fills the seat
    child = spawn_cli("play", "scopa", "--url", srv.url, "--quick", "--rated", "--plain", env=env)
    try:
        child.expect_exact(EN.t("queue.waiting", game="Scopa", rating=1500, wait=1))
        child.expect(r"Players: ([^\r\n]*)")
        players = child.match.group(1)
        assert "you" in players and "AI" in players
        child.expect_exact(EN.t("session.rated"))
        quit_at_the_prompt(child)
    finally:
        child.close()
    assert child.exitstatus == 0


def test_cardavia_play_rated_makes_a_rated_table_the_lobby_marks(
    srv: LiveServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    assert main(["play", "scopa", "--url", srv.url, "--rated", "--plain"]) == 2
    assert "a rated table needs an account: run cardavia login" in capsys.readouterr().err
    env = logged_in(srv, "Rated Rob", tmp_path, monkeypatch)
    args = ("play", "scopa", "--url", srv.url, "--rated", "--level", "easy", "--plain")
    child = spawn_cli(*args, env=env)
    try:
        child.expect(r"at table (\S+) on ")
        table = child.match.group(1)
        child.expect(r"Players: ([^\r\n]*)")
        assert "AI 1 (easy)" in child.match.group(1)
        child.expect_exact(EN.t("session.rated"))
        capsys.readouterr()
        assert main(["lobby", "--url", srv.url]) == 0
        row = next(r for r in printed(capsys) if r.startswith(table))
        assert " rated" in row
        quit_at_the_prompt(child)
    finally:
        child.close()
    assert child.exitstatus == 0
    # a house rule is refused by the server, said in one line
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    bad = ["play", "scopa", "--url", srv.url, "--rated", "-o", "target=1", "--plain", "--new"]
    assert main(bad) == 1
    assert "cannot take a seat" in capsys.readouterr().err


LOG_LINE = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \[")
"""A line the server (in this process) logs to stdout."""


def printed(capsys: pytest.CaptureFixture[str]) -> list[str]:
    """What the command printed since the last call, without the server's log lines."""
    return [x for x in capsys.readouterr().out.splitlines() if not LOG_LINE.match(x)]


def rated_games(srv: LiveServer, account_id: str, count: int, *, game: str = "scopa") -> None:
    """``count`` rated games of the account against the easy AI, written as the server
    writes a finished game's record (it rates them in the same transaction)."""
    seats = ((account_id, SeatKind.HUMAN, False), (None, SeatKind.AI, False))
    now = time.time()

    async def write() -> None:
        for i in range(count):
            table = f"{account_id[-6:]}{i}"
            record = rated_record(
                table, seats, one_on_one(i % 4), game=game, when=now - 100 + i,
                levels=(None, "easy"),
            )  # fmt: skip
            assert await srv.server.records.write(record)

    srv.run(write())


def test_profile_and_leaderboard_show_the_server_s_ratings(
    srv: LiveServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    logged_in(srv, "Listed Lou", tmp_path, monkeypatch)
    lou = srv.run(Client.connect(srv.url, login=("Listed Lou", PASSWORD)))
    newbie = srv.run(account(srv.url, "Newbie Nia"))
    assert lou.account is not None and newbie.account is not None
    rated_games(srv, lou.account.account_id, 20)  # enough to be listed
    rated_games(srv, newbie.account.account_id, 2)  # still provisional
    profile = srv.run(lou.profile())
    [rating] = profile.ratings
    capsys.readouterr()
    assert main(["profile", "--url", srv.url]) == 0
    out = printed(capsys)
    line = next(x for x in out if x.startswith("  scopa ") and "±" in x)
    shown = f"{rating.rating} ± {rating.deviation}"
    assert shown in line and " 20 " in line and change_text(rating.change) in line
    assert line.endswith(sparkline([p.rating for p in rating.history]))
    assert main(["profile", "Newbie Nia", "--url", srv.url, "--lang", "de"]) == 0
    out = printed(capsys)
    assert out[0].startswith("Newbie Nia, Mitglied seit")
    assert any(x.startswith("  scopa ") and "?" in x for x in out)
    assert out[-1].startswith("  ? vorläufig")

    assert main(["leaderboard", "scopa", "--url", srv.url]) == 0
    out = printed(capsys)
    assert out[0] == "Scopa leaderboard: people, page 1 of 1"
    [row] = [x for x in out if "Lou" in x]
    assert "Listed Lou (you)" in row and shown in row
    assert not any("Nia" in x for x in out)  # provisional ratings are not listed
    assert main(["leaderboard", "scopa", "--url", srv.url, "--bots"]) == 0
    assert any("AI easy (bot)" in x for x in printed(capsys))
    assert main(["leaderboard", "scopa", "--url", srv.url, "--page", "3"]) == 0
    assert "There is no page 3: the leaderboard has 1." in printed(capsys)
    assert main(["leaderboard", "scopa", "--url", srv.url, "--json"]) == 0
    board = sm.Leaderboard.model_validate_json(printed(capsys)[-1])
    assert [e.name for e in board.entries if e.name == "Listed Lou"] == ["Listed Lou"]
    assert main(["leaderboard", "tresette", "--url", srv.url]) == 2
    assert "unknown game 'tresette'" in capsys.readouterr().err
    srv.run(lou.close())
    srv.run(newbie.close())


def test_after_a_rated_game_the_terminal_says_the_new_rating(
    srv: LiveServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A whole rated Dou Dizhu deal against two easy AIs, typed in a pseudo-terminal: once
    the server has rated it, the session says the player's rating and its change."""
    env = logged_in(srv, "Dealt Dee", tmp_path, monkeypatch)
    args = ("play", "doudizhu", "--url", srv.url, "--rated", "--level", "easy", "--plain")
    child = spawn_cli(*args, env=env, timeout=30)
    said = r"Your Dou Dizhu rating: (\d+\??(?: ± \d+)?) \(([-+±]\d+)\)\."
    try:
        while child.expect([r"Your move \[(\d+)[^\]]*\]:" + LIVE, r"Again\? \[y/n\]"]) == 0:
            child.sendline(child.match.group(1))
        child.expect(said)
        shown, change = child.match.group(1), child.match.group(2)
        child.sendline("n")
        child.expect(pexpect.EOF, timeout=10)
    finally:
        child.close()
    assert child.exitstatus == 0
    dee = srv.run(Client.connect(srv.url, login=("Dealt Dee", PASSWORD)))
    [rating] = srv.run(dee.profile()).ratings
    srv.run(dee.close())
    assert rating.games == 1 and shown == rating_text(
        rating.rating, rating.deviation, rating.provisional
    )
    assert change == change_text(rating.change)


class Profiles:
    """A client whose profile shows ``games`` rated Scopa games, then one more each call
    once ``rated`` is set (the server writing the game's record)."""

    def __init__(self, games: int) -> None:
        self.games = games
        self.rated = 0

    async def profile(self, name: str | None = None) -> sm.Profile:
        self.games += 1 if self.rated else 0
        self.rated = max(0, self.rated - 1)
        rating = sm.ProfileRating(
            game="scopa", rating=1500 + self.games, deviation=200, provisional=True,
            games=self.games, change=1,
        )  # fmt: skip
        return sm.Profile(name="Ann", member_since=0, games=(), ratings=(rating,))


def test_a_rematch_waits_for_the_game_before_to_be_counted() -> None:
    """The next game of a rated table may start before the last one's record is written:
    its change is read only once both count, never the last game's change as its own."""

    async def go() -> None:
        client = Profiles(games=4)
        first = RatingChange("scopa", tries=3, pause=0)
        await first.before(client)  # type: ignore[arg-type]
        assert first.games_before == 4
        second = first.next_game()
        await second.before(client)  # type: ignore[arg-type]  # game 1 not yet written
        assert second.games_before == 5
        client.rated = 1  # game 1 is written
        done = await first.after(client)  # type: ignore[arg-type]
        assert done is not None and done.games == 5
        assert await second.after(client) is None  # type: ignore[arg-type]  # not game 2
        client.rated = 1  # game 2 is written
        done = await second.after(client)  # type: ignore[arg-type]
        assert done is not None and done.games == 6
        assert rating_line(done, "Scopa", EN) == "Your Scopa rating: 1506? (+1)."

    asyncio.run(go())


def test_a_refused_queue_is_one_line(
    srv: LiveServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The account already waits in a rated queue from another session: the command says
    so in one line and ends (the other session keeps its place)."""
    logged_in(srv, "Twice Tia", tmp_path, monkeypatch)
    srv.server.rated.fill_wait = 60.0
    phone = srv.run(Client.connect(srv.url, login=("Twice Tia", PASSWORD)))
    assert isinstance(srv.run(phone.queue_rated("scopa")), sm.Queued)
    capsys.readouterr()
    assert main(["play", "scopa", "--url", srv.url, "--quick", "--rated", "--plain"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "cannot join the rated queue" in err[0]
    assert "(already_queued)" in err[0]
    assert phone.account is not None
    assert srv.run(srv.server.rated.queue.find(phone.account.account_id)) is not None
    srv.run(phone.leave_queue("scopa"))
    srv.run(phone.close())


def test_a_bot_account_plays_a_rated_game_from_the_queue(
    srv: LiveServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """``cardavia bot --rated``: the bot account waits in the rated queue, the closest AI
    levels fill the table, the bot plays it to the end and the game rates it."""

    async def made() -> str:
        owner = await account(srv.url, "Bot Owner")
        bot = await owner.create_bot("Rated Robo")
        token = (await owner.create_api_token(bot.account_id, "cli")).token
        await owner.close()
        return token

    token = srv.run(made())
    srv.server.rated.fill_wait = 0.3
    bot = ["bot", "--url", srv.url, "--game", "doudizhu", "--policy", "random", "--seed", "1"]
    capsys.readouterr()
    assert main([*bot, "--rated", "--api-token", token]) == 0
    result = json.loads(printed(capsys)[-1])
    [played] = result["bots"]
    assert played["error"] is None and played["moves"] > 0
    table = srv.server.lobby.tables[played["table"]]
    assert table.core.info().rated
    srv.run(asyncio.wait_for(srv.server.record_writer.drain(), 10))
    robo = srv.run(Client.connect(srv.url, "reader"))
    profile = srv.run(robo.profile("Rated Robo"))
    srv.run(robo.close())
    assert profile.bot and [(r.game, r.games) for r in profile.ratings] == [("doudizhu", 1)]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--rated"], "--rated plays as a bot account: give --api-token"),
        (["--rated", "--api-token", "t", "--count", "2"], "give --count 1"),
        (["--with-bots"], "give --rated"),
    ],
)
def test_rated_bots_refuse_what_cannot_queue(
    argv: list[str],
    message: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.delenv("CARDAVIA_BOT_TOKEN", raising=False)
    assert main(["bot", "--url", "ws://127.0.0.1:9", "--game", "scopa", *argv]) == 2
    assert message in capsys.readouterr().err
