"""Disconnects, the AI covering, reconnects, turn timers, quick-play, leave and rematch."""

from __future__ import annotations

import asyncio
import dataclasses

import pytest

from client_cli.client import Client, ServerError, play_table, random_chooser
from engine.codec import to_plain
from engine.registry import GAMES
from protocol import server_messages as sm
from server.app import CardaviaServer, running_server
from tests.server.helpers import FAST, Recorder

GAME_IDS = sorted(GAMES)


def seats_of(game_id: str) -> int:
    game = GAMES[game_id]
    return game.num_seats(game.options())


async def _turn_of(server: CardaviaServer, table: str, seat: int, timeout: float = 10) -> None:
    core = server.lobby.tables[table].core
    async with asyncio.timeout(timeout):
        while core.status == "playing" and seat not in core.game.to_act(core.state):
            await asyncio.sleep(0.01)


@pytest.mark.parametrize("game_id", GAME_IDS)
async def test_disconnect_ai_covers_then_reconnect_restores(game_id: str) -> None:
    config = dataclasses.replace(FAST, ai_delay=0.05, disconnect_grace=0.2)
    async with running_server(config) as server:
        await _disconnect_and_back(server, game_id)


async def _disconnect_and_back(server: CardaviaServer, game_id: str) -> None:
    n = seats_of(game_id)
    a = await Client.connect(server.url, "Ann")
    ai = [{"seat": s} for s in range(1, n)]
    table = (await a.create_table(game_id, {"seat": 0, "ai": ai})).table.id
    core = server.lobby.tables[table].core
    await _turn_of(server, table, 0)
    token, player_id = a.token, a.player_id
    version = core.version
    await a.close()
    # the seat is kept, and after the grace the AI plays seat 0's turn
    async with asyncio.timeout(10):
        while not any(step.seat == 0 and step.by == "ai" for step in core.log):
            await asyncio.sleep(0.02)
    assert core.version > version
    assert core.seats[0].kind == "human" and core.seats[0].player_id == player_id
    info = core.info(server.clock())
    assert info.seats[0].ai_covering and not info.seats[0].connected
    # reconnect with the token: same player, seat and a full view of the current state
    b = await Client.connect(server.url, "ignored", token=token)
    try:
        assert b.resumed and b.player_id == player_id and b.name == "Ann"
        snap = await b.wait_for(lambda m: isinstance(m, sm.Snapshot), 5)
        assert snap.table == table and snap.seat == 0
        if core.status == "playing":
            assert (
                snap.view == to_plain(core.game.view(core.state, 0)) or snap.version < core.version
            )
        assert core.seats[0].connected
        # and the human plays their own turns again (the AI no longer covers them)
        async with asyncio.timeout(10):
            while not (b.tables[table].my_turn or core.status != "playing"):
                await b.receive()
        if core.status == "playing":
            before = len(core.log)
            await b.act(table, b.tables[table].legal[0])
            assert core.log[before].seat == 0 and core.log[before].by == "human"
    finally:
        await b.close()


async def test_reconnect_replaces_old_connection(server: CardaviaServer) -> None:
    a = await Client.connect(server.url, "Ann")
    table = (await a.create_table("scopa", {"seat": 0, "ai": [{"seat": 1}]})).table.id
    b = await Client.connect(server.url, "Ann", token=a.token)
    try:
        assert b.resumed and table in b.tables
        await asyncio.sleep(0.2)
        assert a.closed  # the old connection was closed (4000)
        await b.ping()
    finally:
        await b.close()


async def test_turn_timer_makes_the_ai_play(server: CardaviaServer) -> None:
    a = await Client.connect(server.url, "slow")
    try:
        opts = {"seat": 0, "ai": [{"seat": 1}], "turn_timer": 1.0}
        table = (await a.create_table("scopa", opts)).table.id
        core = server.lobby.tables[table].core
        await _turn_of(server, table, 0)
        update = await a.wait_for(lambda m: isinstance(m, sm.Update) and bool(m.view["legal"]), 5)
        assert update.timer_s is not None and 0 < update.timer_s <= 1.0
        # do nothing: the timer expires and the AI plays seat 0's turn for us
        moved = await a.wait_for(lambda m: isinstance(m, sm.Update) and m.actor == 0, 5)
        assert moved.by == "timer"
        assert any(s.seat == 0 and s.by == "timer" for s in core.log)
        assert core.seats[0].kind == "human"  # the seat is still ours
    finally:
        await a.close()


async def test_quick_play_pairs_humans_and_fills_with_ai(server: CardaviaServer) -> None:
    a = await Client.connect(server.url, "a")
    b = await Client.connect(server.url, "b")
    c = await Client.connect(server.url, "c")
    try:
        ja = await a.quick_play("scopa")
        jb = await b.quick_play("scopa")
        assert ja.table.id == jb.table.id and {ja.seat, jb.seat} == {0, 1}
        await a.wait_for(lambda m: isinstance(m, sm.Update), 5)
        core = server.lobby.tables[ja.table.id].core
        assert [s.kind for s in core.seats] == ["human", "human"]
        # alone: after the wait the AI takes the empty seat and play starts
        jc = await c.quick_play("scopa", level="random")
        assert jc.table.id != ja.table.id and jc.table.status == "waiting"
        start = await c.wait_for(lambda m: isinstance(m, sm.Update), 5)
        assert start.version == 1
        seats = server.lobby.tables[jc.table.id].core.seats
        assert [s.kind for s in seats] == ["human", "ai"] and seats[1].level == "random"
    finally:
        for cl in (a, b, c):
            await cl.close()


async def test_owner_starts_with_ai(server: CardaviaServer) -> None:
    a = await Client.connect(server.url, "a")
    try:
        table = (await a.create_table("scopa", {"seat": 1})).table.id
        await a.start(table)
        await a.wait_for(lambda m: isinstance(m, sm.Update), 5)
        assert server.lobby.tables[table].core.seats[0].kind == "ai"
    finally:
        await a.close()


async def test_leave_mid_game_gives_the_seat_to_the_ai(server: CardaviaServer) -> None:
    a = await Client.connect(server.url, "a")
    w = await Client.connect(server.url, "w")
    try:
        table = (await a.create_table("scopa", {"seat": 0})).table.id
        await w.join(table, seat=1)
        await w.wait_for(lambda m: isinstance(m, sm.Update), 5)
        await a.leave(table)
        assert table not in a.tables
        core = server.lobby.tables[table].core
        assert core.seats[0].kind == "ai" and core.seats[0].left
        result = await asyncio.wait_for(play_table(w, table, random_chooser(1)), 60)
        assert result["winners"] is not None
        # the last human leaving a finished table closes it
        await w.leave(table)
        await asyncio.sleep(0.05)
        assert table not in server.lobby.tables
        assert await server.store.load(table) is None
    finally:
        await a.close()
        await w.close()


async def test_rematch_and_replay_after_the_end(server: CardaviaServer) -> None:
    a = await Client.connect(server.url, "a")
    try:
        opts = {"seat": 0, "ai": [{"seat": 1, "level": "random"}]}
        table = (await a.create_table("scopa", opts)).table.id
        rec = Recorder()
        first = await asyncio.wait_for(play_table(a, table, random_chooser(5), on_message=rec), 60)
        replay = await a.replay(table)
        assert replay.result == first and replay.game_no == 1
        assert "seed" not in replay.model_dump()  # the deal seed never leaves the server
        # every card is accounted for in the revealed final zones
        cards = [c for zone in replay.final.values() for c in zone]
        assert sorted(cards) == sorted(f"{c.rank}{c.suit}" for c in GAMES["scopa"].deck.cards)
        # while the game ran, no replay was available; now a rematch starts game 2
        await a.rematch(table)
        start = await a.wait_for(lambda m: isinstance(m, sm.Update) and m.game_no == 2, 5)
        assert start.actor is None
        with pytest.raises(ServerError) as info:
            await a.replay(table, game_no=7)
        assert info.value.code == "not_found"
        again = await a.replay(table, game_no=1)
        assert again.steps == replay.steps and again.start_events == replay.start_events
        built = server.lobby.tables[table]._replay  # kept: asked again, not rebuilt
        assert built is not None and built.game_no == 1
        assert (await a.replay(table, game_no=1)).steps == replay.steps
        assert server.lobby.tables[table]._replay is built
    finally:
        await a.close()
