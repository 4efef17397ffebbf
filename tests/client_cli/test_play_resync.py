"""The terminal session after a request that got no answer: it resumes, never a traceback."""

from __future__ import annotations

import asyncio
import io
from typing import Any

import pytest

from client_cli import play_session
from client_cli.client import Client, RequestTimeout
from client_cli.play_session import PlaySession
from client_cli.terminal import Screen
from protocol import server_messages as sm
from protocol.models import SeatInfo, TableInfo


class Silent:
    """A client whose moves are never answered (the table's server process died)."""

    token, name, player_id, ca_file, resumed = "t", "me", "p", None, True

    def __init__(self) -> None:
        self.tables: dict[str, object] = {"T": object()}
        self.closed = False

    async def act(self, table: str, action: object, **_: object) -> None:
        raise RequestTimeout("no answer to act within 20.0 s")

    async def close(self) -> None:
        self.closed = True


class Answering(Silent):
    """The resumed session's client: its moves are answered."""

    def __init__(self) -> None:
        super().__init__()
        self.acts: list[tuple[object, object]] = []

    async def act(self, table: str, action: object, **kw: object) -> None:
        self.acts.append((action, kw.get("version")))


async def test_an_unanswered_move_resumes_the_session_in_one_go(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fresh = Answering()

    async def connect(*_: Any, **__: Any) -> Answering:
        return fresh

    monkeypatch.setattr(Client, "connect", connect)
    monkeypatch.setattr(play_session, "RECONNECT_DELAYS", (0.0,))
    seats = tuple(SeatInfo(seat=i, kind="human" if i == 0 else "ai") for i in range(2))
    info = TableInfo(
        id="T", game="scopa", title="Scopa", status="playing", seats=seats,
        spectators=0, private=False, quick=False, owner="p", game_no=1, version=1,
        turn_timer=None, ai_delay=0.0, options={},
    )  # fmt: skip
    out = io.StringIO()
    old = Silent()
    session = PlaySession(old, sm.Joined(table=info, seat=0), Screen(out), url="ws://x")  # type: ignore[arg-type]
    view: dict[str, Any] = {
        "seat": 0, "to_act": [0], "legal": [{"type": "play", "card": "7D", "capture": []}],
    }  # fmt: skip
    session.on_message(sm.Snapshot(table="T", game_no=1, version=2, seat=0, view=view))
    await asyncio.wait_for(session.on_line("1"), 5)  # no exception escapes
    text = out.getvalue()
    assert "no answer to act within 20.0 s" in text and "Reconnected." in text
    assert "Traceback" not in text
    now: Any = session.client
    assert now is fresh and old.closed and session.done is None
    # the table's snapshot on the new connection: still at that version, the move goes again
    move = view["legal"][0]
    session.on_message(sm.Snapshot(table="T", game_no=1, version=2, seat=0, view=view))
    await asyncio.sleep(0.01)
    assert fresh.acts == [(move, 2)]
    # once only: a later snapshot at the same version does not send it a third time
    session.on_message(sm.Snapshot(table="T", game_no=1, version=2, seat=0, view=view))
    await asyncio.sleep(0.01)
    assert fresh.acts == [(move, 2)]
