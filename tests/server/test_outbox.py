"""server.net.outbox: a newer table summary replaces an older one still queued, never past a
game's message; on a real connection, the client reads only the newest."""

from __future__ import annotations

import msgpack  # type: ignore[import-untyped]
from websockets.asyncio.client import connect

from protocol import server_messages as sm
from protocol.codec import Frame, encode
from server.app import CardaviaServer
from server.net.outbox import Queued, drop_superseded, kind_of, summarised_table
from tests.server.helpers import make_core, next_message


def _summary(table: str, votes: tuple[int, ...] = ()) -> sm.TableChanged:
    core = make_core("scopa")
    info = core.info().model_copy(update={"id": table, "rematch_votes": votes})
    return sm.TableChanged(table=info)


def _update(table: str) -> Queued:
    """The first update of a Scopa game at ``table``."""
    core = make_core("scopa")
    core.join("p0", "P0", 0, 0.0)
    started = core.join("p1", "P1", 1, 0.0)  # fills the table: its game starts
    update = next(m for _, m in started.outs if kind_of(m) is sm.Update)
    assert isinstance(update, Frame) and isinstance(update.message, sm.Update)
    return update.message.model_copy(update={"table": table})


def test_the_newest_summary_of_a_table_replaces_the_one_queued() -> None:
    ok = sm.Ok(ref=3)
    older, other = Frame.of(_summary("t1")), _summary("t2")
    outbox: list[Queued] = [older, ok, other]
    assert drop_superseded(outbox, "t1")
    assert outbox == [ok, other]  # the reply and the other table's summary stay
    assert not drop_superseded(outbox, "t1")  # nothing left to drop
    assert outbox == [ok, other]


def test_a_summary_is_never_moved_past_a_games_message() -> None:
    for game_message in (_update("t1"), _update("t9")):
        summary = _summary("t1")
        outbox: list[Queued] = [summary, game_message]
        assert not drop_superseded(outbox, "t1")
        assert outbox == [summary, game_message]
    # an older summary before an update stays; so does the one after it, until replaced
    first, update, second = _summary("t1"), _update("t1"), _summary("t1", (0,))
    outbox = [first, update, second]
    assert drop_superseded(outbox, "t1")
    assert outbox == [first, update]


def test_messages_are_told_apart_without_decoding_frames() -> None:
    summary = _summary("t1")
    assert summarised_table(summary) == "t1"
    assert summarised_table(Frame.of(summary)) == "t1"
    assert summarised_table(sm.Ok(ref=1)) is None
    relayed = Frame(None, encode(summary))  # from another process: left as it is
    assert kind_of(relayed) is None and summarised_table(relayed) is None
    outbox: list[Queued] = [relayed]
    assert not drop_superseded(outbox, "t1") and outbox == [relayed]


async def test_a_client_reads_only_the_newest_summary_queued_in_one_turn(
    server: CardaviaServer,
) -> None:
    async with connect(server.url, compression=None) as ws:
        await ws.send(msgpack.packb({"type": "hello", "id": 1, "version": 1, "name": "Ann"}))
        welcome = await next_message(ws)
        link = server.sessions.get(welcome["player_id"]).link  # type: ignore[union-attr]
        assert link is not None
        superseded = server.metrics.counter("cardavia_summaries_superseded_total")
        before = superseded.value
        # queued in one callback, as a turn of the loop that handles several changes does
        link.send(Frame.of(_summary("t1", (0,))))
        link.send(sm.Ok(ref=5))
        link.send(Frame.of(_summary("t1", (0, 1))))
        link.send(Frame.of(_summary("t2")))
        link.send(sm.Ok(ref=6))
        seen = [await next_message(ws) for _ in range(4)]
        assert [(m["type"], m.get("ref")) for m in seen] == [
            ("ok", 5), ("table", None), ("table", None), ("ok", 6)
        ]  # fmt: skip
        assert (seen[1]["table"]["id"], seen[1]["table"]["rematch_votes"]) == ("t1", [0, 1])
        assert seen[2]["table"]["id"] == "t2"
        assert superseded.value == before + 1
        # written meanwhile: the next summary has nothing queued to replace
        link.send(Frame.of(_summary("t1", (1,))))
        assert (await next_message(ws))["table"]["rematch_votes"] == [1]
        assert superseded.value == before + 1
