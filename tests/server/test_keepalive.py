"""Keepalive: a peer that stops answering pings (frozen, SIGSTOP'd) counts as disconnected;
one that speaks needs no pings."""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

import pytest

from client_cli.client import Client
from server.app import running_server
from server.config import ServerConfig
from server.net import keepalive
from tests.server.helpers import FAST


async def test_a_frozen_client_is_detected_and_its_seat_goes_to_grace() -> None:
    config = FAST.replace(ping_interval=0.2, ping_timeout=1.0, disconnect_grace=0.2)
    async with running_server(config) as srv:
        frozen = await Client.connect(srv.url, "frozen")
        awake = await Client.connect(srv.url, "awake")
        try:
            opts = {"seat": 0, "ai": [{"seat": 1}], "ai_delay": 0.05}
            table = (await frozen.create_table("scopa", opts)).table.id
            core = srv.lobby.tables[table].core
            player = srv.sessions.get(frozen.player_id)
            assert player is not None and player.connected
            transport = frozen.ws.transport
            transport.pause_reading()  # like SIGSTOP: pings are no longer answered
            async with asyncio.timeout(10):
                while player.connected or core.seats[0].connected:
                    await asyncio.sleep(0.05)
            # the seat is kept, and after the grace the AI plays for it
            assert core.seats[0].player_id == frozen.player_id
            async with asyncio.timeout(5):
                while core.status == "playing" and not any(
                    s.seat == 0 and s.by == "ai" for s in core.log
                ):
                    await asyncio.sleep(0.05)
            # a client that answers pings (while idle) stays connected all along
            awake_player = srv.sessions.get(awake.player_id)
            assert awake_player is not None and awake_player.connected
            await awake.ping()
            transport.resume_reading()
        finally:
            await frozen.close()
            await awake.close()


def test_default_keepalive_notices_within_about_20_s() -> None:
    config = ServerConfig()
    # silent for the interval, pinged at the next look, unanswered past the timeout
    assert 0 < keepalive.detection_bound(config.ping_interval, config.ping_timeout) <= 20.0


@dataclasses.dataclass
class _Peer:
    heard_at: float
    pinged_at: float | None = None

    def keepalive_ping(self) -> None:
        raise AssertionError("not here")

    def keepalive_drop(self) -> None:
        raise AssertionError("not here")


@pytest.mark.parametrize(
    ("heard", "pinged", "now", "expected", "pinged_after"),
    [
        (0.0, None, 9.9, None, None),  # spoke 9.9 s ago: nothing yet
        (0.0, None, 10.0, "ping", None),  # silent for the interval: ping it
        (0.0, 10.0, 14.9, None, 10.0),  # pinged, waiting for an answer
        (0.0, 10.0, 15.0, "drop", 10.0),  # no answer within the timeout: drop it
        (10.5, 10.0, 15.0, None, None),  # it answered (anything after the ping counts)
        (10.5, 10.0, 20.5, "ping", None),  # ... and is silent again for an interval
    ],
)
def test_the_verdict_on_one_connection(
    heard: float, pinged: float | None, now: float, expected: str | None, pinged_after: float | None
) -> None:
    peer = _Peer(heard, pinged)
    assert keepalive.verdict(peer, now, interval=10.0, timeout=5.0) == expected
    assert peer.pinged_at == pinged_after


async def test_a_client_that_speaks_is_not_pinged_and_a_silent_one_is_kept_by_its_pongs() -> None:
    config = FAST.replace(ping_interval=0.5, ping_timeout=1.0)
    async with running_server(config) as srv:
        talker = await Client.connect(srv.url, "talker")
        silent = await Client.connect(srv.url, "silent")
        pings: dict[str, int] = {}
        try:
            for conn in srv.connections:
                ws: Any = conn.ws
                assert conn.player is not None
                name, send = conn.player.name, ws.keepalive_ping

                def counted(name: str = name, send: Any = send) -> None:
                    pings[name] = pings.get(name, 0) + 1
                    send()

                ws.keepalive_ping = counted
            for _ in range(40):  # 2 s: talking every 50 ms (a 450 ms stall would be silence)
                await talker.ping()
                await asyncio.sleep(0.05)
            assert pings.get("talker", 0) == 0
            assert pings.get("silent", 0) >= 2  # pinged, answered, silent again, pinged
            assert not silent.closed  # its library answered every ping
            player = srv.sessions.get(silent.player_id)
            assert player is not None and player.connected
        finally:
            await talker.close()
            await silent.close()
