"""The lobby: the tables of this process, and the requests that find or make one.

Listing, creating and quick-play are answered here; everything that changes
a table is handed to that table's actor as a command.
"""

from __future__ import annotations

import secrets
import string
import time
from collections.abc import Callable, Iterable
from typing import Protocol

from engine.codec import to_plain
from engine.registry import GAMES, policy_names
from protocol.client_messages import CreateTable, QuickPlay
from protocol.codec import unchecked
from protocol.errors import ErrorCode
from protocol.models import AiSeat, DuplicateBoardRef, TableOptions
from protocol.server_messages import GameInfo, Games, Tables
from server.ai.pool import AiRunner
from server.config import ServerConfig
from server.duplicate.boards import BoardSet, SeedKey
from server.ops.logs import get_logger
from server.ops.metrics import Metrics
from server.persist.db.records import RecordWriter
from server.persist.store import LeaseLost, Store, StoreUnavailable, TableRecord
from server.players.quotas import Quotas
from server.players.relations import blocks_between
from server.players.sessions import Player, Sessions
from server.ratings.levels import RATED_LEVELS
from server.tables.actor import TableActor
from server.tables.commands import (
    Disconnect,
    Forget,
    Join,
    Lost,
    Presence,
    Reconnect,
    Spectate,
    Stop,
    Tick,
)
from server.tables.core import TableCore
from server.tables.options import RequestError, check_options, game_named
from server.tables.reach import TableReach
from server.tables.record import game_record
from server.tables.replay import FixedSeed, restore_core


class Remote(Protocol):
    """The other processes' tables, as the lobby reaches them: the routing between
    processes (:class:`server.cluster.bus.Bus`), which depends on the lobby, not
    the lobby on it."""

    def presence(self, player: Player, table_id: str, presence: type[Presence]) -> None:
        """Tell the process that owns ``table_id`` the player's ``presence`` event."""

    async def adopt_members(self, actor: TableActor) -> None:
        """Give the members of ``actor``'s table (just rebuilt here) who are connected
        to other processes their stand-ins here."""


OWN, FREE_SEATS, OTHERS = 0, 1, 2
"""The groups of a lobby listing, in the order they are listed (:func:`listing_group`)."""


def listing_group(member: bool, private: bool, finished: bool, joinable: bool) -> int | None:
    """Where a table goes in a player's lobby listing: :data:`OWN` (the player is at
    it), :data:`FREE_SEATS` (waiting with a seat free), :data:`OTHERS`; ``None``:
    not listed (another's private table, or a finished one)."""
    if member:
        return OWN
    if private or finished:
        return None
    return FREE_SEATS if joinable else OTHERS


CODE_ALPHABET = string.ascii_letters + string.digits


def random_code(length: int) -> str:
    """A random code of letters and digits (table ids, invites: easy to type and to pass
    as a command-line argument, never starting with ``-``)."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(length))


class Lobby:
    """Every table actor of this process, by table id."""

    def __init__(
        self,
        config: ServerConfig,
        store: Store,
        sessions: Sessions,
        ai: AiRunner,
        clock: Callable[[], float] = time.monotonic,
        seed_source: Callable[[], int] = lambda: secrets.randbits(63),
        metrics: Metrics | None = None,
    ) -> None:
        self.config = config
        self.metrics = metrics or Metrics()
        self.store = store
        self.sessions = sessions
        self.ai = ai
        self.clock = clock
        self.seed_source = seed_source
        self.tables: dict[str, TableActor] = {}
        self.reach = TableReach(self.tables)
        """How requests reach these tables (the hot path's part: :mod:`server.tables.reach`)."""
        self._remote: Remote | None = None
        self._log = get_logger(component="lobby")
        self.quotas = Quotas(config, self._is_waiting)
        self.recorder: RecordWriter | None = None
        """Stores the finished games of the tables here (game records); ``None``: not stored."""
        self.duplicate_key: SeedKey | None = None
        """The secret duplicate boards' seeds derive from (issue 56); ``None``: no duplicate."""

    @property
    def remote(self) -> Remote | None:
        """The routing to other processes (:class:`server.cluster.bus.Bus`), if any."""
        return self._remote

    @remote.setter
    def remote(self, bus: Remote | None) -> None:
        self._remote = bus
        self.reach.clustered = bus is not None  # moves for tables not here go over it

    # -- reading -------------------------------------------------------------
    def games(self, ref: int | None) -> Games:
        """Every registered game with its seats, AI levels and default options."""
        infos = []
        for game_id, game in GAMES.items():
            opts = game.options()
            infos.append(
                GameInfo(
                    id=game_id,
                    title=game.title,
                    seats=game.num_seats(opts),
                    levels=policy_names(game_id),
                    options=to_plain(opts),
                )
            )
        return Games(ref=ref, games=tuple(infos))

    def list_tables(self, player: Player, game: str | None, ref: int | None) -> Tables:
        """Public tables (and the player's own), optionally of one game.

        Finished tables are listed only to their members (their replays stay
        reachable by id): the lobby shows tables one can still join or watch.
        At most ``max_listed_tables``: the player's own first, then those with
        a free seat, then the others (:meth:`listing`); each table's summary
        is built again only when it changed or is a second old
        (:meth:`~server.tables.core.TableCore.listed_info`), so that a client
        listing a thousand tables over and over costs little.
        """
        now = self.clock()
        listed = [core for group in self.listing(player, game) for core in group]
        infos = tuple(core.listed_info(now) for core in listed[: self.config.max_listed_tables])
        # summaries the tables built and validated themselves: not validated again
        return unchecked(Tables, {"type": "tables", "ref": ref, "tables": infos})

    def listing(
        self, player: Player, game: str | None
    ) -> tuple[list[TableCore], list[TableCore], list[TableCore]]:
        """The tables ``player`` may see listed, of ``game`` or all: those the player is
        at, those with a free seat, and the others, newest first in each group (the scan
        stops once the tables with a free seat fill ``max_listed_tables``)."""
        own: list[TableCore] = []
        for table_id in player.tables:  # where the player sits or watches
            actor = self.tables.get(table_id)
            if (
                actor is not None
                and (game is None or actor.core.game.id == game)
                and actor.core.is_member(player.player_id)
            ):
                own.append(actor.core)
        own.reverse()  # joined last, listed first
        mine = {core.id for core in own}
        groups: tuple[list[TableCore], list[TableCore], list[TableCore]] = (own, [], [])
        enough = self.config.max_listed_tables - len(own)  # free seats are listed first
        for actor in reversed(self.tables.values()):  # newest first
            core = actor.core
            if (game is not None and core.game.id != game) or core.id in mine:
                continue
            status = core.status
            group = listing_group(
                False,
                core.setup.options.private,
                status == "finished",
                status == "waiting" and core.has_free_seat(),
            )
            if group is not None:
                groups[group].append(core)
                if group == FREE_SEATS and len(groups[FREE_SEATS]) >= enough:
                    break  # nothing further along could be listed
        return groups

    def find(self, player: Player, table_id: str, invite: str | None = None) -> TableActor:
        """The table ``table_id`` if the player may reach it; else ``not_found``
        (:meth:`server.tables.reach.TableReach.find`)."""
        return self.reach.find(player, table_id, invite)

    # -- making tables ---------------------------------------------------------
    def check_room(self, player: Player) -> None:
        """Refuse (``quota_exceeded``) a player already at as many tables as allowed."""
        if len(player.tables) >= self.config.max_tables_per_player:
            limit = self.config.max_tables_per_player
            raise RequestError(
                ErrorCode.QUOTA_EXCEEDED,
                f"you are at {limit} tables already",
                "max_tables_per_player",
            )

    def ai_tables_of(self, player: Player) -> set[str]:
        """The AI-only tables (no human seated) the player created or watches, still open."""
        watched = {t for t, seat in player.tables.items() if seat is None}
        return {
            table_id
            for table_id, actor in self.tables.items()
            if not actor.closed
            and actor.core.ai_only()
            and (table_id in watched or actor.core.owner == player.player_id)
        }

    def check_ai_tables(self, player: Player, actor: TableActor | None = None) -> None:
        """Refuse (``quota_exceeded``) one more AI-only table — a new one when ``actor`` is
        None, else watching ``actor`` if nobody plays there — past
        ``max_ai_tables_per_player``: nobody's AI capacity is spent on games nobody plays."""
        if actor is not None and (
            not actor.core.ai_only() or actor.id in self.ai_tables_of(player)
        ):
            return
        limit = self.config.max_ai_tables_per_player
        if len(self.ai_tables_of(player)) >= limit:
            raise RequestError(
                ErrorCode.QUOTA_EXCEEDED,
                f"you run {limit} tables where nobody plays already; leave one first",
                "max_ai_tables_per_player",
            )
        if actor is not None:
            # counted from now, not once the actor handles the spectate: a client
            # sending several spectates at once gets no more than the cap
            player.tables.setdefault(actor.id, None)

    async def create(self, player: Player, msg: CreateTable) -> TableActor:
        """A new table as ``msg`` asks; the creator sits (or watches) there."""
        self.check_room(player)
        if msg.options.rated and player.account is None:
            raise RequestError(
                ErrorCode.NOT_LOGGED_IN, "only an account can create a rated table: log in"
            )
        if msg.options.duplicate is not None:
            raise RequestError(
                ErrorCode.BAD_OPTIONS, "a duplicate board's table is made by play_duplicate"
            )
        if msg.options.seat is None:
            self.quotas.check_watch(player)  # else the new table would have nobody at it
            self.check_ai_tables(player)
        actor = await self._new_table(player, msg.game, msg.options, quick=False)
        if msg.options.seat is None:
            actor.submit(Spectate(player, msg.id))
        else:
            actor.pending_joins += 1
            actor.submit(Join(player, msg.id, msg.options.seat))
        actor.submit(Tick())
        return actor

    async def quick_play(self, player: Player, msg: QuickPlay) -> TableActor:
        """Join a waiting quick-play table of the game, or open one that the AI fills later."""
        self.check_room(player)
        game_named(msg.game)
        if msg.partner is not None:
            found = self._join_partner(player, msg)
            if found is not None:
                return found
        for actor in self.tables.values():
            core = actor.core
            if (
                core.quick
                and not actor.closed
                and core.game.id == msg.game
                and core.status == "waiting"
                and core.fill_level == (msg.level or core.setup.strongest)
                and len(core.free_seats()) > actor.pending_joins
                and not core.is_member(player.player_id)
                and not core.name_taken(player.name)
                and self._all_here(core)
                and not self.blocked_with(player, [slot.player_id for slot in core.seats])
            ):
                actor.pending_joins += 1
                actor.submit(Join(player, msg.id, None))
                return actor
        options = TableOptions(seat=0, fill_after=self.config.quick_fill_wait)
        actor = await self._new_table(player, msg.game, options, quick=True, level=msg.level)
        actor.pending_joins += 1
        actor.submit(Join(player, msg.id, 0))
        return actor

    def _join_partner(self, player: Player, msg: QuickPlay) -> TableActor | None:
        """Seat ``player`` opposite ``msg.partner`` (Cicera: as partners) at that player's
        waiting quick-play table, if there is one with that seat free."""
        for actor in self.tables.values():
            core = actor.core
            if not (
                core.quick
                and not actor.closed
                and core.game.id == msg.game
                and core.status == "waiting"
                and not core.is_member(player.player_id)
                and self._all_here(core)
                and not self.blocked_with(player, [slot.player_id for slot in core.seats])
            ):
                continue
            n = len(core.seats)
            for i, slot in enumerate(core.seats):
                seat = (i + n // 2) % n
                if slot.kind == "human" and slot.name == msg.partner:
                    if seat not in core.free_seats():
                        continue
                    actor.pending_joins += 1
                    actor.submit(Join(player, msg.id, seat))
                    return actor
        return None

    def _all_here(self, core: TableCore) -> bool:
        """Whether every human seated at ``core`` is connected: quick play never seats a
        newcomer with somebody who is gone (their seat at a waiting quick-play table is
        given up once the table handles the disconnect, :meth:`TableCore.disconnect`;
        this covers the moments before it does)."""
        for slot in core.seats:
            if slot.kind == "human" and slot.player_id is not None:
                player = self.sessions.get(slot.player_id)
                if not slot.connected or player is None or not player.connected:
                    return False
        return True

    def blocked_with(self, player: Player, seated: Iterable[str | None]) -> bool:
        """Whether ``player`` blocks, or is blocked by, one of the players ``seated``
        (their player ids; quick play never seats such a pair together).  A player
        whose session is on another process is known here by their player id only."""
        for player_id in seated:
            if player_id is None:
                continue
            other = self.sessions.get(player_id)
            if player_id in player.relations.blocked or (
                other is not None
                and blocks_between(player.key, player.relations, other.key, other.relations)
            ):
                return True
        return False

    async def matched_table(
        self,
        game_id: str,
        options: TableOptions,
        table_id: str,
        level: str,
        deal_seed: int | None = None,
    ) -> TableActor:
        """A new table ``table_id`` that nobody created: the rated queue's, whose players
        it then seats (:mod:`server.ratings.rated_play`), or a tournament's; ``level``
        fills a seat still empty after ``options.fill_after``; ``deal_seed``: the seed it
        deals (a Duplicate Swiss round's), else fresh ones. Not counted against anyone's
        quota of created tables."""
        return await self._new_table(
            None,
            game_id,
            options,
            quick=False,
            level=level,
            table_id=table_id,
            deal_seed=deal_seed,
        )

    async def duplicate_table(
        self,
        player: Player,
        board_set: BoardSet,
        board: int,
        table_id: str,
        ref: int | None = None,
    ) -> TableActor:
        """A private table of board ``board`` of ``board_set`` for ``player`` (issue 56)
        under its id (:meth:`server.duplicate.boards.SeedKey.table_id`): the player at
        the set's seat, the set's AI level at every other seat, no hints, nobody
        watching; the deal's seed is the board's (:meth:`_seed_source_for`).
        ``already_seated`` if the table exists: here, or made a moment ago by another
        process (the store makes a table of an id once)."""
        in_play = RequestError(
            ErrorCode.ALREADY_SEATED, f"board {board} is being played at table {table_id}", table_id
        )
        if table_id in self.tables:
            raise in_play
        self.check_room(player)
        game = game_named(board_set.game)
        seats = game.num_seats(game.options(board_set.options()))
        options = TableOptions(
            ai=tuple(
                AiSeat(seat=s, level=board_set.level) for s in range(seats) if s != board_set.seat
            ),
            seat=board_set.seat,
            private=True,
            hints=False,
            game=board_set.options(),
            duplicate=DuplicateBoardRef(set_id=board_set.set_id, board=board),
        )
        try:
            actor = await self._new_table(
                player, board_set.game, options, quick=False, table_id=table_id
            )
        except LeaseLost:
            raise in_play from None
        actor.pending_joins += 1
        actor.submit(Join(player, ref, board_set.seat))
        actor.submit(Tick())
        return actor

    async def team_table(
        self,
        game_id: str,
        options: TableOptions,
        table_id: str,
        player: Player | None,
        seat: int,
        ref: int | None = None,
        *,
        level: str,
    ) -> TableActor:
        """A team match's table of one board (issue 56, :mod:`server.duplicate.
        team_requests`) under its derived id, ``player`` seated at ``seat`` (``None``:
        made for absent members, the AI of ``level`` in their seats); the other members
        join it as they come, and the AI of ``level`` takes the seats still empty after
        ``options.fill_after``. Counted against nobody's quota of created tables: the
        match made it."""
        if player is not None:
            self.check_room(player)
        actor = await self._new_table(
            None, game_id, options, quick=False, table_id=table_id, level=level
        )
        if player is not None:
            actor.pending_joins += 1
            actor.submit(Join(player, ref, seat))
        actor.submit(Tick())
        return actor

    def _seed_source_for(self, options: TableOptions) -> Callable[[], int]:
        """The deal seeds of a table: a duplicate board's own seed, else fresh ones."""
        ref = options.duplicate
        if ref is None:
            return self.seed_source
        key = self.duplicate_key
        if key is None:
            raise RequestError(ErrorCode.BAD_OPTIONS, "this server plays no duplicate boards")
        set_id, board = ref.set_id, ref.board
        return lambda: key.board_seed(set_id, board)

    async def _new_table(
        self,
        player: Player | None,
        game_id: str,
        options: TableOptions,
        *,
        quick: bool,
        level: str | None = None,
        table_id: str | None = None,
        deal_seed: int | None = None,
    ) -> TableActor:
        game = game_named(game_id)
        if len(self.tables) >= self.config.max_tables:
            raise RequestError(ErrorCode.SERVER_BUSY, "the server holds all the tables it can")
        setup = check_options(game, options)
        if level is not None and level not in setup.levels:
            raise RequestError(
                ErrorCode.BAD_OPTIONS, f"unknown AI level {level!r}; {', '.join(setup.levels)}"
            )
        if options.rated and (level or setup.strongest) not in RATED_LEVELS:
            rated = ", ".join(RATED_LEVELS)
            raise RequestError(ErrorCode.BAD_OPTIONS, f"AI level {level!r} is not rated; {rated}")
        if table_id is None:
            table_id = random_code(8)
            while table_id in self.tables:
                table_id = random_code(8)
        now = self.clock()
        core = TableCore(
            table_id,
            setup,
            owner=None if player is None else player.player_id,
            quick=quick,
            invite=random_code(12) if options.private else None,
            seed_source=self._seed_source_for(options)
            if deal_seed is None
            else FixedSeed(deal_seed),
            ai_delay=self.config.ai_delay if options.ai_delay is None else options.ai_delay,
            disconnect_grace=self.config.disconnect_grace,
            chat_max_len=self.config.chat_max_len,
            chat_per_minute=self.config.chat_per_minute,
            replays_kept=self.config.replays_kept,
            fill_at=None if options.fill_after is None else now + options.fill_after,
            fill_level=level,
            max_spectators=self.config.max_spectators_per_table,
            waiting_grace=self.config.waiting_table_grace,
            ai_table_linger=self.config.ai_table_linger,
            created=now,
        )
        if player is not None:
            self.quotas.reserve_table(table_id, player)
        try:
            await self.store.create(
                TableRecord(
                    table_id=table_id,
                    game=game_id,
                    options=options.model_dump(),
                    meta={} if deal_seed is None else {"deal_seed": deal_seed},
                )
            )
        except StoreUnavailable:
            self.quotas.drop_table(table_id)
            raise RequestError(
                ErrorCode.STORE_UNAVAILABLE, "tables cannot be recorded now; retry soon"
            ) from None
        except BaseException:
            self.quotas.drop_table(table_id)
            raise
        actor = self._run(core)
        creator = None if player is None else player.player_id
        self._log.info("table_created", table=table_id, game=game_id, player=creator)
        return actor

    def _run(self, core: TableCore) -> TableActor:
        """Start the actor of ``core`` and list it here."""
        actor = TableActor(
            core,
            store=self.store,
            sessions=self.sessions,
            ai=self.ai,
            on_close=self._closed,
            clock=self.clock,
            metrics=self.metrics,
            quotas=self.quotas,
        )
        actor.on_lost = self._lost
        actor.recorder = self.recorder
        self.tables[core.id] = actor
        actor.start()
        return actor

    def _closed(self, table_id: str) -> None:
        self.tables.pop(table_id, None)
        self.quotas.drop_table(table_id)

    def _is_waiting(self, table_id: str) -> bool:
        """Whether a table waits for players (one still being created does)."""
        actor = self.tables.get(table_id)
        return actor is None or actor.core.status == "waiting"

    def in_game(self, player: Player) -> bool:
        """Whether ``player`` holds a seat in a game in progress (their session is kept)."""
        for table_id, seat in player.tables.items():
            actor = self.tables.get(table_id)
            if seat is not None and actor is not None and actor.core.status == "playing":
                return True
        return False

    # -- sessions coming and going -------------------------------------------
    def _each_table_of(self, player: Player, presence: type[Presence]) -> None:
        """Tell each of the player's tables, here or elsewhere, ``presence``."""
        for table_id in list(player.tables):
            actor = self.tables.get(table_id)
            if actor is None and self.remote is not None:
                self.remote.presence(player, table_id, presence)
            elif actor is None:
                player.tables.pop(table_id, None)
            else:
                actor.submit(presence(player))

    def disconnected(self, player: Player) -> None:
        """The player's connection dropped: their tables start the grace period."""
        self._each_table_of(player, Disconnect)

    def reconnected(self, player: Player) -> None:
        """The player is back: every table re-seats them and sends a snapshot."""
        self._each_table_of(player, Reconnect)

    def forget(self, player: Player) -> None:
        """The session expired: the player leaves every table."""
        self._each_table_of(player, Forget)

    # -- tables that move between processes (redis store) ---------------------------
    async def restore(self, table_id: str) -> TableActor | None:
        """Rebuild a recorded table this process has just taken (restart or takeover).

        Its members with a session here are re-attached; a table nobody is at
        any more is deleted instead.  Returns the running actor, if any.
        """
        record = await self.store.load(table_id)
        if record is None:
            return None
        core = self.rebuild_core(record)
        self.record_finished(core, record)
        if not core.members():
            await self.store.delete(table_id)
            self._log.info("table_dropped_empty", table=table_id)
            return None
        actor = self._run(core)
        for pid in core.members():
            player = self.sessions.get(pid)
            if player is not None:
                player.tables[table_id] = core.seat_of(pid)
                if player.connected:
                    actor.submit(Reconnect(player))
        actor.submit(Tick())
        if self.remote is not None:
            await self.remote.adopt_members(actor)
        self._log.info("table_restored", table=table_id, game=record.game, version=core.version)
        return actor

    def record_finished(self, core: TableCore, record: TableRecord) -> None:
        """Store again the finished game of a table rebuilt here (``core``, from
        ``record``): the process that ran it may have died before its background
        write.  A game stored already is left as it is (the write is idempotent by
        game id); it ended when its last action was stored."""
        if core.status != "finished" or self.recorder is None:
            return
        ended = record.meta.get("turn_at")
        self.recorder.submit(game_record(core, finished_at=None if ended is None else float(ended)))

    def rebuild_core(self, record: TableRecord) -> TableCore:
        """The table of ``record`` as it was: seating from its meta, the game replayed."""
        game = game_named(record.game)
        table_id = record.table_id
        setup = check_options(game, TableOptions.model_validate(record.options, strict=False))
        meta = record.meta
        deal_seed = meta.get("deal_seed")
        core = TableCore(
            table_id,
            setup,
            owner=meta.get("owner"),
            quick=bool(meta.get("quick", False)),
            invite=meta.get("invite"),
            seed_source=(
                self._seed_source_for(setup.options)
                if deal_seed is None
                else FixedSeed(int(deal_seed))
            ),
            ai_delay=float(meta.get("ai_delay", self.config.ai_delay)),
            disconnect_grace=self.config.disconnect_grace,
            chat_max_len=self.config.chat_max_len,
            chat_per_minute=self.config.chat_per_minute,
            replays_kept=self.config.replays_kept,
            fill_level=meta.get("fill_level"),
            max_spectators=self.config.max_spectators_per_table,
            waiting_grace=self.config.waiting_table_grace,
            ai_table_linger=self.config.ai_table_linger,
            created=self.clock(),  # what is due already: the tick :meth:`restore` queues
        )
        restore_core(core, record, self.clock(), time.time())
        return core

    def tables_of(self, player_id: str) -> dict[str, int | None]:
        """The tables here that ``player_id`` sits (seat) or watches (None) at."""
        return {
            table_id: actor.core.seat_of(player_id)
            for table_id, actor in self.tables.items()
            if not actor.closed and actor.core.is_member(player_id)
        }

    def lost(self, table_id: str) -> None:
        """Another process took the table over: stop driving it here."""
        actor = self.tables.get(table_id)
        if actor is not None:
            actor.submit(Lost())

    def _lost(self, table_id: str) -> None:
        """Another process drives the table now: forget it here (it is not closed)."""
        self.tables.pop(table_id, None)
        self.quotas.drop_table(table_id)
        forget = getattr(self.store, "forget", None)
        if forget is not None:
            forget(table_id)

    async def stop_all(self) -> None:
        """Stop every table actor, keeping the records in the store (server shutdown)."""
        actors = list(self.tables.values())
        for actor in actors:
            actor.submit(Stop())
        for actor in actors:
            await actor.wait_closed()
