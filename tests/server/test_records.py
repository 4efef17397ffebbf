"""Game records (issue 54): finished games stored once by id, history by cursor, profiles,
stored replays and who may see them, deletion anonymising seats — on SQLite and on a real
PostgreSQL, and through a real server and socket."""

from __future__ import annotations

import asyncio
import signal
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import delete, func, select

from client_cli.client import Client, ServerError, play_table, random_chooser
from engine.codec import to_plain
from engine.registry import GAMES
from protocol import server_messages as sm
from protocol.errors import ErrorCode
from protocol.models import TableOptions
from server.app import CardaviaServer, running_server
from server.persist.db.engine import Database, sqlite_url
from server.persist.db.game_record import GameRecord, SeatKind, SeatRecord, game_id
from server.persist.db.models import GameRecordRow, GameSeatRow, ProfileCountRow
from server.persist.db.records import (
    DELETED_NAME,
    UNWRITABLE_TRIES,
    Cursor,
    GameRecords,
    RecordWriter,
    decode_cursor,
    encode_cursor,
)
from server.players.accounts import Account, Accounts
from server.tables.options import RequestError, check_options
from server.tables.record import game_record
from server.tables.replay import rebuild
from tests.server.helpers import FAST, database_away, finished_ai_table, make_core
from tests.server.redis_fixture import RedisServer, ServerProcess, fast_redis_config
from tests.server.test_accounts import PASSWORD, fast_hasher
from tests.server.test_store_restart import resume

# -- a real finished game, played through the core ---------------------------------------


def finished_scopa(table: str = "t1", *, private: bool = False, seed: int = 11) -> GameRecord:
    """A real Scopa game to 1 point played out by the first legal move, as a core records it."""
    options = TableOptions(game={"target": 1}, private=private, seat=0)
    core = make_core("scopa", options, seed=seed)
    core.id = table
    core.join("p1", "Ann", 0, 0.0, account="a_ann")
    core.join("p2", "Bea", 1, 0.0, account="a_bea")
    game = core.game
    while core.status == "playing":
        seat = next(i for i in range(2) if game.legal_actions(core.state, i))
        action = game.legal_actions(core.state, seat)[0]
        core.act(("p1", "p2")[seat], seat, core.version, to_plain(action), "human", 0.0)
    assert core.status == "finished"
    return game_record(core, finished_at=1_700_000_000.0)


def record_at(
    when: float, table: str, seats: tuple[tuple[str | None, bool], ...], game: str = "scopa"
) -> GameRecord:
    """A stored game's record at ``when`` with ``seats`` as (account, won)."""
    return GameRecord(
        table_id=table,
        game_no=1,
        game=game,
        private=False,
        options={},
        seed=5,
        log=(),
        seats=tuple(
            SeatRecord(
                seat=i,
                kind=SeatKind.HUMAN if account else SeatKind.AI,
                name=account,
                account_id=account,
                level=None if account else "normal",
                left=False,
                score=int(won),
                won=won,
            )
            for i, (account, won) in enumerate(seats)
        ),
        result={"scores": [0, 0], "winners": []},
        finished_at=when,
    )


@dataclass(frozen=True)
class Stored:
    """Accounts and game records on one database, with Ann and Bea registered."""

    accounts: Accounts
    records: GameRecords
    ann: Account
    bea: Account


@pytest.fixture
async def stored(database_url: str) -> AsyncIterator[Stored]:
    store = Accounts(Database(database_url), hasher=fast_hasher())
    await store.open()
    try:
        ann, bea = await two_accounts(store)
        yield Stored(store, GameRecords(store.db), ann, bea)
    finally:
        await store.close()


async def two_accounts(accounts: Accounts) -> tuple[Account, Account]:
    """Ann and Bea, stored with the ids the records name (``a_ann``, ``a_bea``)."""
    made = []
    for name in ("Ann", "Bea"):
        row = accounts._new_row(name)
        row.account_id = "a_" + name.lower()
        row.password_hash = await accounts.hasher.hash(PASSWORD)
        made.append(await accounts._insert(row))
    return made[0], made[1]


async def count(db: Database, table: type[object]) -> int:
    async with db.session() as session:
        return int(await session.scalar(select(func.count()).select_from(table)) or 0)


# -- values -------------------------------------------------------------------------------


def test_the_record_is_the_core_s_game() -> None:
    record = finished_scopa()
    assert record.game_id == "t1.1" == game_id("t1", 1)
    assert [s.account_id for s in record.seats] == ["a_ann", "a_bea"]
    assert [s.kind for s in record.seats] == [SeatKind.HUMAN, SeatKind.HUMAN]
    game = GAMES["scopa"]
    options = check_options(
        game, TableOptions.model_validate(record.options, strict=False)
    ).game_options
    state = rebuild(game, options, record.seed, record.log)  # options + seed + log: the game
    result = game.result(state)
    assert result is not None
    assert [s.won for s in record.seats] == [i in result.winners for i in range(2)]
    assert [s.score for s in record.seats] == list(result.scores)


@given(st.integers(0, 2**62), st.from_regex(r"[A-Za-z0-9_-]{1,64}\.[0-9]{1,9}", fullmatch=True))
def test_cursors_round_trip(micros: int, gid: str) -> None:
    for seat in (0, 3):
        assert decode_cursor(encode_cursor(Cursor(micros, gid, seat))) == Cursor(micros, gid, seat)


@pytest.mark.parametrize("text", ["", "!!!", "bm9jb2xvbg", "LTE6eA", "x" * 500, "MTI6"])
def test_a_foreign_cursor_is_refused(text: str) -> None:
    with pytest.raises(RequestError) as caught:
        decode_cursor(text)
    assert caught.value.code is ErrorCode.BAD_OPTIONS


# -- on SQLite and PostgreSQL ------------------------------------------------------------------


async def test_a_game_is_stored_once(stored: Stored) -> None:
    accounts, records = stored.accounts, stored.records
    record = finished_scopa()
    assert await records.write(record)
    assert not await records.write(record)  # a retry, or the table finishing it elsewhere
    assert await count(accounts.db, GameRecordRow) == 1
    assert await count(accounts.db, GameSeatRow) == 2
    profile = await records.profile(name="ann")
    assert [(g.game, g.played) for g in profile.games] == [("scopa", 1)]
    assert profile.games[0].won == int(record.seats[0].won)
    stored = await records.stored(record.game_id, None)  # a public table: anyone
    assert stored == record


async def test_concurrent_writes_of_one_game_store_it_once(stored: Stored) -> None:
    accounts, records = stored.accounts, stored.records
    record = finished_scopa()
    stored = await asyncio.gather(
        *(records.write(record) for _ in range(4)), return_exceptions=True
    )
    assert stored.count(True) == 1 or await count(accounts.db, GameRecordRow) == 1
    assert await count(accounts.db, GameRecordRow) == 1
    profile = await records.profile(account_id="a_bea")
    assert profile.games[0].played == 1


async def test_an_account_at_two_seats_played_one_game(stored: Stored) -> None:
    records = stored.records
    await records.write(record_at(1000.0, "two", (("a_ann", False), ("a_ann", True))))
    profile = await records.profile(account_id="a_ann")
    assert [(g.played, g.won) for g in profile.games] == [(1, 1)]
    first = await records.history("a_ann", limit=1)  # one entry per seat, paged apart
    second = await records.history("a_ann", cursor=first.cursor, limit=1)
    assert [g.seat for g in first.games + second.games] == [1, 0]


async def test_history_pages_newest_first_by_cursor(stored: Stored) -> None:
    records = stored.records
    for i in range(7):  # two games finish at the same instant: the id breaks the tie
        game = "cicera" if i % 3 == 0 else "scopa"
        when = 1000.0 + min(i, 5)
        await records.write(record_at(when, f"t{i}", (("a_ann", i % 2 == 0), (None, False)), game))
    await records.write(record_at(2000.0, "other", (("a_bea", True), (None, False))))
    seen: list[str] = []
    cursor = None
    while True:
        page = await records.history("a_ann", cursor=cursor, limit=3)
        seen += [g.game_id for g in page.games]
        assert len(page.games) <= 3
        if page.cursor is None:
            break
        cursor = page.cursor
    assert seen == ["t6.1", "t5.1", "t4.1", "t3.1", "t2.1", "t1.1", "t0.1"]
    only = await records.history("a_ann", game="cicera", limit=50)
    assert [g.game_id for g in only.games] == ["t6.1", "t3.1", "t0.1"]
    assert only.cursor is None
    first = only.games[0]
    assert first.seat == 0 and [s.kind for s in first.seats] == [SeatKind.HUMAN, SeatKind.AI]
    profile = await records.profile(account_id="a_ann")
    assert [(g.game, g.played, g.won) for g in profile.games] == [("cicera", 3, 2), ("scopa", 4, 2)]


async def test_private_games_are_shown_to_their_players_only(stored: Stored) -> None:
    records = stored.records
    record = finished_scopa("p1", private=True)
    await records.write(record)
    assert (await records.stored(record.game_id, "a_bea")).seed == record.seed
    for stranger in (None, "a_cid"):
        with pytest.raises(RequestError) as caught:
            await records.stored(record.game_id, stranger)
        assert caught.value.code is ErrorCode.NOT_FOUND  # as for a game that is not there
    with pytest.raises(RequestError):
        await records.stored("nothing.1", "a_ann")


async def test_deleting_an_account_anonymises_its_seats(stored: Stored) -> None:
    accounts, records, ann, bea = stored.accounts, stored.records, stored.ann, stored.bea
    record = finished_scopa("p1", private=True)
    await records.write(record)
    await accounts.delete(ann, PASSWORD, "addr")
    stored = await records.stored(record.game_id, bea.account_id)  # Bea's record is whole
    assert [(s.name, s.account_id) for s in stored.seats] == [
        (DELETED_NAME, None),
        ("Bea", "a_bea"),
    ]
    assert stored.log == record.log and stored.seed == record.seed
    assert (await records.history(bea.account_id, limit=5)).games[0].game_id == record.game_id
    assert await count(accounts.db, ProfileCountRow) == 1  # Bea's only
    assert (await records.history(ann.account_id, limit=5)).games == ()


async def test_a_seat_of_an_account_deleted_before_the_write(stored: Stored) -> None:
    accounts, records = stored.accounts, stored.records
    await accounts.delete(stored.ann, PASSWORD, "addr")
    record = finished_scopa()
    assert await records.write(record)
    stored = await records.stored(record.game_id, None)
    assert stored.seats[0].name == DELETED_NAME and stored.seats[0].account_id is None


async def test_a_bad_cursor_changes_nothing(stored: Stored) -> None:
    records = stored.records
    await records.write(finished_scopa())
    with pytest.raises(RequestError):
        await records.history("a_ann", cursor="garbage!", limit=5)
    assert len((await records.history("a_ann", limit=5)).games) == 1


async def test_the_writer_retries_until_the_database_answers(stored: Stored) -> None:
    accounts, records = stored.accounts, stored.records
    failures = 2
    real = records.write

    async def flaky(record: GameRecord) -> bool:
        nonlocal failures
        if failures:
            failures -= 1
            raise OSError("database away")
        return await real(record)

    records.write = flaky  # type: ignore[method-assign]
    writer = RecordWriter(records, retry_first=0.01, retry_max=0.02)
    writer.start()
    writer.submit(finished_scopa())
    await asyncio.wait_for(writer.drain(), 5.0)
    await writer.close()
    assert failures == 0 and await count(accounts.db, GameRecordRow) == 1


async def test_a_game_that_can_never_be_written_is_given_up_not_the_ones_behind_it(
    stored: Stored,
) -> None:
    """A write that fails for the game itself (not the database being away) is tried a
    few times, then given up (logged, and taken off Redis's unwritten list), so the games
    queued behind it are written; the database being away is waited out however long."""
    accounts, records = stored.accounts, stored.records
    real = records.write
    bad = finished_scopa()
    good = replace(bad, table_id="t2")
    away = 5
    tried: list[str] = []

    async def write(record: GameRecord) -> bool:
        nonlocal away
        tried.append(record.game_id)
        if away:
            away -= 1
            raise OSError("database away")
        if record is bad:
            raise ValueError("a value the database rejects")
        return await real(record)

    records.write = write  # type: ignore[method-assign]
    unlisted: list[str] = []

    async def unlist(game_id: str) -> None:
        unlisted.append(game_id)

    writer = RecordWriter(records, retry_first=0.01, retry_max=0.02)
    writer.after_write = unlist
    writer.start()
    writer.submit(bad)
    writer.submit(good)
    await asyncio.wait_for(writer.drain(), 5.0)
    await writer.close()
    assert tried == [bad.game_id] * (5 + UNWRITABLE_TRIES) + [good.game_id]
    assert unlisted == [bad.game_id, good.game_id]
    assert await count(accounts.db, GameRecordRow) == 1


# -- through a real server ---------------------------------------------------------------------


@pytest.fixture
async def record_server(tmp_path: Path) -> AsyncIterator[CardaviaServer]:
    config = FAST.replace(database_url=sqlite_url(tmp_path / "cardavia.db"))
    async with running_server(config) as server:
        server.accounts.hasher = fast_hasher()
        yield server


async def play_one(server: CardaviaServer, ann: Client, bea: Client, private: bool) -> str:
    """Ann and Bea play one Scopa game to 1 point; the stored game's id."""
    options = {"seat": 0, "private": private, "game": {"target": 1}}
    joined = await ann.create_table("scopa", options)
    table = joined.table.id
    await bea.join(table, seat=1, invite=joined.invite)
    await asyncio.gather(
        play_table(ann, table, random_chooser(1)), play_table(bea, table, random_chooser(2))
    )
    await asyncio.wait_for(server.record_writer.drain(), 10.0)
    return game_id(table, 1)


async def test_history_profile_and_stored_replay_over_the_socket(
    record_server: CardaviaServer,
) -> None:
    url = record_server.url
    async with (
        await Client.connect(url, "Ann") as ann,
        await Client.connect(url, "Bea") as bea,
        await Client.connect(url, "Cid") as cid,
    ):
        await ann.register("Ann", PASSWORD)
        await bea.register("Bea", PASSWORD)
        public = await play_one(record_server, ann, bea, private=False)
        await ann.leave(public.split(".")[0])
        await bea.leave(public.split(".")[0])
        secret = await play_one(record_server, ann, bea, private=True)
        page = await ann.history()
        assert [g.game_id for g in page.games] == [secret, public]
        assert page.games[0].private and page.games[0].seats[1].name == "Bea"
        assert [g.game_id for g in (await ann.history(limit=1)).games] == [secret]
        assert (await ann.history(game="cicera")).games == ()
        profile = await cid.profile("ann")
        assert profile.name == "Ann" and [(g.game, g.played) for g in profile.games] == [
            ("scopa", 2)
        ]
        mine = await bea.profile()
        assert mine.games[0].played == 2
        record = await cid.game_record(public)  # a public table's game: anyone
        assert record.replay.game == "scopa" and record.replay.steps
        assert record.seed == (await ann.game_record(public)).seed
        assert (await bea.game_record(secret)).private
        for request in (cid.game_record(secret), cid.history(), cid.profile()):
            with pytest.raises(ServerError) as caught:
                await request
            assert caught.value.code in (ErrorCode.NOT_FOUND, ErrorCode.NOT_LOGGED_IN)
        with pytest.raises(ServerError) as bad:
            await ann.history(cursor="not-a-cursor")
        assert bad.value.code == ErrorCode.BAD_OPTIONS
        with pytest.raises(ServerError) as unknown:
            await ann.history(game="chess")
        assert unknown.value.code == ErrorCode.UNKNOWN_GAME
        with pytest.raises(ServerError) as nobody:
            await ann.profile("nobody")
        assert nobody.value.code == ErrorCode.NOT_FOUND
        await ann.delete_account(PASSWORD)
        kept = await bea.game_record(secret)
        assert [s.name for s in kept.seats] == [DELETED_NAME, "Bea"]
        assert [s.name for s in kept.replay.seats] == [DELETED_NAME, "Bea"]


@pytest.mark.heavy
async def test_a_game_finished_after_its_table_moved_is_stored_once_with_its_accounts(
    redis_server: RedisServer, servers: list[ServerProcess], tmp_path: Path
) -> None:
    """Two processes share Redis and one database; the table's process dies mid-game, the
    other takes the table over (its seats' accounts come with the table's record) and
    stores the game when it ends, once."""
    shared = ("--database-url", sqlite_url(tmp_path / "shared.db"))
    a, b = ServerProcess(redis_server.url, *shared), ServerProcess(redis_server.url, *shared)
    servers += [a, b]
    a.start()
    b.start()
    ann = await Client.connect(a.url, "guest a")
    await ann.register("Ann", PASSWORD)
    bob = await Client.connect(b.url, "guest b")
    await bob.register("Bob", PASSWORD)
    table = (await ann.create_table("scopa", {"seat": 0, "game": {"target": 1}})).table.id
    await bob.join(table)
    await bob.wait_for(lambda m: isinstance(m, sm.Snapshot | sm.Update), 10)
    a.signal(signal.SIGKILL)
    await bob.wait_for(lambda m: isinstance(m, sm.Snapshot) and m.table == table, 10)
    await ann.close()
    ann = await resume(b.url, ann.token, table)
    await asyncio.gather(
        play_table(ann, table, random_chooser(3)), play_table(bob, table, random_chooser(4))
    )
    deadline = time.monotonic() + 10
    while not (page := await bob.history()).games and time.monotonic() < deadline:
        await asyncio.sleep(0.1)  # written in the background, after the last move
    assert [g.game_id for g in page.games] == [game_id(table, 1)]
    assert [s.name for s in page.games[0].seats] == ["Ann", "Bob"]
    assert [g.played for g in (await bob.profile("Ann")).games] == [1]
    await ann.close()
    await bob.close()


async def test_an_unreachable_database_is_store_unavailable(record_server: CardaviaServer) -> None:
    async with await Client.connect(record_server.url, "Ann") as ann:
        await ann.register("Ann", PASSWORD)
        async with database_away(record_server.records):
            for request in (ann.history(), ann.profile(), ann.game_record("t1.1")):
                with pytest.raises(ServerError) as caught:
                    await request
                assert caught.value.code == ErrorCode.STORE_UNAVAILABLE
        assert (await ann.history()).games == ()


async def test_a_table_rebuilt_finished_stores_its_game_once(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    """The process that finished a game may die before its background write: the process
    that rebuilds the table stores it; a game stored already stays as it is."""
    config = fast_redis_config(redis_server.url, database_url=sqlite_url(tmp_path / "r.db"))
    async with running_server(config) as server:
        watcher, table = await finished_ai_table(server.url)
        await asyncio.wait_for(server.record_writer.drain(), 10)
        db = server.records.db
        stored = await server.records.stored(game_id(table, 1), None)
        async with db.session() as session:  # as if the write never happened
            await session.execute(delete(GameRecordRow))
        record = await server.store.load(table)
        assert record is not None
        for _ in range(2):  # rebuilt, then rebuilt again elsewhere: stored once
            server.lobby.record_finished(server.lobby.rebuild_core(record), record)
            await asyncio.wait_for(server.record_writer.drain(), 10)
        assert await count(db, GameRecordRow) == 1
        again = await server.records.stored(game_id(table, 1), None)
        assert again.log == stored.log and again.seed == stored.seed
        assert abs(again.finished_at - stored.finished_at) < 1.0  # when its last move was
        await watcher.close()


async def test_an_in_memory_database_takes_writes_and_reads_at_once() -> None:
    """In memory, one connection is shared: a background write and a request's read at
    the same moment must take turns (seen in the leak audit as store_unavailable)."""
    db = Database("sqlite+aiosqlite://")
    await db.open()
    store = Accounts(db, hasher=fast_hasher())
    await two_accounts(store)
    records = GameRecords(db)
    try:
        writes = (records.write(finished_scopa(f"t{i}")) for i in range(10))
        reads = (records.history("a_ann", limit=5) for _ in range(10))
        profiles = (records.profile(account_id="a_bea") for _ in range(10))
        await asyncio.gather(*writes, *reads, *profiles)
        assert (await records.profile(account_id="a_ann")).games[0].played == 10
    finally:
        await store.close()
