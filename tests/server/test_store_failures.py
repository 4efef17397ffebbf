"""The table actor when its store fails: refuse with store_unavailable, change nothing,
carry on once the store answers (a store that fails on demand, no Redis needed)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest

from client_cli.client import Client, ServerError, play_table, random_chooser
from protocol import server_messages as sm
from protocol.models import TableOptions
from server.app import CardaviaServer
from server.persist.store import LoggedAction, MemoryStore, StoreUnavailable
from server.tables.commands import Join
from tests.server.helpers import FAST


class FlakyStore(MemoryStore):
    """A memory store whose next ``fail[name]`` calls of a method raise StoreUnavailable."""

    may_fail = True

    def __init__(self) -> None:
        super().__init__()
        self.fail: dict[str, int] = {}
        self.archived: list[int] = []

    def _maybe_fail(self, name: str) -> None:
        if self.fail.get(name, 0) > 0:
            self.fail[name] -= 1
            raise StoreUnavailable(f"{name} failed (test)")

    async def append(self, table_id: str, action: LoggedAction, turn_at: float = 0.0) -> None:
        self._maybe_fail("append")
        await super().append(table_id, action, turn_at)

    async def start_game(self, table_id: str, game_no: int, seed: int, version: int = 0) -> None:
        self._maybe_fail("start_game")
        await super().start_game(table_id, game_no, seed, version)

    async def save_meta(self, table_id: str, meta: dict[str, Any]) -> None:
        self._maybe_fail("save_meta")
        await super().save_meta(table_id, meta)

    async def archive(self, table_id: str, game_no: int, finished: dict[str, Any]) -> None:
        self._maybe_fail("archive")
        self.archived.append(game_no)
        await super().archive(table_id, game_no, finished)


@pytest.fixture
async def flaky() -> AsyncIterator[tuple[CardaviaServer, FlakyStore]]:
    store = FlakyStore()
    server = CardaviaServer(FAST, store=store)
    await server.start()
    try:
        yield server, store
    finally:
        await server.shutdown()


async def test_a_failed_append_changes_nothing_and_a_retry_applies(
    flaky: tuple[CardaviaServer, FlakyStore],
) -> None:
    server, store = flaky
    client = await Client.connect(server.url, "ann")
    ai = [{"seat": 1, "level": "random"}]
    table = (await client.create_table("scopa", {"seat": 0, "ai": ai})).table.id
    await client.wait_for(lambda m: isinstance(m, sm.Update) and client.tables[table].my_turn)
    state = client.tables[table]
    core = server.lobby.tables[table].core
    version, log, view = core.version, list(core.log), state.view
    move = random_chooser(3)(state.view or {})
    store.fail["append"] = 1
    with pytest.raises(ServerError) as refused:
        await client.act(table, move, seat=state.seat, version=state.version)
    assert refused.value.code == "store_unavailable"
    assert (core.version, core.log) == (version, log)
    record = await store.load(table)
    assert record is not None and list(record.actions) == log
    assert client.tables[table].view == view  # no update was sent
    await client.act(table, move, seat=state.seat, version=state.version)
    assert core.version > version
    record = await store.load(table)
    assert record is not None and len(record.actions) > len(log)
    await client.close()


async def test_a_game_start_waits_for_the_store(
    flaky: tuple[CardaviaServer, FlakyStore],
) -> None:
    server, store = flaky
    client = await Client.connect(server.url, "ann")
    table = (await client.create_table("scopa", {"seat": 0})).table.id
    store.fail["start_game"] = 1
    bob = await Client.connect(server.url, "bob")
    with pytest.raises(ServerError) as refused:
        await bob.join(table)  # the table fills: its game cannot be recorded
    assert refused.value.code == "store_unavailable"
    core = server.lobby.tables[table].core
    assert core.status == "waiting" and core.seat_of(bob.player_id) is None
    assert (await bob.join(table)).seat == 1  # the store is back
    await bob.wait_for(lambda m: isinstance(m, sm.Update), 5)
    assert core.status == "playing"
    record = await store.load(table)
    assert record is not None and record.game_no == 1
    await client.close()
    await bob.close()


async def test_a_join_whose_seat_cannot_be_stored_is_refused_and_changes_nothing(
    flaky: tuple[CardaviaServer, FlakyStore],
) -> None:
    """A seat is answered only once stored: answered and then lost with its process, it
    was gone from the table that another process rebuilt (the player never told)."""
    server, store = flaky
    ann = await Client.connect(server.url, "ann")
    table = (await ann.create_table("cicera", {"seat": 0})).table.id
    core = server.lobby.tables[table].core
    store.fail["save_meta"] = 1
    bob = await Client.connect(server.url, "bob")
    with pytest.raises(ServerError) as refused:
        await bob.join(table)
    assert refused.value.code == "store_unavailable"
    assert core.seat_of(bob.player_id) is None and core.status == "waiting"
    record = await store.load(table)
    assert record is not None
    assert [s["player_id"] for s in record.meta["seats"]] == [ann.player_id, None, None, None]
    assert (await bob.join(table)).seat == 1  # the store is back
    record = await store.load(table)
    assert record is not None and record.meta["seats"][1]["player_id"] == bob.player_id
    await ann.close()
    await bob.close()


async def test_a_refused_first_join_does_not_close_a_table_others_are_joining(
    flaky: tuple[CardaviaServer, FlakyStore],
) -> None:
    """A table made for several (the rated queue's, a tournament's) seats them by queued
    joins: the first one refused by the store leaves the table open for the next."""
    server, store = flaky
    ann = await Client.connect(server.url, "ann")
    bob = await Client.connect(server.url, "bob")
    actor = await server.lobby.matched_table(
        "cicera", TableOptions(seat=None, fill_after=60), "matched1", "normal"
    )
    store.fail["save_meta"] = 1
    for i, client in enumerate((ann, bob)):
        player = server.sessions.get(client.player_id)
        assert player is not None
        actor.pending_joins += 1
        actor.submit(Join(player, None, i))
    async with asyncio.timeout(5):
        while actor.pending_joins or actor.queue:
            await asyncio.sleep(0.01)
    assert not actor.closed
    assert actor.core.seat_of(ann.player_id) is None and actor.core.seat_of(bob.player_id) == 1
    await ann.close()
    await bob.close()


async def test_a_table_nobody_could_sit_at_closes(
    flaky: tuple[CardaviaServer, FlakyStore],
) -> None:
    server, store = flaky
    store.fail["start_game"] = 1
    client = await Client.connect(server.url, "ann")
    ai = [{"seat": 1, "level": "random"}]
    with pytest.raises(ServerError) as refused:
        await client.create_table("scopa", {"seat": 0, "ai": ai})
    assert refused.value.code == "store_unavailable"
    deadline = time.monotonic() + 15  # the table closes just after the refusal
    while server.lobby.tables or await store.table_ids():
        assert time.monotonic() < deadline, "the table nobody sat at did not close"
        await asyncio.sleep(0.02)
    joined = await client.create_table("scopa", {"seat": 0, "ai": ai})
    assert joined.seat == 0
    await client.close()


async def test_a_finished_game_is_archived_once_the_store_is_back(
    flaky: tuple[CardaviaServer, FlakyStore],
) -> None:
    server, store = flaky
    store.fail["archive"] = 1
    watcher = await Client.connect(server.url, "ann")
    ai = [{"seat": 0, "level": "random"}, {"seat": 1, "level": "random"}]
    options = {"seat": None, "ai": ai, "game": {"target": 1}}
    table = (await watcher.create_table("scopa", options)).table.id
    over = await watcher.wait_for(lambda m: isinstance(m, sm.GameOver), 20)
    assert over.table == table  # the last move was durable: everybody saw the end
    deadline = time.monotonic() + 15  # retried after STORE_RETRY_S (1 s); the machine may be loaded
    while store.archived != [1]:
        assert time.monotonic() < deadline, f"archived {store.archived}, not [1]"
        await asyncio.sleep(0.05)
    await watcher.close()


async def test_a_rematch_the_store_refuses_keeps_the_finished_games_log(
    flaky: tuple[CardaviaServer, FlakyStore],
) -> None:
    server, store = flaky
    client = await Client.connect(server.url, "ann")
    ai = [{"seat": 1, "level": "random"}]
    options = {"seat": 0, "ai": ai, "game": {"target": 1}}
    table = (await client.create_table("scopa", options)).table.id
    await play_table(client, table, random_chooser(5))
    core = server.lobby.tables[table].core
    assert core.status == "finished"
    before = (core.game_no, core.version, list(core.log), core.state)
    store.fail["start_game"] = 1  # the new game cannot be recorded: nothing may change
    with pytest.raises(ServerError) as refused:
        await client.rematch(table)
    assert refused.value.code == "store_unavailable"
    assert (core.game_no, core.version, core.log, core.state) == before
    assert core.status == "finished"
    await client.rematch(table)  # the store is back: the next game starts
    await client.wait_for(lambda m: isinstance(m, sm.Update) and m.game_no == before[0] + 1, 10)
    assert core.log is not before[2] and len(core.log) < len(before[2])
    await client.close()
