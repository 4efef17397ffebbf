"""Playing a team duplicate match from a client (issue 56, docs/duplicate.md Team
matches): :func:`play_match` asks for the member's next table (``play_team_match``),
plays it to its end with ``play`` (a bot, or the terminal's play session), leaves it
and asks again, until every board of the member's table is played; then it waits
for the other tables and returns the finished match.

Between boards the server may not have stored the board just played yet
(``game_in_progress``), or the match may not have started (``roster_not_full``): the
loop waits for the server's ``team_match_table`` notice, which reaches the member on
whichever process they are connected to, and asks again; it asks anyway after
:data:`WAIT` (a notice lost with a connection, or pushed while the request was under
way), and after the server's hint when the other member's request is making the table
(``table_moving``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

from client_cli.client import Client, ServerError
from client_cli.tournament import PlayTable
from protocol import server_messages as sm

WAIT = 5.0
"""Seconds to wait for a notice before asking the server again (the fallback poll)."""
RETRY = frozenset({"game_in_progress", "roster_not_full", "not_found", "table_moving"})
"""Refusals of ``play_team_match`` that pass: asked again after a notice or :data:`WAIT`."""


async def _notice(client: Client, match_id: str, timeout: float) -> sm.TeamMatchTable | None:
    """The next ``team_match_table`` notice of the match within ``timeout`` seconds."""
    try:
        found = await client.wait_for(
            lambda m: isinstance(m, sm.TeamMatchTable) and m.match_id == match_id, timeout
        )
    except TimeoutError:
        return None
    assert isinstance(found, sm.TeamMatchTable)
    return found


def _hinted(exc: ServerError, wait: float) -> float:
    """How long to wait before asking again: ``table_moving``'s hint (seconds, in its
    ``detail``) when shorter, else ``wait``."""
    if exc.code == "table_moving":
        with contextlib.suppress(TypeError, ValueError):
            return min(wait, float(exc.error.detail or wait))
    return wait


async def play_match(
    client: Client,
    match_id: str,
    play: PlayTable,
    *,
    on_table: Callable[[str, dict[str, Any]], None] | None = None,
    wait: float = WAIT,
) -> sm.TeamMatchInfo:
    """Play the member's table of every board of ``match_id``, then wait for the match
    to finish; the finished match as the member sees it."""
    while True:
        try:
            table = (await client.play_team_match(match_id)).table.id
        except ServerError as exc:
            if exc.code == "board_out_of_order":  # every board of one's table is played
                break
            if exc.code == "already_seated" and exc.error.detail in client.tables:
                table = exc.error.detail
            elif exc.code in RETRY:
                await _notice(client, match_id, _hinted(exc, wait))
                continue
            else:
                raise
        result = await play(client, table)
        if on_table is not None:
            on_table(table, result)
        with contextlib.suppress(ServerError):
            await client.leave(table)
    while True:
        info = await client.team_match(match_id)
        if info.status == "finished":
            return info
        await _notice(client, match_id, wait)
