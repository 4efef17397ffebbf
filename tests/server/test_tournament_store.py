"""The tournaments' state in the database (issue 56) on SQLite and PostgreSQL: creation
checked, registration and withdrawal, a round paired once, results from game records."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import UTC, datetime

import pytest

from protocol.errors import ErrorCode
from server.persist.db.engine import Database
from server.persist.db.models import AccountRow, GameRecordRow, GameSeatRow
from server.tables.options import RequestError
from server.tournaments.pairing import PairedTable
from server.tournaments.store import CreationLimits, Kind, NewTournament, Status, TournamentStore

NOW = 1_800_000_000.0


async def accounts(db: Database, *ids: str) -> None:
    async with db.session() as s:
        for i in ids:
            s.add(
                AccountRow(
                    account_id=i,
                    name=i,
                    skeleton=i,
                    password_hash=None,
                    bot=True,
                    created_at=datetime(2026, 1, 1, tzinfo=UTC),
                )
            )


def swiss(rounds: int = 3) -> NewTournament:
    return NewTournament("Friday", "scopa", Kind.SWISS, NOW + 60, rounds=rounds, turn_timer=30)


async def test_create_checks_and_lists(database: Database) -> None:
    store = TournamentStore(database)
    t = await store.create(swiss(), None, NOW)
    assert t.status is Status.SCHEDULED and t.round == 0 and t.seats == 2
    assert [x.tournament_id for x in await store.listing([Status.SCHEDULED])] == [t.tournament_id]
    assert await store.listing([Status.FINISHED]) == ()
    bad = [
        NewTournament("x", "chess", Kind.SWISS, NOW, rounds=3),
        NewTournament("x", "scopa", Kind.SWISS, NOW, duration_s=600),
        NewTournament("x", "scopa", Kind.ARENA, NOW, rounds=3),
        NewTournament("x", "scopa", Kind.SWISS, NOW, rounds=0),
        NewTournament("", "scopa", Kind.SWISS, NOW, rounds=3),
        NewTournament("x", "scopa", Kind.SWISS, NOW, rounds=3, level="random"),
        NewTournament("x", "scopa", Kind.SWISS, NOW - 3600, rounds=3),
    ]
    for spec in bad:
        with pytest.raises(RequestError) as info:
            await store.create(spec, None, NOW)
        assert info.value.code in (ErrorCode.BAD_OPTIONS, ErrorCode.UNKNOWN_GAME)
    assert len(await store.listing()) == 1  # nothing stored by a refused creation
    with pytest.raises(RequestError) as missing:
        await store.get("Tnope")
    assert missing.value.code is ErrorCode.NOT_FOUND


async def test_register_withdraw_and_come_back(database: Database) -> None:
    await accounts(database, "a", "b")
    store = TournamentStore(database)
    t = await store.create(swiss(), None, NOW)
    assert (await store.register(t.tournament_id, "a", "A")).entry_no == 1
    assert (await store.register(t.tournament_id, "b", "B")).entry_no == 2
    await store.withdraw(t.tournament_id, "a")
    assert (await store.get(t.tournament_id)).players == 1
    with pytest.raises(RequestError) as twice:
        await store.withdraw(t.tournament_id, "a")
    assert twice.value.code is ErrorCode.NOT_FOUND
    assert (await store.register(t.tournament_id, "a", "A")).entry_no == 1  # their place kept
    assert await store.start(t.tournament_id)
    assert not await store.start(t.tournament_id)
    assert await store.finish(t.tournament_id, NOW)
    with pytest.raises(RequestError) as over:
        await store.register(t.tournament_id, "b", "B")
    assert over.value.code is ErrorCode.FORBIDDEN


async def test_a_round_is_paired_once_and_reads_results(database: Database) -> None:
    await accounts(database, "a", "b", "c")
    store = TournamentStore(database)
    t = await store.create(swiss(), None, NOW)
    tid = t.tournament_id
    tables = [PairedTable(1, ("a", "b"), 0), PairedTable(2, ("c",), 1)]
    seats = [("b", "a"), ("c", None)]
    assert not await store.pair_round(tid, 0, tables, seats, NOW)  # not running yet
    await store.start(tid)
    assert await store.pair_round(tid, 0, tables, seats, NOW)
    assert not await store.pair_round(tid, 0, tables, seats, NOW)  # a second director
    assert (await store.get(tid)).round == 1
    stored = await store.tables(tid, 1)
    assert [r.table_id for r in stored] == [f"{tid}-r1-t1", f"{tid}-r1-t2"]
    assert stored[1].seats == ("c", None) and stored[1].players == ("c",)
    assert await store.collect_results(tid, 1) == 0
    async with database.session() as s:
        gid = f"{tid}-r1-t1.1"
        s.add(
            GameRecordRow(
                game_id=gid,
                table_id=f"{tid}-r1-t1",
                game_no=1,
                game="scopa",
                private=False,
                options={},
                seed=1,
                log=[],
                result={},
                finished_us=1,
                rated=True,
            )
        )
        await s.flush()
        for seat, (won, score) in enumerate([(True, 11), (False, 6)]):
            s.add(
                GameSeatRow(
                    game_id=gid,
                    seat=seat,
                    account_id=None,
                    name=None,
                    kind="human",
                    level=None,
                    left=False,
                    score=score,
                    won=won,
                    game="scopa",
                    finished_us=1,
                )
            )
    assert await store.collect_results(tid, 1) == 1
    done = (await store.tables(tid, 1))[0]
    assert done.results is not None
    assert [(r.player_id, r.won, r.score) for r in done.results] == [
        ("b", True, 11),
        ("a", False, 6),
    ]
    assert (await store.tables(tid, 1))[1].results is None


async def test_an_account_creates_tournaments_within_its_quotas(database: Database) -> None:
    store = TournamentStore(database)
    await accounts(database, "ann", "bo")
    limits = CreationLimits(max_tournaments_per_account=2, tournaments_created_per_hour=3)

    async def refused(by: str, now: float) -> str | None:
        with pytest.raises(RequestError) as info:
            await store.create(swiss(), by, now, limits)
        assert info.value.code is ErrorCode.QUOTA_EXCEEDED
        return info.value.detail

    first = await store.create(swiss(), "ann", NOW, limits)
    await store.create(swiss(), "ann", NOW, limits)
    assert await refused("ann", NOW) == "max_tournaments_per_account"
    assert len(await store.listing()) == 2  # nothing stored by the refusal
    await store.create(swiss(), "bo", NOW, limits)  # another account's own count
    await store.create(swiss(), None, NOW, limits)  # the server's own: no cap
    # a finished tournament no longer counts as open, but still counts for the hour
    assert await store.start(first.tournament_id)
    assert await store.finish(first.tournament_id, NOW)
    await store.create(swiss(), "ann", NOW + 1, limits)
    assert await refused("ann", NOW + 2) == "max_tournaments_per_account"
    for t in await store.listing([Status.SCHEDULED]):
        await store.start(t.tournament_id)
        await store.finish(t.tournament_id, NOW + 3)
    assert await refused("ann", NOW + 4) == "tournaments_created_per_hour"
    spec = replace(swiss(), starts_at=NOW + 3700)
    later = await store.create(spec, "ann", NOW + 3601, limits)  # an hour on
    assert later.status is Status.SCHEDULED
    assert len(await store.listing()) == 6


async def test_creations_at_once_count_each_other(database: Database) -> None:
    """Several creations for one account at the same moment: the account's row is held
    before the count, so exactly the quota's number are made and the rest are refused
    as over it (on SQLite too, where a read first made one of two writers fail)."""
    store = TournamentStore(database)
    await accounts(database, "ann")
    limits = CreationLimits(max_tournaments_per_account=2, tournaments_created_per_hour=10)

    async def one() -> str:
        try:
            await store.create(swiss(), "ann", NOW, limits)
        except RequestError as exc:
            return str(exc.code)
        return "made"

    outcomes = await asyncio.gather(*(one() for _ in range(5)))
    assert sorted(outcomes) == ["made", "made"] + ["quota_exceeded"] * 3
    assert len(await store.listing()) == 2
