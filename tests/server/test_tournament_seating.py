"""Tournaments on a running server (issue 56), continued: seating (once per table, by
the person's own process), withdrawal during a round, the quota on creating them, and
standings read by many at once."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from client_cli.client import ServerError, random_chooser
from client_cli.tournament import bot_player
from protocol import server_messages as sm
from server.app import CardaviaServer
from tests.server.test_tournaments import fast, players, run_all, swiss


async def test_an_account_creates_no_more_tournaments_than_its_quota(
    server: CardaviaServer,
) -> None:
    (ann,) = await players(server, ["Ann"])
    cap = server.config.max_tournaments_per_account
    for _ in range(cap):
        await ann.create_tournament(swiss())
    try:
        await ann.create_tournament(swiss())
    except ServerError as exc:
        assert exc.code == "quota_exceeded" and exc.detail == "max_tournaments_per_account"
    else:
        raise AssertionError("one tournament too many")
    assert len(await ann.tournaments()) == cap  # nothing created by the refusal
    await ann.close()


async def test_the_seat_keeper_seats_its_own_sessions_once() -> None:
    from server.cluster.bus import RemoteLink
    from server.players.accounts import Account
    from server.players.sessions import Player, Sessions
    from server.tournaments.seating import SeatKeeper, SeatRequest
    from server.tournaments.store import RoundTable

    table = RoundTable("T1", 1, 1, "T1-r1-t1", ("acc-ann", "acc-bo"), 0.0, None)

    class Pending:
        async def pending(self) -> tuple[RoundTable, ...]:
            return (table,)

    class Link:
        def send(self, message: Any) -> None:
            sent.append(message)

        def close(self, code: int, reason: str) -> None:
            raise AssertionError("not closed")

    sent: list[Any] = []
    sessions = Sessions()
    ann = Player("p_ann", "Ann", "token-ann", account=Account("acc-ann", "Ann", False))
    ann.link = Link()  # type: ignore[assignment]
    sessions.adopt(ann)
    # Bo is connected to another process: here, a stand-in the tables deliver through
    bo = Player("p_bo", "Bo", "", account=Account("acc-bo", "Bo", False))
    bo.link = RemoteLink(None, "other-node", "p_bo")  # type: ignore[arg-type]
    sessions.adopt(bo, by_token=False)
    asked: list[SeatRequest] = []

    async def join(request: SeatRequest) -> None:
        asked.append(request)

    clock = [0.0]
    keeper = SeatKeeper(Pending(), sessions, join, clock=lambda: clock[0])  # type: ignore[arg-type]
    assert await keeper.run_pass() == 1
    assert [(r.player.player_id, r.seat) for r in asked] == [("p_ann", 0)]
    assert [type(m) for m in sent] == [sm.TournamentTable]
    # seated, she plays her game and leaves it; the table waits a moment for its results:
    # she is not seated again (nor told of the table again)
    ann.tables[table.table_id] = 0
    clock[0] += 10
    assert await keeper.run_pass() == 0
    del ann.tables[table.table_id]
    clock[0] += 10
    assert await keeper.run_pass() == 0
    assert len(asked) == 1 and len(sent) == 1


async def test_standings_are_computed_once_a_moment_however_many_read_them(
    server: CardaviaServer,
) -> None:
    from server.tournaments.service import STANDINGS_FRESH

    ann, bo = await players(server, ["Ann", "Bo"])
    later = swiss(rounds=1).model_copy(update={"starts_at": time.time() + 600})
    made = await ann.create_tournament(later)  # started by the test, not the director
    await bo.register_tournament(made.id)
    store = server.tournaments.store
    reads: list[str] = []
    tables = store.tables

    async def counted(tournament_id: str, round_no: int | None = None) -> Any:
        reads.append(tournament_id)
        return await tables(tournament_id, round_no)

    store.tables = counted  # type: ignore[method-assign]
    first = await ann.standings(made.id)
    again = await bo.standings(made.id)
    assert len(reads) == 1 and first.standings == again.standings
    assert not first.tournament.registered and again.tournament.registered  # per reader
    await asyncio.sleep(STANDINGS_FRESH)
    assert [s.name for s in (await ann.standings(made.id)).standings] == ["Bo"]
    assert len(reads) == 2  # computed again once stale
    assert await store.start(made.id)  # the status moved on: computed again at once
    assert (await ann.standings(made.id)).tournament.status == "running"
    assert len(reads) == 3
    store.tables = tables  # type: ignore[method-assign]
    for c in (ann, bo):
        await c.close()


async def test_a_player_who_withdraws_during_a_round_plays_it_out_and_is_paired_no_more(
    server: CardaviaServer,
) -> None:
    fast(server)
    clients = await players(server, ["Ann", "Bo", "Cy", "Di"])
    made = await clients[0].create_tournament(swiss(rounds=2))
    for c in clients:
        await c.register_tournament(made.id)
    di = clients[3]

    async def withdraw_then_play() -> None:
        seated = await di.wait_for(lambda m: isinstance(m, sm.TournamentTable), 20)
        await di.withdraw_tournament(made.id)  # during round 1: the table plays on
        table = seated.table
        assert table is not None
        await di.wait_for(lambda m: isinstance(m, sm.Joined) and m.table.id == table, 20)
        await bot_player(random_chooser(9))(di, table)
        await di.leave(table)

    others = asyncio.ensure_future(run_all(clients[:3], made.id))
    await asyncio.wait_for(withdraw_then_play(), 60)
    final = (await others)[0]
    store = server.tournaments.store
    di_account = di.account.account_id if di.account else ""
    assert di_account in {p for t in await store.tables(made.id, 1) for p in t.players}
    assert di_account not in {p for t in await store.tables(made.id, 2) for p in t.players}
    line = next(s for s in final.standings if s.name == "Di")
    assert line.withdrawn and line.games == 1  # the round they played counts
    assert final.tournament.players == 3
    for c in clients:
        await c.close()
