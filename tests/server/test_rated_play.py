"""Rated quick play on one server (memory store): the queue, its errors, the tables it makes."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Collection
from typing import Any

import pytest

from client_cli.client import Client
from protocol import client_messages as cm
from protocol import server_messages as sm
from protocol.codec import encode
from protocol.errors import ErrorCode
from server.app import CardaviaServer
from server.ratings import rated_play
from server.ratings.model import SCALE, Rating
from server.tables.core import TableCore
from server.tables.options import RequestError

PASSWORD = "rated password 1"
_ids = itertools.count(10_000)


class Fixed:
    """Ratings by account id (``points`` on the shown scale); the others are newcomers."""

    def __init__(self, points: dict[str, int]) -> None:
        self.points = points

    async def ratings(self, game: str, keys: Collection[str]) -> dict[str, Rating]:
        return {
            k: Rating(mu=25.0 + (self.points[k] - 1500) / SCALE, sigma=3.0, games=40)
            for k in keys
            if k in self.points
        }


async def ask(client: Client, msg: Any) -> Any:
    """Send ``msg`` with a fresh id; its answer (``error`` included)."""
    rid = next(_ids)
    await client.send_raw(encode(msg.model_copy(update={"id": rid})))
    return await client.wait_for(lambda m: getattr(m, "ref", None) == rid, 10)


async def account(server: CardaviaServer, name: str) -> Client:
    client = await Client.connect(server.url, "x")
    await client.register(name, PASSWORD)
    return client


def rated(game: str, **kw: Any) -> cm.QuickPlay:
    return cm.QuickPlay(game=game, rated=True, **kw)


async def test_two_players_of_close_rating_get_one_rated_table(server: CardaviaServer) -> None:
    ann, bo = await account(server, "Ann"), await account(server, "Bo")
    assert ann.account is not None and bo.account is not None
    server.rated.ratings = Fixed({ann.account.account_id: 1600, bo.account.account_id: 1650})
    server.rated.fill_wait = 5.0  # long enough for Bo to come: no AI
    queued = await ask(ann, rated("scopa"))
    assert isinstance(queued, sm.Queued)
    assert (queued.game, queued.rating, queued.wait) == ("scopa", 1600, 5.0)
    assert isinstance(await ask(bo, rated("scopa")), sm.Queued)
    a = await ann.wait_for(lambda m: isinstance(m, sm.Joined), 5)
    b = await bo.wait_for(lambda m: isinstance(m, sm.Joined), 5)
    assert a.table.id == b.table.id and a.table.rated and {a.seat, b.seat} == {0, 1}
    assert not a.table.hints
    # nobody is left in the queue once the table has stored their seats
    async with asyncio.timeout(2):
        while await server.rated.queue.find(ann.account.account_id) is not None:
            await asyncio.sleep(0.01)
        while not server.metrics.value("cardavia_rated_tables_total", game="scopa", ai="no"):
            await asyncio.sleep(0.01)
    assert isinstance(await ask(ann, cm.LeaveQueue()), sm.Error)
    await ann.close()
    await bo.close()


async def test_refusals_are_typed_and_change_nothing(server: CardaviaServer) -> None:
    guest = await Client.connect(server.url, "guest")
    refused = await ask(guest, rated("scopa"))
    assert isinstance(refused, sm.Error) and refused.code == ErrorCode.NOT_LOGGED_IN
    ann = await account(server, "Ann")
    for msg, code in (
        (rated("scopa", level="easy"), ErrorCode.BAD_OPTIONS),
        (rated("scopa", partner="Bo"), ErrorCode.BAD_OPTIONS),
        (rated("nope"), ErrorCode.UNKNOWN_GAME),
        (cm.LeaveQueue(), ErrorCode.NOT_QUEUED),
    ):
        answer = await ask(ann, msg)
        assert isinstance(answer, sm.Error) and answer.code == code, msg
    assert isinstance(await ask(ann, rated("cicera")), sm.Queued)
    again = await ask(ann, rated("scopa"))
    assert isinstance(again, sm.Error) and again.code == ErrorCode.ALREADY_QUEUED
    assert again.detail == "cicera"
    wrong = await ask(ann, cm.LeaveQueue(game="scopa"))
    assert isinstance(wrong, sm.Error) and wrong.code == ErrorCode.NOT_QUEUED
    assert isinstance(await ask(ann, cm.LeaveQueue(game="cicera")), sm.Ok)
    # seated in a game that is not over: not queued
    table = (await ann.create_table("scopa", {"seat": 0, "ai": [{"seat": 1}]})).table.id
    busy = await ask(ann, rated("scopa"))
    assert isinstance(busy, sm.Error) and busy.code == ErrorCode.ALREADY_SEATED
    assert busy.detail == table
    await guest.close()
    await ann.close()


async def test_after_the_wait_the_closest_ai_level_takes_the_other_seats(
    server: CardaviaServer,
) -> None:
    ann = await account(server, "Ann")
    assert ann.account is not None
    server.rated.ratings = Fixed(
        {ann.account.account_id: 1190, "ai-easy": 1200, "ai-normal": 1500, "ai-hard": 1800}
    )
    assert isinstance(await ask(ann, rated("doudizhu")), sm.Queued)
    joined = await ann.wait_for(lambda m: isinstance(m, sm.Joined), 5)
    seats = joined.table.seats
    assert joined.table.rated
    ai = [s for s in seats if s.kind == "ai"]
    assert len(ai) == 2 and {s.level for s in ai} == {"easy"}
    await ann.close()


async def test_blocked_players_are_never_seated_together_and_bots_only_with_who_opts_in(
    server: CardaviaServer,
) -> None:
    server.rated.fill_wait = 1.0
    ann, bo = await account(server, "Ann"), await account(server, "Bo")
    await ann.block(bo.player_id)
    owner = await account(server, "Owner")
    bot = await owner.create_bot("Robo")
    token = await owner.create_api_token(bot.account_id, "t")
    robo = await Client.connect(server.url, "x")
    await robo.bot_login(token.token)
    for client in (ann, bo, robo):
        assert isinstance(await ask(client, rated("scopa")), sm.Queued)
    tables = {}
    for name, client in (("ann", ann), ("bo", bo), ("robo", robo)):
        joined = await client.wait_for(lambda m: isinstance(m, sm.Joined), 5)
        tables[name] = joined.table
    # nobody opted in to bots and Ann blocks Bo: three tables, each with the AI
    assert len({t.id for t in tables.values()}) == 3
    assert all(any(s.kind == "ai" for s in t.seats) for t in tables.values())
    robo_seat = next(s for s in tables["robo"].seats if s.kind == "human")
    assert robo_seat.bot  # labelled
    # Carl opts in: he meets the bot
    carl = await account(server, "Carl")
    await robo.leave(tables["robo"].id)  # the AI plays its seat on
    assert isinstance(await ask(robo, rated("cicera")), sm.Queued)
    assert isinstance(await ask(carl, rated("cicera", with_bots=True)), sm.Queued)
    carl_joined = await carl.wait_for(lambda m: isinstance(m, sm.Joined), 5)
    humans = [s for s in carl_joined.table.seats if s.kind == "human"]
    assert {s.name for s in humans} == {"Carl", "Robo"}
    assert [s.bot for s in humans if s.name == "Robo"] == [True]
    for client in (ann, bo, robo, carl, owner):
        await client.close()


async def test_a_resumed_session_hears_it_is_still_queued(server: CardaviaServer) -> None:
    server.rated.fill_wait = 60.0
    ann = await account(server, "Ann")
    queued = await ask(ann, rated("schafkopf"))
    assert isinstance(queued, sm.Queued)
    token = ann.token
    await ann.close()
    again = await Client.connect(server.url, "x", token=token)
    told = await again.wait_for(lambda m: isinstance(m, sm.Queued), 5)
    assert told.ref is None and told.since == queued.since and told.game == "schafkopf"
    assert isinstance(await ask(again, cm.LeaveQueue()), sm.Ok)
    await again.close()


async def test_a_session_that_ends_leaves_the_queue(server: CardaviaServer) -> None:
    server.rated.fill_wait = 60.0
    ann = await account(server, "Ann")
    assert ann.account is not None
    key = ann.account.account_id
    assert isinstance(await ask(ann, rated("scopa")), sm.Queued)
    assert await server.rated.queue.find(key) is not None
    await ann.logout()
    assert await server.rated.queue.find(key) is None
    await ann.close()


async def test_a_queued_player_who_sits_down_elsewhere_is_seated_after_that_game(
    server: CardaviaServer,
) -> None:
    server.rated.fill_wait = 0.5
    ann = await account(server, "Ann")
    table = (await ann.create_table("scopa", {"seat": 0})).table.id  # waits for another
    busy = await ask(ann, rated("scopa"))
    assert isinstance(busy, sm.Error) and busy.code == ErrorCode.ALREADY_SEATED
    await ann.leave(table)
    assert isinstance(await ask(ann, rated("scopa")), sm.Queued)
    casual = (await ann.create_table("scopa", {"seat": 0, "ai": [{"seat": 1}]})).table.id
    with pytest.raises(TimeoutError):  # past the wait: not seated while she plays
        await ann.wait_for(lambda m: isinstance(m, sm.Joined) and m.table.rated, 1.5)
    await ann.leave(casual)  # the AI plays her seat on; she is free
    joined = await ann.wait_for(lambda m: isinstance(m, sm.Joined) and m.table.rated, 5)
    assert joined.table.id != casual
    await ann.close()


async def test_a_refused_seat_goes_to_the_ai_and_its_player_waits_again(
    server: CardaviaServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Should a table refuse a matched player's join, the others do not wait on the empty
    seat (the AI takes it) and the player is queued again, soon seated elsewhere."""
    server.rated.fill_wait = 1.0
    monkeypatch.setattr(rated_play, "EMPTY_SEAT_FILL", 0.3)
    ann, bo = await account(server, "Ann"), await account(server, "Bo")
    join = TableCore.join
    refused: list[str] = []

    def refusing(self: TableCore, player_id: str, *args: Any, **kw: Any) -> Any:
        if player_id == bo.player_id and not refused:
            refused.append(self.id)
            raise RequestError(ErrorCode.FORBIDDEN, "refused by the test")
        return join(self, player_id, *args, **kw)

    monkeypatch.setattr(TableCore, "join", refusing)
    assert isinstance(await ask(ann, rated("scopa")), sm.Queued)
    assert isinstance(await ask(bo, rated("scopa")), sm.Queued)
    first = await ann.wait_for(lambda m: isinstance(m, sm.Joined), 5)
    assert refused == [first.table.id]
    started = await ann.wait_for(
        lambda m: isinstance(m, sm.TableChanged) and m.table.status == "playing", 5
    )
    assert [s.kind for s in started.table.seats].count("ai") == 1  # Bo's seat
    again = await bo.wait_for(lambda m: isinstance(m, sm.Joined), 5)
    assert again.table.id != first.table.id and again.table.rated
    await ann.close()
    await bo.close()
