"""Two server processes on one Redis are one service: join, play, watch across them."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import msgpack  # type: ignore[import-untyped]
import pytest
from websockets.asyncio.client import connect

from client_cli.client import Client
from protocol import client_messages as cm
from protocol import server_messages as sm
from protocol.base import PROTOCOL_VERSION
from protocol.codec import decode_server, decode_server_json, encode
from tests.server.helpers import Recorder, play_random, watch
from tests.server.redis_fixture import RedisServer, ServerProcess, fast_redis_config
from tests.server.test_store_restart import logged

pytestmark = pytest.mark.heavy  # tens of seconds: run first (tests/conftest.py)


async def test_two_processes_share_one_lobby(
    redis_server: RedisServer, servers: list[ServerProcess]
) -> None:
    a, b = ServerProcess(redis_server.url), ServerProcess(redis_server.url)
    servers += [a, b]
    a.start()
    b.start()
    ann = await Client.connect(a.url, "ann")
    bob = await Client.connect(b.url, "bob")
    carl = await Client.connect(b.url, "carl")
    table = (await ann.create_table("scopa", {"seat": 0})).table.id
    private = (await ann.create_table("cicera", {"seat": 0, "private": True})).table.id

    listed = {t.id for t in await bob.list_tables()}
    assert table in listed and private not in listed  # b lists a's public tables
    assert {t.id for t in await ann.list_tables()} >= {table, private}

    joined = await bob.join(table)  # through b, to the owner a
    assert joined.seat == 1 and joined.table.id == table
    await carl.spectate(table)
    await bob.chat(table, "hello from b")
    line = await ann.wait_for(lambda m: isinstance(m, sm.ChatLine), 10)
    assert (line.text, line.name) == ("hello from b", "bob")

    recs = [Recorder(), Recorder(), Recorder()]
    results = await asyncio.gather(
        play_random(ann, table, 1, recs[0]),
        play_random(bob, table, 2, recs[1]),
        watch(carl, table, recs[2]),
    )
    assert results[0] == results[1] == results[2]
    replay = await carl.replay(table)  # asked at b, answered by a
    assert replay.result == results[0]
    log = await logged(redis_server.url, table)
    assert [action for _, action, _ in log] == [s.action for s in replay.steps]
    # a watcher at b saw only the spectator's view: no hand of either seat
    snapshots = [m for m in recs[2].messages if isinstance(m, sm.Update)]
    assert snapshots and all(m.seat is None for m in snapshots)
    # a rematch voted at both processes starts the next game
    await bob.rematch(table)
    await ann.rematch(table)
    await bob.wait_for(lambda m: isinstance(m, sm.Update) and m.game_no == 2, 10)
    # update_ref across processes: bob's move at a's table is answered by his update
    if not bob.tables[table].legal:
        await ann.wait_for(lambda m: isinstance(m, sm.Update) and m.game_no == 2, 10)
        await ann.act(table, ann.tables[table].legal[0])
        await bob.wait_for(lambda m: isinstance(m, sm.Update) and m.actor == 0, 10)
    state = bob.tables[table]
    act = cm.Act(id=777, table=table, seat=1, version=state.version, action=state.legal[0])
    await bob.send_raw(encode(act))
    answer = await bob.wait_for(lambda m: getattr(m, "ref", None) == 777, 10)
    assert isinstance(answer, sm.Update) and answer.actor == 1
    # quick play finds a waiting table of another process
    erin = await Client.connect(a.url, "erin")
    fred = await Client.connect(b.url, "fred")
    waiting = await erin.quick_play("scopa")
    joined = await fred.quick_play("scopa")
    assert (joined.table.id, joined.seat) == (waiting.table.id, 1)
    for client in (ann, bob, carl, erin, fred):
        await client.close()


async def test_a_member_whose_process_is_gone_leaves_after_the_session_ttl(
    redis_server: RedisServer,
) -> None:
    from server.app import running_server

    config = fast_redis_config(redis_server.url, session_ttl=1.0)
    async with running_server(config) as owner:
        ann = await Client.connect(owner.url, "ann")
        table = (await ann.create_table("scopa", {"seat": 0})).table.id
        async with running_server(config) as front:
            bob = await Client.connect(front.url, "bob")
            assert (await bob.join(table)).seat == 1
        # bob's process is gone: no session of his can expire there; the owner sees him
        # connected nowhere and, after the session TTL, he leaves (the AI takes his seat)
        core = owner.lobby.tables[table].core
        deadline = time.monotonic() + 20  # generous: the machine may be loaded
        while core.seats[1].kind != "ai":
            assert time.monotonic() < deadline, "bob did not leave the table"
            await asyncio.sleep(0.05)
        assert core.seats[1].left
        assert core.seats[0].player_id == ann.player_id
        await ann.close()


async def test_a_member_connected_at_the_other_process_keeps_the_seat_past_the_session_ttl(
    redis_server: RedisServer,
) -> None:
    """Where a player is connected is refreshed while the connection lasts, so the
    table's owner never takes a long-connected player for one connected nowhere."""
    from server.app import running_server

    config = fast_redis_config(redis_server.url, session_ttl=1.0)
    async with running_server(config) as owner, running_server(config) as front:
        ann = await Client.connect(owner.url, "ann")
        table = (await ann.create_table("scopa", {"seat": 0})).table.id
        bob = await Client.connect(front.url, "bob")
        assert (await bob.join(table)).seat == 1
        core = owner.lobby.tables[table].core
        await asyncio.sleep(3.0)  # three session TTLs, bob connected at the other process
        assert core.seats[1].kind == "human" and not core.seats[1].left
        assert core.seats[1].player_id == bob.player_id
        await bob.close()
        await ann.close()


async def test_a_player_at_the_other_process_keeps_playing_through_a_failover(
    redis_server: RedisServer, servers: list[ServerProcess]
) -> None:
    import signal

    from tests.server.test_store_restart import resume

    a, b = ServerProcess(redis_server.url), ServerProcess(redis_server.url)
    servers += [a, b]
    a.start()
    b.start()
    ann = await Client.connect(a.url, "ann")
    bob = await Client.connect(b.url, "bob")
    table = (await ann.create_table("scopa", {"seat": 0})).table.id
    await bob.join(table)
    await bob.wait_for(lambda m: isinstance(m, sm.Snapshot | sm.Update), 10)
    version = bob.tables[table].version
    a.signal(signal.SIGKILL)
    # bob's connection (to b) stays up: b takes the table over and sends him a snapshot
    snap = await bob.wait_for(lambda m: isinstance(m, sm.Snapshot) and m.table == table, 10)
    assert snap.version == version and snap.seat == 1
    await ann.close()
    ann = await resume(b.url, ann.token, table)
    recs = [Recorder(), Recorder()]
    results = await asyncio.gather(
        play_random(ann, table, 3, recs[0]), play_random(bob, table, 4, recs[1])
    )
    assert results[0] == results[1]
    replay = await bob.replay(table)
    log = await logged(redis_server.url, table)
    assert [action for _, action, _ in log] == [s.action for s in replay.steps]
    await ann.close()
    await bob.close()


async def test_a_bot_at_the_other_process_plays_on_when_the_owner_freezes(
    redis_server: RedisServer, servers: list[ServerProcess]
) -> None:
    """A move sent to a table whose owner has frozen gets no answer (pub/sub to a
    stopped process): the client library's request times out, and the play loop
    sends it again once the other process has taken the table over."""
    import signal

    from client_cli.client import play_table, random_chooser

    fast = ("--session-ttl", "1", "--disconnect-grace", "1", "--log-level", "info")
    a, b = ServerProcess(redis_server.url, *fast), ServerProcess(redis_server.url, *fast)
    servers += [a, b]
    a.start()
    b.start()
    ann = await Client.connect(a.url, "ann")
    bob = await Client.connect(b.url, "bob")
    table = (await ann.create_table("scopa", {"seat": 0, "game": {"target": 1}})).table.id
    await bob.join(table)
    await ann.close()  # ann's seat goes to the AI after her grace
    bob.request_timeout = 2.0
    pick = random_chooser(4)
    frozen = False

    def choose(view: dict[str, object]) -> object:
        nonlocal frozen
        if not frozen:  # the owner freezes just before bob's first move
            a.signal(signal.SIGSTOP)
            frozen = True
        return pick(view)

    try:
        result = await asyncio.wait_for(play_table(bob, table, choose), 90)
        assert result is not None and frozen  # ann's seat went to the AI at b
        assert (b.health() or {}).get("tables") == 1
    finally:
        a.signal(signal.SIGCONT)
        await bob.close()


async def _raw_seat(url: str, subprotocol: str, table: str) -> tuple[Any, list[dict[str, Any]]]:
    """A raw connection at ``url`` that joins ``table``; the messages up to its first update."""
    ws = await connect(url, subprotocols=[subprotocol], compression=None)  # type: ignore[list-item]
    as_json = subprotocol == "cardavia.json"

    async def request(message: dict[str, Any]) -> None:
        await ws.send(json.dumps(message) if as_json else msgpack.packb(message))

    await request({"type": "hello", "id": 1, "version": PROTOCOL_VERSION, "name": subprotocol[9:]})
    await request({"type": "join_table", "id": 2, "table": table})
    got: list[dict[str, Any]] = []
    while not any(m["type"] == "update" for m in got):
        frame = await asyncio.wait_for(ws.recv(), 10)
        assert isinstance(frame, str if as_json else bytes)  # each link gets its own encoding
        if as_json:
            assert isinstance(frame, str)
            decode_server_json(frame)
            got.append(json.loads(frame))
        else:
            assert isinstance(frame, bytes)
            decode_server(frame)
            got.append(msgpack.unpackb(frame))
    return ws, got


async def test_messages_relayed_from_the_owner_reach_json_and_msgpack_links(
    redis_server: RedisServer,
) -> None:
    from server.app import running_server

    config = fast_redis_config(redis_server.url)
    async with running_server(config) as owner, running_server(config) as front:
        ann = await Client.connect(owner.url, "ann")
        ai = [{"seat": 3, "level": "random"}]
        table = (await ann.create_table("cicera", {"seat": 0, "ai": ai})).table.id
        (json_ws, by_json), (msgpack_ws, by_msgpack) = await asyncio.gather(
            _raw_seat(front.url, "cardavia.json", table),
            _raw_seat(front.url, "cardavia.msgpack", table),
        )
        for got in (by_json, by_msgpack):
            assert [m["type"] for m in got][:2] == ["welcome", "joined"]
        # the front learnt where each sits from the joined it decoded ...
        here = {p.name: p.tables.get(table) for p in front.sessions}
        assert sorted([here["json"], here["msgpack"]]) == [1, 2]
        # ... and both get the game's updates (relayed as encoded, or as JSON text)
        for got, name in ((by_json, "json"), (by_msgpack, "msgpack")):
            update = next(m for m in got if m["type"] == "update")
            assert (update["table"], update["seat"]) == (table, here[name])
            assert update["view"]["hand"]
        await json_ws.close()
        await msgpack_ws.close()
        await ann.close()
