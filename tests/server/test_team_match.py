"""Team duplicate matches over real sockets (issue 56, docs/duplicate.md Team matches):
rosters, a whole Scopa match of two boards played by four clients at two tables, a Dou
Dizhu match with AI seats, what a member may see of the other table, and refusals
that change nothing."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from sqlalchemy import select

from client_cli.client import Client, ServerError, random_chooser
from client_cli.team_play import play_match
from client_cli.tournament import bot_player
from engine.game import Result
from protocol import server_messages as sm
from server.app import CardaviaServer
from server.duplicate.team_store import table_id
from server.duplicate.teams import board_net, match_imps
from server.persist.db.models import GameSeatRow
from tests.server.test_accounts import PASSWORD

NAMES = ("Ann", "Bob", "Cat", "Dan")


async def refused(request: Awaitable[object]) -> ServerError:
    with pytest.raises(ServerError) as exc:
        await request
    return exc.value


async def members(url: str, names: list[str]) -> list[Client]:
    clients = []
    for name in names:
        client = await Client.connect(url, name)
        await client.register(name, PASSWORD)
        clients.append(client)
    return clients


async def test_a_scopa_match_played_end_to_end(dup_server: CardaviaServer) -> None:
    ann, bob, cat, dan = await members(dup_server.url, list(NAMES))
    guest = await Client.connect(dup_server.url, "guest")
    try:
        made = await ann.create_team_match("scopa", boards=2, level="easy")
        mid = made.match_id
        assert (made.status, made.team_size, made.tables) == ("forming", 2, 2)
        assert (made.my_team, made.my_slot, made.my_table) == ("a", 0, 0)
        assert [m.match_id for m in (await guest.team_matches("scopa")).matches] == [mid]
        assert (await refused(guest.join_team_match(mid))).code == "not_logged_in"
        assert (await refused(bob.join_team_match(mid, "a", 0))).code == "slot_taken"
        assert (await refused(bob.join_team_match(mid, "a", 5))).code == "bad_options"
        assert (await refused(bob.join_team_match("Mnothing"))).code == "unknown_match"
        assert (await refused(bob.leave_team_match(mid))).code == "not_a_member"
        await bob.join_team_match(mid, "a")
        assert (await refused(cat.join_team_match(mid, "a"))).code == "slot_taken"
        assert (await refused(ann.play_team_match(mid))).code == "roster_not_full"
        assert (await refused(cat.start_team_match(mid))).code == "forbidden"
        await cat.join_team_match(mid, "b", 0)
        assert (await refused(ann.start_team_match(mid))).code == "roster_not_full"
        info = await dan.join_team_match(mid)  # the last slot: the match starts
        assert info.status == "playing" and (info.my_team, info.my_slot) == ("b", 1)
        assert sorted((m.team, m.slot, m.name) for m in info.roster) == [
            ("a", 0, "Ann"),
            ("a", 1, "Bob"),
            ("b", 0, "Cat"),
            ("b", 1, "Dan"),
        ]
        assert (await refused(guest.join_team_match(mid))).code == "not_logged_in"
        assert (await refused(dan.leave_team_match(mid))).code == "match_started"
        assert (await refused(ann.start_team_match(mid))).code == "match_started"
        outsider = (await members(dup_server.url, ["Eve"]))[0]
        assert (await refused(outsider.play_team_match(mid))).code == "not_a_member"
        # both members of a table ask at once: one table, made once, both seated there
        first, other = await asyncio.gather(ann.play_team_match(mid), cat.play_team_match(mid))
        assert other.table.id == first.table.id and other.seat == 1
        # a match table's seats are reserved, and nobody watches it
        assert first.table.id == table_id(mid, 1, 0) and first.seat == 0
        assert first.table.private and not first.table.hints
        assert (await refused(outsider.join(first.table.id, seat=1))).code == "forbidden"
        assert (await refused(bob.join(first.table.id, seat=1))).code == "forbidden"
        assert (await refused(dan.spectate(first.table.id))).code in ("forbidden", "not_found")
        notice = await dan.wait_for(lambda m: isinstance(m, sm.TeamMatchTable), 5)
        assert (notice.match_id, notice.board, notice.table, notice.seat) == (mid, 1, 1, 0)
        await outsider.close()

        played: dict[str, list[str]] = {}

        def log(name: str) -> Callable[[str, dict[str, Any]], None]:
            return lambda table, _result: played.setdefault(name, []).append(table)

        runs = [
            play_match(c, mid, bot_player(random_chooser(i)), on_table=log(name))
            for i, (c, name) in enumerate(zip((ann, bob, cat, dan), NAMES, strict=True))
        ]
        ends = await asyncio.wait_for(asyncio.gather(*runs), 30)
        assert played["Ann"] == played["Cat"] == [table_id(mid, b, 0) for b in (1, 2)]
        assert played["Bob"] == played["Dan"] == [table_id(mid, b, 1) for b in (1, 2)]
        end = ends[0]
        assert end.status == "finished" and [line.board for line in end.results] == [1, 2]
        stored = await dup_server.team.store.results(mid)
        assert [(r.board, r.table) for r in stored] == [(1, 0), (1, 1), (2, 0), (2, 1)]
        nets = [
            board_net("scopa", b, [Result(r.scores, frozenset()) for r in stored if r.board == b])
            for b in (1, 2)
        ]
        assert [(line.net, line.imps) for line in end.results] == [(n.net, n.imps) for n in nets]
        assert (end.imps_a, end.imps_b) == match_imps(nets)
        assert all(t.done and t.a_total is not None for line in end.results for t in line.tables)
        # after the match: the board's other table's replay, not one's own
        board = await ann.team_match_board(mid, 1)
        assert [r.table for r in board.replays] == [table_id(mid, 1, 1)]
        assert (await refused(ann.play_team_match(mid))).code == "board_out_of_order"
        assert (await refused(ann.team_match_board(mid, 3))).code == "bad_options"
        game_id = f"{table_id(mid, 1, 1)}.1"  # Bob's table: its game shows by the board's answer
        assert (await refused(ann.game_record(game_id))).code == "not_found"
        assert (await refused(bob.game_record(game_id))).code == "forbidden"
        assert mid not in [m.match_id for m in (await guest.team_matches()).matches]
    finally:
        for c in (ann, bob, cat, dan, guest):
            await c.close()


async def test_a_member_sees_nothing_of_a_board_before_their_table_played_it(
    dup_server: CardaviaServer,
) -> None:
    ann, bob, cat, dan = await members(dup_server.url, ["Ann", "Bob", "Cat", "Dan"])
    try:
        mid = (await ann.create_team_match("scopa", boards=1, private=True)).match_id
        assert (await ann.team_matches()).matches == ()  # private: joined by its id only
        for c in (bob, cat, dan):  # the emptier team first: Bob B0, Cat A1, Dan B1
            await c.join_team_match(mid)
        assert [(m.team, m.slot, m.name) for m in (await ann.team_match(mid)).roster] == [
            ("a", 0, "Ann"),
            ("a", 1, "Cat"),
            ("b", 0, "Bob"),
            ("b", 1, "Dan"),
        ]
        first, second = (ann, bob), (cat, dan)  # table 0: Ann and Bob; table 1: Cat and Dan
        # table 0 plays board 1; table 1 has not started it
        runs = [play_match(c, mid, bot_player(random_chooser(i))) for i, c in enumerate(first)]
        tasks = [asyncio.create_task(r) for r in runs]
        deadline = asyncio.get_running_loop().time() + 20
        while not await dup_server.team.store.results(mid):
            assert asyncio.get_running_loop().time() < deadline
            await asyncio.sleep(0.05)
        assert (await refused(cat.team_match_board(mid, 1))).code == "board_not_played"
        seen = await cat.team_match(mid)
        assert seen.next_board == 1 and seen.results[0].tables[0].done
        assert all(t.a_total is None and t.b_total is None for t in seen.results[0].tables)
        assert seen.results[0].net is None and (seen.imps_a, seen.imps_b) == (0, 0)
        assert (await refused(cat.game_record(f"{table_id(mid, 1, 0)}.1"))).code == "not_found"
        assert (await refused(ann.game_record(f"{table_id(mid, 1, 0)}.1"))).code == "forbidden"
        # Ann has played board 1: she sees her table's totals, not yet the net
        mine = await ann.team_match_board(mid, 1)
        assert mine.replays == () and mine.line.tables[0].a_total is not None
        for c in second:
            tasks.append(asyncio.create_task(play_match(c, mid, bot_player(random_chooser(9)))))
        ends = await asyncio.wait_for(asyncio.gather(*tasks), 30)
        assert {e.status for e in ends} == {"finished"}
        assert len((await cat.team_match_board(mid, 1)).replays) == 1
    finally:
        for c in (ann, bob, cat, dan):
            await c.close()


async def test_a_doudizhu_match_with_ai_seats(dup_server: CardaviaServer) -> None:
    names = ["Ann", "Bob", "Cat", "Dan", "Eve", "Fay"]
    clients = await members(dup_server.url, names)
    try:
        made = await clients[0].create_team_match("doudizhu", boards=1, auto_start=False)
        mid = made.match_id
        assert (made.team_size, made.tables) == (3, 3)
        for c, (team, slot) in zip(
            clients[1:], [("a", 1), ("a", 2), ("b", 0), ("b", 1), ("b", 2)], strict=True
        ):
            await c.join_team_match(mid, team, slot)  # type: ignore[arg-type]
        assert (await clients[0].team_match(mid)).status == "forming"  # the creator starts it
        assert (await clients[0].start_team_match(mid)).status == "playing"
        runs = [play_match(c, mid, bot_player(random_chooser(i))) for i, c in enumerate(clients)]
        ends = await asyncio.wait_for(asyncio.gather(*runs), 30)
        end = ends[0]
        assert end.status == "finished" and end.results[0].imps is not None
        stored = await dup_server.team.store.results(mid)
        assert [r.table for r in stored] == [0, 1, 2]
        async with dup_server.accounts.db.session() as session:
            seats = (await session.scalars(select(GameSeatRow))).all()
        kinds = {(s.game_id, s.seat): s.kind for s in seats}
        for r in stored:  # the AI holds the seat neither team does at each table
            ai_seat = (r.table + 2) % 3
            assert [kinds[(r.record_id, s)] for s in range(3)] == [
                "ai" if s == ai_seat else "human" for s in range(3)
            ]
        net = board_net("doudizhu", 1, [Result(r.scores, frozenset()) for r in stored])
        assert (end.results[0].net, end.imps_a, end.imps_b) == (
            net.net,
            max(net.imps, 0),
            max(-net.imps, 0),
        )
    finally:
        for c in clients:
            await c.close()


async def test_bad_requests_change_nothing(dup_server: CardaviaServer) -> None:
    ann, bob = await members(dup_server.url, ["Ann", "Bob"])
    try:
        made = await ann.create_team_match("scopa", boards=2)
        before = await ann.team_match(made.match_id)
        for request in (
            bob.join_team_match(made.match_id, "a", 0),  # Ann's slot
            bob.join_team_match(made.match_id, "b", 2),  # a team of two has slots 0 and 1
            bob.leave_team_match(made.match_id),  # not a member
            bob.start_team_match(made.match_id),  # not its creator
            ann.start_team_match(made.match_id),  # not full
            bob.play_team_match(made.match_id),
            bob.team_match_board(made.match_id, 1),
        ):
            await refused(request)
        assert await ann.team_match(made.match_id) == before
        assert await dup_server.team.store.results(made.match_id) == ()
        assert not [t for t in dup_server.lobby.tables if t.startswith(made.match_id)]
        assert (await refused(ann.create_team_match("chess"))).code == "unknown_game"
        assert (await refused(ann.create_team_match("scopa", level="godlike"))).code == (
            "bad_options"
        )
        assert (await refused(ann.team_matches("chess"))).code == "unknown_game"
        assert [m.match_id for m in (await ann.team_matches()).matches] == [made.match_id]
        made = await ann.create_team_match("cicera", boards=1)
        assert made.team_size == 4
        assert (await refused(ann.team_match_board(made.match_id, 1))).code == ("board_not_played")
        await ann.leave_team_match(made.match_id)
        assert (await ann.team_match(made.match_id)).roster == ()
        assert (await refused(ann.play_team_match(made.match_id))).code == "roster_not_full"
    finally:
        await ann.close()
        await bob.close()


async def test_a_cicera_match_of_two_pairs_a_team(dup_server: CardaviaServer) -> None:
    names = ["Ann", "Bob", "Cat", "Dan", "Eve", "Fay", "Gus", "Hal"]
    clients = await members(dup_server.url, names)
    try:
        mid = (await clients[0].create_team_match("cicera", boards=1)).match_id
        for c in clients[1:]:
            await c.join_team_match(mid)
        runs = [play_match(c, mid, bot_player(random_chooser(i))) for i, c in enumerate(clients)]
        ends = await asyncio.wait_for(asyncio.gather(*runs), 30)
        assert {e.my_table for e in ends} == {0, 1} and ends[0].status == "finished"
        stored = await dup_server.team.store.results(mid)
        net = board_net("cicera", 1, [Result(r.scores, frozenset()) for r in stored])
        assert (ends[0].results[0].net, ends[0].results[0].imps) == (net.net, net.imps)
    finally:
        for c in clients:
            await c.close()
