"""A finished game's record is never lost with its process (Redis): archived with the
game as unwritten, it is written by another process once its own never wrote it."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path
from typing import Any

import msgpack  # type: ignore[import-untyped]
import pytest
import redis
from sqlalchemy import select

from engine.game import Contest
from server import app as app_module
from server.app import running_server
from server.persist.db.engine import sqlite_url
from server.persist.db.game_record import (
    DuplicateResult,
    TeamResult,
    record_from_plain,
    record_to_plain,
)
from server.persist.db.models import GameRecordRow
from server.persist.redis_store import RedisStore
from tests.server.helpers import finished_ai_table
from tests.server.redis_fixture import RedisServer, fast_redis_config
from tests.server.test_records import record_at


def test_a_record_comes_back_equal_through_msgpack() -> None:
    record = replace(
        record_at(1_700_000_000.5, "t1", (("a_ann", True), (None, False))),
        rated=True,
        contests=(Contest((frozenset({0}), frozenset({1})), (0, 1), 2, ("landlord", "")),),
        duplicate=DuplicateResult("set-1", 3, "a_ann", -4),
        team=TeamResult("M1", 2, 1, (5, 1)),
    )
    packed = msgpack.packb(record_to_plain(record))
    assert record_from_plain(msgpack.unpackb(packed)) == record
    plain = replace(record, duplicate=None, team=None, contests=())
    assert record_from_plain(msgpack.unpackb(msgpack.packb(record_to_plain(plain)))) == plain


async def test_a_record_its_process_never_wrote_is_written_by_another(
    redis_server: RedisServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first process's record writer never gets to write (it died, or its database
    was away until it stopped): the second process finds the game listed as unwritten
    and writes its record; once written it is no longer listed."""
    monkeypatch.setattr(app_module, "UNWRITTEN_AFTER_S", 0.0)
    monkeypatch.setattr(app_module, "UNWRITTEN_PASS_S", 0.1)
    config = fast_redis_config(redis_server.url, database_url=sqlite_url(tmp_path / "c.db"))
    async with running_server(config) as first:
        stuck = asyncio.Event()
        real = first.record_writer.records.write

        async def never(record: Any, *args: Any, **kwargs: Any) -> Any:
            await stuck.wait()
            return await real(record, *args, **kwargs)

        monkeypatch.setattr(first.record_writer.records, "write", never)
        watcher, table = await finished_ai_table(first.url)
        await watcher.close()
        store = first.store
        assert isinstance(store, RedisStore)
        async with asyncio.timeout(10):
            async with running_server(config) as second:
                while True:
                    async with second.accounts.db.session() as session:
                        ids = list(await session.scalars(select(GameRecordRow.game_id)))
                    if ids:
                        break
                    await asyncio.sleep(0.05)
                assert ids == [f"{table}.1"]
                while await store.unwritten_records(0.0):
                    await asyncio.sleep(0.05)
        stuck.set()


async def test_an_unreadable_unwritten_record_is_said_once_and_dropped(
    redis_server: RedisServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A listed record that cannot be read (written by a server of another shape) is
    logged as an error and taken off the list, not tried again every pass."""
    monkeypatch.setattr(app_module, "UNWRITTEN_AFTER_S", 0.0)
    monkeypatch.setattr(app_module, "UNWRITTEN_PASS_S", 0.05)
    r = redis.Redis.from_url(redis_server.url)
    r.set("cardavia:records:r:T1.1", msgpack.packb({"table_id": "T1", "game_no": 1}))
    r.set("cardavia:records:r:T2.1", b"\xc1 not msgpack")
    r.zadd("cardavia:records:unwritten", {"T1.1": 0, "T2.1": 0})
    config = fast_redis_config(redis_server.url, database_url=sqlite_url(tmp_path / "c.db"))
    async with running_server(config), asyncio.timeout(10):
        while r.zcard("cardavia:records:unwritten"):
            await asyncio.sleep(0.05)
    assert r.get("cardavia:records:r:T1.1") is None and r.get("cardavia:records:r:T2.1") is None
