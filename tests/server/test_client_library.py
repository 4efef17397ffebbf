"""The client library against a real server: requests, pushes, tracking, errors, closing."""

from __future__ import annotations

import asyncio

import pytest

from client_cli.client import (
    Client,
    ClientClosed,
    ServerError,
    TableState,
    play_table,
    policy_chooser,
    table_peers,
)
from engine.registry import GAMES
from protocol import server_messages as sm
from protocol.models import AiSeat, TableOptions
from server.app import CardaviaServer, running_server
from server.config import ServerConfig
from tests.told import Told


async def test_requests_and_tracking(server: CardaviaServer) -> None:
    async with await Client.connect(server.url, "lib") as client:
        games = await client.list_games()
        assert {g.id for g in games} == set(GAMES)
        assert all(g.levels and g.seats >= 2 for g in games)
        opts = TableOptions(seat=0, ai=(AiSeat(seat=1, level="random"),))
        joined = await client.create_table("scopa", opts)
        table = joined.table.id
        assert (await client.list_tables("scopa"))[0].id == table
        assert await client.list_tables("no-such-game") == ()
        state = client.tables[table]
        assert state.seat == 0
        await client.wait_for(lambda m: isinstance(m, sm.Update), 5)
        assert state.view is not None and state.version >= 1
        assert state.info is not None and state.info.status == "playing"
        # async iteration yields pushed messages only (replies go to the awaiting call)
        await client.chat(table, "hello")
        async for msg in client:
            assert not isinstance(msg, sm.Ok)
            if isinstance(msg, sm.ChatLine):
                break
        with pytest.raises(ServerError) as info:
            await client.join("missing")
        assert info.value.code == "not_found" and "missing" in info.value.message
        result = await asyncio.wait_for(
            play_table(client, table, policy_chooser("scopa", "greedy", seed=1)), 60
        )
        assert state.result == result
        await client.leave(table)
        assert table not in client.tables


async def test_act_needs_a_known_seat(server: CardaviaServer) -> None:
    async with await Client.connect(server.url, "lib") as client:
        with pytest.raises(ValueError):
            await client.act("whatever", {"type": "play"})


async def test_server_going_away_ends_iteration_and_requests() -> None:
    async with running_server(ServerConfig(port=0)) as srv:
        client = await Client.connect(srv.url, "x")
        await srv.shutdown()
        seen = [msg async for msg in client]
        assert any(isinstance(m, sm.Shutdown) for m in seen)
        assert client.closed
        with pytest.raises(ClientClosed):
            await client.ping()
        with pytest.raises(ClientClosed) as info:
            await client.receive()
        assert info.value.code == 1001


async def test_connect_with_a_bad_token_raises(server: CardaviaServer) -> None:
    with pytest.raises(ServerError) as info:
        await Client.connect(server.url, "x", token="not-a-token")
    assert info.value.code == "bad_token"


def test_a_policy_chooser_is_told_the_seats_of_its_table(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``peers`` is asked before each decision; the policy is told each seating once
    (engine.policy.seated), and a chooser without ``peers`` tells nothing."""
    from engine import registry
    from engine.codec import to_plain

    told: list[tuple[str | None, ...]] = []
    real = registry.get_policy
    monkeypatch.setattr(registry, "get_policy", lambda game, name: Told(real(game, name), told))
    game = registry.get_game("doudizhu")
    state = game.new_state(game.options(), 4)
    view = to_plain(game.view(state, game.to_act(state)[0]))
    seating: list[tuple[str | None, ...]] = [(None, "hard", "hard")]
    choose = policy_chooser("doudizhu", "normal", seed=1, peers=lambda: seating[0])
    for _ in range(2):
        assert choose(view) in view["legal"]
    seating[0] = (None, None, "normal")
    choose(view)
    assert told == [(None, "hard", "hard"), (None, None, "normal")]
    told.clear()
    policy_chooser("doudizhu", "normal", seed=1)(view)
    assert told == []


async def test_table_peers_are_the_levels_the_lobby_shows(server: CardaviaServer) -> None:
    assert table_peers(None) == () and table_peers(TableState("t", 0)) == ()
    async with await Client.connect(server.url, "lib") as client:
        ai = (AiSeat(seat=1, level="normal"), AiSeat(seat=2, level="random"))
        joined = await client.create_table("doudizhu", TableOptions(seat=0, ai=ai))
        assert table_peers(client.tables[joined.table.id]) == (None, "normal", "random")
