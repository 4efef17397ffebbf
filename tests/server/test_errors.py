"""Bad input over a real connection: a typed error, nothing changed, nobody else affected."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import msgpack
import pytest
from websockets.asyncio.client import connect

from client_cli.client import Client, ServerError
from engine.registry import GAMES
from protocol import client_messages as cm
from protocol import server_messages as sm
from protocol.codec import decode_server, encode
from server.app import CardaviaServer

GAME_IDS = sorted(GAMES)


async def _error(client: Client, frame: bytes | str) -> sm.Error:
    await client.send_raw(frame)
    msg = await client.wait_for(lambda m: isinstance(m, sm.Error), 5)
    assert isinstance(msg, sm.Error)
    return msg


@pytest.fixture
async def pair(server: CardaviaServer) -> AsyncIterator[tuple[Client, Client, str]]:
    """Two humans seated at a scopa table that has started (seat 0 to act or not)."""
    a = await Client.connect(server.url, "Ann")
    b = await Client.connect(server.url, "Bob")
    joined = await a.create_table("scopa", {"seat": 0})
    await b.join(joined.table.id, seat=1)
    table = joined.table.id
    await a.wait_for(lambda m: isinstance(m, sm.Update), 5)
    await b.wait_for(lambda m: isinstance(m, sm.Update), 5)
    yield a, b, table
    await a.close()
    await b.close()


async def test_malformed_frames(pair: tuple[Client, Client, str]) -> None:
    a, _, table = pair
    before = a.tables[table].version
    cases: list[tuple[bytes | str, str]] = [
        (b"\xc1\x00garbage", "bad_message"),
        ("a text frame", "bad_message"),
        (msgpack.packb([1, 2, 3]), "bad_message"),
        (msgpack.packb({"id": 9}), "bad_message"),
        (msgpack.packb({"type": "launch_rockets", "id": 10}), "unknown_type"),
        (
            msgpack.packb(
                {"type": "act", "id": 11, "table": table, "seat": "0", "version": 1, "action": {}}
            ),
            "bad_message",
        ),
        (
            msgpack.packb(
                {
                    "type": "act",
                    "id": 12,
                    "table": table,
                    "seat": 0,
                    "version": 1,
                    "action": {},
                    "extra": 1,
                }
            ),
            "bad_message",
        ),
        (msgpack.packb({"type": "chat", "id": 13, "table": table, "text": 5}), "bad_message"),
        (msgpack.packb({"type": "list_tables", "id": True}), "bad_message"),
    ]
    for frame, code in cases:
        err = await _error(a, frame)
        assert err.code == code, (frame, err)
    # refs are echoed when the id could be read
    err = await _error(a, msgpack.packb({"type": "launch_rockets", "id": 77}))
    assert err.ref == 77
    # the connection still works and the table did not move
    await a.ping()
    assert a.tables[table].version == before
    tables = await a.list_tables()
    assert any(t.id == table and t.version == before for t in tables)


async def test_game_errors_change_nothing(
    server: CardaviaServer, pair: tuple[Client, Client, str]
) -> None:
    a, b, table = pair
    core = server.lobby.tables[table].core
    state_before, version = core.state, core.version
    to_act = core.game.to_act(core.state)[0]
    mover, waiter = (a, b) if to_act == 0 else (b, a)
    idle_seat = 1 - to_act
    legal = mover.tables[table].legal
    assert legal and not waiter.tables[table].legal

    async def refused(client: Client, **kw: Any) -> ServerError:
        with pytest.raises(ServerError) as info:
            await client.act(table, **kw)
        return info.value

    # out of turn
    err = await refused(waiter, action=legal[0], seat=idle_seat, version=version)
    assert err.code == "not_your_turn"
    # a seat that is not yours
    err = await refused(waiter, action=legal[0], seat=to_act, version=version)
    assert err.code == "forbidden"
    # stale version
    err = await refused(mover, action=legal[0], seat=to_act, version=version - 1)
    assert err.code == "stale_version"
    # an action that does not decode
    err = await refused(mover, action={"type": "teleport"}, seat=to_act, version=version)
    assert err.code == "illegal_action" and err.detail == "bad_action"
    # a well-formed action the rules refuse: a card not in hand
    hand = set(mover.tables[table].view["hand"])  # type: ignore[index]
    foreign = next(c for c in core.game.deck.cards if f"{c.rank}{c.suit}" not in hand)
    err = await refused(
        mover,
        action={"type": "play", "card": f"{foreign.rank}{foreign.suit}", "capture": []},
        seat=to_act,
        version=version,
    )
    assert err.code == "illegal_action" and err.detail == "not_in_hand"
    # unknown table, seat out of range
    with pytest.raises(ServerError) as info:
        await mover.act("nope", legal[0], seat=to_act, version=version)
    assert info.value.code == "not_found"
    err = await refused(mover, action=legal[0], seat=9, version=version)
    assert err.code == "forbidden"
    assert core.state is state_before and core.version == version
    # the right move still works afterwards
    await mover.act(table, legal[0], seat=to_act, version=version)
    assert core.version == version + 1


async def test_errors_do_not_touch_other_tables(server: CardaviaServer) -> None:
    a = await Client.connect(server.url, "a")
    try:
        ai = [{"seat": 1}]
        t1 = (await a.create_table("scopa", {"seat": 0, "ai": ai})).table.id
        t2 = (await a.create_table("scopa", {"seat": 0, "ai": ai})).table.id
        await a.wait_for(lambda m: isinstance(m, sm.Update) and m.table == t2, 5)
        v1 = server.lobby.tables[t1].core.version
        v2 = server.lobby.tables[t2].core.version
        with pytest.raises(ServerError):
            await a.act(t1, {"type": "play", "card": "ZZ"}, seat=0, version=v1)
        await a.send_raw(b"\xc1")
        await a.ping()
        assert server.lobby.tables[t2].core.version >= v2
        assert server.lobby.tables[t1].core.version >= v1
    finally:
        await a.close()


async def test_session_errors(server: CardaviaServer) -> None:
    async with connect(server.url) as ws:
        # anything before hello
        await ws.send(encode(cm.ListTables(id=1)))
        err = decode_server(await ws.recv())
        assert isinstance(err, sm.Error) and err.code == "hello_required" and err.ref == 1
        await ws.send(encode(cm.Hello(id=2, version=99, name="x")))
        err = decode_server(await ws.recv())
        assert isinstance(err, sm.Error) and err.code == "unsupported_version"
        for bad in ["", "   ", "a" * 25, "bell\x07", "line\nbreak", "rtl\u202e"]:
            await ws.send(encode(cm.Hello(id=3, version=1, name=bad)))
            err = decode_server(await ws.recv())
            assert isinstance(err, sm.Error) and err.code == "bad_name", bad
        await ws.send(encode(cm.Hello(id=4, version=1, name="x", token="forged")))
        err = decode_server(await ws.recv())
        assert isinstance(err, sm.Error) and err.code == "bad_token"
        await ws.send(encode(cm.Hello(id=5, version=1, name="  Zoë  ")))
        welcome = decode_server(await ws.recv())
        assert isinstance(welcome, sm.Welcome) and welcome.name == "Zoë"
        assert len(welcome.token) >= 32  # 192 random bits, url-safe base64
        await ws.send(encode(cm.Hello(id=6, version=1, name="again")))
        err = decode_server(await ws.recv())
        assert isinstance(err, sm.Error) and err.code == "hello_required"


async def test_lobby_errors(server: CardaviaServer) -> None:
    a = await Client.connect(server.url, "a")
    b = await Client.connect(server.url, "b")
    try:
        cases: list[tuple[Any, str]] = [
            (a.create_table("nogame"), "unknown_game"),
            (a.create_table("scopa", {"game": {"target": 0}}), "bad_options"),
            (a.create_table("scopa", {"game": {"nonsense": 1}}), "bad_options"),
            (a.create_table("scopa", {"ai": [{"seat": 5}]}), "bad_options"),
            (a.create_table("scopa", {"ai": [{"seat": 1, "level": "godlike"}]}), "bad_options"),
            (a.create_table("scopa", {"seat": 1, "ai": [{"seat": 1}]}), "bad_options"),
            (a.join("missing"), "not_found"),
            (a.leave("missing"), "not_found"),
        ]
        for call, code in cases:
            with pytest.raises(ServerError) as info:
                await call
            assert info.value.code == code
        t = (await a.create_table("scopa", {"seat": 0})).table.id
        with pytest.raises(ServerError) as info:
            await b.join(t, seat=0)
        assert info.value.code == "table_full"
        with pytest.raises(ServerError) as info:
            await a.join(t, seat=1)
        assert info.value.code == "forbidden"
        with pytest.raises(ServerError) as info:
            await b.leave(t)
        assert info.value.code == "not_at_table"
        with pytest.raises(ServerError) as info:
            await b.start(t)
        assert info.value.code in ("forbidden", "not_at_table")
        with pytest.raises(ServerError) as info:
            await a.replay(t)
        assert info.value.code == "game_in_progress"
        with pytest.raises(ServerError) as info:
            await a.act(t, {"type": "play", "card": "7D"}, seat=0, version=0)
        assert info.value.code == "not_playing"
    finally:
        await a.close()
        await b.close()


async def test_private_table_needs_the_invite(server: CardaviaServer) -> None:
    a = await Client.connect(server.url, "a")
    b = await Client.connect(server.url, "b")
    try:
        joined = await a.create_table("scopa", {"seat": 0, "private": True})
        assert joined.invite
        t = joined.table.id
        assert all(x.id != t for x in await b.list_tables())
        assert any(x.id == t for x in await a.list_tables())
        move = {"type": "play", "card": "7D"}
        for call in (
            b.join(t),
            b.spectate(t),
            b.join(t, invite="wrong"),
            b.act(t, move, seat=1, version=0),  # a move, read at once (server.tables.reach)
        ):
            with pytest.raises(ServerError) as info:
                await call
            assert info.value.code == "not_found"
        assert (await b.join(t, invite=joined.invite)).seat == 1
    finally:
        await a.close()
        await b.close()


async def test_a_move_for_a_table_elsewhere_is_handled_here_only_without_other_processes(
    server: CardaviaServer,
) -> None:
    """Alone, this process answers a move for any table (``not_found`` if it has none);
    with other processes, only a move for a table of its own (the rest go over the bus)."""
    a = await Client.connect(server.url, "a")
    try:
        t = (await a.create_table("scopa", {"seat": 0})).table.id
        reach = server.lobby.reach
        assert reach.tables is server.lobby.tables
        assert reach.here(t) and reach.here("elsewhere")
        reach.clustered = True
        assert reach.here(t) and not reach.here("elsewhere")
    finally:
        server.lobby.reach.clustered = False
        await a.close()


async def test_chat_limits(server: CardaviaServer) -> None:
    a = await Client.connect(server.url, "a")
    b = await Client.connect(server.url, "b")
    try:
        t = (await a.create_table("scopa", {"seat": 0})).table.id
        await b.spectate(t)
        await a.chat(t, "  ciao  ")
        line = await b.wait_for(lambda m: isinstance(m, sm.ChatLine), 5)
        assert line.text == "ciao" and line.name == "a" and line.seat == 0
        for bad in ["x" * 301, "   ", "bell\x07"]:
            with pytest.raises(ServerError) as info:
                await a.chat(t, bad)
            assert info.value.code == "bad_message"
        codes = []
        for _ in range(8):
            try:
                await b.chat(t, "spam")
            except ServerError as exc:
                codes.append(exc.code)
        assert codes and set(codes) == {"rate_limited"}
        c = await Client.connect(server.url, "c")
        with pytest.raises(ServerError) as info:
            await c.chat(t, "hi")
        assert info.value.code == "not_at_table"
        await c.close()
    finally:
        await a.close()
        await b.close()


async def test_connection_rate_limit() -> None:
    from server.app import running_server
    from server.config import ServerConfig

    async with running_server(ServerConfig(port=0, rate_per_s=1.0, rate_burst=5)) as srv:
        a = await Client.connect(srv.url, "a")
        try:
            for i in range(12):
                await a.send_raw(encode(cm.Ping(id=100 + i)))
            seen: list[Any] = []
            while len(seen) < 12:
                seen.append(await a.receive(5))
            limited = [m for m in seen if isinstance(m, sm.Error)]
            assert limited and all(m.code == "rate_limited" for m in limited)
            assert {m.ref for m in limited} <= {100 + i for i in range(12)}
            # garbage frames count against the limit too
            for _ in range(3):
                await a.send_raw(b"\xc1")
            errors = [await a.receive(5) for _ in range(3)]
            assert {e.code for e in errors} == {"rate_limited"}
        finally:
            await a.close()


async def test_oversized_frame_closes_connection(server: CardaviaServer) -> None:
    a = await Client.connect(server.url, "a")
    await a.send_raw(b"\x00" * (server.config.max_frame + 10))
    await asyncio.sleep(0.2)
    assert a.closed
    b = await Client.connect(server.url, "b")  # the server is fine
    await b.ping()
    await b.close()


async def test_silent_connections_are_closed() -> None:
    from websockets.exceptions import ConnectionClosed

    from server.app import running_server
    from server.config import ServerConfig

    async with running_server(ServerConfig(port=0, hello_timeout=0.2)) as srv:
        ws = await connect(srv.url)
        await asyncio.sleep(0.5)
        with pytest.raises(ConnectionClosed):
            await ws.recv()
        assert ws.close_code == 1008
