"""A tournament across two server processes sharing Redis and a database (issue 56): the
process directing it is killed (SIGKILL) in the middle of a round; the other takes the
lease over and the tournament neither loses nor repeats a round."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import msgpack  # type: ignore[import-untyped]
import pytest
import redis

from client_cli.client import Client, random_chooser, reconnect
from client_cli.tournament import TournamentRun, bot_player, play_tournament
from protocol import client_messages as cm
from server.app import running_server
from server.persist.db.engine import sqlite_url
from server.tournaments.pairing import PairedTable
from server.tournaments.store import Kind, NewTournament
from tests.server.redis_fixture import RedisServer, ServerProcess, fast_redis_config

PASSWORD = "tournament password 1"


@pytest.mark.heavy
async def test_killing_the_director_mid_round_loses_and_repeats_nothing(
    redis_server: RedisServer, servers: list[ServerProcess], tmp_path: Path
) -> None:
    shared = ("--database-url", sqlite_url(tmp_path / "shared.db"))
    a, b = ServerProcess(redis_server.url, *shared), ServerProcess(redis_server.url, *shared)
    servers += [a, b]
    a.start()
    b.start()
    clients = []
    for i in range(6):
        client = await Client.connect((a, b)[i % 2].url, "x")
        await client.register(["Ann", "Bo", "Cy", "Di", "Ed", "Flo"][i], PASSWORD)
        clients.append(client)
    made = await clients[0].create_tournament(
        cm.CreateTournament(
            name="Kill", game="doudizhu", kind="swiss", starts_at=time.time() + 1.0, rounds=3
        )
    )
    for c in clients:
        await c.register_tournament(made.id)
    urls = {a.url: b.url, b.url: a.url}

    def resumer(home: str) -> object:
        async def resume(old: Client) -> Client | None:
            return await reconnect(urls[home], old)

        return resume

    async def one(i: int, c: Client) -> TournamentRun:
        home = (a, b)[i % 2].url
        return await play_tournament(
            c,
            made.id,
            bot_player(random_chooser(i)),
            register=False,
            resume=resumer(home),  # type: ignore[arg-type]
        )

    runs = asyncio.gather(*(one(i, c) for i, c in enumerate(clients)))
    # wait until round 2 is paired, then kill the process holding the tournament's lease
    watcher = await Client.connect(a.url, "watcher")
    async with asyncio.timeout(60):
        while (await watcher.standings(made.id)).tournament.round < 2:
            await asyncio.sleep(0.2)
    await watcher.close()
    holder = redis.Redis.from_url(redis_server.url).get(f"cardavia:lease:tournament:{made.id}")
    assert holder is not None
    where = redis.Redis.from_url(redis_server.url).get(f"cardavia:where:{clients[0].player_id}")
    director = a if holder == where else b  # clients[0] is connected to a
    director.stop(9)
    done = await asyncio.wait_for(runs, 120)
    final = done[0].standings
    assert final.tournament.status == "finished" and final.tournament.round == 3
    assert sorted(s.games for s in final.standings) == [3] * 6  # no round lost, none twice
    for run in done:
        await run.client.close()


async def test_a_table_whose_record_died_with_its_process_is_not_dealt_again(
    redis_server: RedisServer,
) -> None:
    """Its people left once its game was over (the table deleted) and its process died
    before writing the game's record: the finished game Redis keeps gives the results;
    the director that takes over does not make the table again."""
    config = fast_redis_config(redis_server.url)
    async with running_server(config) as server:
        server.tournaments.period = 0.1
        ann = await Client.connect(server.url, "x")
        await ann.register("Ann", PASSWORD)
        bo = await Client.connect(server.url, "x")
        await bo.register("Bo", PASSWORD)
        assert ann.account is not None and bo.account is not None
        a, b = ann.account.account_id, bo.account.account_id
        store = server.tournaments.store
        made = await store.create(
            NewTournament("Lost", "doudizhu", Kind.SWISS, time.time(), rounds=1), None
        )
        await store.register(made.tournament_id, a, "Ann")
        await store.register(made.tournament_id, b, "Bo")
        await store.start(made.tournament_id)
        table = PairedTable(1, (a, b), 1)
        assert await store.pair_round(made.tournament_id, 0, [table], [(a, None, b)], time.time())
        table_id = f"{made.tournament_id}-r1-t1"
        finished = {
            "game_no": 1,
            # Bo left mid-game (the AI covered the seat): the game counts for Bo, as in
            # the game records; the middle seat was the table's AI
            "seats": [{"kind": "human"}, {"kind": "ai"}, {"kind": "ai", "ai_covering": True}],
            "result": {"scores": [-4, 2, 2], "winners": [1, 2]},
        }
        r = redis.Redis.from_url(redis_server.url)
        r.set(f"cardavia:r:{table_id}:1", msgpack.packb(finished))
        async with asyncio.timeout(10):
            while (await store.get(made.tournament_id)).status.value != "finished":
                await asyncio.sleep(0.05)
        assert table_id not in server.lobby.tables
        (done,) = await store.tables(made.tournament_id, 1)
        assert done.results is not None
        assert [(x.player_id, x.won, x.score) for x in done.results] == [
            (a, False, -4),
            (None, True, 2),
            (b, True, 2),
        ]
        await ann.close()
        await bo.close()
