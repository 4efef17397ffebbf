"""Tournaments in a running server (issue 56): requests, the director and the seat keeper.

The requests (``docs/protocol.md``, "Tournaments") read and change the database
(:mod:`server.tournaments.store`); a database that cannot be reached is
``store_unavailable``.  The passes run every :data:`PERIOD` seconds in every
process: the :class:`~server.tournaments.director.Director` directs the tournaments
whose lease this process holds, the :class:`~server.tournaments.seating.SeatKeeper`
seats the people connected here.
"""

from __future__ import annotations

import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from sqlalchemy.exc import DBAPIError

from protocol import client_messages as cm
from protocol import server_messages as sm
from protocol.errors import ErrorCode
from server.lobby import Lobby
from server.ops.logs import get_logger
from server.ops.passes import Passes
from server.persist.db.engine import Database
from server.players.sessions import Player
from server.tables.options import RequestError
from server.tournaments.director import (
    ARENA_AI_WAIT,
    ARENA_MIN_WAIT,
    PERIOD,
    Director,
    Lease,
)
from server.tournaments.pairing import standings
from server.tournaments.seating import ABSENT_FILL, LobbyTables, SeatKeeper, SeatRequest
from server.tournaments.store import (
    NO_LIMITS,
    CreationLimits,
    Kind,
    NewTournament,
    Status,
    Tournament,
    TournamentStore,
)

STANDINGS_FRESH = 1.0
"""Seconds a tournament's computed standings are answered again while it runs."""
STANDINGS_KEPT = 64
"""Tournaments whose standings a process keeps at most."""
STOP_GRACE_S = 10.0
"""How long a shutdown waits for a director's pass in progress."""

TOURNAMENT_REQUESTS = (
    cm.ListTournaments,
    cm.CreateTournament,
    cm.RegisterTournament,
    cm.WithdrawTournament,
    cm.GetStandings,
    cm.NextTournamentTable,
)
"""The messages :meth:`Tournaments.handle` answers."""


@dataclass(frozen=True)
class KeptStandings:
    """A tournament's standings as computed at ``at`` (monotonic), for its ``key``
    (round and status)."""

    key: tuple[int, Status]
    at: float
    lines: tuple[sm.StandingLine, ...]


def info(t: Tournament, registered: bool = False) -> sm.TournamentInfo:
    """A tournament as the protocol lists it (never its secret)."""
    return sm.TournamentInfo(
        id=t.tournament_id,
        name=t.name,
        game=t.game,
        kind=t.kind.value,
        status=t.status.value,
        starts_at=t.starts_at,
        rounds=t.rounds,
        duration=t.duration_s,
        turn_timer=t.turn_timer,
        level=t.level,
        round=t.round,
        players=t.players,
        registered=registered,
    )


def _account(player: Player) -> str:
    if player.account is None:
        raise RequestError(ErrorCode.NOT_LOGGED_IN, "log in to play tournaments")
    return player.account.account_id


class Tournaments:
    """The tournaments of one process (see the module docstring)."""

    def __init__(
        self,
        db: Database,
        lobby: Lobby,
        lease: Lease,
        join: Callable[[Player, cm.JoinTable], Awaitable[None]],
        *,
        period: float = PERIOD,
        arena_min_wait: float = ARENA_MIN_WAIT,
        arena_ai_wait: float = ARENA_AI_WAIT,
        absent_fill: float = ABSENT_FILL,
        limits: CreationLimits = NO_LIMITS,
    ) -> None:
        self.store = TournamentStore(db)
        self.limits = limits
        """The quotas on creating tournaments (the server's settings)."""
        self.lobby = lobby
        self.period = period
        self.director = Director(
            self.store,
            LobbyTables(lobby, absent_fill),
            lease,
            arena_min_wait=arena_min_wait,
            arena_ai_wait=arena_ai_wait,
        )

        async def seat(request: SeatRequest) -> None:
            await join(
                request.player, cm.JoinTable(table=request.table.table_id, seat=request.seat)
            )

        self.keeper = SeatKeeper(self.store, lobby.sessions, seat)
        self._passes = Passes()
        self._standings: dict[str, KeptStandings] = {}
        self._log = get_logger(component="tournaments")

    def start(self) -> None:
        """Run the director's and the seat keeper's passes."""
        self._passes.spawn(self._loop(), "tournaments")

    async def stop(self) -> None:
        """Stop the passes and give the tournaments' leases up."""
        await self._passes.stop(STOP_GRACE_S)  # a pass writes rounds: let it end first
        await self.director.stop()

    async def _loop(self) -> None:
        pause = 0.0
        while await self._passes.pause(pause):
            started = time.monotonic()
            for job in (self.director.run_pass, self.keeper.run_pass):
                try:
                    await job()
                except Exception as exc:  # the next pass tries again
                    self._log.warning("tournament_pass_failed", error=repr(exc))
            spent = time.monotonic() - started
            pause = max(0.05, self.period * random.uniform(0.9, 1.1) - spent)

    # -- requests --------------------------------------------------------------
    async def handle(self, player: Player, msg: cm.ClientMessage) -> None:
        """Answer one of :data:`TOURNAMENT_REQUESTS`."""
        try:
            await self._handle(player, msg)
        except DBAPIError:
            raise RequestError(
                ErrorCode.STORE_UNAVAILABLE, "tournaments cannot be reached now; retry soon"
            ) from None

    async def _handle(self, player: Player, msg: cm.ClientMessage) -> None:
        store = self.store
        if isinstance(msg, cm.ListTournaments):
            statuses = tuple(Status) if msg.finished else (Status.SCHEDULED, Status.RUNNING)
            found = await store.listing(statuses)
            mine = await self._mine(player, found)
            player.send(
                sm.Tournaments(
                    ref=msg.id,
                    tournaments=tuple(info(t, t.tournament_id in mine) for t in found),
                )
            )
        elif isinstance(msg, cm.CreateTournament):
            account = _account(player)
            spec = NewTournament(
                name=msg.name,
                game=msg.game,
                kind=Kind(msg.kind),
                starts_at=msg.starts_at,
                rounds=msg.rounds,
                duration_s=msg.duration,
                turn_timer=msg.turn_timer,
                level=msg.level,
            )
            made = await store.create(spec, account, limits=self.limits)
            self._log.info("tournament_created", tournament=made.tournament_id, by=account)
            player.send(sm.Tournaments(ref=msg.id, tournaments=(info(made),)))
        elif isinstance(msg, cm.RegisterTournament):
            account = _account(player)
            assert player.account is not None
            await store.register(msg.tournament, account, player.account.name)
            player.send(sm.Ok(ref=msg.id))
        elif isinstance(msg, cm.WithdrawTournament):
            await store.withdraw(msg.tournament, _account(player))
            player.send(sm.Ok(ref=msg.id))
        elif isinstance(msg, cm.GetStandings):
            player.send(await self.standings(player, msg.tournament, msg.id))
        elif isinstance(msg, cm.NextTournamentTable):
            player.send(await self.next_table(player, msg.tournament, msg.id))
        else:
            raise RequestError(ErrorCode.BAD_MESSAGE, f"not a tournament request: {msg.type!r}")

    async def _mine(self, player: Player, found: tuple[Tournament, ...]) -> set[str]:
        if player.account is None:
            return set()
        account = player.account.account_id
        out = set()
        for t in found:
            entry = await self.store.entry(t.tournament_id, account)
            if entry is not None and not entry.withdrawn:
                out.add(t.tournament_id)
        return out

    async def standings(self, player: Player, tournament_id: str, ref: int | None) -> sm.Standings:
        """The tournament and its standings (from the stored results, at most
        :data:`STANDINGS_FRESH` seconds old while it runs)."""
        t = await self.store.get(tournament_id)
        mine = await self._mine(player, (t,))
        return sm.Standings(ref=ref, tournament=info(t, bool(mine)), standings=await self._lines(t))

    async def _lines(self, t: Tournament) -> tuple[sm.StandingLine, ...]:
        """The standings' lines of ``t``, computed again once :data:`STANDINGS_FRESH`
        seconds old or when the tournament's round or status moved on: every player of a
        tournament reads them while it runs (the terminal polls them between its tables,
        the browser refreshes them), and each computation reads every stored table."""
        key = (t.round, t.status)
        now = time.monotonic()
        kept = self._standings.get(t.tournament_id)
        if kept is not None and kept.key == key and now - kept.at < STANDINGS_FRESH:
            return kept.lines
        tournament_id = t.tournament_id
        entries = await self.store.entries(tournament_id)
        stored = await self.store.tables(tournament_id)
        if t.duplicate_game is not None and t.status is not Status.FINISHED:
            # every table of a Duplicate Swiss round deals the same cards: none of the
            # round's results shows before all its tables have played them (as a
            # duplicate board's results wait for the asker's own play, docs/duplicate.md)
            unfinished = {x.round for x in stored if x.results is None}
            stored = tuple(x for x in stored if x.round not in unfinished)
        games = [g for g in (x.game_result() for x in stored) if g]
        names = {e.account_id: e.name for e in entries}
        table = standings(
            [e.account_id for e in entries],
            games,
            [e.account_id for e in entries if e.withdrawn],
            duplicate_game=t.duplicate_game,
        )
        lines = tuple(
            sm.StandingLine(
                rank=s.rank,
                name=names[s.player_id],
                points=s.points,
                buchholz=s.buchholz,
                head_to_head=s.head_to_head,
                game_score=s.game_score,
                games=s.games,
                withdrawn=s.withdrawn,
                matchpoints=s.matchpoints,
            )
            for s in table
        )
        if len(self._standings) >= STANDINGS_KEPT:
            self._standings.clear()  # many tournaments read at once: start afresh
        self._standings[tournament_id] = KeptStandings(key, now, lines)
        return lines

    async def next_table(
        self, player: Player, tournament_id: str, ref: int | None
    ) -> sm.TournamentTable:
        """The player's table still playing in the tournament, if any."""
        account = _account(player)
        t = await self.store.get(tournament_id)
        swiss = t.kind is not Kind.ARENA and t.round > 0
        for table in await self.store.tables(tournament_id, t.round if swiss else None):
            if table.results is None and account in table.seats:
                return sm.TournamentTable(
                    ref=ref,
                    tournament=tournament_id,
                    round=table.round,
                    table=table.table_id,
                    seat=table.seats.index(account),
                )
        return sm.TournamentTable(ref=ref, tournament=tournament_id, round=t.round, table=None)
