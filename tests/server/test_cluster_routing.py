"""A request for a table that exists is never answered ``not_found`` while the table
changes hands between processes (two or three servers on one Redis, in this process).

The front looks the table's owner up in Redis, then publishes the request on that
owner's channel; the owner may no longer drive the table by the time it reads it
(a takeover overtook the lookup: the CI flake of ``test_store_moving``'s set-up)
or not yet (it has just taken the table and is rebuilding it).  Either way the
request was not applied, so it goes back to the front, which routes it again.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Any

import msgpack  # type: ignore[import-untyped]
import pytest
from redis import asyncio as aioredis
from websockets.asyncio.client import ClientConnection, connect

from client_cli.client import Client
from protocol.base import PROTOCOL_VERSION
from protocol.client_messages import JoinTable
from protocol.codec import encode
from server.app import CardaviaServer, running_server
from server.persist.store import TableRecord
from tests.server.redis_fixture import RedisServer, fast_redis_config

CODECS = ("cardavia.msgpack", "cardavia.json")


class RawClient:
    """A client speaking the protocol as raw frames in either encoding (the library
    speaks msgpack only): the answer to each request, matched by its id."""

    def __init__(self, ws: ClientConnection, as_json: bool) -> None:
        self.ws = ws
        self.as_json = as_json
        self._ids = iter(range(1, 1_000_000))

    @classmethod
    async def connect(cls, url: str, subprotocol: str, name: str) -> RawClient:
        ws = await connect(url, subprotocols=[subprotocol], compression=None)  # type: ignore[list-item]
        client = cls(ws, subprotocol == "cardavia.json")
        welcome = await client.request({"type": "hello", "version": PROTOCOL_VERSION, "name": name})
        assert welcome["type"] == "welcome", welcome
        return client

    async def request(self, message: dict[str, Any], timeout: float = 10.0) -> dict[str, Any]:
        """Send ``message`` with a new id; the message answering it."""
        rid = next(self._ids)
        message = {**message, "id": rid}
        await self.ws.send(json.dumps(message) if self.as_json else msgpack.packb(message))
        async with asyncio.timeout(timeout):
            while True:
                frame = await self.ws.recv()
                got = json.loads(frame) if self.as_json else msgpack.unpackb(frame)
                if got.get("ref") == rid or (got["type"] == "welcome" and rid == 1):
                    return dict(got)

    async def close(self) -> None:
        await self.ws.close()


async def lease_of(redis: aioredis.Redis, table: str) -> str | None:
    """The process holding ``table``'s lease, as Redis says now."""
    raw = await redis.get(f"cardavia:t:{table}:lease")
    return None if raw is None else raw.decode().rsplit(":", 1)[0]


async def until(check: Callable[[], Awaitable[bool]], what: str, timeout: float = 10.0) -> None:
    """Wait until ``check()`` holds."""
    async with asyncio.timeout(timeout):
        while not await check():
            await asyncio.sleep(0.01)
    assert await check(), what


async def pushed(client: Client) -> list[Any]:
    """The messages pushed to ``client`` and not read yet."""
    got = []
    while True:
        try:
            got.append(await client.receive(0.05))
        except TimeoutError:
            return got


async def seated_once_open(erin: RawClient, table: str, gate: asyncio.Event) -> None:
    """Erin's join of ``table`` waits (unanswered) while ``gate`` is closed, and once it
    opens is answered with her seat: never ``not_found``, the table exists all along."""
    joining = asyncio.create_task(erin.request({"type": "join_table", "table": table}))
    await asyncio.sleep(0.4)  # a not_found would have come back by now
    assert not joining.done(), joining.result()
    gate.set()
    answer = await joining
    assert answer["type"] == "joined", answer
    assert (answer["table"]["id"], answer["seat"]) == (table, 1)


@asynccontextmanager
async def redis_client(url: str) -> AsyncIterator[aioredis.Redis]:
    redis = aioredis.Redis.from_url(url)
    try:
        yield redis
    finally:
        await redis.aclose()


@asynccontextmanager
async def table_elsewhere(
    url: str,
) -> AsyncIterator[tuple[CardaviaServer, CardaviaServer, aioredis.Redis, str]]:
    """Two processes on the Redis at ``url``: the owner, where ann has created a table
    (she sits at seat 0), and the front, where the other players connect; the table's id."""
    config = fast_redis_config(url)
    async with (
        running_server(config) as owner,
        running_server(config) as front,
        redis_client(url) as redis,
    ):
        ann = await Client.connect(owner.url, "ann")
        table = (await ann.create_table("scopa", {"seat": 0})).table.id
        yield owner, front, redis, table


@contextmanager
def lookups_overtaken(
    front: CardaviaServer, redis: aioredis.Redis, dropped_by: CardaviaServer | None = None
) -> Iterator[None]:
    """While it lasts, each lookup of a table's owner at ``front`` is overtaken by a
    takeover: it reads the owner, then the front takes the table over (as if the
    owner's lease had run out meanwhile) and the owner read is answered, once
    ``dropped_by`` (that owner) has dropped the table, or at once (the owner still
    drives it then, and its next write is fenced out)."""
    looked_up = front.store.owner_of
    cluster = front.cluster
    assert cluster is not None

    async def overtaken(table_id: str) -> str | None:
        stale = await looked_up(table_id)
        while table_id not in front.lobby.tables:
            await redis.delete(f"cardavia:t:{table_id}:lease")
            await cluster.take(table_id)
        if dropped_by is not None:

            async def dropped() -> bool:
                return table_id not in dropped_by.lobby.tables

            await until(dropped, "the owner still holds the table")
        return stale

    front.store.owner_of = overtaken  # type: ignore[method-assign]
    try:
        yield
    finally:
        front.store.owner_of = looked_up  # type: ignore[method-assign]


@pytest.mark.parametrize("codec", CODECS)
@pytest.mark.parametrize("request_type", ["join_table", "spectate"])
async def test_a_request_that_reaches_the_owner_after_a_takeover_is_routed_on(
    redis_server: RedisServer, codec: str, request_type: str
) -> None:
    """The front looked the owner up; before the owner read the request, the front
    took the table over (the owner's lease had run out while it was busy) and the
    owner dropped it: the request comes back to the front and is handled there."""
    async with table_elsewhere(redis_server.url) as (owner, front, redis, table):
        erin = await RawClient.connect(front.url, codec, "erin")
        with lookups_overtaken(front, redis, dropped_by=owner):
            answer = await erin.request({"type": request_type, "table": table})
        assert answer["type"] == "joined", answer
        assert answer["table"]["id"] == table
        assert answer["seat"] == (1 if request_type == "join_table" else None)
        assert await lease_of(redis, table) == front.store.node
        await erin.close()


async def test_a_join_the_owner_handles_as_it_loses_the_table_is_sent_on_by_the_library(
    redis_server: RedisServer,
) -> None:
    """The owner reads the join before it has noticed the takeover: its write of the
    seating is fenced out, so the join was not applied; the joiner is told
    ``table_moving`` (not closed with the table's members), and the client library,
    sending it again, is seated at the process that drives the table now."""
    async with table_elsewhere(redis_server.url) as (_, front, redis, table):
        erin = await Client.connect(front.url, "erin")
        with lookups_overtaken(front, redis):
            joined = await erin.join(table)
        assert (joined.table.id, joined.seat) == (table, 1)
        assert front.lobby.tables[table].core.seat_of(erin.player_id) == 1
        await erin.close()


@pytest.mark.parametrize("codec", CODECS)
async def test_a_request_that_reaches_a_process_still_rebuilding_the_table_waits_for_it(
    redis_server: RedisServer, codec: str
) -> None:
    """A process that has just taken a table (its lease names it) listens on its
    channel while it rebuilds the table: a join sent meanwhile waits for the table,
    then is handled there (the table exists all along)."""
    config = fast_redis_config(redis_server.url)
    # the front takes nothing over by itself here (its scans are far apart): the taker does
    slow_scans = config.replace(lease_ttl=60.0, takeover_interval=30.0)
    async with (
        redis_client(redis_server.url) as redis,
        running_server(config) as first,
        running_server(slow_scans) as front,
        running_server(config) as taker,
    ):
        ann = await Client.connect(first.url, "ann")
        table = (await ann.create_table("scopa", {"seat": 0})).table.id
        erin = await RawClient.connect(front.url, codec, "erin")
        gate = asyncio.Event()
        load = taker.store.load

        async def slow_load(table_id: str) -> TableRecord | None:
            await gate.wait()  # rebuilding (a long log, many tables at once)
            return await load(table_id)

        taker.store.load = slow_load  # type: ignore[method-assign]
        await first.shutdown()  # graceful: its leases are released at once

        async def taken() -> bool:
            return await lease_of(redis, table) == taker.store.node

        await until(taken, "the other process did not take the table")
        await seated_once_open(erin, table, gate)  # it reached the process as it rebuilds
        assert table in taker.lobby.tables
        await erin.close()


async def test_a_request_that_reaches_a_process_stopping_its_tables_goes_to_the_next_owner(
    redis_server: RedisServer,
) -> None:
    """A process stopping gracefully (a rolling restart) has stopped its tables but
    still holds their leases for a moment: a join it receives then comes back to the
    front, which takes the table once the lease is released and seats the player."""
    async with table_elsewhere(redis_server.url) as (owner, front, redis, table):
        assert owner.cluster is not None
        erin = await RawClient.connect(front.url, "cardavia.msgpack", "erin")
        gate = asyncio.Event()
        release = owner.cluster.stop

        async def stop_later() -> None:
            await gate.wait()  # the tables have stopped; the leases are not released yet
            await release()

        owner.cluster.stop = stop_later  # type: ignore[method-assign]
        stopping = asyncio.create_task(owner.shutdown())
        try:
            actor = owner.lobby.tables[table]

            async def stopped() -> bool:
                return actor.closed

            await until(stopped, "the owner's table did not stop")
            assert await lease_of(redis, table) == owner.store.node
            await seated_once_open(erin, table, gate)
            assert table in front.lobby.tables
        finally:
            gate.set()
            await stopping
        await erin.close()


async def test_a_request_given_back_after_the_front_answered_it_is_not_handled_again(
    redis_server: RedisServer,
) -> None:
    """A give-back for a request the front no longer waits for (refused at its deadline
    meanwhile) changes nothing: a request is answered once, and applied at most once."""
    async with table_elsewhere(redis_server.url) as (owner, front, redis, table):
        erin = await Client.connect(front.url, "erin")
        join = JoinTable(id=99, table=table)
        back = {"t": "back", "pid": erin.player_id, "frame": encode(join), "until": 1e12}
        await redis.publish(f"cardavia:node:{front.store.node}", msgpack.packb(back))
        await asyncio.sleep(1.0)  # ten times the pause before a held request is looked at
        assert not owner.lobby.tables[table].core.is_member(erin.player_id)
        assert all(getattr(m, "ref", None) != 99 for m in await pushed(erin))
        assert (await erin.join(table)).seat == 1  # the table is there all along
        await erin.close()
