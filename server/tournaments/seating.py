"""Making tournament tables live and seating their people (issue 56).

Two parts, so that a person is always seated by the process they are connected to:

* :class:`LobbyTables` (the director's process) makes a round's table live under its
  derived id through :meth:`server.lobby.Lobby.matched_table`: a rated table
  (``TableOptions.rated``) with the tournament's time per turn and its AI seats at
  the tournament's level.  A Duplicate Swiss table deals from the round's seed: the
  table's seed source is that seed, kept with its seating in the store (a process
  that rebuilds the table deals it too), so every table of the round plays the same
  deal; like every seed it stays on the server until the game is over.
* :class:`SeatKeeper` (every process) seats, every pass, the people connected here
  whose tournament table waits for them: it sends them a ``tournament_table`` notice
  and joins them as their own ``join_table`` would (through the bus when another
  process drives the table).  A person who is not connected has
  :data:`ABSENT_FILL` seconds: then the AI takes the seat, and that game counts for
  nobody in it (:mod:`server.tournaments.store`).

A tournament table's seats are reserved: :meth:`SeatKeeper.check_join` refuses any
other person and any other seat, and :meth:`SeatKeeper.check_watch` refuses to show a
table of a round under way to a person registered in the tournament (in a Duplicate
Swiss, another table of the round plays the same deal).
"""

from __future__ import annotations

import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from protocol import server_messages as sm
from protocol.errors import ErrorCode
from protocol.models import AiSeat, TableOptions
from server.lobby import Lobby
from server.ops.logs import get_logger
from server.persist.redis_store import RedisStore
from server.players.sessions import Player, Sessions
from server.tables.options import RequestError
from server.tournaments.store import RoundTable, Tournament, TournamentStore

ABSENT_FILL = 60.0
"""Seconds a tournament seat waits for its person before the AI takes it."""
DEFAULT_TURN_TIMER = 60.0
"""Seconds per turn at a tournament table whose tournament set none: a table must always
move on (a player who stops acting would hold up the round, or an arena table, forever)."""
RETRY_JOIN = 3.0
"""Seconds before a seat keeper asks again to seat someone whose join has not shown."""

TABLE_ID = re.compile(r"^T[0-9a-f]+-r\d+-t\d+$")
"""What a tournament table's id looks like (:func:`server.tournaments.pairing.table_id`)."""


def table_options(t: Tournament, table: RoundTable, absent_fill: float) -> TableOptions:
    """A round table's options: rated, its AI seats, the tournament's time per turn."""
    return TableOptions(
        seat=None,
        rated=True,
        hints=False,
        ai=tuple(AiSeat(seat=s, level=t.level) for s, p in enumerate(table.seats) if p is None),
        fill_after=absent_fill,
        turn_timer=t.turn_timer if t.turn_timer is not None else DEFAULT_TURN_TIMER,
    )


class LobbyTables:
    """Round tables made in this process's lobby (see the module docstring)."""

    def __init__(self, lobby: Lobby, absent_fill: float = ABSENT_FILL) -> None:
        self.lobby = lobby
        self.absent_fill = absent_fill
        self._log = get_logger(component="tournaments")

    async def ensure(
        self, t: Tournament, table: RoundTable, seed: int | None
    ) -> list[list[Any]] | None:
        """Make ``table`` live here unless it is live here or stored (another process
        drives it, or will once its cluster scan takes it over), or it has played its
        game already: then its results (per seat ``[won, score, present]``) from the
        finished game the store keeps, and it is not made again (one deal per table)."""
        if table.table_id in self.lobby.tables:
            return None
        if await self.lobby.store.exists(table.table_id):
            return None
        played = await self.finished(table.table_id)
        if played is not None:
            return played
        options = table_options(t, table, self.absent_fill)
        await self.lobby.matched_table(t.game, options, table.table_id, t.level, seed)
        self._log.info("tournament_table_made", table=table.table_id, round=table.round)
        return None

    async def finished(self, table_id: str) -> list[list[Any]] | None:
        """The results of the table's first game if the store still keeps it finished
        (Redis keeps a finished game for ``replay_ttl``): a table whose people left
        once its game was over is deleted, and if its process died before writing the
        game's record, the finished game kept in Redis is what remains of it."""
        store = self.lobby.store
        if not isinstance(store, RedisStore):
            return None  # one process: it made the table, and keeps its record writer
        game = await store.kept_game(table_id, 1)
        if game is None:
            return None
        result = game.get("result") or {}
        scores = list(result.get("scores") or ())
        winners = set(result.get("winners") or ())
        return [
            [i in winners, int(scores[i]) if i < len(scores) else 0, _present(seat)]
            for i, seat in enumerate(game.get("seats") or ())
        ]


def _present(seat: dict[str, Any]) -> bool:
    """Whether a finished game's seat counts for its person, as in the game records
    (:func:`server.tables.record.game_record`): a human's, also one who left mid-game
    (the AI covered it: their result), never an AI seat of the table's."""
    return seat.get("kind") != "ai" or bool(seat.get("ai_covering"))


@dataclass(frozen=True)
class SeatRequest:
    """A person to seat: the session connected here, the table and the seat."""

    player: Player
    table: RoundTable
    seat: int


class SeatKeeper:
    """Seats the people connected here at their tournament tables (module docstring)."""

    def __init__(
        self,
        store: TournamentStore,
        sessions: Sessions,
        join: Callable[[SeatRequest], Awaitable[None]],
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.store = store
        self.sessions = sessions
        self.join = join
        self.clock = clock
        self._tables: dict[str, RoundTable] = {}
        """The tables playing, as of the last pass (reservations)."""
        self._asked: dict[tuple[str, str], float] = {}
        self._seated: set[tuple[str, str]] = set()
        """(table, player) seen at their table: one who leaves it is not seated again (a
        table still waits for its results a moment after its game ended and its people
        left; seating them again sent a second ``tournament_table`` for a game over)."""
        self._log = get_logger(component="tournaments")

    async def run_pass(self) -> int:
        """Seat whoever is connected here and waited for; how many were asked to sit."""
        pending = await self.store.pending()
        self._tables = {t.table_id: t for t in pending}
        now = self.clock()
        asked = 0
        live = set()
        seated: set[tuple[str, str]] = set()
        here: dict[str, list[Player]] = {}  # one walk over the sessions, not one a seat
        for session in self.sessions:
            # a session with no token is another process's player (a stand-in, as the
            # tables here see them): that process seats them, never this one
            if session.account is not None and session.connected and not session.is_stand_in:
                here.setdefault(session.account.account_id, []).append(session)
        for table in pending:
            for seat, account in enumerate(table.seats):
                if account is None:
                    continue
                devices = here.get(account, [])
                if any(table.table_id in player.tables for player in devices):
                    seated.update((table.table_id, player.player_id) for player in devices)
                    continue  # one device of the account holds the seat
                for player in devices:
                    key = (table.table_id, player.player_id)
                    if key in self._seated:
                        seated.add(key)  # they sat here and left (their game is over):
                        continue  # not seated again, until the table's results are in
                    live.add(key)
                    if now - self._asked.get(key, float("-inf")) < RETRY_JOIN:
                        continue
                    self._asked[key] = now
                    player.send(
                        sm.TournamentTable(
                            tournament=table.tournament_id,
                            round=table.round,
                            table=table.table_id,
                            seat=seat,
                        )
                    )
                    try:
                        await self.join(SeatRequest(player, table, seat))
                    except RequestError as exc:  # the table is not live yet: next pass
                        self._log.info(
                            "tournament_join_later", table=table.table_id, error=str(exc)
                        )
                    asked += 1
                    break  # one device of the account takes the seat
        self._asked = {k: v for k, v in self._asked.items() if k in live}
        self._seated = seated
        return asked

    async def _reserved(self, table_id: str) -> RoundTable | None:
        if not TABLE_ID.match(table_id):
            return None
        table = self._tables.get(table_id)
        if table is None:
            table = await self.store.table(table_id)
        return table

    async def check_join(self, player: Player, table_id: str, seat: int | None) -> None:
        """``forbidden`` unless ``player`` is the person of ``seat`` at the tournament
        table ``table_id`` (any other table: allowed)."""
        table = await self._reserved(table_id)
        if table is None:
            return
        account = player.account.account_id if player.account is not None else None
        if account is None or seat is None or seat >= len(table.seats):
            raise RequestError(ErrorCode.FORBIDDEN, "a tournament table's seats are reserved")
        if table.seats[seat] != account:
            raise RequestError(ErrorCode.FORBIDDEN, "this seat is reserved for another player")

    async def check_record(self, player: Player, game_id: str) -> None:
        """``forbidden`` if the stored game ``game_id`` is of a tournament round in which
        ``player``'s own table still plays: in a Duplicate Swiss its replay shows the
        deal they hold (the other kinds are kept alike: one rule for every round)."""
        table_id = game_id.rsplit(".", 1)[0]
        table = await self._reserved(table_id)
        if table is None or player.account is None:
            return
        account = player.account.account_id
        for other in self._tables.values():
            if (
                other.tournament_id == table.tournament_id
                and other.round == table.round
                and other.table_id != table.table_id
                and account in other.seats
            ):
                raise RequestError(
                    ErrorCode.FORBIDDEN, "finish your table of the round before seeing others"
                )

    async def check_watch(self, player: Player, table_id: str) -> None:
        """``forbidden`` if ``player`` is registered in the tournament of ``table_id``
        and the table still plays (its deal may be one they have yet to play)."""
        table = await self._reserved(table_id)
        if table is None or table.results is not None or player.account is None:
            return
        if await self.store.entry(table.tournament_id, player.account.account_id) is not None:
            raise RequestError(
                ErrorCode.FORBIDDEN, "players of the tournament watch its tables once it is over"
            )
