"""The ``view_changes`` feature: updates carry only the fields of the view that changed
since the view the connection was last sent for that table in the same game."""

from __future__ import annotations

import asyncio
import itertools
import random
from typing import Any

import msgpack  # type: ignore[import-untyped]
import pytest
from websockets.asyncio.client import ClientConnection, connect

from engine.codec import to_plain
from engine.registry import GAMES
from protocol import server_messages as sm
from protocol.codec import Frame, encode
from server.app import CardaviaServer
from server.net import view_changes
from server.net.outbox import kind_of
from server.net.view_changes import MAX_TABLES, ViewsSent, changed_fields
from server.tables.core import TableCore
from tests.server.helpers import make_core, next_message

# -- one connection's record, without sockets --------------------------------------------


def _playing(game: str = "schafkopf") -> TableCore:
    core = make_core(game, seed=5)
    core.spectate("w", "W", 0.0)
    for seat in range(core.game.num_seats(core.setup.game_options)):
        core.join(f"p{seat}", f"P{seat}", seat, 0.0)
    return core


def _move(core: TableCore) -> dict[str, Frame]:
    """One legal move; the update each player (and the watcher ``w``) gets."""
    (seat,) = core.game.to_act(core.state)
    action = to_plain(core.game.legal_actions(core.state, seat)[0])
    eff = core.act(f"p{seat}", seat, core.version, action, "human", 0.0)
    return {pid: m for pid, m in eff.outs if isinstance(m, Frame) and m.message_type is sm.Update}


def _q(message: Any) -> tuple[Any, Any]:
    """``message`` and its class, as the connection hands them over."""
    return message, kind_of(message)


def _view(message: Any) -> dict[str, Any]:
    view: dict[str, Any] = (message.message if isinstance(message, Frame) else message).view
    return view


def test_each_update_carries_what_changed_and_merges_into_the_whole_view() -> None:
    core = _playing()
    sent = ViewsSent()
    whole: dict[str, Any] = {}
    snapshot = core.resync("p0", 0.0)[0][1]
    assert isinstance(snapshot, sm.Snapshot)
    assert sent.outgoing(*_q(snapshot)) is snapshot
    whole = dict(snapshot.view)
    smaller = 0
    for _ in range(12):
        update = _move(core)["p0"]
        out = sent.outgoing(*_q(update))
        assert out.message_type is sm.Update  # type: ignore[union-attr]
        fields = out.fields  # type: ignore[union-attr]
        assert fields is not None and fields["version"] == core.version
        assert set(fields["view"]) < set(_view(update))  # the seat's own fields only
        whole.update(fields["view"])
        assert whole == to_plain(core.game.view(core.state, 0))
        smaller += len(out.data) < len(update.data)  # type: ignore[union-attr]
    assert smaller == 12


def test_the_first_update_of_a_connection_and_of_each_game_is_whole() -> None:
    core = _playing("scopa")
    sent = ViewsSent()
    first = _move(core)["p0"]
    assert sent.outgoing(*_q(first)) is first  # nothing sent before: whole
    reduced = sent.outgoing(*_q(_move(core)["p0"]))
    assert set(_view(reduced)) < set(to_plain(core.game.view(core.state, 0)))
    # the same table's next game (game_no 2): whole again
    later = _move(core)["p0"]
    fields = dict(later.fields or {})
    nxt = Frame.of_fields(sm.Update, {**fields, "game_no": fields["game_no"] + 1})
    assert sent.outgoing(*_q(nxt)) is nxt


def test_what_the_connection_cannot_read_or_no_longer_holds_makes_the_update_whole() -> None:
    core = _playing("scopa")
    sent = ViewsSent()
    sent.outgoing(*_q(_move(core)["p0"]))
    relayed = Frame(None, b"\x80")  # from another process: not read here
    assert sent.outgoing(*_q(relayed)) is relayed
    update = _move(core)["p0"]
    assert sent.outgoing(*_q(update)) is update
    for gone in (sm.Left(table="t1"), sm.TableClosed(table="t1", reason="x")):
        sent.outgoing(*_q(gone))
        update = _move(core)["p0"]
        assert sent.outgoing(*_q(update)) is update
    # an update made as a message (not from fields) is reduced too
    message = _move(core)["p0"].message
    assert isinstance(message, sm.Update)
    out = sent.outgoing(*_q(message))
    assert isinstance(out, Frame) and set(_view(out)) < set(message.view)


def test_a_connection_at_too_many_tables_forgets_them() -> None:
    core = _playing("scopa")
    sent = ViewsSent()
    update = _move(core)["p0"]
    fields = update.fields or {}
    for i in range(MAX_TABLES + 1):
        sent.outgoing(*_q(Frame.of_fields(sm.Update, {**fields, "table": f"t{i}"})))
    again = Frame.of_fields(sm.Update, {**fields, "table": "t0"})
    assert sent.outgoing(*_q(again)) is again  # forgotten: whole


def test_changed_fields_by_identity() -> None:
    shared, other = [1, 2], [3]
    assert changed_fields({"a": shared, "b": other}, {"a": shared, "b": other}) == {}
    assert changed_fields({"a": shared, "b": [3]}, {"a": shared, "b": other}) == {"b": [3]}
    assert changed_fields({"a": 1}, {"a": 1, "b": 2}) is None  # fields differ: whole
    assert changed_fields({"a": 1, "c": 2}, {"a": 1, "b": 2}) is None


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_table_notes_what_changed_so_connections_that_got_every_update_compare_nothing(
    game: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each update carries what changed in its seat's view since the seat's last update
    (its hint): a connection that was sent that very view sends just that, and it is
    what comparing the two views field by field gives."""
    core = _playing(game)
    pids = [f"p{seat}" for seat in range(core.game.num_seats(core.setup.game_options))]
    sent = {pid: ViewsSent() for pid in [*pids, "w"]}
    last: dict[str, dict[str, Any]] = {}
    for pid, update in _move(core).items():
        assert sent[pid].outgoing(*_q(update)) is update  # the first: whole
        last[pid] = _fields(update)["view"]
    compared: list[int] = []
    monkeypatch.setattr(view_changes, "changed_fields", lambda *a: compared.append(1))
    for _ in range(30):
        if core.status != "playing":
            break
        for pid, update in _move(core).items():
            view = _fields(update)["view"]
            expected = {k: v for k, v in view.items() if last[pid][k] is not v}
            out = sent[pid].outgoing(*_q(update))
            assert list(_fields(out)["view"].items()) == list(expected.items())
            last[pid] = view
    assert compared == []  # the hints sufficed


def test_a_connection_sent_another_view_than_the_tables_last_compares_the_fields(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    core = _playing("schafkopf")
    _move(core)
    sent = ViewsSent()
    fields = _fields(_move(core)["p0"])
    copy = dict(fields["view"])  # equal, the same plain forms, but not the table's own dict
    sent.outgoing(*_q(Frame.of_fields(sm.Update, {**fields, "view": copy})))
    calls: list[int] = []
    compare = view_changes.changed_fields

    def counted(view: dict[str, Any], last: dict[str, Any]) -> dict[str, Any] | None:
        calls.append(1)
        return compare(view, last)

    monkeypatch.setattr(view_changes, "changed_fields", counted)
    view = _fields(update := _move(core)["p0"])["view"]
    out = _fields(sent.outgoing(*_q(update)))["view"]
    assert calls == [1]
    assert out == {k: v for k, v in view.items() if copy[k] is not v}


def _fields(message: Any) -> dict[str, Any]:
    assert isinstance(message, Frame) and message.fields is not None
    return message.fields


def test_watchers_that_were_sent_the_same_view_share_one_reduced_frame() -> None:
    core = _playing("scopa")
    watchers = [ViewsSent() for _ in range(3)]
    first = _move(core)["w"]
    for w in watchers:
        w.outgoing(*_q(first))
    shared = _move(core)["w"]
    outs = [w.outgoing(*_q(shared)) for w in watchers]
    assert outs[0] is not shared and outs[0] is outs[1] is outs[2]  # reduced once


def test_an_update_nobody_gets_whole_is_never_encoded_whole() -> None:
    core = _playing("scopa")
    sent = ViewsSent()
    sent.outgoing(*_q(_move(core)["p0"]))
    update = _move(core)["p0"]
    out = sent.outgoing(*_q(update))
    assert out is not update
    assert out.data  # type: ignore[union-attr]
    assert update._data is None  # the whole frame was not packed
    assert update.data == encode(update.message)  # nor would it differ from a message's


# -- on real connections ------------------------------------------------------------------


async def _hello(url: str, name: str, features: list[str]) -> ClientConnection:
    ws = await connect(url, compression=None)
    hello = {"type": "hello", "id": 1, "version": 1, "name": name, "features": features}
    await ws.send(msgpack.packb(hello))
    welcome = msgpack.unpackb(await ws.recv())
    assert welcome["features"] == features
    return ws


async def _update(ws: ClientConnection) -> tuple[dict[str, Any], int]:
    while True:
        raw = await asyncio.wait_for(ws.recv(), 10)
        msg: dict[str, Any] = msgpack.unpackb(raw)
        if msg["type"] == "update":
            return msg, len(raw)
        assert msg["type"] in ("table", "ok", "joined", "game_over"), msg


async def test_a_game_seen_with_and_without_the_feature(server: CardaviaServer) -> None:
    """Seat 0 and a watcher ask for ``view_changes``, seat 1 and another watcher do
    not: merged, each changes-only view is the whole one the others get."""
    both = ["update_ref", "view_changes"]
    seats = [await _hello(server.url, "Ann", both), await _hello(server.url, "Bob", [])]
    watchers = [await _hello(server.url, "Cy", both), await _hello(server.url, "Di", [])]
    create = {"type": "create_table", "id": 2, "game": "scopa", "options": {"seat": 0}}
    await seats[0].send(msgpack.packb(create))
    while (msg := await next_message(seats[0]))["type"] != "joined":
        pass
    table = msg["table"]["id"]
    for ws in watchers:
        await ws.send(msgpack.packb({"type": "spectate", "id": 2, "table": table}))
    await seats[1].send(msgpack.packb({"type": "join_table", "id": 2, "table": table, "seat": 1}))
    everyone = [*seats, *watchers]
    firsts = [(await _update(ws))[0] for ws in everyone]
    whole = [msg["view"] for msg in firsts]
    versions = [msg["version"] for msg in firsts[:2]]
    ids = itertools.count(100)
    rng = random.Random(4)
    sizes = {"changes": 0, "whole": 0}
    for _ in range(30):
        mover = next(i for i in (0, 1) if whole[i]["legal"])
        act = {
            "type": "act", "id": next(ids), "table": table, "seat": mover,
            "version": versions[mover], "action": rng.choice(whole[mover]["legal"]),
        }  # fmt: skip
        await seats[mover].send(msgpack.packb(act))
        for i, ws in enumerate(everyone):
            msg, size = await _update(ws)
            if i in (0, 2):
                assert set(msg["view"]) < set(whole[i]), msg["view"]
                whole[i] = {**whole[i], **msg["view"]}
                sizes["changes"] += size
            else:
                whole[i] = msg["view"]
                sizes["whole"] += size
            if i < 2:
                versions[i] = msg["version"]
        assert whole[2] == whole[3]  # the watchers see the same, however sent
        assert whole[0]["hand"] != whole[1]["hand"]
    assert sizes["changes"] < 0.7 * sizes["whole"], sizes
    for ws in everyone:
        await ws.close()
