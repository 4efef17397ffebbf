"""Seeded random request storms: every request gets exactly one reply, tables stay consistent."""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from typing import Any

import msgpack
import pytest

from client_cli.client import Client
from engine.codec import to_plain
from server.app import CardaviaServer
from server.tables.replay import rebuild

REQUESTS = 250


def _random_request(rng: random.Random, tables: list[str], client: Client, rid: int) -> Any:
    mine = [t for t in tables if t in client.tables]
    playable = [t for t in mine if client.tables[t].legal]
    if playable and rng.random() < 0.3:  # a well-formed move where one is due: real work
        state = client.tables[rng.choice(playable)]
        return {
            "type": "act",
            "id": rid,
            "table": state.table_id,
            "seat": state.seat,
            "version": state.version,
            "action": rng.choice(state.legal),
        }
    pool = mine if mine and rng.random() < 0.7 else [*tables, "nope"]
    table = rng.choice(pool)
    state = client.tables.get(table)
    kinds = [
        {"type": "ping"},
        {"type": "list_tables"},
        {"type": "list_games"},
        {"type": "create_table", "game": "scopa", "options": {"seat": rng.choice([0, 1, None])}},
        {"type": "join_table", "table": table, "seat": rng.choice([None, 0, 1, 7])},
        {"type": "spectate", "table": table},
        {"type": "leave", "table": table},
        {"type": "start", "table": table},
        {"type": "chat", "table": table, "text": rng.choice(["hi", "x" * 400, " "])},
        {"type": "rematch", "table": table},
        {"type": "get_replay", "table": table},
        {"type": "quick_play", "game": rng.choice(["scopa", "nogame"])},
        {
            "type": "act",
            "table": table,
            "seat": state.seat
            if state is not None and state.seat is not None and rng.random() < 0.8
            else rng.randrange(3),
            "version": (state.version if state else 0) + rng.choice([0, 0, 0, -1, 1]),
            "action": rng.choice(state.legal)
            if state and state.legal and rng.random() < 0.7
            else {"type": "play", "card": rng.choice(["7D", "ZZ", 5])},
        },
        {"type": rng.choice(["bogus", "welcome"])},
        {"type": "act", "table": table},
    ]
    act = kinds[12]
    msg = dict(rng.choice([*kinds, act, act, act, act, act, act]))
    msg["id"] = rid
    if msg.get("version", 0) < 0:
        msg["version"] = 0
    return msg


@pytest.mark.parametrize("seed", [1, 2])
async def test_every_request_gets_exactly_one_reply(server: CardaviaServer, seed: int) -> None:
    rng = random.Random(seed)
    clients = [await Client.connect(server.url, f"c{i}") for i in range(3)]
    replies: Counter[int] = Counter()
    rid = 10_000

    async def reader(client: Client) -> None:
        async for msg in client:
            ref = getattr(msg, "ref", None)
            if ref is not None:
                replies[ref] += 1

    readers = [asyncio.create_task(reader(c)) for c in clients]
    try:
        sent = []
        for _ in range(REQUESTS):
            client = rng.choice(clients)
            rid += 1
            tables = list(server.lobby.tables)
            await client.send_raw(msgpack.packb(_random_request(rng, tables, client, rid)))
            sent.append(rid)
            if rng.random() < 0.2:
                await asyncio.sleep(0.01)
        async with asyncio.timeout(10):
            while sum(replies[r] for r in sent) < len(sent):
                await asyncio.sleep(0.02)
        await asyncio.sleep(0.1)
        assert all(replies[r] == 1 for r in sent), [r for r in sent if replies[r] != 1]
        # every table's state is exactly what its stored record rebuilds
        for table_id, actor in list(server.lobby.tables.items()):
            core = actor.core
            if core.state is None:
                continue
            record = await server.store.load(table_id)
            assert record is not None and record.seed == core.seed
            state = rebuild(core.game, core.setup.game_options, record.seed, record.actions)
            assert to_plain(core.game.view(state, None)) == to_plain(
                core.game.view(core.state, None)
            )
        # the storm did real work, and was refused for many reasons
        assert server.metrics.value("cardavia_actions_total", game="scopa", by="human") > 0
        codes = set(server.metrics.samples("cardavia_errors_total"))
        assert len(codes) >= 6
        for c in clients:  # every connection is still in good health
            await c.ping()
            assert isinstance(await c.list_tables(), tuple)
    finally:
        for task in readers:
            task.cancel()
        for c in clients:
            await c.close()
