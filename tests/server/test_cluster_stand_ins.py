"""A player connected to another process is a *stand-in* at the table's owner (issue 56,
the stalled arena of ``bench.tournament``): the owner's sweep must not forget a stand-in
whose request is still on its way to a table, or the table, which delivers to the
session it finds by id, seats the player and then never sends them a word again."""

from __future__ import annotations

from typing import Any

from client_cli.client import Client
from protocol import server_messages as sm
from server.app import running_server
from server.cluster.leases import STAND_IN_KEEP
from server.persist.redis_store import RedisStore
from server.players.sessions import Player
from tests.server.redis_fixture import RedisServer, fast_redis_config


async def test_a_join_in_flight_keeps_its_stand_in_through_the_sweep(
    redis_server: RedisServer,
) -> None:
    config = fast_redis_config(redis_server.url)
    async with running_server(config) as owner, running_server(config) as front:
        ann = await Client.connect(owner.url, "ann")
        table = (await ann.create_table("scopa", {"seat": 0})).table.id
        cluster = owner.cluster
        assert cluster is not None
        dispatch = owner.dispatch

        async def swept_first(player: Player, msg: Any, **kw: Any) -> None:
            # the sweep runs while the join is on its way (between the bus and the table)
            await cluster.sweep_absent(config.session_ttl)
            await dispatch(player, msg, **kw)

        owner.dispatch = swept_first  # type: ignore[method-assign]
        bob = await Client.connect(front.url, "bob")
        joined = await bob.join(table, seat=1)  # fills the table: the game starts
        owner.dispatch = dispatch  # type: ignore[method-assign]
        assert joined.seat == 1
        started = await bob.wait_for(
            lambda m: isinstance(m, sm.Update | sm.Snapshot) and m.table == table, 5.0
        )
        assert started.game_no == 1
        assert owner.lobby.sessions.get(bob.player_id) is not None
        await ann.close()
        await bob.close()


async def test_a_stand_in_no_table_needs_is_forgotten_once_idle(
    redis_server: RedisServer,
) -> None:
    config = fast_redis_config(redis_server.url)
    async with running_server(config) as owner, running_server(config) as front:
        assert owner.bus is not None and owner.cluster is not None
        clock = [1000.0]
        owner.lobby.clock = lambda: clock[0]
        assert isinstance(front.store, RedisStore)
        stand_in = owner.bus.stand_in("p_elsewhere", "eve", front.store.node)
        await owner.cluster.sweep_absent(config.session_ttl)
        assert owner.lobby.sessions.get("p_elsewhere") is stand_in  # just relayed
        clock[0] += STAND_IN_KEEP
        await owner.cluster.sweep_absent(config.session_ttl)
        assert owner.lobby.sessions.get("p_elsewhere") is None
