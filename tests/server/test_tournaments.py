"""Tournaments on a running server (issue 56): bot clients registered, seated each round,
playing to the end; Duplicate Swiss deals; reserved seats; typed errors."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from client_cli.client import Client, ServerError, random_chooser
from client_cli.tournament import bot_player, play_tournament
from protocol import client_messages as cm
from protocol import server_messages as sm
from protocol.errors import ErrorCode
from server.app import CardaviaServer
from server.tables.options import RequestError
from server.tournaments.pairing import PairedTable, cross_table_matchpoints

PASSWORD = "tournament password 1"


async def players(server: CardaviaServer, names: list[str]) -> list[Client]:
    out = []
    for name in names:
        client = await Client.connect(server.url, "x")
        await client.register(name, PASSWORD)
        out.append(client)
    return out


def fast(server: CardaviaServer) -> None:
    server.tournaments.period = 0.1
    server.tournaments.director.seating.absent_fill = 2.0  # type: ignore[attr-defined]


def swiss(kind: cm.TournamentKind = "swiss", rounds: int = 2) -> cm.CreateTournament:
    return cm.CreateTournament(
        name="Friday", game="doudizhu", kind=kind, starts_at=time.time() + 1.0, rounds=rounds
    )


async def run_all(clients: list[Client], tournament: str) -> list[sm.Standings]:
    async def one(i: int, c: Client) -> sm.Standings:
        run = await play_tournament(c, tournament, bot_player(random_chooser(i)), register=False)
        return run.standings

    return await asyncio.wait_for(asyncio.gather(*(one(i, c) for i, c in enumerate(clients))), 90)


async def test_a_swiss_seats_everyone_each_round_and_finishes(server: CardaviaServer) -> None:
    fast(server)
    clients = await players(server, ["Ann", "Bo", "Cy", "Di"])
    made = await clients[0].create_tournament(swiss())
    assert made.status == "scheduled" and made.players == 0
    for c in clients:
        await c.register_tournament(made.id)
    listed = await clients[0].tournaments()
    assert [(t.id, t.players, t.registered) for t in listed] == [(made.id, 4, True)]
    results = await run_all(clients, made.id)
    final = results[0]
    assert final.tournament.status == "finished" and final.tournament.round == 2
    assert sorted(s.games for s in final.standings) == [2, 2, 2, 2]
    assert [s.rank for s in final.standings] == [1, 2, 3, 4]
    store = server.tournaments.store
    tables = await store.tables(made.id)
    # four players at three seats: two tables a round, each with one AI seat
    assert [(t.round, t.number) for t in tables] == [(1, 1), (1, 2), (2, 1), (2, 2)]
    assert all(t.seats.count(None) == 1 and t.results is not None for t in tables)
    assert all(t.table_id == f"{made.id}-r{t.round}-t{t.number}" for t in tables)
    record = await clients[0].game_record(tables[0].table_id + ".1")
    assert record.seed != 0
    for c in clients:
        await c.close()


async def test_duplicate_swiss_tables_of_a_round_deal_the_same_cards(
    server: CardaviaServer,
) -> None:
    fast(server)
    clients = await players(server, ["Ann", "Bo", "Cy", "Di", "Ed", "Flo"])
    made = await clients[0].create_tournament(swiss("duplicate-swiss", 2))
    for c in clients:
        await c.register_tournament(made.id)
    final = (await run_all(clients, made.id))[0]
    store = server.tournaments.store
    tables = await store.tables(made.id)
    assert len(tables) == 4 and all(None not in t.seats for t in tables)
    for round_no in (1, 2):
        seeds = {
            (await clients[0].game_record(t.table_id + ".1")).seed
            for t in tables
            if t.round == round_no
        }
        assert len(seeds) == 1
    # scored across the tables: each seat's result against the other table's same seat
    games = [g for g in (t.game_result() for t in tables) if g is not None]
    expected = cross_table_matchpoints("doudizhu", games)
    names = {e.account_id: e.name for e in await store.entries(made.id)}
    shown = {line.name: line.matchpoints for line in final.standings}
    assert shown == {names[p]: n for p, n in expected.items()}
    mps = [line.matchpoints or 0 for line in final.standings]
    assert mps == sorted(mps, reverse=True)  # ranked by matchpoints first
    assert sum(mps) == 2 * 3 * 2  # two rounds, three seats, one comparison each (2 points)
    # round 2 was paired by round 1's matchpoints: the leader heads table 1
    first = cross_table_matchpoints("doudizhu", [g for g in games if g.round == 1])
    entries = await store.entries(made.id)
    leader = min(entries, key=lambda e: (-first[e.account_id], e.entry_no)).account_id
    assert leader in next(t for t in tables if (t.round, t.number) == (2, 1)).players
    for c in clients:
        await c.close()


async def expect_error(call: Any, code: str) -> None:
    try:
        await call
    except ServerError as exc:
        assert exc.code == code, exc
    else:
        raise AssertionError(f"expected {code}")


async def test_bad_requests_get_typed_errors_and_change_nothing(server: CardaviaServer) -> None:
    fast(server)
    anon = await Client.connect(server.url, "anon")
    await expect_error(anon.create_tournament(swiss()), "not_logged_in")
    await expect_error(anon.register_tournament("Tnope"), "not_logged_in")
    ann, bo, cy = await players(server, ["Ann", "Bo", "Cy"])
    await expect_error(ann.register_tournament("Tnope"), "not_found")
    await expect_error(ann.standings("Tnope"), "not_found")
    bad = swiss().model_copy(update={"game": "chess"})
    await expect_error(ann.create_tournament(bad), "unknown_game")
    arena_rounds = swiss("arena")
    await expect_error(ann.create_tournament(arena_rounds), "bad_options")
    assert await ann.tournaments() == ()
    made = await ann.create_tournament(swiss(rounds=1))
    await expect_error(ann.withdraw_tournament(made.id), "not_found")
    for c in (ann, bo):
        await c.register_tournament(made.id)
    # the round's table: Cy (not in it) may neither sit nor watch; a player of it may not
    # take another's seat
    table = await ann.wait_for(lambda m: isinstance(m, sm.TournamentTable), 10)
    assert table.table is not None and table.seat is not None
    await expect_error(cy.join(table.table, seat=table.seat), "forbidden")
    await expect_error(bo.spectate(table.table), "forbidden")
    nxt = await bo.next_tournament_table(made.id)
    assert nxt.table == table.table and nxt.seat != table.seat
    for c in (anon, ann, bo, cy):
        await c.close()


async def test_a_round_s_records_stay_hidden_from_who_still_plays_it(
    server: CardaviaServer,
) -> None:
    ann, bo, cy, di = await players(server, ["Ann", "Bo", "Cy", "Di"])
    store = server.tournaments.store
    made = await ann.create_tournament(swiss("duplicate-swiss", 1))
    for c in (ann, bo, cy, di):
        await c.register_tournament(made.id)
    assert await store.start(made.id)
    accounts = [c.account.account_id for c in (ann, bo, cy, di) if c.account]
    tables = [
        PairedTable(1, (accounts[0], accounts[1]), 1),
        PairedTable(2, (accounts[2], accounts[3]), 1),
    ]
    orders = [(accounts[0], accounts[1], None), (accounts[2], accounts[3], None)]
    assert await store.pair_round(made.id, 0, tables, orders, time.time())
    await server.tournaments.keeper.run_pass()
    keeper = server.tournaments.keeper
    first = f"{made.id}-r1-t1.1"
    cy_player = next(p for p in server.sessions.of_account(accounts[2]))
    ann_player = next(p for p in server.sessions.of_account(accounts[0]))
    try:
        await keeper.check_record(cy_player, first)
    except RequestError as exc:
        assert exc.code is ErrorCode.FORBIDDEN
    else:
        raise AssertionError("Cy still plays the round's deal")
    await keeper.check_record(ann_player, first)  # her own table's game
    await keeper.check_record(cy_player, "abcdefgh.1")  # not a tournament's
    # nor do the standings show how table 1 scored the deal table 2 still plays
    assert await store.set_results(f"{made.id}-r1-t1", [[1, 9, 1], [0, -9, 1], [0, 0, 0]])
    shown = await cy.standings(made.id)
    assert all(line.games == 0 and not line.matchpoints for line in shown.standings)
    assert await store.set_results(f"{made.id}-r1-t2", [[0, -3, 1], [1, 3, 1], [0, 0, 0]])
    server.tournaments._standings.clear()  # kept 1 s: read afresh
    shown = await cy.standings(made.id)
    assert sorted(line.games for line in shown.standings) == [1, 1, 1, 1]
    assert sum(line.matchpoints or 0 for line in shown.standings) > 0
    for c in (ann, bo, cy, di):
        await c.close()


async def test_an_arena_pairs_players_again_as_they_finish_until_its_end(
    server: CardaviaServer,
) -> None:
    fast(server)
    server.tournaments.director.arena_min_wait = 0.2
    server.tournaments.director.arena_ai_wait = 1.0
    clients = await players(server, ["Ann", "Bo", "Cy", "Di"])
    made = await clients[0].create_tournament(
        cm.CreateTournament(
            name="Blitz", game="doudizhu", kind="arena", starts_at=time.time(), duration=10
        )
    )
    assert made.duration == 10 and made.rounds is None
    for c in clients:
        await c.register_tournament(made.id)
    final = (await run_all(clients, made.id))[0]
    assert final.tournament.status == "finished"
    tables = await server.tournaments.store.tables(made.id)
    assert all(t.results is not None for t in tables)
    assert min(s.games for s in final.standings) >= 2  # paired again after each game
    # nobody was paired twice in one pass (a pass makes the tables of one "round")
    per_player: dict[str, list[float]] = {}
    for t in tables:
        for p in t.players:
            per_player.setdefault(p, []).append(float(t.round))
    assert all(len(v) == len(set(v)) for v in per_player.values())
    for c in clients:
        await c.close()


async def test_withdrawn_players_are_not_paired_and_an_empty_swiss_ends_at_its_start(
    server: CardaviaServer,
) -> None:
    fast(server)
    clients = await players(server, ["Ann", "Bo", "Cy", "Di"])
    made = await clients[0].create_tournament(swiss(rounds=1))
    empty = await clients[0].create_tournament(swiss(rounds=3))
    for c in clients:
        await c.register_tournament(made.id)
    await clients[3].withdraw_tournament(made.id)
    store = server.tournaments.store
    async with asyncio.timeout(10):
        while (await store.get(made.id)).round == 0 or (
            await store.get(empty.id)
        ).status.value != "finished":
            await asyncio.sleep(0.05)
    tables = await store.tables(made.id, 1)
    accounts = {c.account.account_id for c in clients[:3] if c.account}
    assert len(tables) == 1 and set(tables[0].seats) == accounts  # three people, no AI
    standings = await clients[3].standings(made.id)
    assert standings.tournament.players == 3 and not standings.tournament.registered
    assert (await store.tables(empty.id)) == ()
    for c in clients:
        await c.close()


def test_a_tournament_table_always_has_a_time_per_turn() -> None:
    from server.tournaments.seating import DEFAULT_TURN_TIMER, table_options
    from server.tournaments.store import Kind, RoundTable, Status, Tournament

    t = Tournament(
        "T1", "x", "scopa", Kind.ARENA, Status.RUNNING, 0.0, None, 600, None, "normal", 1, None, 2
    )
    table = RoundTable("T1", 1, 1, "T1-r1-t1", ("a", None), 0.0, None)
    options = table_options(t, table, 60.0)
    assert options.turn_timer == DEFAULT_TURN_TIMER and options.rated and not options.hints
    assert [a.seat for a in options.ai] == [1]
    timed = table_options(
        Tournament(
            "T1", "x", "scopa", Kind.SWISS, Status.RUNNING, 0.0, 3, None, 20.0, "hard", 1, None, 2
        ),
        table,
        60.0,
    )
    assert timed.turn_timer == 20.0 and timed.ai[0].level == "hard"
