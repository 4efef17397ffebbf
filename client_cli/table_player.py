"""Playing one table after another in the terminal (tournament rounds, a team match's
boards): each table with the terminal's play session, until its game is over."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any

from client_cli.client import Client
from client_cli.lang import Language
from client_cli.play_session import PlaySession
from client_cli.terminal import Screen
from client_cli.tournament import PlayTable
from protocol import server_messages as sm

RESULT_PAUSE = 3.0
"""Seconds the terminal shows a finished game before the next table."""


def terminal_player(
    url: str, screen: Screen, lang: Language, seated: Callable[[str], str], *, plain: bool = False
) -> PlayTable:
    """A :data:`~client_cli.tournament.PlayTable` that plays each table in the terminal
    (``seated(table)``: the line that announces it; ``plain``: no prompt_toolkit input)."""

    async def play(client: Client, table: str) -> dict[str, Any]:
        state = client.tables[table]
        async with asyncio.timeout(10):
            while state.info is None:
                await asyncio.sleep(0.05)
        screen.show([seated(table)])
        joined = sm.Joined(table=state.info, seat=state.seat)
        playing = PlaySession(client, joined, screen, url=url, embedded=True, lang=lang)
        playing.fancy_input = not plain
        task = asyncio.create_task(playing.run())
        try:
            while not task.done():
                if state.result is not None and state.game_no > 0:
                    await asyncio.sleep(RESULT_PAUSE)
                    break
                await asyncio.sleep(0.1)
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        return state.result or {}

    return play
