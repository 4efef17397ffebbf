"""Quotas: the sans-I/O ledger, then each cap at a real server (refused with quota_exceeded)."""

from __future__ import annotations

import asyncio

import pytest
from websockets.asyncio.client import connect

from client_cli.client import Client, ClientClosed, ServerError
from protocol.base import PROTOCOL_VERSION
from protocol.client_messages import Hello
from protocol.codec import decode_server, encode
from protocol.server_messages import Error, Welcome
from server.app import running_server
from server.config import ServerConfig, parse_networks
from server.players.quotas import Quotas, address_group, client_address
from server.players.sessions import Player
from server.tables.options import RequestError
from tests.server.helpers import FAST


def _player(pid: str, address: str = "10.0.0.1") -> Player:
    return Player(player_id=pid, name=pid, token="t" + pid, address=address)


def _detail(call: object) -> str:
    assert callable(call)
    with pytest.raises(RequestError) as info:
        call()
    assert info.value.code == "quota_exceeded"
    assert info.value.detail is not None
    return info.value.detail


# -- the ledger, without sockets -----------------------------------------------------


def test_connections_per_address() -> None:
    q = Quotas(ServerConfig(max_connections_per_address=2, connect_rate_per_address=0))
    q.connect("a")
    q.connect("a")
    q.connect("b")
    assert _detail(lambda: q.connect("a")) == "max_connections_per_address"
    q.disconnect("a")
    q.connect("a")
    assert q.connections("a") == 2 and q.connections("b") == 1
    for _ in range(3):
        q.disconnect("b")
    assert q.connections("b") == 0


def test_connect_rate_per_address() -> None:
    q = Quotas(ServerConfig(max_connections_per_address=4, connect_rate_per_address=2.0))
    for _ in range(4):  # a burst up to the connection cap
        q.connect("a", 10.0)
        q.disconnect("a")
    assert _detail(lambda: q.connect("a", 10.0)) == "connect_rate_per_address"
    q.connect("b", 10.0)  # other addresses are not affected
    q.connect("a", 10.5)  # one more after half a second at 2/s
    q.disconnect("a")
    assert _detail(lambda: q.connect("a", 10.6)) == "connect_rate_per_address"
    assert q.connections("a") == 0


def test_no_cap_when_zero() -> None:
    q = Quotas(
        ServerConfig(
            max_connections_per_address=0, max_sessions_per_address=0, connect_rate_per_address=0
        )
    )
    for i in range(500):
        q.connect("a")
        q.check_session("a")
        q.add_session(_player(str(i), "a"))
    assert q.connections("a") == 500 and q.sessions("a") == 500


def test_sessions_per_address_ledger() -> None:
    q = Quotas(ServerConfig(max_sessions_per_address=2))
    players = [_player("p1"), _player("p2")]
    for p in players:
        q.check_session(p.address)
        q.add_session(p)
    assert _detail(lambda: q.check_session("10.0.0.1")) == "max_sessions_per_address"
    q.check_session("10.0.0.2")
    q.drop_session(players[0])
    q.check_session("10.0.0.1")


def test_created_and_waiting_tables() -> None:
    waiting: set[str] = set()
    config = ServerConfig(
        max_created_tables_per_session=3,
        max_waiting_tables_per_session=2,
        max_created_tables_per_address=4,
        max_waiting_tables_per_address=3,
    )
    q = Quotas(config, lambda t: t in waiting)
    ann, bob = _player("ann"), _player("bob")
    for t in ("t1", "t2"):
        waiting.add(t)
        q.reserve_table(t, ann)
    assert _detail(lambda: q.reserve_table("t3", ann)) == "max_waiting_tables_per_session"
    waiting.discard("t1")  # t1's game started
    q.reserve_table("t3", ann)
    waiting.add("t3")
    assert _detail(lambda: q.reserve_table("t4", ann)) == "max_created_tables_per_session"
    assert sorted(q.created(ann)) == ["t1", "t2", "t3"]
    # bob shares the address: two waiting already there, one more allowed, then the cap
    waiting.add("b1")
    q.reserve_table("b1", bob)
    assert _detail(lambda: q.reserve_table("b2", bob)) == "max_created_tables_per_address"
    q.drop_table("t1")
    assert _detail(lambda: q.reserve_table("b2", bob)) == "max_waiting_tables_per_address"
    waiting.discard("t2")
    q.reserve_table("b2", bob)
    # another address is not affected
    q.reserve_table("c1", _player("cid", "10.9.9.9"))


def test_watched_tables() -> None:
    config = ServerConfig(max_watched_tables_per_session=2, max_watched_tables_per_address=3)
    q = Quotas(config)
    ann, bob = _player("ann"), _player("bob")
    q.add_session(ann)
    q.add_session(bob)
    ann.tables = {"a": None, "b": 0}
    q.check_watch(ann)
    ann.tables["c"] = None
    assert _detail(lambda: q.check_watch(ann)) == "max_watched_tables_per_session"
    bob.tables = {"x": 1}
    q.check_watch(bob)
    bob.tables["y"] = None
    assert _detail(lambda: q.check_watch(bob)) == "max_watched_tables_per_address"


def test_ipv6_clients_count_by_their_64() -> None:
    assert address_group("2001:db8:1:2:aaaa::1") == address_group("2001:db8:1:2:bbbb::9")
    assert address_group("2001:db8:1:2::1") == "2001:db8:1:2::/64"
    assert address_group("2001:db8:1:3::1") != address_group("2001:db8:1:2::1")
    assert address_group("::ffff:192.0.2.7") == "192.0.2.7"
    assert address_group("192.0.2.7") == "192.0.2.7"
    assert address_group("") == ""


def test_client_address_behind_trusted_proxies() -> None:
    trusted = parse_networks("10.0.0.0/8, 192.168.1.5")
    assert client_address("10.1.2.3", "203.0.113.7", trusted) == "203.0.113.7"
    # read from the right, skipping our own proxies; the client cannot forge the last hop
    assert client_address("10.1.2.3", "1.1.1.1, 203.0.113.7, 10.0.0.9", trusted) == "203.0.113.7"
    assert client_address("192.168.1.5", "2001:db8::1", trusted) == "2001:db8::1"
    # an untrusted peer's header is ignored; no header, or garbage, means the peer
    assert client_address("198.51.100.1", "203.0.113.7", trusted) == "198.51.100.1"
    assert client_address("10.1.2.3", None, trusted) == "10.1.2.3"
    assert client_address("10.1.2.3", "not-an-ip", trusted) == "10.1.2.3"
    assert client_address("10.1.2.3", "203.0.113.7", ()) == "10.1.2.3"
    with pytest.raises(ValueError):
        parse_networks("10.0.0.0/8, nonsense")


def test_settings_are_validated() -> None:
    for bad in (
        {"max_spectators_per_table": 0},
        {"max_created_tables_per_session": 0},
        {"max_connections_per_address": -1},
        {"trusted_proxies": "x.y"},
        {"ping_timeout": 0},
        {"playing_session_ttl": 10.0, "session_ttl": 60.0},
        {"rate_strikes": 0},
    ):
        with pytest.raises(ValueError):
            ServerConfig().replace(**bad)


# -- at a real server ---------------------------------------------------------------


async def test_connections_over_the_cap_get_an_error_and_1008() -> None:
    config = FAST.replace(max_connections_per_address=2, connect_rate_per_address=0)
    async with running_server(config) as srv:
        a = await Client.connect(srv.url, "a")
        b = await Client.connect(srv.url, "b")
        try:
            ws = await connect(srv.url)
            error = decode_server(await asyncio.wait_for(ws.recv(), 5))
            assert isinstance(error, Error) and error.code == "quota_exceeded"
            assert error.detail == "max_connections_per_address"
            await asyncio.wait_for(ws.wait_closed(), 5)
            assert ws.close_code == 1008
            assert ws.close_reason == "quota_exceeded: max_connections_per_address"
            with pytest.raises(ClientClosed):
                await Client.connect(srv.url, "c")
            await b.close()
            await asyncio.sleep(0.1)
            c = await Client.connect(srv.url, "c")  # a slot is free again
            await c.close()
        finally:
            await a.close()
            await b.close()


async def test_a_reconnect_loop_is_slowed_down() -> None:
    config = FAST.replace(max_connections_per_address=3, connect_rate_per_address=0.2)
    async with running_server(config) as srv:
        refused = 0
        for _ in range(8):
            try:
                client = await Client.connect(srv.url, "loop")
            except ClientClosed as exc:
                assert exc.code == 1008 and exc.reason.endswith("connect_rate_per_address")
                refused += 1
            else:
                await client.close()
        assert 4 <= refused <= 5  # a burst of 3, then one every 5 s


async def test_sessions_per_address() -> None:
    async with running_server(FAST.replace(max_sessions_per_address=2)) as srv:
        a = await Client.connect(srv.url, "a")
        await a.close()  # a session without a connection still counts until it expires
        b = await Client.connect(srv.url, "b")
        with pytest.raises(ServerError) as info:
            await Client.connect(srv.url, "c")
        assert info.value.code == "quota_exceeded"
        assert info.value.detail == "max_sessions_per_address"
        again = await Client.connect(srv.url, "x", token=a.token)  # resuming is fine
        assert again.resumed
        await again.close()
        await b.close()


async def test_forwarded_address_from_a_trusted_proxy() -> None:
    config = FAST.replace(max_sessions_per_address=1, trusted_proxies="127.0.0.1")
    async with running_server(config) as srv:

        async def hello(*forwarded: str) -> object:
            headers = [("X-Forwarded-For", f) for f in forwarded]
            async with connect(srv.url, additional_headers=headers) as ws:
                await ws.send(encode(Hello(id=1, version=PROTOCOL_VERSION, name="n")))
                return decode_server(await asyncio.wait_for(ws.recv(), 5))

        assert isinstance(await hello("203.0.113.1"), Welcome)
        assert isinstance(await hello("203.0.113.2"), Welcome)  # another client
        refused = await hello("203.0.113.1")
        assert isinstance(refused, Error) and refused.detail == "max_sessions_per_address"
        # two headers read as one list; the forged first hop is ignored
        assert isinstance(await hello("203.0.113.1", "203.0.113.3"), Welcome)
        assert {p.address for p in srv.sessions} == {"203.0.113.1", "203.0.113.2", "203.0.113.3"}


async def test_created_and_waiting_tables_per_session() -> None:
    config = FAST.replace(max_created_tables_per_session=3, max_waiting_tables_per_session=2)
    async with running_server(config) as srv:
        a = await Client.connect(srv.url, "a")
        try:
            first = (await a.create_table("scopa", {"seat": 0})).table.id
            await a.create_table("scopa", {"seat": 0})
            with pytest.raises(ServerError) as info:
                await a.create_table("scopa", {"seat": 0})
            assert (info.value.code, info.value.detail) == (
                "quota_exceeded",
                "max_waiting_tables_per_session",
            )
            with pytest.raises(ServerError) as info:
                await a.quick_play("scopa")
            assert info.value.detail == "max_waiting_tables_per_session"
            # a table that plays is not waiting: one more may be made, then the total caps
            await a.start(first)
            await a.create_table("scopa", {"seat": 0})
            with pytest.raises(ServerError) as info:
                await a.create_table("scopa", {"seat": 0, "ai": [{"seat": 1}]})
            assert info.value.detail == "max_created_tables_per_session"
            assert len(srv.lobby.tables) == 3
            # leaving one (it closes) frees a slot
            await a.leave(first)
            await asyncio.sleep(0.1)
            assert len(srv.lobby.quotas.created(a_player(srv, a))) == 2
            assert first not in srv.lobby.quotas.created(a_player(srv, a))
        finally:
            await a.close()


def a_player(srv: object, client: Client) -> Player:
    from server.app import CardaviaServer

    assert isinstance(srv, CardaviaServer)
    player = srv.sessions.get(client.player_id)
    assert player is not None
    return player


async def test_created_tables_per_address() -> None:
    config = FAST.replace(max_created_tables_per_address=2)
    async with running_server(config) as srv:
        clients = [await Client.connect(srv.url, f"c{i}") for i in range(3)]
        try:
            await clients[0].create_table("scopa", {"seat": 0})
            await clients[1].create_table("scopa", {"seat": 0})
            with pytest.raises(ServerError) as info:
                await clients[2].create_table("scopa", {"seat": 0})
            assert info.value.detail == "max_created_tables_per_address"
        finally:
            for c in clients:
                await c.close()


async def test_watched_tables_and_spectators_per_table() -> None:
    config = FAST.replace(
        max_watched_tables_per_session=2, max_spectators_per_table=2, max_tables_per_player=9
    )
    async with running_server(config) as srv:
        owners = [await Client.connect(srv.url, f"o{i}") for i in range(3)]
        fans = [await Client.connect(srv.url, f"f{i}") for i in range(3)]
        try:
            tables = [(await o.create_table("scopa", {"seat": 0})).table.id for o in owners]
            await fans[0].spectate(tables[0])
            await fans[0].spectate(tables[1])
            await fans[0].spectate(tables[1])  # watching again is no new table
            with pytest.raises(ServerError) as info:
                await fans[0].spectate(tables[2])
            assert info.value.detail == "max_watched_tables_per_session"
            await fans[1].spectate(tables[0])
            with pytest.raises(ServerError) as info:
                await fans[2].spectate(tables[0])
            assert (info.value.code, info.value.detail) == (
                "quota_exceeded",
                "max_spectators_per_table",
            )
            assert len(srv.lobby.tables[tables[0]].core.spectators) == 2
            # creating a table only to watch it counts as watching one more
            with pytest.raises(ServerError) as info:
                await fans[0].create_table("scopa", {"seat": None})
            assert info.value.detail == "max_watched_tables_per_session"
            assert len(srv.lobby.tables) == 3
            await fans[1].leave(tables[0])
            await fans[2].spectate(tables[0])
        finally:
            for c in owners + fans:
                await c.close()


async def test_watched_tables_per_address_with_a_burst() -> None:
    """A burst of spectate requests cannot overrun the cap (checked at the table)."""
    config = FAST.replace(max_watched_tables_per_address=3, max_tables_per_player=20)
    async with running_server(config) as srv:
        owners = [await Client.connect(srv.url, f"o{i}") for i in range(6)]
        fan = await Client.connect(srv.url, "fan")
        try:
            tables = [(await o.create_table("scopa", {"seat": 0})).table.id for o in owners]
            results = await asyncio.gather(
                *(fan.spectate(t) for t in tables), return_exceptions=True
            )
            refused = [r for r in results if isinstance(r, ServerError)]
            assert len(refused) == 3
            assert {r.detail for r in refused} == {"max_watched_tables_per_address"}
        finally:
            for c in owners + [fan]:
                await c.close()
