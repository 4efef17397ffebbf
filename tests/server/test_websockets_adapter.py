"""server.net.websockets_adapter: websockets' internals probed at import, each with its
public path as the fallback, and games served the same on the fallbacks."""

from __future__ import annotations

import asyncio
import sys
from typing import Any

import pytest
from websockets.asyncio.server import ServerConnection
from websockets.frames import Frame, Opcode
from websockets.protocol import State
from websockets.server import ServerProtocol

from client_cli.client import Client, play_table, random_chooser
from protocol import pydantic_adapter
from protocol.pydantic_adapter import Slot
from server.app import running_server
from server.net import batching, connection, websockets_adapter
from server.net.batching import BatchingServerConnection
from server.net.websockets_adapter import (
    HOOK_PROBES,
    WsProbe,
    choose,
    open_protocol,
    probe,
    write_queued,
)
from server.ops import logs
from tests.server.helpers import FAST


def test_nothing_fell_back_on_the_installed_websockets() -> None:
    """Fails when an upgrade of websockets moved or changed one of the internals the
    server uses: it then runs the slower public paths (see pyproject.toml's bound)."""
    assert not websockets_adapter.FELL_BACK
    assert not probe()
    assert websockets_adapter.HOOKS and websockets_adapter.READ_AT_ONCE
    assert batching.SERVER_CONNECTION is BatchingServerConnection
    protocol = open_protocol()
    assert websockets_adapter.STATE_OF(protocol) is protocol.state is State.OPEN
    assert websockets_adapter.MESSAGE_LIMIT(protocol) == 4096


class _StateElsewhere(ServerProtocol):
    """A websockets keeping its state under another name."""

    @property
    def state(self) -> State:
        return self._kept

    @state.setter
    def state(self, state: State) -> None:
        self._kept = state
        self._state = State.CONNECTING  # no longer what the property says


class _OutputElsewhere(ServerProtocol):
    """A websockets keeping its queued output out of ``writes``."""

    @property
    def writes(self) -> list[bytes]:
        return []

    @writes.setter
    def writes(self, writes: list[bytes]) -> None:
        self._out = writes

    def send_frame(self, frame: Frame) -> None:
        self._out.append(frame.serialize(mask=False, extensions=[]))

    def data_to_send(self) -> list[bytes]:
        out, self._out = self._out, []
        return out


def _kept_elsewhere(shown: object) -> Any:
    """An attribute websockets sets that always reads back ``shown``: the value is kept
    under another name."""
    return property(lambda self: shown, lambda self, value: None)


class _FragmentsUnflagged(ServerProtocol):
    """A websockets that tracks fragments under other names."""

    expect_continuation_frame = _kept_elsewhere(False)
    current_size = _kept_elsewhere(None)


class _LimitElsewhere(ServerProtocol):
    """A websockets keeping its message size limit under another name."""

    max_message_size = _kept_elsewhere(None)


class _NoEvents(ServerConnection):
    """A websockets whose connection no longer hands events to ``process_event``."""

    def data_received(self, data: bytes) -> None:
        self.protocol.receive_data(data)
        self.send_data()


class _EofUnsent(ServerConnection):
    def eof_received(self) -> None:
        self.protocol.receive_eof()


class _OneWriteEach(ServerConnection):
    """A websockets whose ``send_data`` takes arguments of its own."""

    def send_data(self, flush: bool = True) -> None:
        for data in self.protocol.data_to_send():
            self.transport.write(data)


@pytest.mark.parametrize(
    ("protocol_class", "connection_class", "fell_back"),
    [
        (_OutputElsewhere, ServerConnection, {WsProbe.OUTPUT}),
        (
            _FragmentsUnflagged,
            ServerConnection,
            {WsProbe.SENDING_FRAGMENTS, WsProbe.READING_FRAGMENTS},
        ),
        (_LimitElsewhere, ServerConnection, {WsProbe.MESSAGE_LIMIT}),
        (ServerProtocol, _NoEvents, {WsProbe.DATA_RECEIVED, WsProbe.PROCESS_EVENT}),
        (ServerProtocol, _EofUnsent, {WsProbe.EOF_RECEIVED}),
        (ServerProtocol, _OneWriteEach, {WsProbe.SEND_DATA}),
    ],
)
def test_an_internal_that_moved_is_named(
    protocol_class: type[ServerProtocol],
    connection_class: type[ServerConnection],
    fell_back: set[WsProbe],
) -> None:
    assert probe(protocol_class, connection_class) == fell_back


def test_a_state_kept_elsewhere_is_named() -> None:
    """(websockets' own methods read ``_state`` too: more than the state fails here)"""
    assert WsProbe.STATE in probe(_StateElsewhere)


def test_the_public_paths_decline_what_they_cannot_know() -> None:
    paths = choose(frozenset(WsProbe))
    protocol = open_protocol()
    assert paths.state_of(protocol) is State.OPEN  # the public property
    protocol.state = State.CLOSING
    assert paths.state_of(protocol) is State.CLOSING
    assert paths.output_queued(protocol)  # may be: written through data_to_send
    assert paths.sending_fragment(protocol)  # may be: websockets frames every message
    assert paths.reading_fragment(protocol) is not None  # may be: websockets reads all
    assert paths.message_limit(protocol) is None
    assert not paths.read_at_once and not paths.hooks
    assert choose(HOOK_PROBES - {WsProbe.SEND_DATA}).read_at_once
    assert not choose(frozenset({WsProbe.SEND_DATA})).hooks


class _Transport:
    def __init__(self) -> None:
        self.written: list[bytes] = []
        self.eof = False

    def write(self, data: bytes) -> None:
        self.written.append(data)

    def can_write_eof(self) -> bool:
        return True

    def write_eof(self) -> None:
        self.eof = True


def test_what_websockets_queued_goes_first_in_one_write_and_nothing_after_the_end() -> None:
    protocol = open_protocol()
    protocol.send_ping(b"hi")
    transport = _Transport()
    write_queued(protocol, transport, [b"mine"])
    assert transport.written == [b"\x89\x02hi" + b"mine"] and not transport.eof
    protocol.send_close(1000)
    protocol.receive_data(Frame(Opcode.CLOSE, b"\x03\xe8").serialize(mask=True, extensions=[]))
    write_queued(protocol, transport, [b"late"])
    assert transport.eof and not any(b"late" in w for w in transport.written)


@pytest.mark.parametrize("hooks", [True, False], ids=["own-connection", "websockets-connection"])
async def test_a_game_is_served_on_the_public_paths(
    monkeypatch: pytest.MonkeyPatch, hooks: bool
) -> None:
    """Every internal fallen back (its hooks too, or not): a whole game is played as
    before, with websockets framing every message and reading every frame."""
    fell_back = frozenset(WsProbe) - (HOOK_PROBES if hooks else frozenset())
    paths = choose(fell_back)
    for name, value in (
        ("_STATE_OF", paths.state_of),
        ("_OUTPUT_QUEUED", paths.output_queued),
        ("_SENDING_FRAGMENT", paths.sending_fragment),
    ):
        monkeypatch.setattr(connection, name, value)
    monkeypatch.setattr(batching, "_state_of", paths.state_of)
    monkeypatch.setattr(batching, "_reading_fragment", paths.reading_fragment)
    monkeypatch.setattr(batching, "MESSAGE_LIMIT", paths.message_limit)
    monkeypatch.setattr(batching, "READ_AT_ONCE", paths.read_at_once)
    expected = BatchingServerConnection if paths.hooks else ServerConnection
    monkeypatch.setattr(batching, "SERVER_CONNECTION", expected)
    framed: list[int] = []
    send_binary = ServerProtocol.send_binary

    def counted(self: ServerProtocol, data: bytes, fin: bool = True) -> None:
        framed.append(len(data))
        send_binary(self, data, fin)

    monkeypatch.setattr(ServerProtocol, "send_binary", counted)
    config = FAST.replace(ping_interval=30.0)
    async with running_server(config) as server:
        client = await Client.connect(server.url, "Ann")
        options = {"seat": 0, "ai": [{"seat": 1, "level": "random"}], "game": {"target": 1}}
        table = (await client.create_table("scopa", options)).table.id
        result = await asyncio.wait_for(play_table(client, table, random_chooser(3)), 30)
        assert result is not None
        (conn,) = server.connections
        assert type(conn.ws) is expected
        if hooks:
            assert isinstance(conn.ws, BatchingServerConnection)
            assert conn.ws._splitter is None  # nothing read at once: websockets read it all
            assert server._keepalive is not None and conn.ws.ping_interval is None
        else:
            assert server._keepalive is None and conn.ws.ping_interval == 30.0
        assert len(framed) > 10  # every message framed by websockets
        await client.close()


async def test_a_server_on_a_fallback_says_so_when_it_starts(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    logs.configure("info", sys.stdout)  # whatever an earlier test in this worker set
    async with running_server(FAST):
        pass
    assert "dependency_internals_fell_back" not in capsys.readouterr().out
    monkeypatch.setattr(websockets_adapter, "FELL_BACK", frozenset({WsProbe.STATE}))
    monkeypatch.setattr(pydantic_adapter, "FELL_BACK", frozenset({Slot.EXTRA}))
    async with running_server(FAST):
        pass
    out = capsys.readouterr().out
    assert "dependency_internals_fell_back" in out
    assert "ServerProtocol._state" in out and "pydantic __pydantic_extra__" in out
