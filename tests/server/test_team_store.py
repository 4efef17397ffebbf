"""Team matches in the database (SQLite and PostgreSQL): a roster's last slot goes to
one person and the match starts once; a board's results come with the games' writes,
and the board's IMPs are added once, also when its tables' writes run at the same
time or are repeated."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest

from engine.game import Result
from protocol.errors import ErrorCode
from server.duplicate.errors import DuplicateError
from server.duplicate.team_store import (
    MatchStatus,
    TeamStore,
    new_match,
    parse_table_id,
    table_id,
)
from server.duplicate.teams import Team, board_net
from server.persist.db.engine import Database
from server.persist.db.game_record import GameRecord, SeatKind, SeatRecord, TeamResult
from server.persist.db.models import AccountRow
from server.persist.db.records import GameRecords

NOW = datetime(2026, 12, 7, 12, 0, tzinfo=UTC)
PEOPLE = ("a_ann", "a_bob", "a_cat", "a_dan", "a_eve", "a_fay")


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


def _game(match_id: str, board: int, table: int, scores: tuple[int, int]) -> GameRecord:
    seats = ("a_ann", "a_cat") if table == 0 else ("a_dan", "a_bob")
    return GameRecord(
        table_id=table_id(match_id, board, table),
        game_no=1,
        game="scopa",
        private=True,
        options={},
        seed=7,
        log=(),
        seats=tuple(
            SeatRecord(s, SeatKind.HUMAN, a[2:], a, None, False, scores[s], scores[s] > 0)
            for s, a in enumerate(seats)
        ),
        result={"scores": list(scores), "winners": []},
        finished_at=NOW.timestamp(),
        team=TeamResult(match_id, board, table, scores),
    )


async def test_the_last_slot_goes_to_one_and_the_match_starts_once(database: Database) -> None:
    await _people(database)
    store = TeamStore(database)
    match = new_match("scopa", "easy", 2, False, "a_ann")
    await store.create(match, NOW)
    assert not await store.join(match.match_id, "a_bob", Team.A, None)
    assert not await store.join(match.match_id, "a_cat", Team.B, 0)
    tries = await asyncio.gather(
        *(store.join(match.match_id, p, None, None) for p in ("a_dan", "a_eve", "a_fay")),
        return_exceptions=True,
    )
    started = [t for t in tries if t is True]
    refused = [t for t in tries if isinstance(t, DuplicateError)]
    assert len(started) == 1 and len(refused) == 2
    assert {e.code for e in refused} <= {ErrorCode.SLOT_TAKEN, ErrorCode.MATCH_STARTED}
    assert len(await store.roster(match.match_id)) == 4
    assert (await store.get(match.match_id)).status is MatchStatus.PLAYING
    with pytest.raises(DuplicateError) as exc:
        await store.leave(match.match_id, "a_bob")
    assert exc.value.code is ErrorCode.MATCH_STARTED
    assert len(await store.roster(match.match_id)) == 4


async def test_a_board_is_counted_once_when_its_tables_are_written_together(
    database: Database,
) -> None:
    await _people(database)
    store = TeamStore(database)
    records = GameRecords(database)
    match = new_match("scopa", "easy", 2, False, "a_ann")
    await store.create(match, NOW)
    mid = match.match_id
    one = [_game(mid, 1, 0, (5, 1)), _game(mid, 1, 1, (2, 4))]
    assert await asyncio.gather(*(records.write(g) for g in one)) == [True, True]
    assert not any(await asyncio.gather(*(records.write(g) for g in one)))  # repeated
    net = board_net("scopa", 1, [Result((5, 1), frozenset()), Result((2, 4), frozenset())])
    after = await store.get(mid)
    assert (after.boards_done, after.imps_a, after.imps_b) == (
        1,
        max(net.imps, 0),
        max(-net.imps, 0),
    )
    assert after.status is MatchStatus.PLAYING
    await records.write(_game(mid, 2, 1, (0, 3)))
    assert (await store.get(mid)).boards_done == 1  # board 2 waits for its other table
    await records.write(_game(mid, 2, 0, (3, 0)))
    done = await store.get(mid)
    assert done.boards_done == 2 and done.status is MatchStatus.FINISHED
    assert [(r.board, r.table) for r in await store.results(mid)] == [
        (1, 0),
        (1, 1),
        (2, 0),
        (2, 1),
    ]


def test_table_ids_round_trip() -> None:
    assert parse_table_id(table_id("M0123456789abcdef", 12, 3)) == ("M0123456789abcdef", 12, 3)
    assert parse_table_id("abcdefgh") is None
    assert parse_table_id("T1a-r3-t4") is None


async def test_a_table_is_claimed_once_and_claimed_again_only_when_old(
    database: Database,
) -> None:
    await _people(database)
    store = TeamStore(database)
    match = new_match("scopa", "easy", 1, True, "a_ann")
    await store.create(match, NOW)
    mid = match.match_id
    claims = await asyncio.gather(*(store.claim(mid, 1, 0, NOW) for _ in range(3)))
    assert sorted(claims) == [False, False, True]
    assert await store.claim(mid, 1, 1, NOW)  # the other table is its own claim
    later = NOW + timedelta(seconds=10)
    assert not await store.reclaim(mid, 1, 0, NOW, later)  # claimed at NOW: being made
    again = await asyncio.gather(
        *(store.reclaim(mid, 1, 0, NOW + timedelta(seconds=5), later) for _ in range(3))
    )
    assert sorted(again) == [False, False, True]  # one caller makes it again


async def test_an_account_has_at_most_its_quota_of_open_matches(database: Database) -> None:
    """Created at once, five matches against a quota of two: two are stored, three are
    refused as over it; another account counts its own."""
    await _people(database)
    store = TeamStore(database)

    async def one() -> str:
        try:
            await store.create(new_match("scopa", "easy", 2, False, "a_ann", True), NOW, 2)
        except DuplicateError as exc:
            assert exc.detail == "max_team_matches_per_account"
            return str(exc.code)
        return "made"

    outcomes = await asyncio.gather(*(one() for _ in range(5)))
    assert sorted(outcomes) == ["made", "made"] + [ErrorCode.QUOTA_EXCEEDED.value] * 3
    assert len(await store.listed(None)) == 2
    await store.create(new_match("scopa", "easy", 2, False, "a_bob", True), NOW, 2)  # his own
