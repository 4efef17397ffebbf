"""The table actor handles a move at an idle table at once, and stays one actor."""

from __future__ import annotations

import asyncio
import time
from typing import Any, get_args

import pytest

from client_cli.client import Client
from engine.codec import to_plain
from protocol import server_messages as sm
from protocol.codec import Frame
from protocol.models import TableOptions
from server.ai.pool import AiRunner
from server.app import CardaviaServer
from server.persist.store import LoggedAction, MemoryStore, TableRecord
from server.players.sessions import Player, Sessions
from server.tables.actor import TableActor
from server.tables.commands import (
    AiMove,
    Chat,
    Close,
    Disconnect,
    Forget,
    GetReplay,
    Join,
    Kick,
    Leave,
    Lost,
    Move,
    Reconnect,
    Rematch,
    Spectate,
    Start,
    Stop,
    TableCommand,
    Tick,
)
from server.tables.values import AiTurn
from tests.server.helpers import FAST, core_fields, make_core
from tests.server.test_store_failures import FlakyStore


async def _table(server: CardaviaServer, options: dict[str, Any]) -> tuple[Client, Client, str]:
    ann = await Client.connect(server.url, "Ann")
    bob = await Client.connect(server.url, "Bob")
    table = (await ann.create_table("scopa", options)).table.id
    await bob.join(table, 1)
    for client in (ann, bob):
        await client.wait_for(lambda m: isinstance(m, sm.Update), 5)
    return ann, bob, table


def _move(server: CardaviaServer, actor: TableActor, ref: int) -> Move:
    """The command of a legal move of the seat to act, as a connection submits it."""
    core = actor.core
    (seat,) = core.game.to_act(core.state)
    pid = core.seats[seat].player_id
    assert pid is not None
    player = server.sessions.get(pid)
    assert player is not None
    action = to_plain(core.game.legal_actions(core.state, seat)[0])
    return Move(player, ref, seat, core.version, action)


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
    player = server.sessions.get(ann.player_id)
    assert player is not None
    actor.submit(Chat(player, 1, "first"))
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


# -- every command, dispatched by its class; a failed write undoes it all ------------------
class _Inbox:
    """A link that keeps what it is sent, each frame as its message."""

    features: tuple[str, ...] = ()

    def __init__(self) -> None:
        self.got: list[Any] = []

    def send(self, message: Any) -> None:
        self.got.append(message.message if isinstance(message, Frame) else message)

    def close(self, code: int, reason: str) -> None:
        self.got.append(("closed", code, reason))


class _Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class _Table:
    """A table actor driven command by command, its store failing on demand."""

    def __init__(self, options: TableOptions | None = None, fill_at: float | None = None) -> None:
        self.core = make_core("scopa", options, disconnect_grace=5.0, fill_at=fill_at)
        self.store = FlakyStore()  # it may fail: the actor takes a checkpoint first
        self.clock = _Clock()
        self.sessions = Sessions()
        self.closed: list[str] = []
        self.lost: list[str] = []
        self.actor = TableActor(
            self.core,
            store=self.store,
            sessions=self.sessions,
            ai=AiRunner(1, 0.01, 1.0, mode="thread"),
            on_close=self.closed.append,
            clock=self.clock,
        )
        self.actor.on_lost = self.lost.append
        self.handled: set[type[Any]] = set()
        """The classes of the commands handled."""
        self.undone: set[type[Any]] = set()
        """The classes of the commands whose write failed and that were undone."""

    async def record(self) -> _Table:
        """The table, recorded in its store."""
        await self.store.create(TableRecord(table_id="t1", game="scopa", options={}))
        return self

    def player(self, name: str) -> tuple[Player, _Inbox]:
        inbox = _Inbox()
        return self.sessions.open(name, inbox), inbox

    async def fail(self, command: TableCommand, write: str) -> None:
        """``command`` with the store's ``write`` failing: nothing of it may stay."""
        before = core_fields(self.core)
        self.store.fail[write] = 1
        await self.actor._handle(command)
        assert self.store.fail[write] == 0, f"{command.kind} did not write {write}"
        assert core_fields(self.core) == before, f"{command.kind} left a change behind"
        self.handled.add(type(command))
        self.undone.add(type(command))

    async def run(self, command: TableCommand, fail: str | None = None) -> None:
        """``command`` (first with the store's ``fail`` write failing, if given)."""
        if fail is not None:
            await self.fail(command, fail)
        await self.actor._handle(command)
        assert not self.actor.closed
        self.handled.add(type(command))


def _last(inbox: _Inbox, kind: type[Any]) -> Any:
    found = [m for m in inbox.got if isinstance(m, kind)]
    assert found, f"no {kind.__name__} in {inbox.got}"
    return found[-1]


async def _play_to_the_end(table: _Table, players: dict[int, Player]) -> None:
    core = table.core
    for _ in range(200):
        if core.status != "playing":
            return
        (seat,) = core.game.to_act(core.state)
        action = to_plain(core.game.legal_actions(core.state, seat)[0])
        await table.run(Move(players[seat], 1, seat, core.version, action), fail="append")


async def test_every_command_is_dispatched_and_a_failed_write_leaves_the_core_as_it_was() -> None:
    """Each command class reaches its handler (what it does shows), and when a write
    of the store fails under it, every field of the core but the kept ones is as
    before (``TableCore.checkpoint``): a field added to the core that a command changes
    and the checkpoint misses fails here, whichever command changes it.  A command
    that neither starts a game nor applies a move writes first the replay of a
    finished game whose archiving failed, so each meets a failed write that way."""
    table = await _Table(TableOptions(game={"target": 1})).record()
    core = table.core
    ann, ann_in = table.player("Ann")
    bob, _ = table.player("Bob")
    cat, cat_in = table.player("Cat")
    await table.run(Join(ann, 1, 0))  # the first seat (a table nobody could sit at closes)
    assert core.seat_of(ann.player_id) == 0 and core.owner == ann.player_id
    assert _last(ann_in, sm.Joined).seat == 0
    await table.run(Spectate(cat, 2))
    assert cat.player_id in core.spectators and _last(cat_in, sm.Joined).seat is None
    await table.run(Chat(ann, 3, "hello"))
    assert _last(cat_in, sm.ChatLine).text == "hello"
    await table.run(Disconnect(cat))
    assert cat.player_id in core.spectators_away
    await table.run(Reconnect(cat))
    assert cat.player_id not in core.spectators_away
    await table.run(Join(bob, 4, 1), fail="start_game")  # the table is full: it starts
    assert core.status == "playing" and core.game_no == 1
    (seat,) = core.game.to_act(core.state)
    action = to_plain(core.game.legal_actions(core.state, seat)[0])
    await table.run(Move((ann, bob)[seat], 5, seat, core.version, action), fail="append")
    assert core.version == 2 and core.log[-1].by == "human"
    await table.run(Disconnect(bob))
    assert not core.seats[1].connected
    table.clock.now += 10  # past the grace: the AI covers Bob's seat
    await table.run(Tick())
    assert core._covered_seen == {1}
    for _ in range(3):  # Ann plays until it is Bob's turn
        (seat,) = core.game.to_act(core.state)
        if seat == 1:
            break
        action = to_plain(core.game.legal_actions(core.state, seat)[0])
        await table.run(Move(ann, 6, seat, core.version, action))
    action = to_plain(core.game.legal_actions(core.state, 1)[0])
    version = core.version
    await table.run(AiMove(AiTurn(1, version, "ai", "random"), action), fail="append")
    assert core.version == version + 1 and core.log[-1].by == "ai"
    await table.run(Reconnect(bob))
    assert core.seats[1].connected
    await table.run(Disconnect(cat))  # Cat watches from afar when the game ends
    table.store.fail["archive"] = 1  # the last move is stored, its game's replay is not
    await _play_to_the_end(table, {0: ann, 1: bob})
    assert core.status == "finished" and table.store.fail["archive"] == 0
    dan, _ = table.player("Dan")
    for command in (  # each writes the replay first: it fails again, and each is undone
        Chat(ann, 7, "again"),
        Spectate(dan, 8),
        Disconnect(ann),
        Reconnect(cat),
        Tick(),
        Rematch(ann, 9),
        Leave(cat, 10),
        Leave(ann, 11),  # the owner: somebody else owns the table then
        Forget(cat),
    ):
        await table.fail(command, "archive")
    await table.run(Rematch(ann, 7))  # the replay is stored now
    assert core.rematch_votes == {0} and table.store.archived == [1]
    log = core.log
    await table.fail(Rematch(bob, 8), "start_game")  # the next game's log replaces it
    assert core.log is log and core.status == "finished"
    await table.run(GetReplay(ann, 8, None))
    assert _last(ann_in, sm.Replay).ref == 8
    await table.run(Leave(cat, 9))
    assert not core.is_member(cat.player_id) and _last(cat_in, sm.Left).ref == 9
    await table.run(Spectate(cat, 10))
    await table.run(Forget(cat))
    assert not core.is_member(cat.player_id)

    waiting = await _Table().record()  # the owner starts a table that waits for players
    eve, _ = waiting.player("Eve")
    await waiting.run(Join(eve, 1, 0))
    hal, hal_in = waiting.player("Hal")
    await waiting.run(Spectate(hal, 2))
    await waiting.run(Kick(eve, 3, hal.player_id))  # before the start
    assert not waiting.core.is_member(hal.player_id) and hal.player_id in waiting.core.kicked
    assert _last(hal_in, sm.Kicked).table == "t1"
    await waiting.run(Start(eve, 2), fail="start_game")
    assert waiting.core.status == "playing" and waiting.core.seats[1].kind == "ai"
    filling = await _Table(fill_at=150.0).record()  # the AI fills it once its wait is over
    gus, _ = filling.player("Gus")
    await filling.run(Join(gus, 1, 0))
    filling.clock.now = 200.0
    await filling.run(Tick(), fail="start_game")
    assert filling.core.status == "playing" and filling.core.fill_at is None
    table.handled |= waiting.handled | filling.handled
    table.undone |= waiting.undone | filling.undone

    for stop, seen in ((Close("closed for the test"), "closed"), (Lost(), "lost"), (Stop(), "")):
        ending = await _Table().record()
        fay, fay_in = ending.player("Fay")
        await ending.run(Join(fay, 1, 0))
        await ending.actor._handle(stop)
        table.handled.add(type(stop))
        assert ending.actor.closed
        if seen == "closed":
            assert ending.closed == ["t1"] and _last(fay_in, sm.TableClosed).reason == stop.reason
        elif seen == "lost":
            assert ending.lost == ["t1"] and fay_in.got[-1][:2] == ("closed", 1012)
        else:
            assert not ending.closed and not ending.lost  # the record stays
    every = set(get_args(TableCommand))
    assert table.handled == every
    # these write nothing, or (a kick) only the seating, which a later command saves again
    assert table.undone == every - {GetReplay, Kick, Close, Lost, Stop}


@pytest.mark.parametrize(
    ("stop", "code"),
    [
        (Close("closed for the test"), "not_found"),
        (Lost(), "table_moving"),
        (Stop(), "table_moving"),
    ],
)
async def test_the_requests_queued_when_a_table_stops_are_refused_as_it_ended(
    stop: TableCommand, code: str
) -> None:
    """A table that closed is ``not_found``; one that another process took over, or that
    this process stops with (its record stays), is ``table_moving``: the table exists,
    and the request, not applied, may be sent again (and is, by the client library)."""
    table = await _Table().record()
    ann, _ = table.player("Ann")
    bob, bob_in = table.player("Bob")
    await table.run(Join(ann, 1, 0))
    table.actor.submit(stop)
    table.actor.submit(Spectate(bob, 7))  # queued behind the end of the table
    table.actor.start()
    await asyncio.wait_for(table.actor.wait_closed(), 5)
    refused = _last(bob_in, sm.Error)
    assert (refused.ref, refused.code, refused.table) == (7, code, "t1")
    if code == "table_moving":
        assert refused.detail is not None and float(refused.detail) > 0
    assert not table.core.is_member(bob.player_id)
