"""Duplicate play over the socket (issue 56): a set's boards at private tables against
its AI, results written once with the game, shown only after the board is played."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable

import pytest

from client_cli.client import Client, ServerError, play_table, random_chooser
from server.app import CardaviaServer
from server.tables.record import game_record
from tests.server.test_accounts import PASSWORD


async def refused(request: Awaitable[object]) -> ServerError:
    with pytest.raises(ServerError) as exc:
        await request
    return exc.value


async def play_board(server: CardaviaServer, client: Client, set_id: str, seed: int) -> str:
    joined = await client.play_duplicate(set_id)
    table = joined.table.id
    assert joined.table.private and not joined.table.hints
    await play_table(client, table, random_chooser(seed))
    await asyncio.wait_for(server.record_writer.drain(), 10.0)
    return table


async def test_a_set_played_by_two_accounts(dup_server: CardaviaServer) -> None:
    url = dup_server.url
    async with (
        await Client.connect(url, "Ann") as ann,
        await Client.connect(url, "Bea") as bea,
        await Client.connect(url, "guest") as guest,
    ):
        await ann.register("Ann", PASSWORD)
        await bea.register("Bea", PASSWORD)
        daily = (await guest.duplicate_sets()).sets
        assert {s.game for s in daily if s.kind == "daily"} == {
            "scopa",
            "cicera",
            "doudizhu",
            "schafkopf",
        }
        assert all(s.seeds == () for s in daily)
        assert (await refused(guest.play_duplicate(daily[0].set_id))).code == "not_logged_in"
        made = await ann.create_duplicate_set("scopa", "easy", boards=2, minutes=30)
        sid = made.set_id
        assert made.next_board == 1 and made.players == 0
        joined = await ann.play_duplicate(sid)  # board 1 once, not at two tables
        again = await refused(ann.play_duplicate(sid))
        assert again.code == "already_seated" and again.detail == joined.table.id
        await play_table(ann, joined.table.id, random_chooser(1))
        await asyncio.wait_for(dup_server.record_writer.drain(), 10.0)
        first = joined.table.id
        assert (await refused(bea.duplicate_board(sid, 1))).code == "board_not_played"
        assert (await refused(ann.spectate(first))).code in ("forbidden", "not_found")
        await play_board(dup_server, ann, sid, 2)
        assert (await refused(ann.play_duplicate(sid))).code == "board_out_of_order"
        # Bea has not played board 1: nothing of it reaches her
        assert (await refused(bea.duplicate_board(sid, 1))).code == "board_not_played"
        standings = await bea.duplicate_standings(sid)
        assert [(s.name, s.boards) for s in standings.standings] == [("Ann", 2)]
        bea_table = await play_board(dup_server, bea, sid, 3)
        report = await bea.duplicate_board(sid, 1)
        assert sorted(r.name for r in report.results) == ["Ann", "Bea"]
        assert sorted(r.matchpoints for r in report.results) in ([0, 2], [1, 1])
        assert len(report.replays) == 1 and report.replays[0].table == first
        # the same deal at both tables: each one's replay of the other opens alike
        theirs = await ann.duplicate_board(sid, 1)
        assert theirs.replays[0].table == bea_table
        assert theirs.replays[0].start_events == report.replays[0].start_events
        assert (await refused(ann.duplicate_board(sid, 3))).code == "board_out_of_order"
        forged = {"seat": 0, "duplicate": {"set_id": sid, "board": 1}}
        assert (await refused(ann.create_table("scopa", forged))).code == "bad_options"
        table = await bea.duplicate_standings(sid)
        assert {s.name for s in table.standings} == {"Ann", "Bea"}
        assert bea_table != first
        record_id = f"{first}.1"
        assert (await refused(ann.game_record(record_id))).code == "forbidden"


async def test_the_result_is_written_once_with_the_game(dup_server: CardaviaServer) -> None:
    async with await Client.connect(dup_server.url, "Ann") as ann:
        await ann.register("Ann", PASSWORD)
        made = await ann.create_duplicate_set("doudizhu", "easy", boards=1, minutes=30)
        joined = await ann.play_duplicate(made.set_id)
        table = joined.table.id
        await play_table(ann, table, random_chooser(4))
        await asyncio.wait_for(dup_server.record_writer.drain(), 10.0)
        core = dup_server.lobby.tables[table].core if table in dup_server.lobby.tables else None
        store = dup_server.duplicate.store
        before = await store.standings(made.set_id)
        assert len(before) == 1 and before[0].boards == 1
        if core is not None:  # written again (a restart's second write): no change
            assert not await dup_server.records.write(game_record(core))
        assert await store.standings(made.set_id) == before
        assert (await refused(ann.duplicate_board(made.set_id, 2))).code == "board_out_of_order"
        sets = (await ann.duplicate_sets("doudizhu")).sets
        assert [s.next_board for s in sets if s.set_id == made.set_id] == [None]


async def test_a_board_left_mid_play_is_played_out_by_the_ai_and_counts(
    dup_server: CardaviaServer,
) -> None:
    """Leaving a board mid-play does not close its table: the AI plays it to its end and
    the result is the leaver's, so the board is never dealt again to someone who has
    seen its cards; asking for it meanwhile is refused."""
    async with await Client.connect(dup_server.url, "Ann") as ann:
        await ann.register("Ann", PASSWORD)
        made = await ann.create_duplicate_set("scopa", "easy", boards=2, minutes=30)
        joined = await ann.play_duplicate(made.set_id)
        table = joined.table.id
        actor = dup_server.lobby.tables[table]
        for _ in range(200):  # the deal is under way
            if actor.core.status == "playing":
                break
            await asyncio.sleep(0.01)
        assert actor.core.status == "playing"
        await ann.leave(table)
        asked = 0
        nxt = None
        while not actor.closed and actor.core.status == "playing":
            try:
                dealt = await ann.play_duplicate(made.set_id)
            except ServerError as again:
                if actor.core.status == "playing":  # (else it ended meanwhile, not stored)
                    assert again.code == "already_seated" and again.detail == table
                    asked += 1
            else:  # the deal ended during the request: the answer is the next board
                assert actor.core.status == "finished"
                nxt = dealt
                break
            await asyncio.sleep(0.05)
        assert asked > 0
        for _ in range(400):  # the AI finishes the deal, then the table closes
            if actor.closed:
                break
            await asyncio.sleep(0.025)
        assert actor.closed and actor.core.status == "finished"
        await asyncio.wait_for(dup_server.record_writer.drain(), 10.0)
        standings = await ann.duplicate_standings(made.set_id)
        assert [(s.name, s.boards) for s in standings.standings] == [("Ann", 1)]
        if nxt is None:
            nxt = await ann.play_duplicate(made.set_id)  # board 2 now, not board 1 again
        assert nxt.table.id != table
        assert dup_server.lobby.tables[nxt.table.id].core.setup.options.duplicate.board == 2


async def test_the_next_board_waits_for_the_last_one_to_be_stored(
    dup_server: CardaviaServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A board's result is written in the background after its game; asked for the
    next board at once, the server waits for that write rather than reading the board
    as unplayed and dealing it again."""
    records = dup_server.record_writer.records
    real = records.write

    async def slow_write(record: object, *args: object, **kwargs: object) -> object:
        await asyncio.sleep(0.5)
        return await real(record, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(records, "write", slow_write)
    async with await Client.connect(dup_server.url, "Ann") as ann:
        await ann.register("Ann", PASSWORD)
        made = await ann.create_duplicate_set("scopa", "easy", boards=2, minutes=30)
        first = await ann.play_duplicate(made.set_id)
        await play_table(ann, first.table.id, random_chooser(5))
        await ann.leave(first.table.id)
        nxt = await ann.play_duplicate(made.set_id)  # the write is still under way
        ref = dup_server.lobby.tables[nxt.table.id].core.setup.options.duplicate
        assert ref is not None and ref.board == 2
