"""The table actor handles a move at an idle table at once, and stays one actor."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from client_cli.client import Client
from engine.codec import to_plain
from protocol import server_messages as sm
from server.app import CardaviaServer
from server.persist.store import LoggedAction, MemoryStore, TableRecord
from server.tables.actor import Command, TableActor
from tests.server.helpers import FAST
from tests.server.test_store_failures import FlakyStore


async def _table(server: CardaviaServer, options: dict[str, Any]) -> tuple[Client, Client, str]:
    ann = await Client.connect(server.url, "Ann")
    bob = await Client.connect(server.url, "Bob")
    table = (await ann.create_table("scopa", options)).table.id
    await bob.join(table, 1)
    for client in (ann, bob):
        await client.wait_for(lambda m: isinstance(m, sm.Update), 5)
    return ann, bob, table


def _move(server: CardaviaServer, actor: TableActor, ref: int) -> Command:
    """The command of a legal move of the seat to act, as a connection submits it."""
    core = actor.core
    (seat,) = core.game.to_act(core.state)
    pid = core.seats[seat].player_id
    assert pid is not None
    player = server.sessions.get(pid)
    action = to_plain(core.game.legal_actions(core.state, seat)[0])
    return Command("act", player, ref, (seat, core.version, action))


async def _idle(actor: TableActor) -> None:
    for _ in range(100):
        if actor._waiter is not None and not actor._waiter.done() and not actor.queue:
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the actor never waited")


async def test_a_move_at_an_idle_table_is_handled_before_submit_returns(
    server: CardaviaServer,
) -> None:
    ann, bob, table = await _table(server, {"seat": 0})
    actor = server.lobby.tables[table]
    for ref in range(10, 20):
        await _idle(actor)
        version = actor.core.version
        actor.submit(_move(server, actor, ref))
        assert actor.core.version == version + 1  # applied, updates queued, in this step
        assert not actor.queue
    # the clients saw every move, in order, and the table plays on through them
    for client in (ann, bob):
        await client.wait_for(lambda m: isinstance(m, sm.Update) and m.version == version + 1, 5)
    await ann.close()
    await bob.close()


async def test_while_the_actor_is_busy_a_move_waits_its_turn_in_the_queue(
    server: CardaviaServer,
) -> None:
    ann, bob, table = await _table(server, {"seat": 0})
    actor = server.lobby.tables[table]
    await _idle(actor)
    actor.submit(Command("chat", server.sessions.get(ann.player_id), 1, "first"))
    version = actor.core.version
    actor.submit(_move(server, actor, 2))  # the chat is queued: the move goes after it
    assert actor.core.version == version and len(actor.queue) == 2
    line = await bob.wait_for(lambda m: isinstance(m, sm.ChatLine | sm.Update), 5)
    assert isinstance(line, sm.ChatLine)  # in the order submitted
    await bob.wait_for(lambda m: isinstance(m, sm.Update) and m.version == version + 1, 5)
    await ann.close()
    await bob.close()


async def test_on_a_store_that_may_wait_moves_go_through_the_queue() -> None:
    store = FlakyStore()
    store.completes_at_once = False  # as the Redis store
    server = CardaviaServer(FAST, store=store)
    await server.start()
    try:
        ann, bob, table = await _table(server, {"seat": 0})
        actor = server.lobby.tables[table]
        await _idle(actor)
        version = actor.core.version
        actor.submit(_move(server, actor, 5))
        assert actor.core.version == version and len(actor.queue) == 1
        await bob.wait_for(lambda m: isinstance(m, sm.Update) and m.version == version + 1, 5)
        await ann.close()
        await bob.close()
    finally:
        await server.shutdown()


async def test_the_turn_timer_counts_from_a_move_handled_at_once(server: CardaviaServer) -> None:
    """The actor waited for the timer of the turn before; the move restarts the
    clock, and the timer's move comes a whole turn after it, not before."""
    timer = 1.0
    ann, bob, table = await _table(server, {"seat": 0, "turn_timer": timer})
    actor = server.lobby.tables[table]
    await _idle(actor)
    assert actor._waiting_until is not None
    await asyncio.sleep(timer / 2)  # the timer it waits for is now half a turn away
    actor.submit(_move(server, actor, 7))  # handled at once
    moved_at = time.monotonic()
    timed = await ann.wait_for(lambda m: isinstance(m, sm.Update) and m.by == "timer", 5)
    assert time.monotonic() - moved_at >= timer * 0.95
    assert timed.actor == actor.core.log[-1].seat
    await ann.close()
    await bob.close()


async def test_a_table_closed_by_a_command_handled_at_once_stops_its_actor(
    server: CardaviaServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    ann, bob, table = await _table(server, {"seat": 0})
    actor = server.lobby.tables[table]
    await _idle(actor)
    real = actor.core.act

    def act_then_close(*args: Any, **kwargs: Any) -> Any:
        eff = real(*args, **kwargs)
        eff.closed, eff.close_reason = True, "closed for the test"
        return eff

    monkeypatch.setattr(actor.core, "act", act_then_close)
    actor.submit(_move(server, actor, 8))
    assert actor.closed
    await asyncio.wait_for(actor.wait_closed(), 5)  # woken, it left its loop
    closed = await bob.wait_for(lambda m: isinstance(m, sm.TableClosed), 5)
    assert closed.reason == "closed for the test"
    await ann.close()
    await bob.close()


async def test_every_write_of_the_memory_store_completes_at_once() -> None:
    """What ``completes_at_once`` promises: each coroutine ends at its first step."""
    store = MemoryStore()
    assert store.completes_at_once
    record = TableRecord(table_id="t", game="scopa", options={})
    calls = [
        store.create(record),
        store.start_game("t", 1, 5),
        store.append("t", LoggedAction(seat=0, action={}, by="human")),
        store.save_meta("t", {}),
        store.archive("t", 1, {}),
        store.load("t"),
        store.delete("t"),
        store.table_ids(),
    ]
    for call in calls:
        with pytest.raises(StopIteration):
            call.send(None)
