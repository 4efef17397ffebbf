"""``cardavia play`` promises only what it keeps (issue 53, point 3): help tells what
Ctrl-C does to the seat as it is (kept on a server, the game's end without one),
``quit`` during a game asks first, a refusal says the rule in the player's language,
and ``--help`` prints no Sphinx markup."""

from __future__ import annotations

import argparse
import io
import re
from typing import Any

import pytest

from client_cli.client import ServerError
from client_cli.lang import LANGUAGES, language
from client_cli.main import build_parser
from client_cli.play_session import PlaySession
from client_cli.terminal import Screen
from protocol import server_messages as sm
from protocol.errors import ErrorCode
from protocol.models import SeatInfo, TableInfo


class FakeClient:
    """The client a session talks to: records leaving and moves, refuses as told."""

    token, name, player_id, ca_file = "t", "ann", "p0", None

    def __init__(self, refuse: sm.Error | None = None) -> None:
        self.left: list[str] = []
        self.acts: list[Any] = []
        self.refuse = refuse

    async def leave(self, table: str) -> None:
        self.left.append(table)

    async def act(self, table: str, action: Any, **_: Any) -> None:
        if self.refuse is not None:
            raise ServerError(self.refuse)
        self.acts.append(action)


def session(
    lang: str = "en", *, embedded: bool, game: str = "schafkopf", client: FakeClient | None = None
) -> tuple[PlaySession, FakeClient, io.StringIO]:
    seats = tuple(
        SeatInfo(seat=i, kind="human", name="ann") if i == 0 else SeatInfo(seat=i, kind="ai")
        for i in range(4)
    )
    info = TableInfo(id="T1", game=game, title=game, status="playing", seats=seats,
                     spectators=0, private=False, quick=False, owner="p0", game_no=1, version=0,
                     turn_timer=None, ai_delay=0.0, options={"pattern": "bavarian"})  # fmt: skip
    out, client = io.StringIO(), client or FakeClient()
    play = PlaySession(
        client,  # type: ignore[arg-type]
        sm.Joined(table=info, seat=0),
        Screen(out),
        url="" if embedded else "ws://example.org:8765",
        embedded=embedded,
        lang=language(lang),
    )
    return play, client, out


def my_turn(play: PlaySession, legal: list[dict[str, Any]]) -> None:
    view = {"seat": 0, "to_act": [0], "phase": "play", "hand": ["AG", "7E"], "legal": legal}
    play.on_message(sm.Snapshot(table="T1", game_no=1, version=3, seat=0, view=view))


async def test_help_without_a_server_does_not_promise_a_resume() -> None:
    play, _, out = session(embedded=True)
    await play.on_line("help")
    text = " ".join(out.getvalue().split())
    assert "keeps your seat" not in text and "resumes" not in text
    assert "Ctrl-C, closing the window or 'quit' ends it" in text
    assert "'cardavia play' starts a new one" in text
    on_server, _, out = session(embedded=False)
    await on_server.on_line("help")
    text = " ".join(out.getvalue().split())
    assert "keeps your seat" in text
    assert "'cardavia play schafkopf --url ws://example.org:8765' resumes it" in text


@pytest.mark.parametrize("code", LANGUAGES)
def test_every_language_says_what_is_kept(code: str) -> None:
    lang, english = language(code), language("en")
    for key in ("help_server", "help_embedded", "quit_confirm", "quit_confirm_embedded"):
        text = lang.t(f"session.{key}", command="C")
        assert code == "en" or text != english.t(f"session.{key}", command="C"), key
    assert "'cardavia play' " not in lang.t("session.help")  # no promise in the list


async def test_quit_during_a_game_asks_first() -> None:
    play, client, out = session(embedded=False)
    my_turn(play, [{"type": "play", "card": "AG"}])
    await play.on_line("quit")
    assert play.done is None and not client.left
    assert play.screen.prompt == "Give up your seat? The AI plays it from now on. [y/N] "
    my_turn(play, [{"type": "play", "card": "AG"}])  # the table moves on: still asking
    assert play.screen.prompt is not None and play.screen.prompt.startswith("Give up")
    await play.on_line("")  # Enter: no
    assert play.done is None and not client.left
    assert "You stay at the table." in out.getvalue()
    assert play.screen.prompt is not None and play.screen.prompt.startswith("Your move")
    await play.on_line("1")  # a move again, not an answer
    assert client.acts == [{"type": "play", "card": "AG"}]
    await play.on_line("quit")
    await play.on_line("y")
    assert play.done == 0 and client.left == ["T1"]


async def test_quit_asks_in_the_language_and_after_a_game_leaves_at_once() -> None:
    play, _, _ = session("de", embedded=True)
    my_turn(play, [{"type": "play", "card": "AG"}])
    await play.on_line("quit")
    assert play.screen.prompt == "Gehen? Das Spiel endet und lässt sich nicht fortsetzen. [j/N] "
    await play.on_line("ja")
    assert play.done == 0
    over, client, _ = session(embedded=False)
    over.over = True
    await over.on_line("quit")
    assert over.done == 0 and client.left == ["T1"]


@pytest.mark.parametrize(
    ("code", "said"),
    [
        ("de", "Nicht erlaubt: du musst Gras bedienen, wenn du kannst."),
        ("it", "devi rispondere a Foglie quando puoi"),
        ("en", "Not allowed: you must follow Leaves when you can."),
    ],
)
async def test_a_refused_card_says_the_rule_in_the_language(code: str, said: str) -> None:
    refusal = sm.Error(
        code=ErrorCode.ILLEGAL_ACTION,
        message="you must follow G when you can",
        detail="must_follow_suit",
        reason=sm.Reason(key="must_follow_suit", params={"suit": "G"}),
    )
    play, _, out = session(code, embedded=True, client=FakeClient(refusal))
    my_turn(play, [{"type": "play", "card": "AG"}, {"type": "play", "card": "7E"}])
    await play.on_line("2")
    assert said in out.getvalue()
    assert play.moves  # asked again, nothing played


def test_help_texts_carry_no_sphinx_markup() -> None:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name, command in sub.choices.items():
        text = command.format_help()
        assert not re.search(r":[a-z]+:`|``", text), (name, text)
    play = sub.choices["play"].format_help()
    assert "'cardavia play scopa'" in play and "PlaySession" not in play
