"""deploy/haproxy.cfg (Debian's haproxy) in front of two server processes on loopback:
the owner of a game is SIGKILLed mid-game, the players go on through the balancer."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from client_cli.client import Client, ClientClosed, reconnect
from tests.server.redis_fixture import RedisServer, ServerProcess, free_port
from tests.server.test_store_restart import AI, human_moves, logged, turns

CONFIG = Path(__file__).resolve().parents[2] / "deploy" / "haproxy.cfg"


def haproxy_binary() -> str:
    found = shutil.which("haproxy") or shutil.which("haproxy", path="/usr/sbin:/sbin")
    if found is None:
        pytest.fail(
            "haproxy is not installed: the balancer test needs Debian's `haproxy` package "
            "(apt-get install -y haproxy; scripts/test.sh installs it when it can)",
            pytrace=False,
        )
    return found


@pytest.fixture
def balancer(servers: list[ServerProcess], redis_server: RedisServer) -> Iterator[str]:
    """Two server processes behind haproxy; yields the balancer's ws:// URL."""
    with behind_haproxy(servers, redis_server) as url:
        yield url


@contextmanager
def behind_haproxy(
    servers: list[ServerProcess], redis_server: RedisServer, *flags: str
) -> Iterator[str]:
    """Start two server processes (with ``flags``) and haproxy in front; its ws:// URL."""
    a, b = ServerProcess(redis_server.url, *flags), ServerProcess(redis_server.url, *flags)
    servers += [a, b]
    a.start()
    b.start()
    port = free_port()
    env = {
        **os.environ,
        "CARDAVIA_LB_BIND": f"127.0.0.1:{port}",
        "CARDAVIA_S1": f"127.0.0.1:{a.port}",
        "CARDAVIA_S2": f"127.0.0.1:{b.port}",
    }
    proc = subprocess.Popen(
        [haproxy_binary(), "-db", "-f", str(CONFIG)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), 0.2).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "haproxy did not start"
                time.sleep(0.05)
        yield f"ws://127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(10)


async def test_owner_killed_mid_game_behind_the_balancer(
    balancer: str, servers: list[ServerProcess], redis_server: RedisServer
) -> None:
    client = await Client.connect(balancer, "ann")
    table = (await client.create_table("scopa", {"seat": 0, "ai": AI})).table.id
    watcher = await Client.connect(balancer, "bob")  # least connections: the other process
    await watcher.spectate(table)
    acked: list[dict[str, object]] = []
    await turns(client, table, 2, acked)
    owner = next(s for s in servers if (s.health() or {}).get("tables") == 1)
    survivor = next(s for s in servers if s is not owner)
    owner.signal(signal.SIGKILL)
    killed = time.monotonic()
    with pytest.raises(ClientClosed):
        await client.wait_for(lambda m: False, 10)
    back = await reconnect(balancer, client, table)
    assert back is not None, "the player could not resume through the balancer"
    assert time.monotonic() - killed < 10
    client = back
    await turns(client, table, 3, acked)
    assert human_moves(await logged(redis_server.url, table)) == acked  # none lost or doubled
    assert (survivor.health() or {}).get("tables") == 1
    # the watcher (at the survivor, or back through the balancer) still follows the game
    if watcher.closed:
        again = await reconnect(balancer, watcher, table)
        assert again is not None
        watcher = again
    while watcher.tables[table].version != client.tables[table].version:
        await watcher.receive(15)  # the watcher's updates may trail the player's
    await client.close()
    await watcher.close()


async def test_cardavia_bot_reconnects_through_the_balancer(
    servers: list[ServerProcess], redis_server: RedisServer
) -> None:
    slow = ("--ai-delay", "0.03", "--quick-fill-wait", "0.1")
    with behind_haproxy(servers, redis_server, *slow) as url:
        bot = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "client_cli.main",
            "bot",
            "--url",
            url,
            "--game",
            "scopa",
            "--policy",
            "random",
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 20
        while not any((s.health() or {}).get("tables") == 1 for s in servers):
            assert time.monotonic() < deadline, "the bot's table did not appear"
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.5)  # mid-game
        owner = next(s for s in servers if (s.health() or {}).get("tables") == 1)
        survivor = next(s for s in servers if s is not owner)
        assert bot.returncode is None, "the game ended before the kill"
        owner.signal(signal.SIGKILL)
        out, _ = await asyncio.wait_for(bot.communicate(), 60)
        assert (survivor.health() or {}).get("tables") == 1  # finished there
        assert bot.returncode == 0, out.decode()
        summary = json.loads(out.decode().strip().splitlines()[-1])
        assert summary["bots"][0]["error"] is None
        assert summary["bots"][0]["scores"]


def test_a_move_typed_as_the_owner_dies_behind_the_balancer_is_applied(
    servers: list[ServerProcess], redis_server: RedisServer
) -> None:
    """The issue's case: ``cardavia play`` through the balancer, the owner SIGKILLed on
    the player's turn, a card typed at once.  The terminal reconnects, the move is
    applied once (held at the surviving process until it took the table, or sent again
    after the resume), play goes on; no traceback.  The default 5 s lease: the resume
    is over long before it runs out, so the move goes out while the table moves."""
    import io

    from tests.client_cli.spawn import LIVE, spawn_cli

    prompt = r"Your move \[([^\]]+)\]:" + LIVE
    with behind_haproxy(servers, redis_server, "--lease-ttl", "5") as url:
        child = spawn_cli(
            "play", "scopa", "--url", url, "--name", "ann", "--level", "random",
            "--ai-delay", "0", "-o", "target=1", timeout=30,
        )  # fmt: skip
        child.logfile_read = io.StringIO()
        _play_through_the_kill(child, prompt, servers, redis_server)
    out = child.logfile_read.getvalue()
    assert "Traceback" not in out and "RequestTimeout" not in out, out[-3000:]


def _play_through_the_kill(
    child: Any, prompt: str, servers: list[ServerProcess], redis_server: RedisServer
) -> None:
    try:
        child.expect(prompt)
        owner = next(s for s in servers if (s.health() or {}).get("tables") == 1)
        owner.signal(signal.SIGKILL)
        child.sendline("1")
        child.expect("Reconnected.")
        child.expect(prompt)  # the move applied, the AI answered: ann's turn again
        table = asyncio.run(_only_table(redis_server.url))
        moves = human_moves(asyncio.run(logged(redis_server.url, table)))
        assert len(moves) == 1, moves
    finally:
        child.terminate(force=True)


async def _only_table(redis_url: str) -> str:
    from redis import asyncio as aioredis

    redis = aioredis.Redis.from_url(redis_url)
    try:
        (table,) = await redis.smembers("cardavia:tables")
    finally:
        await redis.aclose()
    return bytes(table).decode()
