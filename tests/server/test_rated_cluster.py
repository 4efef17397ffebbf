"""Rated quick play across server processes on one Redis: one queue for all of them,
players of two processes at one table, nobody lost when a process dies."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

import pytest

from client_cli.client import Client
from protocol import client_messages as cm
from protocol import server_messages as sm
from server.app import running_server
from server.persist.db.engine import sqlite_url
from server.ratings import queue as queue_module
from server.ratings.queue import RedisQueue
from tests.server.redis_fixture import RedisServer, ServerProcess, fast_redis_config
from tests.server.test_accounts import fast_hasher
from tests.server.test_rated_play import PASSWORD, Fixed, ask, rated


async def test_players_of_two_processes_share_one_queue_and_one_table(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    config = fast_redis_config(redis_server.url, database_url=sqlite_url(tmp_path / "c.db"))
    async with running_server(config) as one, running_server(config) as two:
        for srv in (one, two):
            srv.accounts.hasher = fast_hasher()
            srv.rated.fill_wait = 5.0
            assert isinstance(srv.rated.queue, RedisQueue)
        ann = await Client.connect(one.url, "x")
        await ann.register("Ann", PASSWORD)
        bo = await Client.connect(two.url, "x")
        await bo.register("Bo", PASSWORD)
        cy = await Client.connect(two.url, "x")
        await cy.register("Cy", PASSWORD)
        assert ann.account and bo.account and cy.account
        points = {ann.account.account_id: 1500, bo.account.account_id: 1540}
        points[cy.account.account_id] = 2300  # far from both: not at their table
        for srv in (one, two):
            srv.rated.ratings = Fixed(points)
        assert isinstance(await ask(cy, rated("scopa")), sm.Queued)
        assert isinstance(await ask(ann, rated("scopa")), sm.Queued)
        again = await ask(ann, rated("scopa"))  # one entry, whatever the process
        assert isinstance(again, sm.Error) and again.code == "already_queued"
        assert isinstance(await ask(bo, rated("scopa")), sm.Queued)
        a = await ann.wait_for(lambda m: isinstance(m, sm.Joined), 5)
        b = await bo.wait_for(lambda m: isinstance(m, sm.Joined), 5)
        assert a.table.id == b.table.id and a.table.rated
        assert {s.name for s in a.table.seats + b.table.seats if s.name} == {"Ann", "Bo"}
        # the table plays on wherever it was made: both see its first update
        for client in (ann, bo):
            await client.wait_for(lambda m: isinstance(m, sm.Update) and m.table == a.table.id)
        # Cy still waits, alone in the queue, until the wait fills his table with the AI
        assert (await one.rated.queue.find(cy.account.account_id)) is not None
        c = await cy.wait_for(lambda m: isinstance(m, sm.Joined), 10)
        assert c.table.rated and [s.kind for s in c.table.seats].count("ai") == 1
        for client in (ann, bo, cy):
            await client.close()


@pytest.mark.heavy
async def test_a_queued_player_whose_process_dies_is_still_queued_on_another(
    redis_server: RedisServer, servers: list[ServerProcess], tmp_path: Path
) -> None:
    shared = ("--database-url", sqlite_url(tmp_path / "shared.db"), "--quick-fill-wait", "60")
    a, b = ServerProcess(redis_server.url, *shared), ServerProcess(redis_server.url, *shared)
    servers += [a, b]
    a.start()
    b.start()
    ann = await Client.connect(a.url, "x")
    await ann.register("Ann", PASSWORD)
    queued = await ask(ann, rated("scopa"))
    assert isinstance(queued, sm.Queued)
    a.signal(signal.SIGKILL)
    await ann.close()
    ann = await Client.connect(b.url, "x", token=ann.token)
    told = await ann.wait_for(lambda m: isinstance(m, sm.Queued), 10)
    assert (told.game, told.since, told.ref) == ("scopa", queued.since, None)
    bo = await Client.connect(b.url, "x")
    await bo.register("Bo", PASSWORD)
    assert isinstance(await ask(bo, rated("scopa")), sm.Queued)
    # a's matching lock runs out; b matches them (both newcomers: 1500)
    joined = await asyncio.gather(
        ann.wait_for(lambda m: isinstance(m, sm.Joined), 10),
        bo.wait_for(lambda m: isinstance(m, sm.Joined), 10),
    )
    assert joined[0].table.id == joined[1].table.id
    answer = await ask(ann, cm.LeaveQueue())
    assert isinstance(answer, sm.Error) and answer.code == "not_queued"
    await ann.close()
    await bo.close()


async def test_two_processes_matching_one_queue_at_once_seat_nobody_twice(
    redis_server: RedisServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without the matching lock (as when a lock runs out during a slow round) both
    processes match the same entries at once: the claims still seat each player once."""

    async def always(self: RedisQueue, game: str, ttl: float) -> bool:
        return True

    monkeypatch.setattr(RedisQueue, "lock", always)
    config = fast_redis_config(redis_server.url, database_url=sqlite_url(tmp_path / "c.db"))
    async with running_server(config) as one, running_server(config) as two:
        for srv in (one, two):
            srv.accounts.hasher = fast_hasher()
            srv.rated.fill_wait = 5.0
        clients = []
        for i in range(12):
            client = await Client.connect((one, two)[i % 2].url, "x")
            await client.register(f"P{i:02d}", PASSWORD)
            clients.append(client)
        await asyncio.gather(*(ask(c, rated("doudizhu")) for c in clients))
        joined = await asyncio.gather(
            *(c.wait_for(lambda m: isinstance(m, sm.Joined), 10) for c in clients)
        )
        await asyncio.sleep(1.0)  # a second seating would have come by now
        tables: dict[str, int] = {}
        for j in joined:
            tables[j.table.id] = tables.get(j.table.id, 0) + 1
        assert sorted(tables.values()) == [3, 3, 3, 3]  # all people, three to a table
        for c in clients:
            assert not any(isinstance(m, sm.Joined) for m in await _drain(c))
            await c.close()


async def _drain(client: Client) -> list[object]:
    """The pushed messages a client has not read yet."""
    out = []
    while True:
        try:
            out.append(await client.receive(timeout=0.05))
        except TimeoutError:
            return out


async def test_a_dead_processs_claim_is_settled_by_where_its_players_sit(
    redis_server: RedisServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A process claimed Ann and Bo, seated Ann at its table and died: once its claim runs
    out, Ann (seated there) leaves the queue and Bo (not seated) is matched again."""
    monkeypatch.setattr(queue_module, "CLAIM_TTL", 0.5)
    config = fast_redis_config(redis_server.url, database_url=sqlite_url(tmp_path / "c.db"))
    async with running_server(config) as srv:
        srv.accounts.hasher = fast_hasher()
        srv.rated.fill_wait = 1.0
        assert isinstance(srv.rated.queue, RedisQueue)
        ann = await Client.connect(srv.url, "x")
        await ann.register("Ann", PASSWORD)
        bo = await Client.connect(srv.url, "x")
        await bo.register("Bo", PASSWORD)
        assert ann.account and bo.account
        dead = RedisQueue(srv.rated.queue.redis, srv.config.redis_prefix, "dead")
        keys = [ann.account.account_id, bo.account.account_id]
        lock = f"{srv.config.redis_prefix}:mm:lock:scopa"
        await dead.redis.set(lock, "dead", px=3000)  # the dead process matched scopa
        assert isinstance(await ask(ann, rated("scopa")), sm.Queued)
        assert isinstance(await ask(bo, rated("scopa")), sm.Queued)
        table = (await ann.create_table("scopa", {"seat": 0})).table.id  # "seated" by it
        assert await dead.claim("scopa", keys, table)
        await dead.redis.delete(lock)  # its lock runs out: this process matches now
        joined = await bo.wait_for(lambda m: isinstance(m, sm.Joined), 10)
        assert joined.table.id != table and joined.table.rated
        assert [s.kind for s in joined.table.seats].count("ai") == 1  # not with Ann
        assert await srv.rated.queue.find(keys[0]) is None
        assert not any(isinstance(m, sm.Joined) for m in await _drain(ann))
        await ann.close()
        await bo.close()
