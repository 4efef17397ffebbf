"""Each game persisted in Redis mid-play and rebuilt: every seat's view is the original's."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from client_cli.client import Client, random_chooser
from engine.codec import to_plain
from engine.registry import GAMES
from server.app import running_server
from server.tables.core import TableCore
from tests.server.helpers import FAST, finished_ai_table
from tests.server.redis_fixture import RedisServer


def seating(core: TableCore) -> list[Any]:
    return [(s.kind, s.player_id, s.name, s.level, s.left) for s in core.seats]


async def play_some(client: Client, table: str, moves: int, seed: int) -> None:
    """Play ``moves`` of the client's turns (random legal moves), then wait for its turn."""
    choose = random_chooser(seed)
    played = 0
    while True:
        state = client.tables[table]
        if state.my_turn and state.view is not None:
            if played == moves:
                return
            await client.act(table, choose(state.view), seat=state.seat, version=state.version)
            played += 1
        else:
            await client.receive(10)


@pytest.mark.parametrize("game_id", sorted(GAMES))
async def test_rebuilt_views_equal_the_originals(redis_server: RedisServer, game_id: str) -> None:
    game = GAMES[game_id]
    seats = game.num_seats(game.options())
    config = FAST.replace(store="redis", redis_url=redis_server.url)
    async with running_server(config) as server:
        client = await Client.connect(server.url, "ann")
        watcher = await Client.connect(server.url, "bob")
        ai = [{"seat": i, "level": "random"} for i in range(1, seats)]
        options = {"seat": 0, "ai": ai, "private": True, "turn_timer": 30}
        joined = await client.create_table(game_id, options)
        table = joined.table.id
        await watcher.spectate(table, invite=joined.invite)
        await play_some(client, table, 3, seed=7)
        await asyncio.sleep(0.05)
        original = server.lobby.tables[table].core
        assert original.status == "playing" and len(original.log) >= 3
        record = await server.store.load(table)
        assert record is not None
        rebuilt = server.lobby.rebuild_core(record)
        for seat in [*range(seats), None]:
            assert to_plain(game.view(rebuilt.state, seat)) == to_plain(
                game.view(original.state, seat)
            )
        assert (rebuilt.version, rebuilt.game_no, rebuilt.seed, rebuilt.status) == (
            original.version,
            original.game_no,
            original.seed,
            original.status,
        )
        assert rebuilt.log == original.log
        assert seating(rebuilt) == seating(original)
        assert rebuilt.spectators == original.spectators
        now = server.clock()
        left, was = rebuilt.timer_left(now), original.timer_left(now)
        assert left is not None and was is not None and abs(left - was) < 1.0
        assert (rebuilt.owner, rebuilt.invite, rebuilt.quick) == (
            original.owner,
            original.invite,
            original.quick,
        )
        # the seed never reaches a client: not in what either of them was sent
        assert str(original.seed) not in repr(client.tables[table].view)
        await client.close()
        await watcher.close()


async def test_a_finished_game_replays_after_a_rebuild(redis_server: RedisServer) -> None:
    from server.tables.replay import build_replay

    config = FAST.replace(store="redis", redis_url=redis_server.url, replay_ttl=60)
    async with running_server(config) as server:
        watcher, table = await finished_ai_table(server.url)
        original = await watcher.replay(table)
        await asyncio.sleep(0.05)
        record = await server.store.load(table)
        assert record is not None and [r["game_no"] for r in record.replays] == [1]
        rebuilt = server.lobby.rebuild_core(record)
        assert rebuilt.status == "finished"
        again = build_replay(table, rebuilt.game, rebuilt.setup.game_options, rebuilt.archive[-1])
        assert again == original.model_copy(update={"ref": None})
        await watcher.close()


async def test_a_kicked_player_stays_kicked_after_a_rebuild(redis_server: RedisServer) -> None:
    """The owner's kick is in the table's saved meta: a table rebuilt from Redis (a
    failover, a restart) still refuses the kicked player's join and spectate."""
    from protocol.errors import ErrorCode
    from server.tables.options import RequestError

    config = FAST.replace(store="redis", redis_url=redis_server.url)
    async with running_server(config) as server:
        ann = await Client.connect(server.url, "ann")
        bob = await Client.connect(server.url, "bob")
        table = (await ann.create_table("cicera", {"seat": 0})).table.id
        await bob.join(table)
        await ann.kick(table, bob.player_id)
        await asyncio.sleep(0.05)
        record = await server.store.load(table)
        assert record is not None
        rebuilt = server.lobby.rebuild_core(record)
        assert rebuilt.kicked == {bob.player_id}
        now = server.clock()
        with pytest.raises(RequestError) as refused:
            rebuilt.join(bob.player_id, "bob", None, now)
        assert refused.value.code == ErrorCode.KICKED
        with pytest.raises(RequestError) as refused:
            rebuilt.spectate(bob.player_id, "bob", now)
        assert refused.value.code == ErrorCode.KICKED
        await ann.close()
        await bob.close()


async def test_a_process_gone_between_a_game_s_start_and_its_seating_loses_no_seat(
    redis_server: RedisServer,
) -> None:
    """A game's start and the seating that starts it are two writes: the process may die
    between them.  What the next process rebuilds has every seat of the joiners, either
    still waiting (it starts the game) or playing; never a game under way with a joiner's
    seat empty (played by the AI for nobody: a tournament table counted for nobody)."""
    config = FAST.replace(store="redis", redis_url=redis_server.url)
    async with running_server(config) as server:
        ann = await Client.connect(server.url, "ann")
        bob = await Client.connect(server.url, "bob")
        table = (await ann.create_table("scopa", {"seat": 0})).table.id
        await asyncio.sleep(0.05)
        store = server.store
        writes: list[str] = []
        dead = asyncio.Event()  # never set while the test looks: the process "died"

        def second_write_hangs(name: str, write: Any) -> Any:
            async def wrapped(*args: Any, **kwargs: Any) -> None:
                writes.append(name)
                if len(writes) >= 2:
                    await dead.wait()
                await write(*args, **kwargs)

            return wrapped

        real = {"save_meta": store.save_meta, "start_game": store.start_game}
        for name, write in real.items():
            setattr(store, name, second_write_hangs(name, write))
        joining = asyncio.create_task(bob.join(table))  # the table fills: its game starts
        try:
            async with asyncio.timeout(5):
                while len(writes) < 2:
                    await asyncio.sleep(0.01)
            record = await store.load(table)
            assert record is not None
            rebuilt = server.lobby.rebuild_core(record)
            assert [s.player_id for s in rebuilt.seats] == [ann.player_id, bob.player_id]
            if rebuilt.status == "waiting":  # the game's start was not stored: a tick starts it
                rebuilt.tick(server.clock())
            assert rebuilt.status == "playing"
        finally:
            for name, write in real.items():
                setattr(store, name, write)
            dead.set()
        assert (await joining).seat == 1
        await ann.close()
        await bob.close()


async def test_a_table_dealing_a_given_seed_deals_it_after_a_rebuild(
    redis_server: RedisServer,
) -> None:
    """A Duplicate Swiss round's tables all deal the round's seed: one rebuilt by another
    process before its game began (its people still coming) deals that seed too."""
    from protocol.models import TableOptions

    config = FAST.replace(store="redis", redis_url=redis_server.url)
    async with running_server(config) as server:
        options = TableOptions(seat=None, fill_after=60)
        await server.lobby.matched_table("scopa", options, "dealt1", "normal", deal_seed=4242)
        await server.lobby.matched_table("scopa", options, "fresh1", "normal")
        record = await server.store.load("dealt1")
        assert record is not None
        assert server.lobby.rebuild_core(record).seed_source() == 4242  # as created
        ann = await Client.connect(server.url, "ann")
        await ann.join("dealt1")
        await asyncio.sleep(0.05)
        record = await server.store.load("dealt1")
        assert record is not None
        rebuilt = server.lobby.rebuild_core(record)
        assert rebuilt.seats[0].player_id == ann.player_id and rebuilt.game_no == 0
        assert rebuilt.seed_source() == 4242  # the seating written since keeps it
        fresh = await server.store.load("fresh1")
        assert fresh is not None
        seeds = {server.lobby.rebuild_core(fresh).seed_source() for _ in range(3)}
        assert len(seeds) == 3  # a table of fresh deals stays one
        await ann.close()
