"""The optional ``update_ref`` feature: the mover's update answers its ``act``."""

from __future__ import annotations

import asyncio
import itertools
import json
import random
from typing import Any

import msgpack  # type: ignore[import-untyped]
from websockets.asyncio.client import ClientConnection, connect

from client_cli.client import Client, play_table, random_chooser
from engine.codec import to_plain
from protocol import server_messages as sm
from server.app import CardaviaServer
from server.tables.core import TableCore
from tests.server.helpers import make_core, messages, next_message

# -- the core, without sockets ---------------------------------------------------------


def _core() -> TableCore:
    core = make_core("scopa", seed=3)
    core.spectate("w", "W", 0.0)
    core.join("p0", "P0", 0, 0.0)
    core.join("p1", "P1", 1, 0.0)
    return core


def test_the_movers_update_carries_the_ref_when_asked_and_no_other_does() -> None:
    core = _core()
    for ref in (7, None):
        (seat,) = core.game.to_act(core.state)
        action = to_plain(core.game.legal_actions(core.state, seat)[0])
        eff = core.act(f"p{seat}", seat, core.version, action, "human", 0.0, answer=True, ref=ref)
        assert eff.answered
        refs = {pid: m.ref for pid, m in messages(eff.outs) if isinstance(m, sm.Update)}
        assert refs == {"p0": None, "p1": None, "w": None, f"p{seat}": ref}
        assert not any(isinstance(m, sm.Ok) for _, m in eff.outs)


def test_without_answer_no_update_carries_a_ref() -> None:
    core = _core()
    (seat,) = core.game.to_act(core.state)
    action = to_plain(core.game.legal_actions(core.state, seat)[0])
    eff = core.act(f"p{seat}", seat, core.version, action, "human", 0.0, ref=9)
    assert not eff.answered
    assert all(m.ref is None for _, m in messages(eff.outs) if isinstance(m, sm.Update))


# -- over real connections -------------------------------------------------------------


async def _hello(url: str, name: str, features: list[str] | None, **extra: Any) -> ClientConnection:
    ws = await connect(url, compression=None)
    hello: dict[str, Any] = {"type": "hello", "id": 1, "version": 1, "name": name, **extra}
    if features is not None:
        hello["features"] = features
    await ws.send(msgpack.packb(hello))
    welcome = msgpack.unpackb(await ws.recv())
    assert welcome["type"] == "welcome", welcome
    assert welcome["features"] == (["update_ref"] if "update_ref" in (features or []) else [])
    return ws


async def test_unknown_features_are_ignored_and_welcome_lists_those_in_use(
    server: CardaviaServer,
) -> None:
    for features in (["teleport", "update_ref", "update_ref"], ["teleport"], [], None):
        ws = await _hello(server.url, "Ann", features)
        await ws.close()


async def test_a_game_where_one_seat_asked_for_update_ref_and_the_other_did_not(
    server: CardaviaServer,
) -> None:
    """Seat 0's acts are answered by its update (no ``ok``); seat 1's by an ``ok``
    after its update; nobody else's update carries a ref."""
    seats = [await _hello(server.url, "Ann", ["update_ref"]), await _hello(server.url, "Bob", [])]
    watcher = await _hello(server.url, "Cy", ["update_ref"])
    create = {"type": "create_table", "id": 2, "game": "scopa", "options": {"seat": 0}}
    await seats[0].send(msgpack.packb(create))
    while (msg := await next_message(seats[0]))["type"] != "joined":
        pass
    table = msg["table"]["id"]
    await watcher.send(msgpack.packb({"type": "spectate", "id": 2, "table": table}))
    await seats[1].send(msgpack.packb({"type": "join_table", "id": 2, "table": table, "seat": 1}))
    everyone = [*seats, watcher]
    last: list[dict[str, Any]] = []
    for ws in everyone:  # until the game's first update
        while (msg := await next_message(ws))["type"] != "update":
            pass
        last.append(msg)
    ids = itertools.count(100)
    rng = random.Random(2)
    answered = {0: 0, 1: 0}
    for _ in range(40):
        mover = next(i for i in (0, 1) if last[i]["view"]["legal"])
        act = {
            "type": "act", "id": next(ids), "table": table, "seat": mover,
            "version": last[mover]["version"], "action": rng.choice(last[mover]["view"]["legal"]),
        }  # fmt: skip
        await seats[mover].send(msgpack.packb(act))
        for i, ws in enumerate(everyone):
            while (msg := await next_message(ws))["type"] != "update":
                assert msg["type"] in ("table", "game_over"), msg  # never an ok here
            last[i] = msg
            assert msg["ref"] == (act["id"] if i == mover == 0 else None)
        if mover == 1:  # no update_ref: its ok follows its update
            assert await next_message(seats[1]) == {"type": "ok", "ref": act["id"]}
        answered[mover] += 1
    assert answered[0] and answered[1]
    await seats[0].send(msgpack.packb({"type": "ping", "id": 999}))
    assert (await next_message(seats[0]))["type"] == "pong"  # and no stray ok before it
    for ws in everyone:
        await ws.close()


async def test_a_resuming_hello_sets_the_features_of_its_connection(
    server: CardaviaServer,
) -> None:
    ann = await Client.connect(server.url, "Ann")  # asks for update_ref
    bob = await Client.connect(server.url, "Bob", features=())
    table = (await ann.create_table("scopa", {"seat": 0})).table.id
    await bob.join(table, 1)
    token = ann.token
    await ann.close()
    ws = await _hello(server.url, "Ann", [], token=token)  # resumed without it
    while (msg := await next_message(ws))["type"] != "snapshot":
        pass
    if not msg["view"]["legal"]:
        await bob.wait_for(lambda m: isinstance(m, sm.Update) and bob.tables[table].legal, 5)
        await bob.act(table, bob.tables[table].legal[0])
        while (msg := await next_message(ws))["type"] != "update":
            pass
    act = {
        "type": "act", "id": 5, "table": table, "seat": 0, "version": msg["version"],
        "action": msg["view"]["legal"][0],
    }  # fmt: skip
    await ws.send(msgpack.packb(act))
    while (got := await next_message(ws))["type"] != "update":
        pass
    assert got["ref"] is None
    assert await next_message(ws) == {"type": "ok", "ref": 5}
    await ws.close()
    await bob.close()


async def test_the_client_librarys_act_returns_on_the_answering_update_which_is_pushed_too(
    server: CardaviaServer,
) -> None:
    ann = await Client.connect(server.url, "Ann")
    bob = await Client.connect(server.url, "Bob")
    table = (await ann.create_table("scopa", {"seat": 0})).table.id
    await bob.join(table, 1)
    for _ in range(10):
        for client in (ann, bob):
            await client.wait_for(lambda m: isinstance(m, sm.Update), 5)
        mover = ann if ann.tables[table].legal else bob
        version = mover.tables[table].version
        await mover.act(table, mover.tables[table].legal[0])
        # act returned once its update arrived: the table state already shows the move
        assert mover.tables[table].version == version + 1
    pushed = await ann.wait_for(lambda m: isinstance(m, sm.Update), 5)
    assert pushed.version == ann.tables[table].version
    await ann.close()
    await bob.close()


async def test_a_browser_connection_gets_the_ref_in_json(server: CardaviaServer) -> None:
    ws = await connect(server.url, subprotocols=["cardavia.json"])  # type: ignore[list-item]
    other = await Client.connect(server.url, "Bob", features=())

    async def request(msg: dict[str, Any]) -> dict[str, Any]:
        await ws.send(json.dumps(msg))
        while True:
            reply: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), 10))
            if reply.get("ref") == msg["id"]:
                return reply

    hello = {"type": "hello", "id": 1, "version": 1, "name": "Web", "features": ["update_ref"]}
    assert (await request(hello))["features"] == ["update_ref"]
    joined = await request(
        {"type": "create_table", "id": 2, "game": "scopa", "options": {"seat": 0}}
    )
    table = joined["table"]["id"]
    await other.join(table, 1)
    bob = asyncio.create_task(play_table(other, table, random_chooser(1)))
    for _ in range(3):  # three of the browser's moves, each answered by its update
        while True:
            msg = json.loads(await asyncio.wait_for(ws.recv(), 10))
            if msg["type"] == "update" and msg["view"]["legal"]:
                break
            assert msg["type"] != "ok"
        act = {
            "type": "act", "id": 10 + msg["version"], "table": table, "seat": 0,
            "version": msg["version"], "action": msg["view"]["legal"][0],
        }  # fmt: skip
        reply = await request(act)
        assert reply["type"] == "update" and reply["actor"] == 0
        assert reply["version"] == msg["version"] + 1
    bob.cancel()
    await ws.close()
    await other.close()
