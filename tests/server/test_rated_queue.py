"""The rated queues' storage (server/ratings/queue.py), in memory and in a real Redis:
one entry per account, claims taken for all of a table's players or none, claims that
run out when their process is gone."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from redis import asyncio as aioredis

from server.ratings import queue as queue_module
from server.ratings.matchmaking import QueueEntry
from server.ratings.queue import (
    AlreadyQueued,
    BeingSeated,
    MemoryQueue,
    QueueStore,
    RedisQueue,
    entry_json,
    entry_of,
)
from tests.server.redis_fixture import RedisServer


def entry(i: int, **kw: Any) -> QueueEntry:
    return QueueEntry(
        player_id=f"p{i}", key=f"a{i}", name=f"N{i}", rating=1500 + i, queued_at=0.0, **kw
    )


Factory = Callable[[str], QueueStore]


@pytest.fixture(params=["memory", "redis"])
async def queues(request: pytest.FixtureRequest, tmp_path: Any) -> AsyncIterator[Factory]:
    """Queue stores sharing one state: two processes' views (``node``) of it."""
    if request.param == "memory":
        shared = MemoryQueue()
        yield lambda node: shared
        return
    server = RedisServer(tmp_path)
    server.start()
    clients: list[aioredis.Redis] = []

    def make(node: str) -> QueueStore:
        client = aioredis.Redis.from_url(server.url)
        clients.append(client)
        return RedisQueue(client, "test", node)

    try:
        yield make
    finally:
        for client in clients:
            await client.aclose()
        server.stop()


def test_an_entry_survives_its_encoding() -> None:
    e = entry(1, bot=True, with_bots=True, blocked=frozenset({"a2", "a3"}), look="n1")
    assert entry_of(entry_json(e)) == e


async def test_one_entry_per_account_and_leaving(queues: Factory) -> None:
    q = queues("n1")
    added = await q.add("scopa", entry(1, blocked=frozenset({"a9"})))
    assert added.queued_at > 1e9 and added.blocked == frozenset({"a9"})
    with pytest.raises(AlreadyQueued) as info:
        await q.add("cicera", entry(1))
    assert info.value.game == "scopa"
    assert await q.find("a1") == ("scopa", added)
    assert await q.remove("a1", "cicera") is None  # not that game's
    assert await q.remove("a1") == "scopa"
    assert await q.find("a1") is None and await q.remove("a1") is None
    again = await q.add("cicera", entry(1))
    assert again.blocked == frozenset()  # an empty list survives Redis's JSON too


async def test_claims_are_all_or_nothing_and_exclusive(queues: Factory) -> None:
    a, b = queues("n1"), queues("n2")
    for i in range(4):
        await a.add("scopa", entry(i))
    assert await a.claim("scopa", ["a0", "a1"], "T1")
    assert not await b.claim("scopa", ["a1", "a2"], "T2")  # a1 is taken: nobody twice
    assert await b.claim("scopa", ["a2", "a3"], "T2")
    assert not await b.claim("scopa", ["a9"], "T3")  # not queued
    waiting = await a.waiting("scopa")
    assert waiting.entries == () and waiting.stale == {}
    with pytest.raises(BeingSeated):
        await a.remove("a0")
    await a.release("scopa", ["a0", "a1"])
    assert {e.key for e in (await b.waiting("scopa")).entries} == {"a0", "a1"}
    await b.done("scopa", ["a2", "a3"])
    assert await a.find("a2") is None
    assert {e.key for e in (await a.waiting("scopa")).entries} == {"a0", "a1"}


async def test_a_dead_processs_claim_runs_out_and_names_its_table(
    queues: Factory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(queue_module, "CLAIM_TTL", 0.3)
    a, b = queues("n1"), queues("n2")
    await a.add("doudizhu", entry(1))
    await a.add("doudizhu", entry(2))
    assert await a.claim("doudizhu", ["a1", "a2"], "T1")  # then n1 dies
    if isinstance(b, RedisQueue):  # another process's done does not take them out
        await b.done("doudizhu", ["a1"])
        assert await b.find("a1") is not None
    await asyncio.sleep(0.4)
    waiting = await b.waiting("doudizhu")
    assert {e.key for e in waiting.entries} == {"a1", "a2"}
    assert waiting.stale == {"a1": "T1", "a2": "T1"}
    assert await b.claim("doudizhu", ["a1", "a2"], "T2")
    assert (await b.waiting("doudizhu")).entries == ()


async def test_one_process_matches_a_game_at_a_time(queues: Factory) -> None:
    a, b = queues("n1"), queues("n2")
    assert await a.lock("scopa", 0.3)
    if isinstance(a, MemoryQueue):
        return  # one process: nothing to share
    assert not await b.lock("scopa", 0.3)
    assert await a.lock("scopa", 0.3)  # its holder renews it
    assert await b.lock("cicera", 0.3)
    await asyncio.sleep(0.4)
    assert await b.lock("scopa", 0.3)  # the holder is gone


async def test_claims_made_at_once_by_two_processes_never_overlap(queues: Factory) -> None:
    """Two hundred claims of random groups, sent at once from two processes: the groups
    that got their claim are disjoint, and every entry claimed was queued."""
    a, b = queues("n1"), queues("n2")
    for i in range(40):
        await a.add("schafkopf", entry(i))
    rng = random.Random(7)
    groups = [[f"a{j}" for j in rng.sample(range(42), 4)] for _ in range(200)]
    won = await asyncio.gather(
        *((a, b)[n % 2].claim("schafkopf", group, f"T{n}") for n, group in enumerate(groups))
    )
    claimed = [key for group, ok in zip(groups, won, strict=True) if ok for key in group]
    assert claimed and len(claimed) == len(set(claimed))
    assert all(int(key[1:]) < 40 for key in claimed)
