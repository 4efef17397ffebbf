"""Duplicate sets and results in the database (SQLite and PostgreSQL): written once,
kept across a restart, and shown only to whoever has played the board."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, date, datetime, timedelta

import pytest
from sqlalchemy import select

from protocol.errors import ErrorCode
from server.duplicate.boards import daily_set, on_demand_set
from server.duplicate.errors import DuplicateError
from server.duplicate.store import DuplicateStore
from server.persist.db.engine import Database
from server.persist.db.game_record import DuplicateResult
from server.persist.db.models import AccountRow, DuplicateResultRow
from server.persist.db.records import GameRecords
from tests.server.test_records import record_at

NOW = datetime(2026, 12, 7, 12, 0, tzinfo=UTC)
PEOPLE = ("a_ann", "a_bea", "a_cid")


async def _people(db: Database) -> None:
    async with db.session() as session:
        for pid in PEOPLE:
            session.add(
                AccountRow(
                    account_id=pid,
                    name=pid[2:].title(),
                    skeleton=pid[2:],
                    password_hash="$argon2id$x",
                    bot=False,
                    created_at=NOW,
                )
            )


async def test_results_are_written_once_and_survive_a_restart(database_url: str) -> None:
    db = Database(database_url)
    await db.open()
    await _people(db)
    store = DuplicateStore(db)
    board_set = await store.ensure_set(daily_set("scopa", date(2026, 12, 7), boards=3))
    assert await store.ensure_set(daily_set("scopa", date(2026, 12, 7), boards=3)) == board_set
    assert [s.set_id for s in await store.open_sets(NOW)] == [board_set.set_id]
    await store.start_board(board_set.set_id, "a_ann", 1, NOW)
    assert await store.record(board_set.set_id, 1, "a_ann", 3, "g1", NOW)
    assert not await store.record(board_set.set_id, 1, "a_ann", -5, "g9", NOW)
    await db.close()

    again = Database(database_url)
    await again.open()
    store = DuplicateStore(again)
    try:
        assert await store.next_board(board_set.set_id, "a_ann") == 2
        report = await store.board_report(board_set.set_id, 1, "a_ann", NOW)
        assert [(s.account, s.score) for s in report.scores] == [("a_ann", 3)]
    finally:
        await again.close()


async def test_boards_in_order_and_hidden_until_played(database: Database) -> None:
    await _people(database)
    store = DuplicateStore(database)
    made = on_demand_set("doudizhu", "easy", 2, timedelta(hours=1), "a_ann", NOW)
    board_set = await store.ensure_set(made)
    sid = board_set.set_id
    with pytest.raises(DuplicateError) as wrong:
        await store.start_board(sid, "a_bea", 2, NOW)
    assert wrong.value.code is ErrorCode.BOARD_OUT_OF_ORDER
    await store.record(sid, 1, "a_ann", 4, "g-ann-1", NOW)
    await store.record(sid, 1, "a_bea", -2, "g-bea-1", NOW)
    with pytest.raises(DuplicateError) as hidden:
        await store.board_report(sid, 1, "a_cid", NOW)
    assert hidden.value.code is ErrorCode.BOARD_NOT_PLAYED
    report = await store.board_report(sid, 1, "a_bea", NOW)
    assert report.records == (("a_ann", "g-ann-1"),)
    assert [(s.account, s.matchpoints) for s in report.scores] == [("a_ann", 2), ("a_bea", 0)]
    table = await store.standings(sid)
    assert [(s.account, s.percent) for s in table] == [("a_ann", 100.0), ("a_bea", 0.0)]
    assert await store.players(sid) == 2
    after = board_set.closes_at
    assert len((await store.board_report(sid, 1, "a_cid", after)).scores) == 2
    with pytest.raises(DuplicateError) as closed:
        await store.start_board(sid, "a_cid", 1, after)
    assert closed.value.code is ErrorCode.SET_CLOSED
    with pytest.raises(DuplicateError) as unknown:
        await store.get_set("set-nope")
    assert unknown.value.code is ErrorCode.UNKNOWN_SET
    with pytest.raises(DuplicateError):
        await store.record(sid, 3, "a_cid", 0, None, NOW)


async def test_the_day_s_daily_sets_are_stored_at_its_start(database: Database) -> None:
    """run_daily stores the day's sets of every game, then waits for the next midnight."""
    import asyncio

    from server.duplicate.requests import DuplicateRequests
    from server.ops.passes import Passes

    class Clock(datetime):
        @classmethod
        def now(cls, tz: object = None) -> Clock:
            return cls(2026, 12, 7, 23, 59, 59, tzinfo=UTC)

    requests = DuplicateRequests(
        None,  # type: ignore[arg-type]  # the lobby is not needed to make sets
        DuplicateStore(database),
        None,  # type: ignore[arg-type]
        now=Clock,
    )
    passes = Passes()
    task = passes.spawn(requests.run_daily(passes.pause), "daily-sets")
    try:
        store = requests.store
        for _ in range(100):
            if len(await store.open_sets(NOW)) == 4:
                break
            await asyncio.sleep(0.02)
        sets = await store.open_sets(NOW)
        assert sorted(s.set_id for s in sets) == [
            f"daily-{g}-20261207" for g in ("cicera", "doudizhu", "schafkopf", "scopa")
        ]
        assert not task.done()  # asleep until the next day's start
    finally:
        await passes.stop(1.0)
    assert task.done() and not task.cancelled()  # ended at its pause, not cancelled


async def test_a_result_taken_from_the_kept_game_gains_its_record_from_the_late_write(
    database: Database,
) -> None:
    """A board's result written from the finished game Redis keeps (its table closed, its
    write late or lost, ``server.duplicate.requests``) stands; the game's own write, if
    it comes, adds the game record to it, and a write after that changes nothing."""
    await _people(database)
    store = DuplicateStore(database)
    board_set = await store.ensure_set(daily_set("scopa", date(2026, 12, 7), boards=2))
    assert await store.record(board_set.set_id, 1, "a_ann", 4, None, NOW)
    records = GameRecords(database)
    game = replace(
        record_at(NOW.timestamp(), "Dtable1", (("a_ann", True), (None, False))),
        duplicate=DuplicateResult(board_set.set_id, 1, "a_ann", 4),
    )
    assert await records.write(game)
    again = replace(
        game, table_id="Dtable2", duplicate=DuplicateResult(board_set.set_id, 1, "a_ann", 9)
    )
    assert await records.write(again)
    async with database.session() as session:
        rows = list(await session.scalars(select(DuplicateResultRow)))
    assert [(r.board, r.score, r.record_id) for r in rows] == [(1, 4, "Dtable1.1")]
