"""``cardavia play GAME --quick --rated``: wait in a game's rated queue until it seats you.

The server answers a rated ``quick_play`` with ``queued`` (the rating the player
queues at, since when, and the wait after which the AI level of the closest
rating takes the seats nobody of close rating took) and later pushes ``joined``
(docs/protocol.md, "Rated quick play").  Meanwhile the terminal says how long
the player has waited; Ctrl-C leaves the queue (``leave_queue``) before the
command ends, so the queue never seats someone who went away.  A dropped
connection is resumed: the server pushes ``queued`` again while the player still
waits, or the table the queue seated them at meanwhile.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import time
from collections.abc import Callable
from typing import Any

from client_cli.client import Client, ClientClosed, RequestTimeout, ServerError, reconnect
from client_cli.lang import Language
from client_cli.terminal import Screen
from protocol import server_messages as sm
from protocol.models import TableInfo

TICK = 10.0
"""Seconds between the lines that say how long the player has waited."""
LEAVE_TIMEOUT = 3.0
"""Seconds Ctrl-C waits for the server to take the player out of the queue."""


def queued_line(queued: sm.Queued, title: str, lang: Language) -> str:
    """What the queue's answer means to the player: the game, the rating they queue at,
    the wait before the AI fills, how to leave."""
    key = "queue.waiting_bots" if queued.with_bots else "queue.waiting"
    return lang.t(key, game=title, rating=queued.rating, wait=math.ceil(queued.wait))


def waited_line(queued: sm.Queued, lang: Language, now: float | None = None) -> str:
    """How long the player has waited (from the server's ``since``)."""
    now = time.time() if now is None else now
    return lang.t("queue.still", s=max(0, round(now - queued.since)))


async def wait_in_queue(
    client: Client,
    url: str,
    game: str,
    title: str,
    *,
    with_bots: bool,
    screen: Screen,
    lang: Language,
    tick: float = TICK,
    reconnect_to: Callable[[str, Client], Any] = reconnect,
) -> tuple[Client, sm.Joined]:
    """Queue for a rated game of ``game`` and wait until the queue seats the player: the
    client (a new one after a dropped connection) and the ``joined`` it sent."""
    queued = await client.queue_rated(game, with_bots=with_bots)
    screen.show([queued_line(queued, title, lang)])
    try:
        while True:
            try:
                msg = await client.receive(timeout=tick)
            except TimeoutError:
                screen.show([waited_line(queued, lang)])
                continue
            except ClientClosed:
                new = await reconnect_to(url, client)
                if new is None:
                    raise
                client = new
                seated = await seated_meanwhile(client)
                if seated is not None:
                    return client, seated
                continue
            if isinstance(msg, sm.Joined):
                return client, msg
            if isinstance(msg, sm.Queued):
                queued = msg  # pushed again when the session resumed
    except asyncio.CancelledError:
        await leave_quietly(client, game)
        screen.show([lang.t("queue.left")])
        raise


async def seated_meanwhile(client: Client, timeout: float = 5.0) -> sm.Joined | None:
    """After a resume: the table the queue seated the player at while the connection was
    down (the welcome lists it; its ``table`` and ``snapshot`` follow), else None (the
    player still waits: the server pushes ``queued`` again)."""
    if not client.tables:
        return None
    info: TableInfo | None = None
    seat: int | None = None
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(timeout):
            while info is None or seat is None:
                msg = await client.receive()
                if isinstance(msg, sm.TableChanged) and msg.table.id in client.tables:
                    info = msg.table
                elif isinstance(msg, sm.Snapshot) and msg.table in client.tables:
                    seat = msg.seat
    if info is None:
        return None
    return sm.Joined(table=info, seat=seat)


async def leave_quietly(client: Client, game: str) -> None:
    """Leave the queue on the way out; a connection already gone, a server that does not
    answer in time or a queue that seated the player just now changes nothing here."""
    with contextlib.suppress(ServerError, ClientClosed, RequestTimeout, TimeoutError):
        async with asyncio.timeout(LEAVE_TIMEOUT):
            await client.leave_queue(game)
