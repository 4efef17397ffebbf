"""The hot path: loop and garbage-collector settings, shared updates, batched writes."""

from __future__ import annotations

import asyncio
import dataclasses
import gc
import os

import msgpack  # type: ignore[import-untyped]
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from bench.loopback import NO_ADDRESS_CAPS
from client_cli.client import Client, play_table, random_chooser
from protocol.base import PROTOCOL_VERSION
from protocol.codec import encode
from server.app import running_server
from server.config import ServerConfig, load_config
from server.main import _GcWatch, tune_gc
from server.net import connection
from server.ops.loops import run_with_loop
from tests.server.helpers import FAST, make_core, messages

_watch = _GcWatch.callback


def test_hot_path_settings_are_checked() -> None:
    config = load_config(["--loop", "asyncio", "--gc-gen0", "1000"], env={})
    assert (config.loop, config.gc_gen0) == ("asyncio", 1000)
    assert load_config([], env={"CARDAVIA_LOOP": "uvloop"}).loop == "uvloop"
    with pytest.raises(ValueError, match="loop"):
        load_config(["--loop", "trio"], env={})
    with pytest.raises(ValueError, match="gc_gen0"):
        load_config(["--gc-gen0", "5"], env={})


def test_the_default_ai_pool_leaves_a_cpu_to_the_event_loop() -> None:
    cpus = len(os.sched_getaffinity(0))
    workers = ServerConfig().ai_workers
    assert workers == load_config([], env={}).ai_workers
    assert 1 <= workers <= 8
    assert workers == 1 or workers < cpus
    assert load_config(["--ai-workers", "3"], env={}).ai_workers == 3


def test_the_server_runs_on_the_chosen_loop() -> None:
    async def loop_module() -> str:
        return type(asyncio.get_running_loop()).__module__

    assert run_with_loop(loop_module(), "asyncio").startswith("asyncio")
    assert run_with_loop(loop_module(), "uvloop").startswith("uvloop")
    assert run_with_loop(loop_module(), "auto").startswith("uvloop")


def test_tune_gc_freezes_start_up_objects_and_raises_the_young_threshold() -> None:
    before = gc.get_threshold()
    try:
        tune_gc(12345)
        assert gc.get_threshold()[0] == 12345
        assert gc.get_freeze_count() > 0
        tune_gc(12345)  # twice: still one watcher
        watchers = [c for c in gc.callbacks if getattr(c, "__func__", None) is _watch]
        assert len(watchers) == 1
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)
        gc.callbacks[:] = [c for c in gc.callbacks if getattr(c, "__func__", None) is not _watch]


async def test_the_heap_is_frozen_often_and_collected_only_once_it_has_doubled(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from server import main

    calls: list[str] = []
    frozen = [1000]  # the frozen heap's size, as the test sets it
    monkeypatch.setattr(main.gc, "freeze", lambda: calls.append("freeze"))
    monkeypatch.setattr(main.gc, "unfreeze", lambda: calls.append("unfreeze"))
    monkeypatch.setattr(main.gc, "collect", lambda *a: calls.append("collect") or 0)
    monkeypatch.setattr(main.gc, "get_freeze_count", lambda: calls.append("look") or frozen[0])
    keeper = asyncio.create_task(main.keep_heap_frozen(0.02, 0.06))
    while calls.count("look") < 3:  # the first look sets the baseline; two more, steady
        await asyncio.sleep(0.01)
    assert "unfreeze" not in calls  # steady: never collected
    frozen[0] = 2000  # twice the size after the last full collection
    while "unfreeze" not in calls:
        await asyncio.sleep(0.01)
    at = calls.index("unfreeze")
    frozen[0] = 2100
    while calls[at:].count("look") < 4:
        await asyncio.sleep(0.01)
    keeper.cancel()
    assert calls[:6] == ["freeze", "freeze", "look", "freeze", "freeze", "freeze"]
    assert calls[at : at + 4] == ["unfreeze", "collect", "freeze", "look"]  # the new baseline
    assert calls.count("unfreeze") == 1  # 2,100 is not twice the new baseline of 2,000


async def test_closed_connections_sessions_and_tables_leave_no_reference_cycles() -> None:
    """What the frozen-heap keeper relies on: the server's objects die by reference
    counting (websockets' select_subprotocol closure made every connection a cycle)."""
    config = dataclasses.replace(FAST, session_ttl=0.2, disconnect_grace=0.0, **NO_ADDRESS_CAPS)
    async with running_server(config) as server:
        ai = [{"seat": 1, "level": "random"}]
        gc.collect()
        gc.disable()
        try:
            for i in range(3):
                client = await Client.connect(server.url, f"p{i}")
                options = {"seat": 0, "ai": ai, "game": {"target": 1}}
                table = (await client.create_table("scopa", options)).table.id
                await asyncio.wait_for(play_table(client, table, random_chooser(i)), 30)
                await client.close()
            deadline = asyncio.get_running_loop().time() + 10
            while server.lobby.tables or len(server.sessions) or server.connections:
                assert asyncio.get_running_loop().time() < deadline, "not all gone"
                await asyncio.sleep(0.05)
            await asyncio.sleep(0.1)
            gc.set_debug(gc.DEBUG_SAVEALL)
            gc.collect()
            ours = [
                type(o)
                for o in gc.garbage
                if type(o).__module__.split(".")[0]
                in ("server", "engine", "protocol", "websockets", "client_cli")
            ]
            assert ours == []
        finally:
            gc.set_debug(0)
            gc.garbage.clear()
            gc.enable()


async def test_messages_queued_together_arrive_in_order_and_a_client_that_does_not_read_is_dropped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(connection, "WRITE_BUFFER_LIMIT", 32 * 1024)
    config = ServerConfig(port=0, rate_per_s=1e6, rate_burst=10**6)
    hello = {"type": "hello", "id": 0, "version": PROTOCOL_VERSION, "name": "Slow"}
    async with running_server(config) as server:
        ws = await connect(server.url, compression=None, max_queue=1)
        await ws.send(msgpack.packb(hello))
        assert msgpack.unpackb(await ws.recv())["type"] == "welcome"
        # a burst of requests is answered in order (replies written together)
        for i in range(50):
            await ws.send(msgpack.packb({"type": "ping", "id": i}))
        refs = [msgpack.unpackb(await ws.recv())["ref"] for _ in range(50)]
        assert refs == list(range(50))
        # now stop reading: the replies pile up until the server gives up on us
        request = msgpack.packb({"type": "list_games", "id": 1})
        for i in range(20_000):
            if not server.connections:
                break
            await ws.send(request)
            if i % 100 == 0:
                await asyncio.sleep(0)
        with pytest.raises(ConnectionClosed):
            while True:
                await asyncio.wait_for(ws.recv(), 10)
        assert ws.close_code == 1008 and ws.close_reason == "too slow to read its messages"


def test_spectators_share_one_update_and_each_seat_gets_its_own() -> None:
    from engine.codec import to_plain
    from protocol import server_messages as sm

    core = make_core("scopa", seed=5)
    core.spectate("s1", "S1", 0.0)
    core.spectate("s2", "S2", 0.0)
    core.join("p0", "P0", 0, 0.0)
    core.join("p1", "P1", 1, 0.0)
    seat = core.game.to_act(core.state)[0]
    action = to_plain(core.game.legal_actions(core.state, seat)[0])
    eff = core.act(f"p{seat}", seat, core.version, action, "human", 1.0)
    assert eff.outs[-1][1] is eff.outs[-2][1]  # one frame for the spectators
    updates = {pid: m for pid, m in messages(eff.outs) if isinstance(m, sm.Update)}
    assert set(updates) == {"p0", "p1", "s1", "s2"}
    assert updates["s1"] is updates["s2"] and updates["s1"].seat is None
    assert updates["s1"].view == to_plain(core.game.view(core.state, None))
    for i in (0, 1):
        assert updates[f"p{i}"].seat == i
        assert updates[f"p{i}"].view == to_plain(core.game.view(core.state, i))
        # what goes on the wire is what a validated message would give
        assert encode(updates[f"p{i}"]) == encode(
            sm.Update.model_validate(updates[f"p{i}"].model_dump())
        )


def test_public_events_are_one_tuple_for_every_update_and_private_ones_are_each_seats() -> None:
    """A move's public events are converted once and shared by every update; a new
    deal's hands (each for its own seat) go only to their seat."""
    from engine.codec import to_plain
    from protocol import server_messages as sm

    core = make_core("scopa", seed=5)
    core.spectate("s1", "S1", 0.0)
    core.join("p0", "P0", 0, 0.0)
    eff = core.join("p1", "P1", 1, 0.0)  # the game starts: each hand to its seat
    dealt = {pid: m for pid, m in messages(eff.outs) if isinstance(m, sm.Update)}
    for i in (0, 1):
        hands = [e for e in dealt[f"p{i}"].events if e["kind"] == "hand"]
        assert [e["data"]["seat"] for e in hands] == [i]
    assert not [e for e in dealt["s1"].events if e["kind"] == "hand"]
    seat = core.game.to_act(core.state)[0]
    action = to_plain(core.game.legal_actions(core.state, seat)[0])
    eff = core.act(f"p{seat}", seat, core.version, action, "human", 1.0)
    updates = [m for _, m in messages(eff.outs) if isinstance(m, sm.Update)]
    assert len(updates) == 3 and updates[0].events
    assert all(u.events is updates[0].events for u in updates)


async def test_pushed_frames_and_websockets_own_frames_keep_their_order() -> None:
    """A pong websockets owes (to a client's ping) and the server's messages share a write."""
    config = ServerConfig(port=0, rate_per_s=1e6, rate_burst=10**6)
    hello = {"type": "hello", "id": 0, "version": PROTOCOL_VERSION, "name": "Pinger"}
    async with running_server(config) as server:
        ws = await connect(server.url, compression=None, max_queue=64)  # reads on, unread
        await ws.send(msgpack.packb(hello))
        assert msgpack.unpackb(await ws.recv())["type"] == "welcome"
        for i in range(20):
            pong = await ws.ping()
            await ws.send(msgpack.packb({"type": "ping", "id": i}))
            await asyncio.wait_for(pong, 5)
        refs = [msgpack.unpackb(await ws.recv())["ref"] for _ in range(20)]
        assert refs == list(range(20))
        await ws.close()
