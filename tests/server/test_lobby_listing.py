"""The lobby lists tables one can still join or watch: finished ones only to their members;
and ``cardavia-server`` start-up errors are one human line on stderr."""

from __future__ import annotations

import socket

import pytest

from client_cli.client import Client, play_table, random_chooser
from protocol.models import AiSeat, TableOptions
from server.app import CardaviaServer
from server.main import main


async def test_finished_tables_leave_the_listing(server: CardaviaServer) -> None:
    url = f"ws://127.0.0.1:{server.port}"
    async with await Client.connect(url, "ann") as ann, await Client.connect(url, "bob") as bob:
        opts = TableOptions(seat=0, ai=(AiSeat(seat=1, level="random"),), game={"target": 1})
        table = (await ann.create_table("scopa", opts)).table.id
        assert table in {t.id for t in await bob.list_tables()}  # playing: listed
        await play_table(ann, table, random_chooser(1))
        assert table not in {t.id for t in await bob.list_tables()}  # finished: gone
        assert table in {t.id for t in await ann.list_tables()}  # its member still sees it
        assert (await ann.replay(table)).table == table  # and its replay stays reachable


def test_bad_log_level_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--log-level", "loud"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "'debug', 'info', 'warning', 'error' or 'critical'" in err


def test_port_in_use_is_one_human_line(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["--port", str(port), "--log-level", "error"]) == 1
    err = capsys.readouterr().err
    human = [line for line in err.splitlines() if line.startswith("cardavia-server:")]
    assert human == [
        f"cardavia-server: cannot listen on 127.0.0.1:{port}: the port is in use "
        "(another server?); choose another with --port"
    ]
    assert '"event": "cannot_listen"' in err  # the JSON log line stays


async def test_quick_play_with_a_partner_sits_opposite(server: CardaviaServer) -> None:
    url = f"ws://127.0.0.1:{server.port}"
    async with (
        await Client.connect(url, "ann") as ann,
        await Client.connect(url, "bob") as bob,
        await Client.connect(url, "cy") as cy,
    ):
        first = await ann.quick_play("cicera", partner="bob")  # bob has no table: open one
        assert first.seat == 0
        stranger = await cy.quick_play("cicera")  # a stranger takes the first free seat
        assert (stranger.table.id, stranger.seat) == (first.table.id, 1)
        friend = await bob.quick_play("cicera", partner="ann")
        assert (friend.table.id, friend.seat) == (first.table.id, 2)  # ann's partner


async def test_the_listing_is_capped_own_tables_then_free_seats_first() -> None:
    """A lobby of many tables lists at most max_listed_tables: the player's own, then
    tables with a free seat (newest first), then games in progress."""

    from server.app import running_server
    from tests.server.helpers import FAST

    config = FAST.replace(max_listed_tables=3)
    async with running_server(config) as srv:
        url = f"ws://127.0.0.1:{srv.port}"
        async with (
            await Client.connect(url, "ann") as ann,
            await Client.connect(url, "bob") as bob,
        ):
            ai = (AiSeat(seat=1, level="random"),)
            playing = (await ann.create_table("scopa", TableOptions(seat=0, ai=ai))).table.id
            older = (await ann.create_table("scopa", TableOptions(seat=0))).table.id
            newer = (await ann.create_table("cicera", TableOptions(seat=0))).table.id
            mine = (await bob.create_table("scopa", TableOptions(seat=0, private=True))).table.id
            listed = [t.id for t in await bob.list_tables()]
            assert listed == [mine, newer, older]  # capped: the game in progress left out
            assert [t.id for t in await bob.list_tables("scopa")] == [mine, older, playing]
            assert [t.id for t in await ann.list_tables()] == [newer, older, playing]
            assert mine not in {t.id for t in await ann.list_tables("scopa")}  # private
