"""Every request for a table is answered while the table moves (its owner was killed).

Two server processes share one Redis; the clients talk to ``b`` and the tables
belong to ``a``.  After ``a`` gets SIGKILL its leases live on until their TTL
(1 s here): requests sent in that window must still be answered within the
lease TTL plus 2 s, and each move acknowledged then is in the table's log once.
"""

from __future__ import annotations

import asyncio
import signal
import time
from typing import Any

import pytest
from redis import asyncio as aioredis

from client_cli.client import Client, ServerError
from protocol import client_messages as cm
from protocol import server_messages as sm
from protocol.codec import encode
from tests.server.helpers import Recorder, play_random
from tests.server.redis_fixture import (
    SERVER_FLAGS,
    RedisServer,
    ServerProcess,
    fast_redis_config,
    free_port,
)
from tests.server.test_store_restart import logged

pytestmark = pytest.mark.heavy  # seconds of failover each: run first (tests/conftest.py)

LEASE_TTL = float(SERVER_FLAGS[SERVER_FLAGS.index("--lease-ttl") + 1])
ANSWER_WITHIN = LEASE_TTL + 2.0
"""What the issue requires of every request sent while a table moves."""


async def lease_holder(redis_url: str, table: str) -> str | None:
    """The process holding the table's lease, as Redis says now."""
    redis = aioredis.Redis.from_url(redis_url)
    try:
        raw = await redis.get(f"cardavia:t:{table}:lease")
    finally:
        await redis.aclose()
    text = raw.decode() if isinstance(raw, bytes) else raw
    return None if text is None else text.rsplit(":", 1)[0]


def killed(proc: ServerProcess) -> None:
    """SIGKILL ``proc`` and wait until it is gone (and Redis saw its connections close):
    a request sent before that may still reach it (the second test covers that)."""
    assert proc.proc is not None
    proc.signal(signal.SIGKILL)
    proc.proc.wait(10)
    time.sleep(0.05)


async def answers(client: Client, *msgs: Any) -> dict[int, tuple[Any, float]]:
    """Send ``msgs`` (each with its id) and wait for the message answering each; by
    request id, that message and the seconds it took."""
    start = time.monotonic()
    for msg in msgs:
        await client.send_raw(encode(msg))
    got: dict[int, tuple[Any, float]] = {}
    while len(got) < len(msgs):
        reply = await client.receive(15)
        ref = getattr(reply, "ref", None)
        if isinstance(ref, int) and ref in {m.id for m in msgs} and ref not in got:
            got[ref] = (reply, time.monotonic() - start)
    return got


async def answer(client: Client, msg: Any) -> tuple[Any, float]:
    """Send ``msg`` and wait for the message answering it (:func:`answers`)."""
    return (await answers(client, msg))[msg.id]


def two_processes(
    redis_url: str, servers: list[ServerProcess]
) -> tuple[ServerProcess, ServerProcess]:
    """Two started server processes on one Redis: ``a`` to own the tables, ``b`` the front."""
    a, b = ServerProcess(redis_url), ServerProcess(redis_url)
    servers += [a, b]
    a.start()
    b.start()
    return a, b


async def joined_to_move(
    redis_url: str, mover: Client, other: Client, table: str
) -> tuple[Any, int, list[tuple[int, object, str]]]:
    """``mover`` joins ``other``'s table and gets the turn: the move it will send, the
    version it is for, and the table's log so far."""
    await mover.join(table)
    await mover.wait_for(lambda m: isinstance(m, sm.Update | sm.Snapshot) and m.table == table, 10)
    await until_turn(mover, other, table)
    state = mover.tables[table]
    return state.legal[0], state.version, await logged(redis_url, table)


async def until_turn(mover: Client, other: Client, table: str) -> None:
    """Let ``other`` play (its first legal move each time) until ``mover`` may act."""
    for _ in range(10):
        if mover.tables[table].legal:
            return
        version = other.tables[table].version
        await other.act(table, other.tables[table].legal[0])

        def moved_on(m: Any, v: int = version) -> bool:
            return isinstance(m, sm.Update) and m.table == table and m.version > v

        await mover.wait_for(moved_on, 10)
    raise AssertionError("the seat never got the turn")


async def test_every_table_request_is_answered_while_the_owner_is_killed(
    redis_server: RedisServer, servers: list[ServerProcess]
) -> None:
    a, b = two_processes(redis_server.url, servers)
    ann = await Client.connect(a.url, "ann")
    bob, dan, erin, fred = [await Client.connect(b.url, n) for n in ("bob", "dan", "erin", "fred")]
    # a finished game at a (rematch, replay), a waiting table (join), one in play (act, chat,
    # spectate); every client of the window is at b
    done = (await ann.create_table("scopa", {"seat": 0})).table.id
    await erin.join(done)
    await asyncio.gather(
        play_random(ann, done, 1, Recorder()), play_random(erin, done, 2, Recorder())
    )
    waiting = (await ann.create_table("scopa", {"seat": 0})).table.id
    playing = (await ann.create_table("scopa", {"seat": 0})).table.id
    move, version, before = await joined_to_move(redis_server.url, bob, ann, playing)

    killed(a)
    requests: dict[Client, list[Any]] = {
        bob: [
            cm.Act(id=101, table=playing, seat=1, version=version, action=move),
            cm.Chat(id=102, table=playing, text="still there?"),
        ],
        fred: [cm.Spectate(id=103, table=playing)],
        dan: [cm.JoinTable(id=104, table=waiting)],
        erin: [cm.Rematch(id=105, table=done), cm.GetReplay(id=106, table=done)],
    }
    got = await asyncio.gather(*(answers(client, *msgs) for client, msgs in requests.items()))
    replies = {ref: reply for one in got for ref, reply in one.items()}
    types = {msg.id: msg.type for msgs in requests.values() for msg in msgs}

    for ref, (reply, took) in sorted(replies.items()):
        assert took <= ANSWER_WITHIN, f"{types[ref]} answered after {took:.1f} s"
        # held until b took the table over, then handled: none is refused
        assert not isinstance(reply, sm.Error), f"{types[ref]}: {reply}"
    in_order = [replies[ref] for ref in sorted(replies)]
    kinds = [type(reply) for reply, _ in in_order]
    assert kinds[0] in (sm.Update, sm.Ok)
    assert kinds[1:] == [sm.Ok, sm.Joined, sm.Joined, sm.Ok, sm.Replay]
    assert in_order[3][0].seat == 1 and in_order[5][0].table == done
    # the move acknowledged in the window is in the log once; sent again, it is refused
    resent = cm.Act(id=107, table=playing, seat=1, version=version, action=move)
    again, _ = await answer(bob, resent)
    assert isinstance(again, sm.Error) and again.code in ("stale_version", "not_your_turn")
    log = await logged(redis_server.url, playing)
    assert log[: len(before)] == before
    assert [(seat, action) for seat, action, _ in log[len(before) :]] == [(1, move)]
    for client in (ann, bob, dan, erin, fred):
        await client.close()


async def test_a_request_the_dying_owner_heard_is_refused_and_the_library_retries(
    redis_server: RedisServer, servers: list[ServerProcess]
) -> None:
    """The owner freezes with the requests in hand, then is killed: the front sees
    nobody listening any more and refuses them with ``table_moving`` (they may or may
    not have been applied); the client library sends them again by itself."""
    a, b = two_processes(redis_server.url, servers)
    ann = await Client.connect(a.url, "ann")
    bob = await Client.connect(b.url, "bob")
    table = (await ann.create_table("scopa", {"seat": 0})).table.id
    move, version, before = await joined_to_move(redis_server.url, bob, ann, table)

    a.signal(signal.SIGSTOP)
    chat = asyncio.create_task(bob.chat(table, "hello?"))  # the library: retried by itself
    raw = asyncio.create_task(
        answer(bob, cm.Act(id=201, table=table, seat=1, version=version, action=move))
    )
    await asyncio.sleep(0.3)  # published, heard by the frozen owner, never answered
    a.signal(signal.SIGKILL)
    killed = time.monotonic()
    reply, _ = await raw
    assert time.monotonic() - killed <= ANSWER_WITHIN
    assert isinstance(reply, sm.Error) and reply.code == "table_moving"
    assert reply.table == table and reply.detail is not None and float(reply.detail) > 0
    await asyncio.wait_for(chat, 10)  # no exception: sent again once b had the table
    # the refused move, sent again by the library with its version, is applied once
    await bob.act(table, move, seat=1, version=version)
    log = await logged(redis_server.url, table)
    assert log[: len(before)] == before
    assert [(seat, action) for seat, action, _ in log[len(before) :]] == [(1, move)]
    await ann.close()
    await bob.close()


async def test_a_restarted_process_answers_for_the_tables_of_the_one_it_replaces(
    redis_server: RedisServer, servers: list[ServerProcess]
) -> None:
    """The issue's first case: one process, killed and started again at once on the same
    Redis; the resumed player's chat and a newcomer's spectate are answered as soon as
    the old process's lease ran out.  The lease outlives the restart here (with the
    other tests' 1 s the new process would find the table free as it starts)."""
    lease = 10.0  # a restart takes seconds on a loaded machine
    a = ServerProcess(redis_server.url, "--lease-ttl", str(lease))
    servers.append(a)
    a.start()
    ann = await Client.connect(a.url, "ann")
    options = {"seat": 0, "ai": [{"seat": 1, "level": "random"}]}
    table = (await ann.create_table("scopa", options)).table.id
    await ann.wait_for(lambda m: isinstance(m, sm.Update | sm.Snapshot) and m.table == table, 10)
    dead = await lease_holder(redis_server.url, table)
    a.stop(signal.SIGKILL)
    # started again on a fresh port: the old one may be taken meanwhile by a server of
    # another test worker (it was, once in CI); a process is known by its node id anyway
    a.port = free_port()
    a.start()
    ann = await Client.connect(a.url, "ann", token=ann.token)
    carl = await Client.connect(a.url, "carl")
    assert await lease_holder(redis_server.url, table) == dead  # sent inside the window
    chat, spectate = await asyncio.gather(
        answer(ann, cm.Chat(id=301, table=table, text="back")),
        answer(carl, cm.Spectate(id=302, table=table)),
    )
    for reply, took in (chat, spectate):
        assert took <= lease + 2.0 and not isinstance(reply, sm.Error), reply
    assert isinstance(chat[0], sm.Ok) and isinstance(spectate[0], sm.Joined)
    await ann.close()
    await carl.close()


async def test_the_front_forgets_each_forwarded_request_once_answered(
    redis_server: RedisServer,
) -> None:
    """Answers are matched to the requests the front forwarded (by their ``ref``, read
    from the owner's bytes), so none is left to be refused later as unanswered."""
    from server.app import running_server

    config = fast_redis_config(redis_server.url)
    async with running_server(config) as owner, running_server(config) as front:
        assert front.bus is not None
        ann = await Client.connect(owner.url, "ann")
        bob = await Client.connect(front.url, "bob")
        table = (await ann.create_table("scopa", {"seat": 0})).table.id
        move, version, _ = await joined_to_move(redis_server.url, bob, ann, table)
        await bob.chat(table, "hello")
        await bob.act(table, move, version=version)  # answered by bob's own update
        with pytest.raises(ServerError):
            await bob.act(table, move, version=version)  # refused: an error answers too
        assert front.bus.unanswered == 0
        await ann.close()
        await bob.close()
