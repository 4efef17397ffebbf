"""Team match members who do not come (issue 56, docs/duplicate.md Team matches, Absent
members): past ``team_absent_fill`` the AI of the match's level plays their seats, at a
table one member made and at a table nobody asked for, a member who comes late takes
their seat back, a table its members left before its game began is made again, and the
match ends with every board counted."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from sqlalchemy import select, update

from client_cli.client import Client, play_table, random_chooser
from client_cli.team_play import play_match
from client_cli.tournament import bot_player
from protocol import server_messages as sm
from server.app import CardaviaServer
from server.duplicate.team_requests import REMAKE_AFTER, TeamRequests
from server.duplicate.team_store import TableResult, new_match, table_id
from server.persist.db.models import GameSeatRow, TeamMatchRow
from tests.server.helpers import duplicate_server
from tests.server.test_team_match import members, refused

GRACE = 0.3


@pytest.fixture
async def absent_server(tmp_path: Path) -> AsyncIterator[CardaviaServer]:
    # an AI-only board lasts long enough for a late member to come
    async with duplicate_server(tmp_path, team_absent_fill=GRACE, ai_delay=0.02) as server:
        yield server


async def seats_of(server: CardaviaServer, game_id: str) -> list[tuple[str, str | None]]:
    async with server.accounts.db.session() as session:
        rows = await session.scalars(
            select(GameSeatRow).where(GameSeatRow.game_id == game_id).order_by(GameSeatRow.seat)
        )
        return [(r.kind, r.level if r.kind == "ai" else r.name) for r in rows]


async def started(server: CardaviaServer, boards: int) -> tuple[str, list[Client]]:
    """A Scopa match of ``boards`` boards (level easy), started: Ann and Bob team A,
    Cat and Dan team B (table 0: Ann at seat 0, Cat at 1; table 1: Dan at 0, Bob at 1)."""
    ann, bob, cat, dan = people = await members(server.url, ["Ann", "Bob", "Cat", "Dan"])
    mid = (await ann.create_team_match("scopa", boards=boards, level="easy")).match_id
    await bob.join_team_match(mid, "a")
    await cat.join_team_match(mid, "b")
    assert (await dan.join_team_match(mid, "b")).status == "playing"
    return mid, people


async def test_a_member_who_never_comes_is_played_by_the_ai(absent_server: CardaviaServer) -> None:
    mid, (ann, bob, cat, dan) = await started(absent_server, 2)
    await dan.close()  # Dan never plays: his seat at table 1 waits, then the AI takes it
    try:
        runs = [
            play_match(c, mid, bot_player(random_chooser(i))) for i, c in enumerate((ann, bob, cat))
        ]
        ends = await asyncio.wait_for(asyncio.gather(*runs), 12)
        assert {e.status for e in ends} == {"finished"}
        stored = await absent_server.team.store.results(mid)
        assert [(r.board, r.table) for r in stored] == [(1, 0), (1, 1), (2, 0), (2, 1)]
        for board in (1, 2):  # Dan's seat (table 1, seat 0) played by the match's level
            game = f"{table_id(mid, board, 1)}.1"
            assert await seats_of(absent_server, game) == [("ai", "easy"), ("human", "Bob")]
        # the board counts for the team as played, and its replay shows to the other table
        assert [line.board for line in ends[0].results if line.imps is not None] == [1, 2]
        board = await ann.team_match_board(mid, 1)
        assert [r.table for r in board.replays] == [table_id(mid, 1, 1)]
    finally:
        for c in (ann, bob, cat):
            await c.close()


async def test_a_table_nobody_came_to_plays_its_boards_without_waiting_again(
    tmp_path: Path,
) -> None:
    """Bob and Dan, the members of table 1, never come: its first board waits the grace,
    its next boards do not (nobody of it played the board before: nobody to wait for),
    while table 0, whose members play, waits the grace as before, and a member who
    played the board before never finds the AI in their seat.  The grace is a minute
    and the passes are called by hand, at chosen times."""
    # a minute: the server's own pass makes nothing while the test runs
    async with duplicate_server(tmp_path, team_absent_fill=60.0) as server:
        team = server.team
        mid, (ann, bob, cat, dan) = await started(server, 3)
        later = datetime.now(UTC) + timedelta(seconds=61)
        try:
            table_0 = await ann.play_team_match(mid)  # Ann and Cat play board 1 at table 0
            await cat.play_team_match(mid)
            assert await team.fill_absent(later) == 1  # table 1's board 1, past the grace
            async with asyncio.timeout(10):
                while len(await team.store.results(mid)) < 1:  # the AI plays it out
                    await asyncio.sleep(0.05)
            # its board 2 at once (nobody came to board 1), not a minute after board 1:
            # made by this pass, or by the server's own if it ran in between
            await team.fill_absent(datetime.now(UTC))
            assert table_id(mid, 2, 1) in server.lobby.tables
            await asyncio.gather(
                play_table(ann, table_0.table.id, random_chooser(1)),
                play_table(cat, table_0.table.id, random_chooser(2)),
            )
            async with asyncio.timeout(10):
                while not any(r.table == 0 for r in await team.store.results(mid)):
                    await asyncio.sleep(0.05)
            # table 0's members played board 1: its board 2 waits for them
            made = {t for t in server.lobby.tables if t.startswith(mid)}
            await team.fill_absent(datetime.now(UTC))
            assert table_id(mid, 2, 0) not in server.lobby.tables
            assert {t for t in server.lobby.tables if t.startswith(mid)} <= made | {
                table_id(mid, 3, 1)
            }
        finally:
            for c in (ann, bob, cat, dan):
                await c.close()


async def test_a_table_nobody_came_to_is_made_and_its_member_takes_the_seat_back(
    absent_server: CardaviaServer,
) -> None:
    mid, (ann, bob, cat, dan) = await started(absent_server, 1)
    their = [play_match(c, mid, bot_player(random_chooser(i))) for i, c in enumerate((ann, cat))]
    table_0 = asyncio.gather(*their)  # Ann and Cat play at once; Bob and Dan do not ask
    try:
        # told at the start, then again once their table is made anyway, past the grace
        for _ in range(2):
            notice = await bob.wait_for(lambda m: isinstance(m, sm.TeamMatchTable), 5)
            assert (notice.match_id, notice.board, notice.table, notice.seat) == (mid, 1, 1, 1)
        tid = table_id(mid, 1, 1)
        joined = await bob.play_team_match(mid)  # he comes late and takes his seat back
        assert (joined.table.id, joined.seat) == (tid, 1)
        assert joined.table.status == "playing"
        assert (await refused(dan.join(tid, seat=1))).code == "forbidden"  # still reserved
        await asyncio.wait_for(play_table(bob, tid, random_chooser(1)), 12)
        ends = await asyncio.wait_for(table_0, 12)
        assert {e.status for e in ends} == {"finished"} and ends[0].results[0].imps is not None
        assert await seats_of(absent_server, f"{tid}.1") == [("ai", "easy"), ("human", "Bob")]
    finally:
        table_0.cancel()
        for c in (ann, bob, cat, dan):
            await c.close()


async def test_a_table_left_before_its_game_began_is_made_again(
    absent_server: CardaviaServer,
) -> None:
    mid, people = await started(absent_server, 1)
    ann = people[0]
    try:
        tid = (await ann.play_team_match(mid)).table.id
        await ann.leave(tid)  # before the game began: the table closes, its claim stays
        for _ in range(100):
            if tid not in absent_server.lobby.tables:
                break
            await asyncio.sleep(0.02)
        assert tid not in absent_server.lobby.tables
        # once the claim is old enough, the pass claims it again and makes the table
        later = datetime.now(UTC) + timedelta(seconds=REMAKE_AFTER + 1)
        made = False
        for _ in range(50):  # the server's own passes run beside this one: until one made it
            await absent_server.team.fill_absent(later)
            made = made or tid in absent_server.lobby.tables
            if made:
                break
            await asyncio.sleep(0.02)
        assert made or any(
            r.board == 1 and r.table == 0 for r in await absent_server.team.store.results(mid)
        )
        for _ in range(250):  # nobody plays: the AI plays both tables to the match's end
            if (await ann.team_match(mid)).status == "finished":
                break
            await asyncio.sleep(0.04)
        assert (await ann.team_match(mid)).status == "finished"
    finally:
        for c in people:
            await c.close()


async def test_a_process_started_after_the_match_counts_the_wait_from_its_stored_start(
    tmp_path: Path,
) -> None:
    """The match's start is stored: a process that started later (a restart, another
    process of a cluster) makes the tables nobody asked for once the wait since that
    start is over, not a whole wait after it first saw the match."""
    # a minute: the server's own pass makes nothing while the test runs
    async with duplicate_server(tmp_path, team_absent_fill=60.0) as server:
        mid, people = await started(server, 1)
        match = await server.team.store.get(mid)
        assert match.started_at is not None
        assert abs((datetime.now(UTC) - match.started_at).total_seconds()) < 10
        async with server.accounts.db.session() as session:  # it started a minute ago
            await session.execute(
                update(TeamMatchRow)
                .where(TeamMatchRow.match_id == mid)
                .values(started_at=match.started_at - timedelta(seconds=61))
            )
        server.team._seen.clear()  # as a process that has just started
        assert await server.team.fill_absent(datetime.now(UTC)) == 2
        for c in people:
            await c.close()


async def test_a_table_waits_again_unless_every_member_missed_the_board_before() -> None:
    """Only a table whose members all missed its previous board skips the wait: where
    one member played it, the seats (filled together) wait for that member again."""
    match = new_match("scopa", "easy", 3, False, "a_ann")  # each table: two members
    before = (TableResult(1, 1, (3, 1), "rec", None),)

    class Stored:
        def __init__(self, ai: frozenset[int]) -> None:
            self.ai = ai

        async def ai_seats(self, record_id: str) -> frozenset[int]:
            assert record_id == "rec"
            return self.ai

    for ai_played, wait in (({0}, 60.0), ({0, 1}, 0.0), (set(), 60.0)):
        requests: Any = SimpleNamespace(store=Stored(frozenset(ai_played)), absent_fill=60.0)
        assert await TeamRequests.fill_wait(requests, match, 2, 1, before) == wait
    assert await TeamRequests.fill_wait(requests, match, 1, 1, before) == 60.0  # board 1
