"""Moves handled in the callback that reads them (``BatchingServerConnection`` and
``Connection._receive_now``), and everything else read as websockets reads it."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator
from typing import Any

import msgpack  # type: ignore[import-untyped]
import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed
from websockets.frames import Frame, Opcode
from websockets.protocol import State

from protocol import client_messages as cm
from server.app import CardaviaServer
from server.net import websockets_adapter
from server.net.batching import BatchingServerConnection
from server.net.connection import Connection
from server.net.websockets_adapter import WsProbe
from tests.server.helpers import next_message

_ids = itertools.count(100)


def _pack(msg: dict[str, Any]) -> bytes:
    data: bytes = msgpack.packb(msg)
    return data


def _wire(payload: bytes, *, masked: bool = True) -> bytes:
    """A client's binary frame, as websockets' client writes it."""
    return Frame(Opcode.BINARY, payload).serialize(mask=masked, extensions=[])


async def _hello(url: str, name: str) -> ClientConnection:
    ws = await connect(url, compression=None)
    await ws.send(_pack({"type": "hello", "id": 1, "version": 1, "name": name}))
    assert (await next_message(ws))["type"] == "welcome"
    return ws


class Game:
    """Two seats at a Scopa table over raw connections; ``last`` holds each seat's
    latest update."""

    def __init__(self, seats: list[ClientConnection], table: str) -> None:
        self.seats = seats
        self.table = table
        self.last: list[dict[str, Any]] = [{}, {}]

    async def updates(self, *, skip: int | None = None) -> None:
        """Read each seat's next update but ``skip``'s (other pushes are passed over)."""
        for i, ws in enumerate(self.seats):
            if i != skip:
                while (msg := await next_message(ws))["type"] != "update":
                    assert msg["type"] != "error", msg
                self.last[i] = msg

    async def answered(self, act: dict[str, Any]) -> list[dict[str, Any]]:
        """What the mover reads up to the ``ok`` of ``act`` (its update among them), once
        the other seat has its update too."""
        seat = act["seat"]
        seen = await _answer_of(self.seats[seat], act["id"])
        assert seen[-1] == {"type": "ok", "ref": act["id"]}, seen
        self.last[seat] = next(m for m in seen if m["type"] == "update")
        await self.updates(skip=seat)
        return seen

    def mover(self) -> int:
        return next(i for i in (0, 1) if self.last[i]["view"]["legal"])

    def act(self) -> dict[str, Any]:
        """The mover's next move, as a message."""
        seat = self.mover()
        return {
            "type": "act", "id": next(_ids), "table": self.table, "seat": seat,
            "version": self.last[seat]["version"], "action": self.last[seat]["view"]["legal"][0],
        }  # fmt: skip


@pytest.fixture
async def game(server: CardaviaServer) -> AsyncIterator[Game]:
    seats = [await _hello(server.url, "Ann"), await _hello(server.url, "Bob")]
    create = {"type": "create_table", "id": 2, "game": "scopa", "options": {"seat": 0}}
    await seats[0].send(_pack(create))
    while (msg := await next_message(seats[0]))["type"] != "joined":
        pass
    table = msg["table"]["id"]
    await seats[1].send(_pack({"type": "join_table", "id": 2, "table": table, "seat": 1}))
    g = Game(seats, table)
    await g.updates()
    yield g
    for ws in seats:
        await ws.close()


async def _answer_of(ws: ClientConnection, ref: int) -> list[dict[str, Any]]:
    """What ``ws`` receives up to the message answering ``ref``."""
    seen = []
    while True:
        msg = await next_message(ws)
        seen.append(msg)
        if msg.get("ref") == ref:
            return seen


def _server_side(server: CardaviaServer) -> list[BatchingServerConnection]:
    conns = [c.ws for c in server.connections]
    assert all(isinstance(ws, BatchingServerConnection) for ws in conns)
    return conns  # type: ignore[return-value]


@pytest.fixture
def by_task(monkeypatch: pytest.MonkeyPatch) -> list[bytes | str]:
    """The frames the connections' reader tasks handle (not their read callbacks)."""
    seen: list[bytes | str] = []
    real = Connection._receive

    async def receive(self: Connection, frame: bytes | str) -> None:
        seen.append(frame)
        await real(self, frame)

    monkeypatch.setattr(Connection, "_receive", receive)
    return seen


async def test_moves_are_handled_as_they_are_read(
    server: CardaviaServer, game: Game, by_task: list[bytes | str]
) -> None:
    """Each move is handled in the read callback, not by the reader task."""
    for _ in range(12):
        act = game.act()
        await game.seats[act["seat"]].send(_pack(act))
        await game.answered(act)
    assert by_task == []
    assert all(ws._splitter is not None for ws in _server_side(server))


async def test_rematch_votes_are_handled_as_they_are_read(
    server: CardaviaServer, by_task: list[bytes | str]
) -> None:
    """Every seated human votes after each game: the votes take the moves' path (read
    callback, the table's turn at once), refused and accepted votes alike."""
    seats = [await _hello(server.url, "Ann"), await _hello(server.url, "Bob")]
    options = {"seat": 0, "game": {"target": 1}}  # one deal, most often
    create = {"type": "create_table", "id": 2, "game": "scopa", "options": options}
    await seats[0].send(_pack(create))
    while (msg := await next_message(seats[0]))["type"] != "joined":
        pass
    game = Game(seats, msg["table"]["id"])
    await seats[1].send(_pack({"type": "join_table", "id": 2, "table": game.table, "seat": 1}))
    await game.updates()
    early = {"type": "rematch", "id": next(_ids), "table": game.table}
    await seats[0].send(_pack(early))
    refused = (await _answer_of(seats[0], early["id"]))[-1]
    assert refused["code"] == "game_in_progress", refused
    by_task.clear()  # the table's first frames may have been read by the reader task
    while not game.last[0]["view"].get("over"):
        act = game.act()
        await seats[act["seat"]].send(_pack(act))
        await game.answered(act)
    votes = [{"type": "rematch", "id": next(_ids), "table": game.table} for _ in seats]
    for ws, vote in zip(seats, votes, strict=True):
        await ws.send(_pack(vote))
        assert (await _answer_of(ws, vote["id"]))[-1] == {"type": "ok", "ref": vote["id"]}
    await game.updates()
    assert [u["game_no"] for u in game.last] == [2, 2]
    assert by_task == []
    for ws in seats:
        await ws.close()


async def test_what_may_run_now_is_a_ping_or_a_move_or_vote_for_a_table_here(
    server: CardaviaServer, game: Game, by_task: list[bytes | str]
) -> None:
    """The read callback takes what ``may_run_now`` says, the reader task the rest, and
    both hand it to the one handle path: a move for a table of another process (it
    goes over the bus) waits for the reader task, as a chat does."""
    (conn, _) = server.connections
    here, elsewhere = game.table, "ElsewhereT"
    runs_now = [
        cm.Ping(id=1),
        cm.Act(id=2, table=here, seat=0, version=1, action={}),
        cm.Rematch(id=3, table=here),
    ]
    waits = [cm.Chat(id=4, table=here, text="hi"), cm.Leave(id=5, table=here)]
    assert all(conn.may_run_now(m) for m in runs_now)
    assert not any(conn.may_run_now(m) for m in waits)
    # one process: a table not here is nobody's, refused at once; clustered, it may be
    # another process's, and the request waits for the bus
    assert conn.may_run_now(cm.Act(id=6, table=elsewhere, seat=0, version=1, action={}))
    server.lobby.reach.clustered = True
    try:
        assert not conn.may_run_now(cm.Act(id=7, table=elsewhere, seat=0, version=1, action={}))
        assert conn.may_run_now(runs_now[1])
    finally:
        server.lobby.reach.clustered = False
    ping = {"type": "ping", "id": next(_ids)}
    await game.seats[0].send(_pack(ping))
    assert (await _answer_of(game.seats[0], ping["id"]))[-1]["type"] == "pong"
    chat = {"type": "chat", "id": next(_ids), "table": game.table, "text": "hello"}
    await game.seats[0].send(_pack(chat))
    assert (await _answer_of(game.seats[0], chat["id"]))[-1] == {"type": "ok", "ref": chat["id"]}
    assert by_task == [_pack(chat)]  # the ping was answered in the read callback


async def test_what_a_read_sends_is_written_after_the_read_callback(
    server: CardaviaServer, game: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The updates of a move go out once the loop has run the turn's read callbacks
    (``server.net.flusher``), not from inside the callback that read the move."""
    events: list[str] = []
    for ws in _server_side(server):
        transport = ws.transport
        real_write = transport.write

        def write(data: bytes, real_write: Any = real_write) -> None:
            events.append("write")
            real_write(data)

        monkeypatch.setattr(transport, "write", write)
    real_read = BatchingServerConnection.data_received

    def data_received(self: BatchingServerConnection, data: bytes) -> None:
        events.append("read")
        real_read(self, data)
        events.append("read done")

    monkeypatch.setattr(BatchingServerConnection, "data_received", data_received)
    act = game.act()
    await game.seats[act["seat"]].send(_pack(act))
    await game.answered(act)
    assert events[:4] == ["read", "read done", "write", "write"], events


async def test_a_move_behind_a_queued_request_in_the_same_read_waits_its_turn(
    game: Game,
) -> None:
    """``list_games`` goes to websockets' queue; the move read with it goes after it."""
    act = game.act()
    ws = game.seats[act["seat"]]
    listing = {"type": "list_games", "id": next(_ids)}
    ws.transport.write(_wire(_pack(listing)) + _wire(_pack(act)))  # one write, one read
    kinds = [m["type"] for m in await game.answered(act)]
    assert kinds.index("games") < kinds.index("update"), kinds


async def test_a_move_read_while_the_reader_waits_on_a_request_comes_after_it(
    server: CardaviaServer, game: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = server.dispatch

    async def slow(player: Any, msg: Any, **kwargs: Any) -> None:
        if isinstance(msg, cm.ListGames):
            await asyncio.sleep(0.2)  # the reader is busy with it meanwhile
        await real(player, msg, **kwargs)

    monkeypatch.setattr(server, "dispatch", slow)
    act = game.act()
    ws = game.seats[act["seat"]]
    await ws.send(_pack({"type": "list_games", "id": next(_ids)}))
    await asyncio.sleep(0.05)
    await ws.send(_pack(act))
    kinds = [m["type"] for m in await game.answered(act)]
    assert kinds.index("games") < kinds.index("update"), kinds


async def test_a_move_cut_into_single_bytes_is_read_whole(game: Game) -> None:
    act = game.act()
    ws = game.seats[act["seat"]]
    for byte in _wire(_pack(act)):
        ws.transport.write(bytes((byte,)))
        await asyncio.sleep(0.002)  # separate reads at the server
    await game.answered(act)


async def test_a_fragmented_move_is_read_by_websockets(game: Game) -> None:
    act = game.act()
    ws = game.seats[act["seat"]]
    data = _pack(act)
    await ws.send([data[:5], data[5:20], data[20:]])  # three frames, one message
    await game.answered(act)
    act = game.act()  # and the next move, whole, is read at once again
    await game.seats[act["seat"]].send(_pack(act))
    await game.answered(act)


async def test_an_unmasked_frame_fails_the_connection(server: CardaviaServer) -> None:
    ws = await _hello(server.url, "Cy")
    ws.transport.write(_wire(_pack({"type": "ping", "id": 5}), masked=False))
    with pytest.raises(ConnectionClosed) as closed:
        await asyncio.wait_for(ws.recv(), 10)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1002
    await _hello(server.url, "Dee")  # the server is fine


async def test_a_frame_over_the_limit_closes_with_1009(server: CardaviaServer) -> None:
    ws = await _hello(server.url, "Cy")
    ws.transport.write(_wire(b"\x00" * (server.config.max_frame + 1)))
    with pytest.raises(ConnectionClosed) as closed:
        await asyncio.wait_for(ws.recv(), 10)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009


async def test_frames_sent_with_the_handshake_are_read_by_websockets(
    server: CardaviaServer,
) -> None:
    """A client that does not wait for the handshake's answer (RFC 6455 4.1 says it
    must) is served all the same, by websockets alone."""
    reader, writer = await asyncio.open_connection(server.config.host, server.port)
    request = (
        "GET / HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    )
    hello = {"type": "hello", "id": 1, "version": 1, "name": "Eve"}
    ping = _wire(_pack({"type": "ping", "id": 2}))
    # the hello and the start of a ping come with the request: websockets' parser is
    # then in the middle of a frame when the handshake ends
    writer.write(request.encode() + _wire(_pack(hello)) + ping[:3])
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
    assert head.startswith(b"HTTP/1.1 101")

    async def read() -> dict[str, Any]:
        first, size = await asyncio.wait_for(reader.readexactly(2), 10)
        assert first == 0x82 and size <= 126  # a final binary frame, unmasked
        if size == 126:
            size = int.from_bytes(await reader.readexactly(2), "big")
        msg: dict[str, Any] = msgpack.unpackb(await reader.readexactly(size))
        return msg

    assert (await read())["type"] == "welcome"
    writer.write(ping[3:])
    assert await read() == {"type": "pong", "ref": 2}
    writer.write(_wire(_pack({"type": "ping", "id": 3})))
    assert await read() == {"type": "pong", "ref": 3}
    writer.close()
    await writer.wait_closed()


async def test_the_state_is_read_from_websockets_own_attribute_all_along(
    server: CardaviaServer, game: Game
) -> None:
    """websockets keeps the protocol's state in ``_state`` (the property returns it):
    the hot path reads that (server.net.websockets_adapter), and it follows the state
    until the connection is closed."""
    assert WsProbe.STATE not in websockets_adapter.FELL_BACK
    protocols = [ws.protocol for ws in _server_side(server)]
    assert [p._state for p in protocols] == [p.state for p in protocols] == [State.OPEN] * 2
    for ws in game.seats:  # the server's connections come in no particular order
        await ws.close()
    for _ in range(200):
        if all(p.state is State.CLOSED for p in protocols):
            break
        await asyncio.sleep(0.01)
    assert [p._state for p in protocols] == [p.state for p in protocols] == [State.CLOSED] * 2


async def test_frames_built_by_hand_go_straight_to_the_socket(
    server: CardaviaServer, game: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With nothing of websockets' own queued, an update is written to the transport
    directly, not through ``send_data`` (websockets' ``writes``, read through
    ``server.net.websockets_adapter.OUTPUT_QUEUED``, is empty)."""
    assert WsProbe.OUTPUT not in websockets_adapter.FELL_BACK
    calls: list[int] = []
    real = BatchingServerConnection.send_data

    def send_data(self: BatchingServerConnection, frames: list[bytes] | None = None) -> None:
        calls.append(len(frames or ()))
        real(self, frames)

    monkeypatch.setattr(BatchingServerConnection, "send_data", send_data)
    for _ in range(4):
        act = game.act()
        await game.seats[act["seat"]].send(_pack(act))
        await game.answered(act)
    assert [n for n in calls if n] == []  # no update went through send_data


async def test_what_websockets_queued_is_written_before_the_frames_built_by_hand(
    server: CardaviaServer, game: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A frame websockets queued itself (a ping here) goes out first, in the same write."""
    written: dict[int, list[bytes]] = {}
    for i, ws in enumerate(_server_side(server)):
        transport = ws.transport

        def write(data: bytes, real_write: Any = transport.write, i: int = i) -> None:
            written.setdefault(i, []).append(bytes(data))
            real_write(data)

        monkeypatch.setattr(transport, "write", write)
    for ws in _server_side(server):
        ws.protocol.send_ping(b"hi")  # queued in protocol.writes, not sent yet
    act = game.act()
    await game.seats[act["seat"]].send(_pack(act))
    await game.answered(act)
    assert sorted(written) == [0, 1]
    for first, *_ in written.values():
        assert first.startswith(b"\x89\x02hi")  # the ping, unmasked, then the update
        assert len(first) > 4


async def test_a_whole_frame_inside_a_fragmented_message_fails_the_connection(
    server: CardaviaServer,
) -> None:
    """A final binary frame while the client's fragmented message is unfinished breaks
    RFC 6455 5.4: websockets fails the connection (1002), also when the frame is a
    message the server could read at once."""
    ws = await _hello(server.url, "Cy")
    first = Frame(Opcode.BINARY, b"\x81", fin=False).serialize(mask=True, extensions=[])
    ws.transport.write(first + _wire(_pack({"type": "ping", "id": 5})))
    with pytest.raises(ConnectionClosed) as closed:
        while True:  # no pong comes first
            assert (await asyncio.wait_for(next_message(ws), 10))["type"] != "pong"
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1002
