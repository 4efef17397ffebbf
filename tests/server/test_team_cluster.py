"""Team matches on two processes sharing Redis and one database (issue 56): a match
whose tables' process dies mid-board (the other process takes both tables over, the
board is finished there, each table's result is stored once, the next board's tables
are made there, and the match ends with every board counted once), and a match whose
tables' members are connected to different processes (a table made on one is joined
from the other through the bus, and the ``team_match_table`` notices reach members
wherever they are)."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

import pytest
from sqlalchemy import select

from client_cli.client import Client, play_table, random_chooser
from client_cli.team_play import play_match
from client_cli.tournament import bot_player
from protocol import server_messages as sm
from server.duplicate.boards import SeedKey
from server.duplicate.team_store import table_id
from server.persist.db.engine import Database
from server.persist.db.models import GameRecordRow, TeamMatchRow, TeamResultRow
from tests.server.redis_fixture import RedisServer, ServerProcess, started_pair
from tests.server.test_accounts import PASSWORD
from tests.server.test_store_restart import resume

SECRET = "s" * 32


@pytest.mark.heavy
async def test_a_match_whose_tables_moved_counts_every_board_once(
    redis_server: RedisServer,
    servers: list[ServerProcess],
    tmp_path: Path,
) -> None:
    a, b, db_url = started_pair(redis_server.url, servers, tmp_path, SECRET)
    people = []
    for name in ("Ann", "Bob", "Cat", "Dan"):
        client = await Client.connect(a.url, name)
        await client.register(name, PASSWORD)
        people.append(client)
    ann, bob, cat, dan = people
    mid = (await ann.create_team_match("scopa", boards=2, level="easy")).match_id
    await bob.join_team_match(mid, "a")
    await cat.join_team_match(mid, "b")
    await dan.join_team_match(mid, "b")
    tables = [(await client.play_team_match(mid)).table.id for client in people]
    assert tables == [table_id(mid, 1, t) for t in (0, 1, 0, 1)]
    for client in people:
        await client.wait_for(lambda m: isinstance(m, sm.Snapshot | sm.Update), 10)
    a.signal(signal.SIGKILL)
    moved = []
    for client, table in zip(people, tables, strict=True):
        await client.close()
        moved.append(await resume(b.url, client.token, table))
    pairs = list(zip(moved, tables, strict=True))
    finish = [play_table(c, t, random_chooser(i)) for i, (c, t) in enumerate(pairs)]
    await asyncio.wait_for(asyncio.gather(*finish), 30)
    for c, t in pairs:
        await c.leave(t)
    ends = await asyncio.wait_for(
        asyncio.gather(*(play_match(c, mid, bot_player(random_chooser(7))) for c in moved)), 40
    )
    assert {e.status for e in ends} == {"finished"}
    db = Database(db_url)
    try:
        async with db.session() as session:  # the match finished: every table is stored
            results = list(await session.scalars(select(TeamResultRow)))
            games = list(await session.scalars(select(GameRecordRow)))
            match = await session.get(TeamMatchRow, mid)
    finally:
        await db.close()
    assert sorted((r.board, r.table_no, r.record_id) for r in results) == [
        (b, t, f"{table_id(mid, b, t)}.1") for b in (1, 2) for t in (0, 1)
    ]
    key = SeedKey(SECRET.encode())
    assert sorted(g.game_id for g in games) == sorted(r.record_id for r in results)
    assert {g.game_id: g.seed for g in games} == {
        r.record_id: key.board_seed(mid, r.board) for r in results
    }
    assert match is not None and match.boards_done == 2 and match.status == "finished"
    assert (match.imps_a, match.imps_b) == (ends[0].imps_a, ends[0].imps_b)
    for c in moved:
        await c.close()


async def notice(client: Client, table: int, board: int) -> sm.TeamMatchTable:
    """The next ``team_match_table`` notice of ``board`` at ``table`` (5 s at most)."""
    found = await client.wait_for(
        lambda m: isinstance(m, sm.TeamMatchTable) and (m.table, m.board) == (table, board), 5
    )
    assert isinstance(found, sm.TeamMatchTable)
    return found


@pytest.mark.heavy
async def test_the_members_of_a_table_on_two_processes_play_the_match(
    redis_server: RedisServer,
    servers: list[ServerProcess],
    tmp_path: Path,
) -> None:
    a, b, db_url = started_pair(redis_server.url, servers, tmp_path, SECRET)
    people = []  # table 0: Ann (process a) and Cat (b); table 1: Bob (a) and Dan (b)
    for name, at in (("Ann", a), ("Bob", a), ("Cat", b), ("Dan", b)):
        client = await Client.connect(at.url, name)
        await client.register(name, PASSWORD)
        people.append(client)
    ann, bob, cat, dan = people
    try:
        mid = (await ann.create_team_match("scopa", boards=2, level="easy")).match_id
        await bob.join_team_match(mid, "a")
        await cat.join_team_match(mid, "b")
        await dan.join_team_match(mid, "b")  # on b: the match starts there
        for client, table in ((ann, 0), (bob, 1), (cat, 0), (dan, 1)):
            await notice(client, table, 1)  # told on a too
        made = await ann.play_team_match(mid)  # table 0 made on a ...
        assert made.table.id == table_id(mid, 1, 0)
        assert (await notice(cat, 0, 1)).seat == 1  # ... and Cat, on b, is told
        joined = await cat.play_team_match(mid)  # joined from b, through the bus
        assert (joined.table.id, joined.seat) == (made.table.id, 1)
        # the rest by notices: a fallback poll longer than the test's limit
        runs = [
            play_match(c, mid, bot_player(random_chooser(i)), wait=60.0)
            for i, c in enumerate(people)
        ]
        ends = await asyncio.wait_for(asyncio.gather(*runs), 30)
        assert {e.status for e in ends} == {"finished"}
        assert len({(e.imps_a, e.imps_b) for e in ends}) == 1
        db = Database(db_url)
        try:
            async with db.session() as session:
                results = list(await session.scalars(select(TeamResultRow)))
        finally:
            await db.close()
        assert sorted((r.board, r.table_no) for r in results) == [(1, 0), (1, 1), (2, 0), (2, 1)]
    finally:
        for client in people:
            await client.close()
