"""Full games of every registered game over real WebSockets: humans, AI, both.

Every update and snapshot each client receives is compared with what the
engine allows that seat (or a spectator) to see, rebuilt from the replay.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from client_cli.client import Client
from engine.registry import GAMES
from server.app import CardaviaServer
from tests.server.helpers import Recorder, check_seen, drain, play_random, watch

GAME_IDS = sorted(GAMES)


def seats_of(game_id: str) -> int:
    game = GAMES[game_id]
    return game.num_seats(game.options())


async def _finish(
    server: CardaviaServer,
    game_id: str,
    table: str,
    players: list[tuple[Client, int | None, Recorder]],
    results: list[dict[str, Any]],
) -> None:
    first = players[0][0]
    replay = await first.replay(table)
    assert replay.game == game_id and replay.game_no == 1
    assert replay.result == results[0]
    assert all(r == results[0] for r in results)
    # the record of the table is options + seed + action log, and rebuilds the same game
    record = await server.store.load(table)
    assert record is not None
    assert [a.action for a in record.actions] == [s.action for s in replay.steps]
    first_version = 1
    for client, seat, rec in players:
        await drain(client, rec)
        assert check_seen(game_id, replay, record.seed, seat, rec.messages, first_version) > 0


@pytest.mark.parametrize("game_id", GAME_IDS)
async def test_humans_only(server: CardaviaServer, game_id: str) -> None:
    n = seats_of(game_id)
    clients = [await Client.connect(server.url, f"human{i}") for i in range(n)]
    watcher = await Client.connect(server.url, "watcher")
    try:
        joined = await clients[0].create_table(game_id, {"seat": 0})
        table = joined.table.id
        await watcher.spectate(table)
        for i in range(1, n):
            assert (await clients[i].join(table)).seat == i
        recs = [Recorder() for _ in range(n + 1)]
        results = await asyncio.wait_for(
            asyncio.gather(
                *(play_random(c, table, 1000 + i, recs[i]) for i, c in enumerate(clients)),
                watch(watcher, table, recs[n]),
            ),
            60,
        )
        players = [(c, i, recs[i]) for i, c in enumerate(clients)]
        players.append((watcher, None, recs[n]))
        await _finish(server, game_id, table, players, list(results))
        # every applied action came from a human
        replay = await watcher.replay(table)
        assert {s.by for s in replay.steps} == {"human"}
    finally:
        for c in [*clients, watcher]:
            await c.close()


@pytest.mark.parametrize("game_id", GAME_IDS)
async def test_ai_only_with_spectator(server: CardaviaServer, game_id: str) -> None:
    n = seats_of(game_id)
    watcher = await Client.connect(server.url, "watcher")
    try:
        ai = [{"seat": s} for s in range(n)]
        joined = await watcher.create_table(game_id, {"seat": None, "ai": ai})
        assert joined.seat is None
        rec = Recorder()
        result = await asyncio.wait_for(watch(watcher, joined.table.id, rec), 60)
        await _finish(server, game_id, joined.table.id, [(watcher, None, rec)], [result])
        replay = await watcher.replay(joined.table.id)
        assert {s.by for s in replay.steps} == {"ai"}
    finally:
        await watcher.close()


@pytest.mark.parametrize("game_id", GAME_IDS)
async def test_mixed_humans_and_ai(server: CardaviaServer, game_id: str) -> None:
    n = seats_of(game_id)
    humans = 1 if n == 2 else 2
    clients = [await Client.connect(server.url, f"h{i}") for i in range(humans)]
    try:
        ai = [{"seat": s, "level": "random" if s % 2 else None} for s in range(humans, n)]
        joined = await clients[0].create_table(game_id, {"seat": 0, "ai": ai})
        table = joined.table.id
        for i in range(1, humans):
            await clients[i].join(table, seat=i)
        recs = [Recorder() for _ in clients]
        results = await asyncio.wait_for(
            asyncio.gather(*(play_random(c, table, 7 + i, recs[i]) for i, c in enumerate(clients))),
            60,
        )
        players = [(c, i, recs[i]) for i, c in enumerate(clients)]
        await _finish(server, game_id, table, players, list(results))
        replay = await clients[0].replay(table)
        assert {s.by for s in replay.steps} == {"human", "ai"}
        assert {s.seat for s in replay.steps if s.by == "human"} == set(range(humans))
    finally:
        for c in clients:
            await c.close()
