"""Playing a tournament from a client (issue 56): register, then be seated each round.

The server seats a registered player itself when their round's table is made (a
``tournament_table`` notice, then ``joined`` and the table): :func:`play_tournament`
plays each such table to its end with a chooser (a bot, or the terminal's play
session through ``play``), leaves it, and waits for the next, asking for the
standings while idle until the tournament is over.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from client_cli.client import (
    Chooser,
    Client,
    ClientClosed,
    RequestTimeout,
    ServerError,
    play_table,
)
from protocol import server_messages as sm

IDLE_POLL = 2.0
"""Seconds without news after which the standings are read (is it over?)."""
IDLE_POLL_MAX = 10.0
"""The longest such wait: each read that finds the tournament still on waits longer (every
player of a big tournament reads them between tables), up to this."""

PlayTable = Callable[[Client, str], Awaitable[dict[str, Any]]]
"""Plays the client's seat at a table to the end of its game; the result."""


def bot_player(choose: Chooser) -> PlayTable:
    """Play every table with ``choose``."""

    async def play(client: Client, table: str) -> dict[str, Any]:
        return await play_table(client, table, choose)

    return play


Resume = Callable[[Client], Awaitable[Client | None]]
"""Resumes a client's session on a new connection after its server went away (None:
it cannot)."""


@dataclass(frozen=True)
class TournamentRun:
    """A tournament played to its end: the client that played last, and the standings."""

    client: Client
    standings: sm.Standings
    tables: int


def is_tournament_table(tournament: str, table: str) -> bool:
    """Whether ``table`` is one of ``tournament``'s (their ids are derived from it)."""
    return table.startswith(tournament + "-r")


async def play_tournament(
    client: Client,
    tournament: str,
    play: PlayTable,
    *,
    on_table: Callable[[str, dict[str, Any]], None] | None = None,
    register: bool = True,
    resume: Resume | None = None,
) -> TournamentRun:
    """Register (unless ``register`` is false: already in), then play each table the
    tournament seats this client at, until it is over.  A connection that ends is
    resumed with ``resume`` (the session keeps its seats: a table taken over by
    another server process comes back with a snapshot) and play goes on."""
    if register:
        await client.register_tournament(tournament)
    played: set[str] = set()
    while True:
        try:
            return await _play(client, tournament, play, played, on_table)
        except ClientClosed:
            if resume is None:
                raise
            again = await resume(client)
            if again is None:
                raise
            client = again


async def _play(
    client: Client,
    tournament: str,
    play: PlayTable,
    played: set[str],
    on_table: Callable[[str, dict[str, Any]], None] | None,
) -> TournamentRun:
    poll = IDLE_POLL
    while True:
        table = next(
            (
                t
                for t, state in client.tables.items()
                if is_tournament_table(tournament, t) and t not in played and state.seat is not None
            ),
            None,
        )
        if table is not None:
            try:
                result = await play(client, table)
            except ServerError:
                result = {}
            played.add(table)
            if on_table is not None:
                on_table(table, result)
            with contextlib.suppress(ServerError, RequestTimeout):  # it may be gone
                await client.leave(table)
            continue
        try:
            await client.receive(timeout=poll)
            poll = IDLE_POLL
        except TimeoutError:
            poll = min(IDLE_POLL_MAX, poll * 1.5)
            try:
                standings = await client.standings(tournament)
            except RequestTimeout:
                continue  # a busy server: the next read comes later still
            if standings.tournament.status == "finished":
                return TournamentRun(client, standings, len(played))
