"""The group-commit lane of the Redis store against a real redis-server: batches,
answers in order, error replies, a lost script cache, dropped connections, outages."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from typing import Any

import pytest
from redis import asyncio as aioredis

from server.persist.redis_commit import CommitLane
from server.persist.redis_store import RedisStore
from server.persist.store import LoggedAction, StoreUnavailable, TableRecord
from tests.server.redis_fixture import RedisServer

_ECHO = """
if ARGV[1] == 'fail' then return redis.error_reply('asked to fail') end
redis.call('RPUSH', KEYS[2], ARGV[1])
return KEYS[1] .. ':' .. ARGV[1]
"""
"""A script of the lane's shape (two keys, then arguments): answers its key and argument."""


Wired = tuple[aioredis.Redis, CommitLane]


@pytest.fixture
async def wired(redis_server: RedisServer) -> AsyncIterator[Wired]:
    """A client of ``redis_server`` and a lane of :data:`_ECHO` on it, closed after the test."""
    pool = aioredis.BlockingConnectionPool.from_url(
        redis_server.url, max_connections=4, timeout=0.5, socket_timeout=0.5
    )
    redis = aioredis.Redis.from_pool(pool)
    lane = CommitLane(redis, redis.register_script(_ECHO))
    try:
        yield redis, lane
    finally:
        await lane.close()
        await redis.aclose()


def echo(lane: CommitLane, key: str, arg: object) -> Any:
    """:data:`_ECHO` for ``key`` and ``arg``, through :meth:`CommitLane.call`."""
    script = lane._script
    assert script is not None
    return lane.call(("EVALSHA", script.sha, 2, key, "log", arg))


def sends_of(lane: CommitLane) -> list[int]:
    """Record the size of every batch the lane writes."""
    sizes: list[int] = []
    send = lane.send

    async def counted(commands: Sequence[Sequence[object]]) -> list[object]:
        sizes.append(len(commands))
        return await send(commands)

    lane.send = counted  # type: ignore[method-assign]
    return sizes


async def test_calls_of_one_turn_go_in_one_batch_and_each_gets_its_answer(
    wired: Wired,
) -> None:
    redis, lane = wired
    sizes = sends_of(lane)
    answers = await asyncio.gather(*(echo(lane, f"k{i}", i) for i in range(20)))
    assert answers == [f"k{i}:{i}".encode() for i in range(20)]
    assert sizes == [20]
    assert await redis.lrange("log", 0, -1) == [str(i).encode() for i in range(20)]


async def test_calls_arriving_while_a_batch_is_out_make_the_next_batch(
    wired: Wired,
) -> None:
    _, lane = wired
    sizes = sends_of(lane)
    first = asyncio.ensure_future(echo(lane, "a", "first"))
    await asyncio.sleep(0)  # the first batch is on its way
    later = [asyncio.ensure_future(echo(lane, "b", n)) for n in range(5)]
    assert await first == b"a:first"
    assert await asyncio.gather(*later) == [f"b:{n}".encode() for n in range(5)]
    assert sizes == [1, 5]


async def test_an_error_reply_fails_only_its_own_call(wired: Wired) -> None:
    _, lane = wired
    results = await asyncio.gather(
        echo(lane, "a", "1"),
        echo(lane, "b", "fail"),
        echo(lane, "c", "3"),
        return_exceptions=True,
    )
    assert results[0] == b"a:1" and results[2] == b"c:3"
    assert isinstance(results[1], StoreUnavailable) and "asked to fail" in str(results[1])


async def test_a_flushed_script_cache_is_filled_again(wired: Wired) -> None:
    redis, lane = wired
    assert await echo(lane, "a", "1") == b"a:1"
    await redis.script_flush()
    assert await echo(lane, "a", "2") == b"a:2"
    assert await redis.lrange("log", 0, -1) == [b"1", b"2"]


async def test_a_killed_connection_is_replaced(wired: Wired) -> None:
    redis, lane = wired
    assert await echo(lane, "a", "1") == b"a:1"
    assert await redis.client_kill_filter(_type="normal", skipme=True) >= 1
    assert await echo(lane, "a", "2") == b"a:2"


async def test_redis_down_fails_the_calls_and_they_work_once_it_is_back(
    redis_server: RedisServer, wired: Wired
) -> None:
    _, lane = wired
    assert await echo(lane, "a", "1") == b"a:1"
    redis_server.stop()
    outcomes = await asyncio.gather(*(echo(lane, "a", n) for n in range(3)), return_exceptions=True)
    assert all(isinstance(o, StoreUnavailable) for o in outcomes)
    redis_server.start()
    assert await echo(lane, "a", "2") == b"a:2"


async def test_close_fails_what_waits_and_returns_the_connection(
    wired: Wired,
) -> None:
    redis, lane = wired
    assert await echo(lane, "a", "1") == b"a:1"
    pending = asyncio.ensure_future(echo(lane, "a", "2"))
    await asyncio.sleep(0)
    await lane.close()
    with pytest.raises(StoreUnavailable):
        await pending
    pool = redis.connection_pool
    assert not pool._in_use_connections  # type: ignore[attr-defined]
    with pytest.raises(StoreUnavailable, match="closed"):  # nothing is sent after closing
        await echo(lane, "a", "3")
    with pytest.raises(StoreUnavailable, match="closed"):
        await lane.send([("GET", "a")])
    assert not pool._in_use_connections  # type: ignore[attr-defined]


async def test_the_stores_appends_of_many_tables_share_batches(
    redis_server: RedisServer,
) -> None:
    store = RedisStore(redis_server.url, prefix="t", timeout=0.5)
    tables = [f"x{i}" for i in range(8)]
    for t in tables:
        await store.create(TableRecord(table_id=t, game="scopa", options={}))
        await store.start_game(t, 1, 9, 1)
    sizes = sends_of(store._lane)
    for n in range(3):
        await asyncio.gather(*(store.append(t, LoggedAction(0, {"n": n})) for t in tables))
    assert sizes == [8, 8, 8]
    for t in tables:
        rec = await store.load(t)
        assert rec is not None and [a.action for a in rec.actions] == [{"n": n} for n in range(3)]
    await store.close()


async def test_send_writes_any_commands_in_one_batch(wired: Wired) -> None:
    redis, _ = wired
    lane = CommitLane(redis)
    replies = await lane.send([("RPUSH", "l", "a"), ("INCR", "l"), ("RPUSH", "l", "b")])
    assert replies[0] == 1 and replies[2] == 2
    assert isinstance(replies[1], Exception) and "WRONGTYPE" in str(replies[1])
    assert await redis.lrange("l", 0, -1) == [b"a", b"b"]
    await lane.close()


async def test_other_commands_share_the_batches(wired: Wired) -> None:
    redis, lane = wired
    await redis.set("owner", "node-1:3")
    sizes = sends_of(lane)
    got = await asyncio.gather(echo(lane, "a", "1"), lane.call(("GET", "owner")))
    assert got == [b"a:1", b"node-1:3"] and sizes == [2]
