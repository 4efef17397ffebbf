"""A tournament across two server processes sharing Redis and a database (issue 56): the
process directing it is killed (SIGKILL) in the middle of a round; the other takes the
lease over and the tournament neither loses nor repeats a round."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
import redis

from client_cli.client import Client, random_chooser, reconnect
from client_cli.tournament import TournamentRun, bot_player, play_tournament
from protocol import client_messages as cm
from server.persist.db.engine import sqlite_url
from tests.server.redis_fixture import RedisServer, ServerProcess

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
