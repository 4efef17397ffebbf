"""Redis restarted mid-game: moves are refused with store_unavailable, then play goes on."""

from __future__ import annotations

import asyncio

import pytest

from client_cli.client import Client, ServerError, play_table, random_chooser
from server.app import running_server
from tests.server.redis_fixture import RedisServer, fast_redis_config
from tests.server.test_store_restart import AI, human_moves, logged, turns


async def test_redis_restarted_mid_game(redis_server: RedisServer) -> None:
    config = fast_redis_config(redis_server.url, store_timeout=0.5)
    async with running_server(config) as server:
        client = await Client.connect(server.url, "ann")
        table = (await client.create_table("scopa", {"seat": 0, "ai": AI})).table.id
        acked: list[dict[str, object]] = []
        await turns(client, table, 1, acked)
        core = server.lobby.tables[table].core
        version, log = core.version, list(core.log)
        state = client.tables[table]
        move = random_chooser(5)(state.view or {})

        await asyncio.to_thread(redis_server.stop)
        with pytest.raises(ServerError) as refused:
            await client.act(table, move, seat=state.seat, version=state.version)
        assert refused.value.code == "store_unavailable"
        assert (core.version, core.log) == (version, log)  # nothing changed
        assert not await server.store.ping()

        await asyncio.sleep(1.2)  # past the lease: it must still be this process's table
        await asyncio.to_thread(redis_server.start)
        assert await server.store.ping()
        await client.act(table, move, seat=state.seat, version=state.version)
        acked.append(move)
        await turns(client, table, 2, acked)
        durable = await logged(redis_server.url, table)
        assert human_moves(durable) == acked
        assert len(durable) == len(server.lobby.tables[table].core.log)
        await client.close()


async def test_a_bot_waits_out_a_redis_outage_and_finishes_its_game(
    redis_server: RedisServer,
) -> None:
    """The client library's play loop sends a move refused with store_unavailable
    again after a pause, so a bot survives a Redis restart instead of failing."""
    config = fast_redis_config(redis_server.url, store_timeout=0.5)
    async with running_server(config) as server:
        client = await Client.connect(server.url, "ann")
        options = {"seat": 0, "ai": AI, "game": {"target": 1}}
        table = (await client.create_table("scopa", options)).table.id
        pick = random_chooser(3)
        moves = 0
        restarted: list[asyncio.Task[None]] = []

        async def restart_soon() -> None:
            await asyncio.sleep(1.5)
            await asyncio.to_thread(redis_server.start)

        async def choose(view: dict[str, object]) -> object:
            nonlocal moves
            moves += 1
            if moves == 3:  # Redis goes away just before the bot's third move
                await asyncio.to_thread(redis_server.stop)
                restarted.append(asyncio.create_task(restart_soon()))
            return pick(view)

        result = await asyncio.wait_for(play_table(client, table, choose), 60)
        assert result is not None and restarted and restarted[0].done()
        core = server.lobby.tables[table].core
        assert len(await logged(redis_server.url, table)) == len(core.log)
        await client.close()
