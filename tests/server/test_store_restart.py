"""Server processes on a real Redis: restart (SIGTERM, SIGKILL), failover, fencing, outages.

Each process is a real ``cardavia-server`` with a 1 s lease; clients resume
with the tokens they held.  After every scenario the log in Redis must hold
every acknowledged move exactly once.
"""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from typing import Any

import pytest
from redis import asyncio as aioredis

from client_cli.client import Client, ClientClosed, ServerError, TableState, random_chooser
from protocol import server_messages as sm
from tests.server.redis_fixture import RedisServer, ServerProcess, free_port

pytestmark = pytest.mark.heavy  # tens of seconds: run first (tests/conftest.py)

AI = [{"seat": 1, "level": "random"}]


async def turns(client: Client, table: str, moves: int, acked: list[dict[str, object]]) -> None:
    """Play ``moves`` of the client's turns; every move the server acknowledged goes to
    ``acked``.  Returns on the client's turn (the table waits for it)."""
    choose = random_chooser(len(acked))
    played = 0
    while True:
        state = client.tables.get(table)
        if state is not None and state.my_turn and state.view is not None:
            if played == moves:
                return
            action = choose(state.view)
            await client.act(table, action, seat=state.seat, version=state.version)
            acked.append(action)
            played += 1
        else:
            await client.receive(15)


async def logged(redis_url: str, table: str) -> list[tuple[int, object, str]]:
    """The table's action log as Redis holds it."""
    import msgpack  # type: ignore[import-untyped]

    redis = aioredis.Redis.from_url(redis_url)
    try:
        raw = await redis.lrange(f"cardavia:t:{table}:log", 0, -1)
    finally:
        await redis.aclose()
    return [tuple(msgpack.unpackb(r, raw=False)) for r in raw]  # type: ignore[misc]


def human_moves(log: list[tuple[int, object, str]]) -> list[object]:
    return [action for seat, action, by in log if by == "human" and seat == 0]


async def resume(url: str, token: str, table: str, timeout: float = 10.0) -> Client:
    """Reconnect with ``token`` and wait for the table's snapshot (the table may still be
    moving to this process: the snapshot comes once it is rebuilt)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            client = await Client.connect(url, "x", token=token)
            break
        except (OSError, ServerError):
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.1)
    assert client.resumed
    await client.wait_for(lambda m: isinstance(m, sm.Snapshot) and m.table == table, timeout)
    return client


async def new_game(url: str) -> tuple[Client, str]:
    client = await Client.connect(url, "ann")
    joined = await client.create_table("scopa", {"seat": 0, "ai": AI})
    return client, joined.table.id


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])
async def test_full_restart_keeps_every_table(
    redis_server: RedisServer, servers: list[ServerProcess], sig: int
) -> None:
    first = ServerProcess(redis_server.url)
    servers.append(first)
    first.start()
    client, table = await new_game(first.url)
    acked: list[dict[str, object]] = []
    await turns(client, table, 2, acked)
    token = client.token
    before = await logged(redis_server.url, table)
    assert await asyncio.to_thread(first.stop, sig) == (0 if sig == signal.SIGTERM else -9)
    await client.close()

    again = ServerProcess(redis_server.url)
    servers.append(again)
    again.start()
    client = await resume(again.url, token, table)
    assert table in client.tables
    after = await logged(redis_server.url, table)
    assert after == before  # nothing lost, nothing replayed twice
    await turns(client, table, 2, acked)
    log = await logged(redis_server.url, table)
    assert log[: len(before)] == before
    assert human_moves(log) == acked
    await client.close()


async def test_failover_to_another_process(
    redis_server: RedisServer, servers: list[ServerProcess]
) -> None:
    a, b = ServerProcess(redis_server.url), ServerProcess(redis_server.url)
    servers += [a, b]
    a.start()
    b.start()
    client, table = await new_game(a.url)
    watcher = await Client.connect(a.url, "bob")
    await watcher.spectate(table)
    acked: list[dict[str, object]] = []
    await turns(client, table, 2, acked)
    token, watcher_token = client.token, watcher.token
    a.signal(signal.SIGKILL)
    killed = time.monotonic()
    await client.close()
    await watcher.close()
    client = await resume(b.url, token, table)
    taken = time.monotonic() - killed
    assert taken < 10
    watcher = await resume(b.url, watcher_token, table)
    assert watcher.tables[table].seat is None
    await turns(client, table, 3, acked)
    log = await logged(redis_server.url, table)
    assert human_moves(log) == acked
    health = b.health()
    assert health is not None and health["tables"] == 1
    await client.close()
    await watcher.close()


async def test_every_table_of_a_dead_process_is_taken_over(
    redis_server: RedisServer, servers: list[ServerProcess]
) -> None:
    """The takeover rebuilds many tables at once (Cluster.scan): all of them, once."""
    from bench.loopback import no_address_cap_flags

    a = ServerProcess(redis_server.url, *no_address_cap_flags())
    b = ServerProcess(redis_server.url, *no_address_cap_flags())
    servers += [a, b]
    a.start()
    b.start()
    clients = [await Client.connect(a.url, f"p{i}") for i in range(5)]
    tables = [
        (await c.create_table("scopa", {"seat": 0, "ai": AI})).table.id
        for c in clients
        for _ in range(5)
    ]
    a.signal(signal.SIGKILL)
    for client in clients:
        await client.close()
    await taken_over(b, len(tables))
    fences = [await fence_of(redis_server.url, t) for t in tables]
    assert fences == [2] * len(tables)  # each taken over exactly once


async def fence_of(redis_url: str, table: str) -> int:
    """The table's fence as Redis holds it (bumped by every takeover)."""
    redis = aioredis.Redis.from_url(redis_url)
    try:
        return int(await redis.hget(f"cardavia:t:{table}", "fence") or 0)
    finally:
        await redis.aclose()


async def taken_over(proc: ServerProcess, tables: int = 1, timeout: float = 20.0) -> None:
    """Wait until ``proc`` drives ``tables`` tables (generous: the machine may be loaded)."""
    deadline = time.monotonic() + timeout
    while (proc.health() or {}).get("tables") != tables:
        assert time.monotonic() < deadline, "the table was not taken over"
        await asyncio.sleep(0.1)


@dataclass
class FencedGame:
    """What the fencing tests share: processes ``a`` and ``b`` on one Redis, a game at
    ``a`` after one of the player's turns, the player's next move and its token."""

    redis_url: str
    a: ServerProcess
    b: ServerProcess
    client: Client
    table: str
    acked: list[dict[str, object]]
    state: TableState
    move: Any
    token: str

    async def send_move(self) -> None:
        """Send the move to ``a``, at the seat and version the client knows now."""
        state = self.state
        await self.client.act(self.table, self.move, seat=state.seat, version=state.version)

    async def go_on_at_b(self) -> None:
        """The player goes on at ``b`` with the same token; the log holds every
        acknowledged move exactly once (the move sent to ``a`` never stored, even later)."""
        await self.client.close()
        client = await resume(self.b.url, self.token, self.table)
        await turns(client, self.table, 1, self.acked)
        assert human_moves(await logged(self.redis_url, self.table)) == self.acked
        await client.close()


async def fenced_game(
    redis_server: RedisServer, servers: list[ServerProcess], *a_flags: str
) -> FencedGame:
    """Start ``a`` (with ``a_flags``) and ``b``, and a game at ``a`` with one turn played."""
    a = ServerProcess(redis_server.url, *a_flags)
    b = ServerProcess(redis_server.url)
    servers += [a, b]
    a.start()
    b.start()
    client, table = await new_game(a.url)
    acked: list[dict[str, object]] = []
    await turns(client, table, 1, acked)
    state = client.tables[table]
    move = random_chooser(1)(state.view or {})
    return FencedGame(redis_server.url, a, b, client, table, acked, state, move, client.token)


async def test_a_fenced_owner_cannot_write_its_next_move(
    redis_server: RedisServer, servers: list[ServerProcess]
) -> None:
    """The paused owner's own write, deterministically: its lease is gone and b holds the
    table, but a (whose next renewal is minutes away) still believes it owns it when the
    move arrives; its append carries the old fence, Redis refuses it, and a drops the
    table and sends the player to reconnect without an ``ok``."""
    game = await fenced_game(redis_server, servers, "--lease-ttl", "600")  # renews every ~200 s
    a, table = game.a, game.table
    redis = aioredis.Redis.from_url(redis_server.url)
    try:  # what the lease's expiry does while its owner is paused
        assert await redis.delete(f"cardavia:t:{table}:lease") == 1
    finally:
        await redis.aclose()
    await taken_over(game.b)
    assert await fence_of(redis_server.url, table) == 2
    before = await logged(redis_server.url, table)
    with pytest.raises(ClientClosed) as closed:
        async with asyncio.timeout(30):  # generous: the machine may be loaded
            await game.send_move()
    assert closed.value.code == 1012
    assert await logged(redis_server.url, table) == before
    # refused by the append's fence check, not noticed by a renewal
    assert "is owned by another process now" in a.output()
    assert "lease_lost" not in a.output()
    assert (a.health() or {}).get("tables") == 0
    await game.go_on_at_b()


async def test_a_paused_owner_is_fenced_out(
    redis_server: RedisServer, servers: list[ServerProcess]
) -> None:
    """A real pause (SIGSTOP past the lease): b takes the table; a, resumed, never writes.

    Whichever a does first as it wakes up, the move sent then is not applied:
    its actor tries the append (the fence refuses it, a drops the table), or
    its renewal finds the table gone (a drops it; the move, queued behind, is
    refused) — and either way the connection is closed (1012) before a could
    read the move as a request for a table owned elsewhere, and a closing
    connection runs no more requests.  (It used to: a forwarded the move to b,
    which stored it after the ``ok`` could no longer reach the client; legal,
    stored but unacknowledged, yet it could land late, after the player came
    back at b.)  The log keeps every acknowledged move exactly once.
    """
    game = await fenced_game(redis_server, servers)
    a, table = game.a, game.table
    a.signal(signal.SIGSTOP)
    await taken_over(game.b)  # past the lease
    before = await logged(redis_server.url, table)
    a.signal(signal.SIGCONT)
    with pytest.raises((ServerError, ClientClosed)):
        async with asyncio.timeout(30):  # generous: the machine may be loaded
            await game.send_move()
            await game.client.wait_for(lambda m: False, None)  # a must send the player away
    assert await logged(redis_server.url, table) == before
    assert await fence_of(redis_server.url, table) == 2  # nobody but b wrote since
    assert (a.health() or {}).get("tables") == 0
    await game.go_on_at_b()


def test_redis_down_at_start_up_fails_with_the_fix() -> None:
    port = free_port()
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "server.main",
            "--port",
            "0",
            "--store",
            "redis",
            "--redis-url",
            f"redis://127.0.0.1:{port}/0",
            "--store-timeout",
            "0.5",
        ],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert proc.returncode == 1
    assert f"cannot reach Redis at redis://127.0.0.1:{port}/0" in proc.stderr
    assert "CARDAVIA_REDIS_URL" in proc.stderr


async def test_draining_one_process_moves_its_tables_at_once(
    redis_server: RedisServer, servers: list[ServerProcess]
) -> None:
    a = ServerProcess(redis_server.url, "--lease-ttl", "30", "--takeover-interval", "0.25")
    b = ServerProcess(redis_server.url, "--lease-ttl", "30", "--takeover-interval", "0.25")
    servers += [a, b]
    a.start()
    b.start()
    client, table = await new_game(a.url)
    acked: list[dict[str, object]] = []
    await turns(client, table, 1, acked)
    token = client.token
    assert await asyncio.to_thread(a.stop, signal.SIGTERM) == 0  # leases released
    await client.close()
    started = time.monotonic()
    client = await resume(b.url, token, table)
    assert time.monotonic() - started < 10  # long before the 30 s lease would expire
    await turns(client, table, 1, acked)
    assert human_moves(await logged(redis_server.url, table)) == acked
    await client.close()


async def test_after_a_redis_restart_each_process_keeps_its_own_tables(
    redis_server: RedisServer, servers: list[ServerProcess]
) -> None:
    """Redis away for longer than a lease: every lease expired though both processes
    live; once it is back each renews its own before taking any other's."""
    from bench.loopback import no_address_cap_flags

    a = ServerProcess(redis_server.url, *no_address_cap_flags())
    b = ServerProcess(redis_server.url, *no_address_cap_flags())
    servers += [a, b]
    a.start()
    b.start()
    clients = [await Client.connect(p.url, f"p{i}") for i, p in enumerate((a, b, a, b))]
    tables = [
        (await c.create_table("scopa", {"seat": 0, "ai": AI})).table.id
        for c in clients
        for _ in range(3)
    ]
    await asyncio.to_thread(redis_server.stop)
    await asyncio.sleep(2.0)  # two lease TTLs
    await asyncio.to_thread(redis_server.start)
    await asyncio.sleep(2.5)  # the scans run every 0.25 s: time enough to take them
    logs = f"a:\n{a.output()[-4000:]}\nb:\n{b.output()[-4000:]}"  # shown if it fails
    assert (a.health() or {}).get("tables") == 6, logs
    assert (b.health() or {}).get("tables") == 6, logs
    assert [await fence_of(redis_server.url, t) for t in tables] == [1] * len(tables), logs
    for client in clients:
        await client.close()
