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

from client_cli.client import Client, ServerError, play_table, random_chooser
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
    a, b, db_url = started_pair(redis_server.url, servers, tmp_path, SECRET)
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


async def test_a_board_asked_for_on_another_process_is_not_dealt_again(
    redis_server: RedisServer,
    servers: list[ServerProcess],
    tmp_path: Path,
) -> None:
    """The player's phone, connected to the other process, asks for the next board while
    their laptop plays board 1: it is told where board 1 is played, never dealt board 1
    again (it would show the cards twice); once board 1 is over, the phone gets board 2."""
    a, b, _ = started_pair(redis_server.url, servers, tmp_path, SECRET)
    laptop = await Client.connect(a.url, "guest a")
    await laptop.register("Ann", PASSWORD)
    made = (await laptop.duplicate_sets("scopa")).sets[0]
    table = (await laptop.play_duplicate(made.set_id)).table.id
    phone = await Client.connect(b.url, "guest b")
    await phone.login("Ann", PASSWORD)
    with pytest.raises(ServerError) as refused:
        await phone.play_duplicate(made.set_id)
    assert refused.value.code == "already_seated" and refused.value.error.detail == table
    await play_table(laptop, table, random_chooser(4))
    await laptop.leave(table)
    async with asyncio.timeout(10):
        while True:
            try:
                nxt = await phone.play_duplicate(made.set_id)
                break
            except ServerError as exc:  # board 1's table closing on the other process
                assert exc.code in ("already_seated", "game_in_progress")
                await asyncio.sleep(0.1)
    assert nxt.table.id != table
    standings = await phone.duplicate_standings(made.set_id)
    assert [(s.name, s.boards) for s in standings.standings] == [("Ann", 1)]
    await laptop.close()
    await phone.close()


async def test_a_board_whose_write_is_late_or_lost_is_counted_from_its_kept_game(
    redis_server: RedisServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Board 1 is played to its end and its table closes, but its result's write does not
    come (its process's writer is stuck, or the process died): asked for the next board,
    the server counts board 1 from the finished game Redis keeps and deals board 2, not
    board 1 again; the late write then adds board 1's record to that result."""
    from server.app import running_server
    from server.duplicate import requests as duplicate_requests
    from tests.server.redis_fixture import fast_redis_config
    from tests.server.test_accounts import fast_hasher

    monkeypatch.setattr(duplicate_requests, "WRITE_WAIT", 0.1)
    config = fast_redis_config(
        redis_server.url,
        database_url=sqlite_url(tmp_path / "cardavia.db"),
        duplicate_secret=SECRET,
    )
    async with running_server(config) as server:
        server.accounts.hasher = fast_hasher()
        records = server.record_writer.records
        real, late = records.write, asyncio.Event()

        async def stuck_write(record: object, *args: object, **kwargs: object) -> object:
            await late.wait()
            return await real(record, *args, **kwargs)  # type: ignore[arg-type]

        monkeypatch.setattr(records, "write", stuck_write)
        ann = await Client.connect(server.url, "Ann")
        await ann.register("Ann", PASSWORD)
        made = await ann.create_duplicate_set("scopa", "easy", boards=2, minutes=30)
        first = (await ann.play_duplicate(made.set_id)).table.id
        result = await play_table(ann, first, random_chooser(6))
        await ann.leave(first)
        async with asyncio.timeout(5):
            while first in server.lobby.tables:
                await asyncio.sleep(0.02)
        nxt = await ann.play_duplicate(made.set_id)
        ref = server.lobby.tables[nxt.table.id].core.setup.options.duplicate
        assert ref is not None and ref.board == 2
        late.set()
        await asyncio.wait_for(server.record_writer.drain(), 10)
        async with server.accounts.db.session() as session:
            rows = list(await session.scalars(select(DuplicateResultRow)))
        scores = result["scores"]
        own = scores[made.seat] - scores[1 - made.seat]  # Scopa: the player's points less the AI's
        assert [(r.board, r.score, r.record_id) for r in rows] == [(1, own, f"{first}.1")]
        await ann.close()


async def test_a_board_asked_for_while_redis_is_away_is_refused_as_unavailable(
    redis_server: RedisServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where the board's table lives is asked of Redis: Redis away, ``play_duplicate``
    is refused with ``store_unavailable`` (nothing changes), not an internal error."""
    from server.app import running_server
    from server.persist.store import StoreUnavailable
    from tests.server.redis_fixture import fast_redis_config
    from tests.server.test_accounts import fast_hasher

    config = fast_redis_config(
        redis_server.url,
        database_url=sqlite_url(tmp_path / "cardavia.db"),
        duplicate_secret=SECRET,
    )
    async with running_server(config) as server:
        server.accounts.hasher = fast_hasher()
        ann = await Client.connect(server.url, "Ann")
        await ann.register("Ann", PASSWORD)
        made = await ann.create_duplicate_set("scopa", "easy", boards=2, minutes=30)

        async def away(table_id: str) -> bool:
            raise StoreUnavailable("Redis did not answer (test)")

        monkeypatch.setattr(server.lobby.store, "exists", away)
        with pytest.raises(ServerError) as refused:
            await ann.play_duplicate(made.set_id)
        assert refused.value.code == "store_unavailable"
        assert not server.lobby.tables
        monkeypatch.undo()
        assert (await ann.play_duplicate(made.set_id)).table.id in server.lobby.tables
        await ann.close()
