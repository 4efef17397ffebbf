"""Rated quick play: the requests, the matching rounds, and seating the matched players.

A rated ``quick_play`` puts a logged-in player in the game's queue
(:mod:`server.ratings.queue`) at their rating (:class:`RatingSource`, the
ratings' store) and answers ``queued``. Every :data:`ROUND_PERIOD` each process
tries to take a game's matching lock; the one that holds it reads the queue,
asks the matcher (:mod:`server.ratings.matchmaking`) for tables, claims each
table's players at once, creates the table here as a rated table and seats
them. A player connected to another process is seated through a stand-in whose
messages go to that process (:meth:`server.cluster.bus.Bus.stand_in`), as a
request routed between processes is answered; their connection there hears
``joined`` and the table as if they had joined it themselves
(``docs/ratings.md``, "Rated quick play").
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import Collection, Mapping
from typing import Protocol

from sqlalchemy.exc import SQLAlchemyError

from engine.registry import GAMES
from protocol import client_messages as cm
from protocol import server_messages as sm
from protocol.errors import ErrorCode
from protocol.models import AiSeat, TableOptions
from server.lobby import Lobby, random_code
from server.ops.logs import get_logger
from server.persist.store import StoreUnavailable
from server.players.accounts import Account
from server.players.names import skeleton
from server.players.sessions import Player
from server.ratings.levels import AI_ACCOUNTS, RATED_LEVELS, ai_account
from server.ratings.matchmaking import Match, QueueEntry, closest_level, match
from server.ratings.model import NEWCOMER, Rating
from server.ratings.queue import CLAIM_TTL, AlreadyQueued, BeingSeated, QueueStore
from server.tables.actor import TableActor
from server.tables.commands import Join
from server.tables.options import RequestError, game_named

ROUND_PERIOD = 0.25
"""Seconds between two matching rounds of a game at most (sooner when somebody reaches
the fill wait before then)."""

LOCK_TTL = 2.0
"""Seconds a process holds a game's matching lock after its last round: if it dies,
another process matches the game after at most this long."""

SEATED_WAIT = CLAIM_TTL / 2
"""Seconds a table being made waits for its players' seats to be stored before it takes
them out of the queue (well within the claim, which keeps the others off them)."""

EMPTY_SEAT_FILL = CLAIM_TTL
"""Seconds after which a seat of a new rated table that its matched player did not take
(their join refused) goes to the table's AI level, so the others never wait on it."""

MIN_PAUSE = 0.02
"""The shortest pause between two rounds (one due at once still yields to the rest)."""


class RatingSource(Protocol):
    """Where ratings come from (:class:`server.ratings.store.RatingStore`)."""

    async def ratings(self, game: str, keys: Collection[str]) -> dict[str, Rating]:
        """The ratings of ``keys`` at ``game`` (an absent key: a newcomer)."""


class Cluster(Protocol):
    """What seating across processes needs (the bus and the Redis store:
    :class:`server.app.ClusterSeating`)."""

    async def where(self, player_ids: list[str]) -> dict[str, str]:
        """The process each of these players is connected to (those connected anywhere)."""

    def stand_in(self, pid: str, name: str, node: str) -> Player:
        """The player connected at ``node``, as the tables here see them."""

    async def seated_at(self, player_id: str) -> dict[str, str]:
        """The tables anywhere where ``player_id`` holds a seat, with their status."""


class RatedPlay:
    """This process's end of the rated queues."""

    def __init__(
        self,
        lobby: Lobby,
        queue: QueueStore,
        ratings: RatingSource,
        *,
        fill_wait: float,
        gone_after: float,
        cluster: Cluster | None = None,
    ) -> None:
        self.lobby = lobby
        self.queue = queue
        self.ratings = ratings
        self.fill_wait = fill_wait
        """Seconds after which the AI fills the seats nobody of close rating took."""
        self.gone_after = gone_after
        """Seconds an entry whose player is connected nowhere stays queued (the session's
        life: past it the session is gone)."""
        self.cluster = cluster
        self._task: asyncio.Task[None] | None = None
        self._making: set[asyncio.Task[bool]] = set()
        """Tables being made (each holds its players' claim until they are seated)."""
        self._log = get_logger(component="rated_play")

    # -- requests -------------------------------------------------------------------
    async def enqueue(self, player: Player, msg: cm.QuickPlay) -> None:
        """Queue ``player`` for ``msg.game``'s rated play; answered by ``queued``."""
        account = player.account
        if account is None:
            raise RequestError(
                ErrorCode.NOT_LOGGED_IN, "rated play needs an account: log in or register"
            )
        if msg.level is not None or msg.partner is not None:
            raise RequestError(
                ErrorCode.BAD_OPTIONS, "a rated quick play takes no level and no partner"
            )
        game_named(msg.game)
        busy = await self._unfinished_seat(player)
        if busy is not None:
            raise RequestError(
                ErrorCode.ALREADY_SEATED,
                "you hold a seat in a game that is not over: finish or leave it first",
                busy,
            )
        rating = (await self._ratings(msg.game, [account.account_id])).get(
            account.account_id, NEWCOMER
        )
        entry = QueueEntry(
            player_id=player.player_id,
            key=account.account_id,
            name=player.name,
            rating=rating.points,
            queued_at=0.0,
            bot=account.bot,
            with_bots=msg.with_bots,
            blocked=player.relations.blocked,
            look=skeleton(player.name),
        )
        try:
            entry = await self.queue.add(msg.game, entry)
        except AlreadyQueued as exc:
            raise RequestError(
                ErrorCode.ALREADY_QUEUED,
                f"you wait in the {exc.game} rated queue already",
                exc.game,
            ) from None
        except StoreUnavailable:
            raise _unreachable() from None
        player.send(self.queued(msg.id, msg.game, entry))
        self._log.info("queued", player=player.player_id, game=msg.game, rating=entry.rating)

    def queued(self, ref: int | None, game: str, entry: QueueEntry) -> sm.Queued:
        """The ``queued`` message for ``entry``."""
        return sm.Queued(
            ref=ref,
            game=game,
            since=entry.queued_at,
            wait=self.fill_wait,
            rating=entry.rating,
            with_bots=entry.with_bots,
        )

    async def leave(self, player: Player, msg: cm.LeaveQueue) -> None:
        """Take ``player`` out of the rated queue; answered by ``ok``."""
        account = player.account
        if account is None:
            raise RequestError(ErrorCode.NOT_LOGGED_IN, "only accounts queue for rated play")
        try:
            game = await self.queue.remove(account.account_id, msg.game)
        except BeingSeated:
            raise RequestError(
                ErrorCode.NOT_QUEUED, "your table is being made: you are seated in a moment"
            ) from None
        except StoreUnavailable:
            raise _unreachable() from None
        if game is None:
            where = "" if msg.game is None else f" for {msg.game}"
            raise RequestError(ErrorCode.NOT_QUEUED, f"you are not in a rated queue{where}")
        player.send(sm.Ok(ref=msg.id))
        self._log.info("left_queue", player=player.player_id, game=game)

    async def resumed(self, player: Player) -> None:
        """A session resumed (on any process): if it is queued, it hears ``queued`` again."""
        if player.account is None:
            return
        with contextlib.suppress(StoreUnavailable):
            found = await self.queue.find(player.account.account_id)
            if found is not None:
                player.send(self.queued(None, found[0], found[1]))

    async def forget(self, player: Player) -> None:
        """The session expired: its entry, if it is the one queued, leaves the queue."""
        if player.account is None:
            return
        with contextlib.suppress(StoreUnavailable, BeingSeated):
            found = await self.queue.find(player.account.account_id)
            if found is not None and found[1].player_id == player.player_id:
                await self.queue.remove(found[1].key, found[0])

    def _seated_here(self, player: Player) -> str | None:
        """A table of this process where ``player`` holds a seat in a game not over."""
        for table_id, seat in player.tables.items():
            actor = self.lobby.tables.get(table_id)
            if seat is not None and actor is not None and actor.core.status != "finished":
                return table_id
        return None

    async def _unfinished_seat(self, player: Player) -> str | None:
        """A table where ``player`` holds a seat in a game not over, if any."""
        here = self._seated_here(player)
        if here is not None:
            return here
        if self.cluster is not None and any(t not in self.lobby.tables for t in player.tables):
            try:
                seated = await self.cluster.seated_at(player.player_id)
            except StoreUnavailable:
                raise _unreachable() from None
            for table_id, status in seated.items():
                if status != "finished" and table_id not in self.lobby.tables:
                    return table_id
        return None

    async def _ratings(self, game: str, keys: Collection[str]) -> Mapping[str, Rating]:
        try:
            return await self.ratings.ratings(game, keys)
        except (StoreUnavailable, SQLAlchemyError, OSError):
            raise RequestError(
                ErrorCode.STORE_UNAVAILABLE, "ratings cannot be read now; retry soon"
            ) from None

    # -- rounds -----------------------------------------------------------------------
    def start(self) -> None:
        """Run the matching rounds until :meth:`stop`."""
        self._task = asyncio.create_task(self._rounds(), name="rated-play")

    async def stop(self) -> None:
        """Stop matching (the queue stays in its store; a table half made is settled by
        its claim running out, as after a crash)."""
        tasks = [t for t in (self._task, *self._making) if t is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def _rounds(self) -> None:
        """A round of every game, again after :data:`ROUND_PERIOD` — or sooner, when
        somebody reaches the fill wait before then (they are seated at once)."""
        loop = asyncio.get_running_loop()
        pause = ROUND_PERIOD
        while True:
            await asyncio.sleep(pause)
            began = loop.time()
            due = min(await asyncio.gather(*(self._round_of(game) for game in GAMES)))
            pause = max(MIN_PAUSE, due - (loop.time() - began))

    async def _round_of(self, game: str) -> float:
        """A round of ``game`` if this process holds its lock; seconds until the next."""
        try:
            if await self.queue.lock(game, LOCK_TTL):
                return await self.round(game)
        except (StoreUnavailable, SQLAlchemyError, OSError) as exc:
            self._log.warning("rated_round_store_unavailable", game=game, error=str(exc))
        except Exception as exc:  # a bug in one round must not stop the queue
            self._log.exception("rated_round_failed", game=game, error=repr(exc))
        return ROUND_PERIOD

    async def round(self, game: str) -> float:
        """One matching round of ``game``'s queue; the seconds until the next one is due
        (at most :data:`ROUND_PERIOD`). The tables it matched are made meanwhile (their
        claims keep their players out of the next rounds)."""
        waiting = await self.queue.waiting(game)
        if not waiting.entries:
            return ROUND_PERIOD
        nodes = await self._where([e.player_id for e in waiting.entries])
        ready: list[QueueEntry] = []
        for entry in waiting.entries:
            stale = waiting.stale.get(entry.key)
            if stale is not None and await self._seated_there(entry.player_id, stale):
                # a process died after seating them, before taking them out: done now
                if await self.queue.claim(game, [entry.key], stale):
                    await self.queue.done(game, [entry.key])
                continue
            if entry.player_id in nodes:
                local = self.lobby.sessions.get(entry.player_id)
                if nodes[entry.player_id] is None and local and self._seated_here(local):
                    continue  # they sat down to another game meanwhile: after it
                ready.append(entry)
            elif entry.waited(waiting.now) > self.gone_after:
                with contextlib.suppress(BeingSeated):
                    await self.queue.remove(entry.key, game)
        if not ready:
            return ROUND_PERIOD
        rated = await self.ratings.ratings(game, AI_ACCOUNTS)
        ai = {level: rated.get(ai_account(level), NEWCOMER).points for level in RATED_LEVELS}
        g = GAMES[game]
        seats = g.num_seats(g.options())
        matches = match(ready, seats, waiting.now, self.fill_wait, ai)
        for m in matches:
            mean = sum(p.rating for p in m.players) / len(m.players)
            level = m.ai_level or closest_level(mean, ai)[0]
            task = asyncio.create_task(self._make(game, m, seats, level, nodes, waiting.now))
            self._making.add(task)
            task.add_done_callback(self._made)
        matched = {p.player_id for m in matches for p in m.players}
        due = [e.queued_at + self.fill_wait for e in ready if e.player_id not in matched]
        return min([ROUND_PERIOD, *(at - waiting.now for at in due)])

    def _made(self, task: asyncio.Task[bool]) -> None:
        self._making.discard(task)
        if not task.cancelled() and task.exception() is not None:
            self._log.error("rated_table_failed", error=repr(task.exception()))

    async def _where(self, player_ids: list[str]) -> dict[str, str | None]:
        """Where each of these players is connected: ``None`` here, else the process;
        absent: connected nowhere (they wait until they are back)."""
        out: dict[str, str | None] = {}
        elsewhere = []
        for pid in player_ids:
            player = self.lobby.sessions.get(pid)
            if player is not None and player.connected and player.token:
                out[pid] = None
            else:
                elsewhere.append(pid)
        if self.cluster is not None and elsewhere:
            out.update(await self.cluster.where(elsewhere))
        return out

    async def _seated_there(self, player_id: str, table_id: str) -> bool:
        actor = self.lobby.tables.get(table_id)
        if actor is not None:
            return actor.core.seat_of(player_id) is not None
        if self.cluster is None:
            return False
        return table_id in await self.cluster.seated_at(player_id)

    def _player(self, entry: QueueEntry, node: str | None) -> Player | None:
        """The player of ``entry`` as a table here sees them: their session here, or a
        stand-in for their connection at ``node``."""
        if node is None or self.cluster is None:
            return self.lobby.sessions.get(entry.player_id)
        player = self.cluster.stand_in(entry.player_id, entry.name, node)
        player.account = Account(entry.key, entry.name, entry.bot)
        return player

    async def _make(
        self,
        game: str,
        m: Match,
        seats: int,
        level: str,
        nodes: Mapping[str, str | None],
        now: float,
    ) -> bool:
        """Claim ``m``'s players, make their rated table here and seat them; whether made.
        ``level``: the AI level of its AI seats, and of a seat left empty; ``now``: the
        queue's time when they were matched."""
        table_id = random_code(8)
        keys = [p.key for p in m.players]
        if not await self.queue.claim(game, keys, table_id):
            return False  # another process took one of them first: the next round sees
        order = random.sample(range(seats), seats)  # no one always deals first
        human, ai = order[: len(m.players)], sorted(order[len(m.players) :])
        try:
            players = [self._player(p, nodes.get(p.player_id)) for p in m.players]
            present = [p for p in players if p is not None]
            if len(present) != len(players):  # the session ended since the round began
                await self.queue.release(game, keys)
                return False
            options = TableOptions(
                seat=None,
                rated=True,
                hints=False,
                ai=tuple(AiSeat(seat=s, level=level) for s in ai),
                fill_after=EMPTY_SEAT_FILL,
            )
            actor = await self.lobby.matched_table(game, options, table_id, level)
        except (RequestError, StoreUnavailable) as exc:
            self._log.warning("rated_table_not_made", game=game, error=str(exc))
            with contextlib.suppress(StoreUnavailable):
                await self.queue.release(game, keys)
            return False
        for player, seat in zip(present, human, strict=True):
            actor.pending_joins += 1
            actor.submit(Join(player, None, seat))
        await self._until_seated(actor, present)
        refused = [  # their join was handled and did not seat them: they wait again
            p.key
            for p, player in zip(m.players, present, strict=True)
            if not actor.pending_joins and actor.core.seat_of(player.player_id) is None
        ]
        await self.queue.done(game, [k for k in keys if k not in refused])
        if refused:
            await self.queue.release(game, refused)
            self._log.warning("rated_seat_refused", table=table_id, players=refused)
        metrics = self.lobby.metrics
        metrics.inc("cardavia_rated_tables_total", game=game, ai="yes" if m.ai_seats else "no")
        for p in m.players:
            metrics.observe("cardavia_rated_wait_seconds", p.waited(now), game=game)
        self._log.info(
            "rated_table_made",
            table=table_id,
            game=game,
            players=[p.player_id for p in m.players],
            ai=m.ai_level,
            gap=m.gap,
        )
        return True

    @staticmethod
    async def _until_seated(actor: TableActor, players: list[Player]) -> None:
        """Wait (at most :data:`SEATED_WAIT`) until the table has stored every seat (a
        player's tables name it once its seat is stored)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + SEATED_WAIT
        while loop.time() < deadline and not actor.closed:
            if all(actor.id in p.tables for p in players):
                return
            await asyncio.sleep(0.01)


def _unreachable() -> RequestError:
    return RequestError(ErrorCode.STORE_UNAVAILABLE, "the queue cannot be reached now; retry soon")
