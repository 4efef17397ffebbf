"""``cardavia play --quick`` whose connection drops while its table waits: the server
gives the waiting seat up (docs/protocol.md, Quick play), so the client resumes its
session and quick plays again by itself, saying so in one line (issue 53)."""

from __future__ import annotations

import io
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pexpect
import pytest

from tests.client_cli.live_server import FAST, LiveServer, live_server
from tests.client_cli.spawn import spawn_cli

pytestmark = pytest.mark.heavy  # a pseudo-terminal and a fill wait

WAIT = 3.0
"""The quick-play fill wait of this server: long enough to drop the connection in."""

AGAIN_LINE = "Reconnected; your waiting seat was given up, looking for a table again."


@pytest.fixture(scope="module")
def srv() -> Iterator[LiveServer]:
    with live_server(FAST.replace(quick_fill_wait=WAIT)) as server:
        yield server


@pytest.fixture(autouse=True)
def _own_state_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("NO_COLOR", "1")


def drop(srv: LiveServer, name: str) -> int:
    """Abort the server side of ``name``'s connections, as if the network went away."""

    async def go() -> int:
        dropped = 0
        for conn in list(srv.server.connections):
            if conn.player is not None and conn.player.name == name:
                conn.ws.transport.abort()
                dropped += 1
        return dropped

    return srv.run(go())


def tables_of(srv: LiveServer, name: str) -> dict[str, str]:
    """The tables where ``name`` sits: their status by id."""

    async def go() -> dict[str, str]:  # read on the server's loop, between its steps
        player = next(p for p in srv.server.sessions if p.name == name)
        return {
            table_id: actor.core.status
            for table_id, actor in srv.server.lobby.tables.items()
            if actor.core.seat_of(player.player_id) is not None
        }

    return srv.run(go())


def test_a_dropped_quick_player_quick_plays_again(srv: LiveServer) -> None:
    dana = spawn_cli(
        "play", "scopa", "--url", srv.url, "--quick", "--plain", "--name", "dana",
        "--level", "random", env={**os.environ},
    )  # fmt: skip
    dana.logfile_read = io.StringIO()
    dana.expect("Waiting for 1 more player")
    first = tables_of(srv, "dana")
    assert list(first.values()) == ["waiting"]
    assert drop(srv, "dana") == 1
    dropped = time.monotonic()
    dana.expect(AGAIN_LINE)
    dana.expect("Play starts.")
    took = time.monotonic() - dropped
    assert took <= WAIT + 1.0, f"the new game started {took:.2f} s after the drop"
    now = tables_of(srv, "dana")
    assert list(now.values()) == ["playing"] and not set(now) & set(first)
    dana.sendline("quit")
    dana.expect(r"\[y/N\]")
    dana.sendline("y")
    dana.expect(pexpect.EOF)
    dana.close()
    out = dana.logfile_read.getvalue()
    assert dana.exitstatus == 0, out
    assert out.count(AGAIN_LINE) == 1 and "Traceback" not in out
    assert "no longer knows" not in out


def test_a_seat_given_up_after_the_resume_quick_plays_again(srv: LiveServer) -> None:
    """The resume came before the server saw the old connection close: the welcome
    still listed the table, then ``left`` (``ref`` null) says the seat was given up."""
    erin = spawn_cli(
        "play", "scopa", "--url", srv.url, "--quick", "--plain", "--name", "erin",
        "--level", "random", env={**os.environ},
    )  # fmt: skip
    erin.logfile_read = io.StringIO()
    erin.expect("Waiting for 1 more player")
    first = tables_of(srv, "erin")

    async def old_close_seen() -> None:  # what the server does on the old connection's close
        player = next(p for p in srv.server.sessions if p.name == "erin")
        srv.server.lobby.disconnected(player)

    srv.run(old_close_seen())
    told = time.monotonic()
    erin.expect(AGAIN_LINE)
    erin.expect("Play starts.")
    took = time.monotonic() - told
    assert took <= WAIT + 1.0, f"the new game started {took:.2f} s after the seat was given up"
    now = tables_of(srv, "erin")
    assert list(now.values()) == ["playing"] and not set(now) & set(first)
    erin.sendline("quit")
    erin.expect(r"\[y/N\]")
    erin.sendline("y")
    erin.expect(pexpect.EOF)
    erin.close()
    out = erin.logfile_read.getvalue()
    assert erin.exitstatus == 0, out
    assert out.count(AGAIN_LINE) == 1 and "Traceback" not in out
