"""Tables where nobody plays: no rematch, they close after their game, a cap per session,
and their moves share a bounded pace."""

from __future__ import annotations

import asyncio
import itertools
import time

import pytest

from client_cli.client import Client, ServerError
from engine.codec import to_plain
from engine.registry import GAMES
from protocol import server_messages as sm
from protocol.errors import ErrorCode
from protocol.models import AiSeat, TableOptions
from server.ai.pace import Pacer
from server.app import running_server
from server.tables.core import TableCore
from server.tables.options import RequestError, check_options
from tests.server.helpers import FAST

AI_ONLY = {"seat": None, "ai": [{"seat": 0, "level": "random"}, {"seat": 1, "level": "random"}]}
SHORT = {**AI_ONLY, "game": {"target": 1}}


async def test_an_ai_only_table_refuses_a_rematch_and_closes_after_its_game() -> None:
    config = FAST.replace(ai_table_linger=0.3)
    async with running_server(config) as srv:
        watcher = await Client.connect(srv.url, "watcher")
        try:
            table = (await watcher.create_table("scopa", SHORT)).table.id
            await watcher.wait_for(lambda m: isinstance(m, sm.GameOver), 30)
            with pytest.raises(ServerError) as refused:
                await watcher.rematch(table)
            assert refused.value.code == "forbidden"
            assert "nobody plays" in refused.value.message
            started = time.monotonic()
            closed = await watcher.wait_for(lambda m: isinstance(m, sm.TableClosed), 10)
            assert closed.table == table and "nobody plays" in closed.reason
            assert time.monotonic() - started < 5
            assert table not in srv.lobby.tables
        finally:
            await watcher.close()


async def test_a_table_with_a_human_seated_stays_after_its_game() -> None:
    config = FAST.replace(ai_table_linger=0.1)
    async with running_server(config) as srv:
        human = await Client.connect(srv.url, "human")
        try:
            ai = [{"seat": 1, "level": "random"}]
            table = (
                await human.create_table("scopa", {"seat": 0, "ai": ai, "game": {"target": 1}})
            ).table.id
            while True:  # play random legal moves to the end
                state = human.tables[table]
                if state.result is not None:
                    break
                if state.my_turn:
                    await human.act(table, state.legal[0])
                else:
                    await human.receive(10)
            await asyncio.sleep(0.4)
            assert table in srv.lobby.tables  # it waits for the human's rematch vote
            await human.rematch(table)
            await human.wait_for(lambda m: isinstance(m, sm.Update) and m.game_no == 2, 10)
        finally:
            await human.close()


async def test_the_number_of_ai_only_tables_a_session_runs_is_capped() -> None:
    config = FAST.replace(max_ai_tables_per_player=1, ai_delay=0.2)
    async with running_server(config) as srv:
        a = await Client.connect(srv.url, "a")
        b = await Client.connect(srv.url, "b")
        try:
            first = (await a.create_table("scopa", AI_ONLY)).table.id
            with pytest.raises(ServerError) as refused:
                await a.create_table("scopa", AI_ONLY)
            assert refused.value.code == "quota_exceeded"
            assert refused.value.detail == "max_ai_tables_per_player"
            # watching another AI-only table counts too; one with a human seated does not
            other = (await b.create_table("scopa", AI_ONLY)).table.id
            with pytest.raises(ServerError) as refused:
                await a.spectate(other)
            assert refused.value.detail == "max_ai_tables_per_player"
            human_table = (await b.create_table("scopa", {"seat": 0})).table.id
            await a.spectate(human_table)
            # leaving the first one frees the slot
            await a.leave(first)
            await a.spectate(other)
        finally:
            await a.close()
            await b.close()


async def test_ai_only_tables_share_a_bounded_pace() -> None:
    config = FAST.replace(ai_only_moves_per_s=40.0)
    async with running_server(config) as srv:
        watcher = await Client.connect(srv.url, "watcher")
        try:
            tables = [(await watcher.create_table("scopa", AI_ONLY)).table.id for _ in range(2)]
            moves = 0
            started = time.monotonic()
            while time.monotonic() - started < 1.0:
                msg = await watcher.receive(5)
                if isinstance(msg, sm.Update) and msg.table in tables:
                    moves += 1
            elapsed = time.monotonic() - started
            # at most 40 moves per second over both tables (plus the pacer's small burst)
            assert 5 <= moves <= 40 * elapsed + 8, moves
        finally:
            await watcher.close()


def test_the_pacer_grants_slots_in_order_at_its_rate() -> None:
    now = 100.0
    pacer = Pacer(rate=10.0, burst=2, clock=lambda: now)
    assert [round(pacer.reserve(), 3) for _ in range(4)] == [0.0, 0.0, 0.1, 0.2]
    now += 10.0  # a quiet spell: the burst is back, no more
    assert [round(pacer.reserve(), 3) for _ in range(3)] == [0.0, 0.0, 0.1]
    assert Pacer(rate=0.0).reserve() == 0.0


def _core(ai_seats: int, linger: float = 5.0) -> TableCore:
    """A Scopa table to 1 point with AI at the last ``ai_seats`` seats."""
    ai = tuple(AiSeat(seat=s, level="random") for s in range(2 - ai_seats, 2))
    options = TableOptions(seat=None, ai=ai, game={"target": 1})
    setup = check_options(GAMES["scopa"], options)
    seeds = itertools.count(5)
    return TableCore(
        "t1",
        setup,
        owner="w",
        quick=False,
        invite=None,
        seed_source=lambda: next(seeds),
        ai_delay=0.0,
        disconnect_grace=5.0,
        ai_table_linger=linger,
    )


def _play_out(core: TableCore, now: float, human: str | None = None) -> None:
    """Every seat plays its first legal action until the game ends."""
    while core.status == "playing":
        seat = core.game.to_act(core.state)[0]
        action = to_plain(core.game.legal_actions(core.state, seat)[0])
        who = human if core.seats[seat].kind == "human" else None
        core.act(who, seat, core.version, action, "human" if who else "ai", now)


def test_core_an_ai_only_table_closes_after_its_linger_and_never_rematches() -> None:
    core = _core(ai_seats=2, linger=5.0)
    core.spectate("w", "W", 0.0)
    core.tick(0.0)  # full of AI: it starts
    assert core.ai_only() and core.closes_at() is None
    _play_out(core, 1.0)
    assert core.status == "finished" and core.closes_at() == 6.0
    assert core.next_wakeup(2.0) == 6.0
    with pytest.raises(RequestError) as refused:
        core.rematch("w", 2.0)
    assert refused.value.code == ErrorCode.FORBIDDEN
    assert not core.tick(5.9).closed
    eff = core.tick(6.0)
    assert eff.closed and eff.close_reason is not None


def test_core_a_table_becomes_ai_only_when_its_last_player_leaves_after_the_game() -> None:
    core = _core(ai_seats=1, linger=5.0)
    core.join("h", "H", 0, 0.0)
    core.spectate("w", "W", 0.0)
    _play_out(core, 1.0, human="h")
    assert core.status == "finished" and core.closes_at() is None  # h may vote a rematch
    core.leave("h", 10.0)
    assert core.ai_only() and core.closes_at() == 6.0
    assert core.next_wakeup(10.0) == 6.0  # already due: the actor ticks at once
    assert core.tick(10.0).closed


async def test_spectates_sent_at_once_get_no_more_than_the_cap() -> None:
    config = FAST.replace(max_ai_tables_per_player=1, ai_delay=0.2)
    async with running_server(config) as srv:
        owners = [await Client.connect(srv.url, f"o{i}") for i in range(3)]
        watcher = await Client.connect(srv.url, "w")
        try:
            tables = [(await o.create_table("scopa", AI_ONLY)).table.id for o in owners]
            replies = await asyncio.gather(
                *(watcher.spectate(t) for t in tables), return_exceptions=True
            )
            refused = [r for r in replies if isinstance(r, ServerError)]
            assert len(refused) == 2 and {r.code for r in refused} == {"quota_exceeded"}
        finally:
            for c in [*owners, watcher]:
                await c.close()
