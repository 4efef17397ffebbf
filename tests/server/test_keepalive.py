"""Keepalive: a peer that stops answering pings (frozen, SIGSTOP'd) counts as disconnected."""

from __future__ import annotations

import asyncio
import dataclasses

from client_cli.client import Client
from server.app import running_server
from server.config import ServerConfig
from tests.server.helpers import FAST


async def test_a_frozen_client_is_detected_and_its_seat_goes_to_grace() -> None:
    config = dataclasses.replace(FAST, ping_interval=0.2, ping_timeout=1.0, disconnect_grace=0.2)
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
    # next ping, its timeout, then the closing handshake with the same timeout
    assert 0 < config.ping_interval + 2 * config.ping_timeout <= 20.0
