"""A duplicate board whose table's process dies mid-game (issue 56): the other process
takes the table over, the board is finished there with its own deal, and its result is
stored once (two processes sharing Redis and one database)."""

from __future__ import annotations

import asyncio
import signal
import time
from pathlib import Path

import pytest
from sqlalchemy import select

from client_cli.client import Client, play_table, random_chooser
from protocol import server_messages as sm
from server.duplicate.boards import SeedKey
from server.persist.db.engine import Database, sqlite_url
from server.persist.db.models import DuplicateResultRow, GameRecordRow
from tests.server.redis_fixture import RedisServer, ServerProcess, started_pair
from tests.server.test_accounts import PASSWORD
from tests.server.test_store_restart import resume

SECRET = "s" * 32


@pytest.mark.heavy
async def test_a_board_finished_after_its_table_moved_is_stored_once(
    redis_server: RedisServer,
    servers: list[ServerProcess],
    tmp_path: Path,
) -> None:
    db_url = sqlite_url(tmp_path / "shared.db")
    a, b = started_pair(
        redis_server.url, servers, "--database-url", db_url, "--duplicate-secret", SECRET
    )
    ann = await Client.connect(a.url, "guest a")
    await ann.register("Ann", PASSWORD)
    made = (await ann.duplicate_sets("doudizhu")).sets[0]
    joined = await ann.play_duplicate(made.set_id)
    table = joined.table.id
    await ann.wait_for(lambda m: isinstance(m, sm.Snapshot | sm.Update), 10)
    a.signal(signal.SIGKILL)
    await ann.close()
    ann = await resume(b.url, ann.token, table)
    await play_table(ann, table, random_chooser(3))
    deadline = time.monotonic() + 10
    db = Database(db_url)
    try:
        rows: list[DuplicateResultRow] = []
        while not rows and time.monotonic() < deadline:
            async with db.session() as session:
                rows = list(await session.scalars(select(DuplicateResultRow)))
            if not rows:
                await asyncio.sleep(0.1)
        async with db.session() as session:
            games = list(await session.scalars(select(GameRecordRow)))
    finally:
        await db.close()
    assert [(r.set_id, r.board, r.record_id) for r in rows] == [(made.set_id, 1, f"{table}.1")]
    assert [g.seed for g in games] == [SeedKey(SECRET.encode()).board_seed(made.set_id, 1)]
    await ann.close()
