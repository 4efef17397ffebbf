"""The server: WebSocket endpoint, /healthz, request dispatch, graceful shutdown.

:func:`running_server` runs one in-process (tests, ``cardavia play`` without
``--url``); :mod:`server.main` is the ``cardavia-server`` command.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import ssl
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager, suppress
from datetime import UTC, datetime
from http import HTTPStatus
from typing import Any

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.datastructures import Headers
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response

from compiled.runtime import loaded as compiled_loaded
from protocol import client_messages as cm
from protocol import pydantic_adapter
from protocol.base import PROTOCOL_VERSION
from protocol.codec import encode, encode_json
from protocol.errors import ErrorCode
from protocol.server_messages import Error, Shutdown
from server.ai.pool import AiRunner
from server.cluster.bus import Bus
from server.cluster.leases import Cluster
from server.config import ServerConfig, parse_networks
from server.duplicate.requests import DUPLICATE_REQUESTS, DuplicateRequests
from server.duplicate.store import DuplicateStore
from server.duplicate.team_requests import TEAM_REQUESTS, TeamRequests
from server.duplicate.team_store import TeamStore
from server.lobby import Lobby
from server.net import batching, keepalive, static, websockets_adapter
from server.net.batching import BatchingServerConnection
from server.net.connection import Connection
from server.net.flusher import Flusher
from server.net.static import select_subprotocol
from server.ops.logs import configure, get_logger
from server.ops.metrics import CONTENT_TYPE, Metrics, Reading
from server.ops.passes import Passes
from server.persist.db.engine import Database
from server.persist.db.game_record import record_from_plain
from server.persist.db.records import GameRecords, RecordWriter
from server.persist.login_backoffs import RedisBackoffs
from server.persist.redis_store import RedisStore
from server.persist.session_store import SessionStore
from server.persist.store import Store, StoreUnavailable, make_store
from server.players import account_requests, moderation_requests, record_requests
from server.players.accounts import Accounts
from server.players.moderation import Ban, BanList, Moderation
from server.players.quotas import Quotas, address_group, client_address
from server.players.sessions import Link, Player, Sessions
from server.ratings.queue import MemoryQueue, RedisQueue
from server.ratings.rated_play import RatedPlay
from server.ratings.store import RatingStore
from server.tables import hints
from server.tables.commands import TABLE_REQUESTS, Join, Spectate, unhandled
from server.tables.options import RequestError
from server.tables.reach import TableReach
from server.tournaments.director import LocalLease, RedisLease
from server.tournaments.service import TOURNAMENT_REQUESTS, Tournaments
from server.tournaments.store import CreationLimits

READY_STORE_TIMEOUT = 2.0
"""Seconds the store has to answer ``/readyz``'s health check."""


def tls_context(config: ServerConfig) -> ssl.SSLContext | None:
    """The server's TLS context when ``tls_cert``/``tls_key`` are set (wss:// and https://)."""
    if not config.tls_cert:
        return None
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(config.tls_cert, config.tls_key)
    return context


SHUTDOWN_STEP_S = 10.0
"""Seconds each shutdown step that talks to the store (cluster, bus, pool) may take."""
UNWRITTEN_AFTER_S = 60.0
"""Seconds after its game's end from which another process writes a game record still
unwritten (its own process writes it within milliseconds, or retries while the
database is away: a record written twice is stored once)."""
UNWRITTEN_PASS_S = 30.0
"""Seconds between two looks for game records left unwritten."""


class CardaviaServer:
    """Sessions, lobby and tables behind one WebSocket endpoint."""

    def __init__(
        self,
        config: ServerConfig,
        *,
        store: Store | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.config = config
        self.clock = clock
        self.sessions = Sessions()
        self.metrics = Metrics()
        self.metrics.read_gauges(self._gauges)
        self.flusher = Flusher()
        """Writes what the connections have queued (server.net.flusher)."""
        self.store = store if store is not None else self._make_store(config)
        self.cluster: Cluster | None = None
        self.bus: Bus | None = None
        self.session_store: SessionStore | None = None
        self.ai = AiRunner(
            config.ai_workers,
            config.ai_think,
            config.ai_deadline,
            self.metrics,
            config.ai_mode,
            queue_limit=config.ai_queue_limit,
            ai_only_rate=config.ai_only_moves_per_s,
        )
        self.lobby = Lobby(config, self.store, self.sessions, self.ai, clock, metrics=self.metrics)
        self.accounts = Accounts(
            Database(config.database),
            backoff=config.login_backoff,
            backoff_max=config.login_backoff_max,
        )
        """Registered players (server.players.accounts), in the SQL database."""
        self.sessions.name_taken = self.accounts.taken
        self.moderation = Moderation(self.accounts.db)
        """Mutes, blocks, reports and bans (server.players.moderation), in the same database."""
        self.bans = BanList()
        """The bans in force, read every ``config.ban_poll`` seconds (cardavia-admin makes them)."""
        # the sweeper, the ban poll, the daily duplicate sets: stopped between passes
        self._passes = Passes()
        """Stores each UTC day's daily duplicate sets at the day's start (issue 56)."""
        self.records = GameRecords(self.accounts.db)
        """Finished games (server.persist.db.records), in the same database."""
        self.record_writer = RecordWriter(
            self.records,
            on_written=lambda s: self.metrics.observe("cardavia_record_write_seconds", s),
        )
        """Stores each finished game in the background (the tables hand them over)."""
        self.lobby.recorder = self.record_writer
        self.duplicate = DuplicateRequests(
            self.lobby, DuplicateStore(self.accounts.db), self.records, config.duplicate_secret
        )
        """Duplicate sets and boards (issue 56), in the same database."""
        self.team = TeamRequests(
            self.lobby,
            TeamStore(self.accounts.db),
            self.records,
            self.duplicate.store,
            self.duplicate.key,
            config.team_absent_fill,
            config.max_team_matches_per_account,
        )
        """Team duplicate matches (issue 56): their tables' results come with the games."""
        self.record_writer.on_stored = self.team.stored
        if isinstance(self.store, RedisStore):  # a game archived unwritten is listed until
            self.record_writer.after_write = self.store.record_written  # its write is done
        self.rated = RatedPlay(
            self.lobby,
            MemoryQueue(),
            RatingStore(self.accounts.db),
            fill_wait=config.quick_fill_wait,
            gone_after=config.session_ttl,
        )
        """Rated quick play (server.ratings.rated_play): its queue moves to Redis with the
        redis store, shared by every process."""
        self.tournaments = Tournaments(
            self.accounts.db,
            self.lobby,
            LocalLease(),
            self.dispatch,
            period=config.takeover_interval,
            limits=CreationLimits(
                config.max_tournaments_per_account, config.tournaments_created_per_hour
            ),
        )
        """Tournaments (server.tournaments): one director per tournament (a lease in Redis
        with the redis store, as long as a table's), every process seating its own
        connected players; a pass every ``takeover_interval``, as the tables' scans."""
        self.connections: set[Connection] = set()
        self.port = 0
        self._server: Server | None = None
        self._warming: asyncio.Task[None] | None = None
        self._keepalive: asyncio.Task[None] | None = None
        self._warm_failed: str | None = None
        self._started = time.time()
        self._stopping = False
        self._log = get_logger(component="server")
        self._proxies = parse_networks(config.trusted_proxies)
        self._background: set[asyncio.Task[None]] = set()

    @staticmethod
    def _make_store(config: ServerConfig) -> Store:
        if config.store != "redis":
            return make_store(config.store)
        return RedisStore(
            config.redis_url,
            prefix=config.redis_prefix,
            lease_ttl=config.lease_ttl,
            replay_ttl=config.replay_ttl,
            replays_kept=config.replays_kept,
            timeout=config.store_timeout,
            connections=config.redis_connections,
        )

    async def _start_cluster(self) -> None:
        """With the redis store: check Redis answers, share sessions, take the tables."""
        if not isinstance(self.store, RedisStore):
            return
        await self.store.open()
        self.session_store = SessionStore(
            self.store.redis, self.config.redis_prefix, self.config.session_ttl
        )
        self.accounts.backoffs = RedisBackoffs(  # one budget for all processes (issue 54)
            self.store.redis,
            self.config.redis_prefix,
            self.config.login_backoff,
            self.config.login_backoff_max,
        )
        self.bus = Bus(self.store, self)
        self.team.forward = self.bus.forward
        self.team.push = self.bus.push_accounts  # the notices reach every process's members
        self.lobby.remote = self.bus
        await self.bus.start()
        self.rated.queue = RedisQueue(self.store.redis, self.config.redis_prefix, self.store.node)
        self.rated.cluster = ClusterSeating(self.store, self.bus)
        self.tournaments.director.lease = RedisLease(
            self.store.redis, self.config.redis_prefix, self.store.node, self.config.lease_ttl
        )
        self.cluster = Cluster(self.store, self.lobby, self.config.takeover_interval)
        await self.cluster.start()

    @property
    def reach(self) -> TableReach:
        """How a request reaches one of this process's tables (the lobby's)."""
        return self.lobby.reach

    @property
    def quotas(self) -> Quotas:
        """The caps on sessions, tables and watching (the lobby's)."""
        return self.lobby.quotas

    def resumed(self, player: Player) -> None:
        """A session resumed on a new connection: every table re-seats the player; a
        queued one hears ``queued`` again."""
        self.lobby.reconnected(player)
        self.keep(asyncio.create_task(self.rated.resumed(player)))

    async def leave_queue(self, player: Player) -> None:
        """An ending session (logged out, banned, its account deleted) leaves the rated
        queue."""
        await self.rated.forget(player)

    def keep(self, task: asyncio.Task[Any]) -> None:
        """Hold a background task until it ends."""
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def before_hello(self, token: str | None) -> None:
        """A resume with a token this process does not know: look for the session in Redis."""
        if token is None or self.session_store is None or self.sessions.resume(token):
            return
        try:
            found = await self.session_store.load(token)
            if found is None:
                return
            remote = {} if self.bus is None else await self.bus.remote_tables_of(found[0])
        except StoreUnavailable:
            raise RequestError(
                ErrorCode.STORE_UNAVAILABLE, "sessions cannot be read now; retry soon"
            ) from None
        player = self.sessions.get(found[0])
        if player is None:
            player = Player(player_id=found[0], name=found[1], token=token, account=found.account)
        elif player.token:  # a session of this process under another token: not this one
            return
        else:  # a stand-in (Bus.stand_in: made from a table's members, it knows only the id
            # and name there): the stored session is the whole one, its login included
            player.name, player.account = found.name, found.account
        player.token = token  # a stand-in for a player connected elsewhere, now here
        player.tables.update(self.lobby.tables_of(player.player_id))
        player.tables.update(remote)
        if player.account is not None:  # its mutes and blocks, kept with the account
            player.relations = await self.moderation.relations(player.account.account_id)
        self.sessions.adopt(player)

    async def after_hello(self, player: Player | None) -> None:
        """A session opened or resumed: record it (and its current token) in Redis before
        the connection's next request, so whatever the player does next can be resumed."""
        if player is not None and player.account is not None:
            ban = self.bans.of_account(player.account.account_id, datetime.now(UTC))
            if ban is not None:  # resumed before the ban was seen: it ends now
                await self._end_banned(player, ban)
                return
        if player is not None and self.session_store is not None:
            await self.session_store.save(player)
            if isinstance(self.store, RedisStore):
                ttl = self.config.session_ttl
                self.keep(asyncio.create_task(self.store.set_where(player.player_id, ttl)))

    @property
    def url(self) -> str:
        """The WebSocket URL clients connect to."""
        scheme = "wss" if self.config.tls_cert else "ws"
        return f"{scheme}://{self.config.host}:{self.port}"

    # -- lifecycle -----------------------------------------------------------
    async def start(self) -> None:
        """Listen (on ``config.port``, or any free port when it is 0).

        With the redis store, Redis must answer first (else :class:`StoreUnavailable`
        says what to fix) and the recorded tables nobody holds are rebuilt.
        """
        await self.accounts.open()  # the database, migrated (server.persist.db)
        self.bans = await self.moderation.ban_list()
        # the boards' seed key before any table is rebuilt: a duplicate board's table
        # taken over from another process deals from it (server.duplicate)
        await self.duplicate.key()
        self.record_writer.start()
        await self._start_cluster()
        connection = batching.SERVER_CONNECTION
        ours = connection is BatchingServerConnection  # else websockets' own, and its keepalive
        pings = self.config.ping_interval if self.config.ping_interval > 0 else None
        self._server = await serve(
            self._handler,
            self.config.host,
            self.config.port,
            process_request=self._http,
            select_subprotocol=select_subprotocol,
            max_size=self.config.max_frame,
            compression=None,
            # one keepalive for every connection (server.net.keepalive), with ours
            ping_interval=None if ours else pings,
            ping_timeout=None if ours else self.config.ping_timeout,
            close_timeout=self.config.ping_timeout,
            ssl=tls_context(self.config),
            create_connection=connection,
        )
        sock = next(iter(self._server.sockets))
        self.port = sock.getsockname()[1]
        # the AI workers start now, not on the first decisions, but without holding up the
        # start: clients can connect meanwhile, and /readyz waits for them (warmed())
        self._warming = asyncio.create_task(self._warm())
        self.rated.start()
        self.tournaments.start()
        self._passes.spawn(self._sweep(), "session-sweeper")
        self._passes.spawn(self._poll_bans(), "ban-poll")
        self._passes.spawn(self.duplicate.run_daily(self._passes.pause), "daily-sets")
        self._passes.spawn(self.team.run_absent(self._passes.pause), "team-absent")
        if isinstance(self.store, RedisStore):
            self._passes.spawn(self._unwritten_records(self.store), "unwritten-records")
        if ours and pings is not None:
            self._keepalive = asyncio.create_task(
                keepalive.run(
                    self._peers, self.config.ping_interval, self.config.ping_timeout, time.monotonic
                )
            )
        self._log.info(
            "listening", url=self.url, protocol=PROTOCOL_VERSION, compiled=len(compiled_loaded())
        )
        fell_back = [use.value for use in websockets_adapter.FELL_BACK] + [
            f"pydantic {slot.value}" for slot in pydantic_adapter.FELL_BACK
        ]
        if fell_back:  # an upgrade moved an internal: served by the slower public path
            self._log.warning("dependency_internals_fell_back", uses=sorted(fell_back))

    def _peers(self) -> Iterator[BatchingServerConnection]:
        """The open connections, for the keepalive."""
        for conn in self.connections:
            if isinstance(conn.ws, BatchingServerConnection):
                yield conn.ws

    async def _warm(self) -> None:
        """Start the AI workers; log ``ai_ready``, or why they could not start."""
        began = time.monotonic()
        try:
            await self.ai.warm()
        except Exception as exc:  # a pool that cannot start: say so, and stay not ready
            self._warm_failed = f"{type(exc).__name__}: {exc}"
            self._log.error("ai_workers_failed", error=self._warm_failed)
            return
        seconds = round(time.monotonic() - began, 2)
        self._log.info("ai_ready", workers=self.ai.workers, mode=self.ai.mode, seconds=seconds)

    async def warmed(self) -> None:
        """Wait until the AI workers have started (or failed to: see :meth:`not_ready`)."""
        if self._warming is not None:
            await asyncio.shield(self._warming)

    async def shutdown(self, reason: str = "the server is shutting down") -> None:
        """Tell every client, close their connections with 1001, stop the tables."""
        if self._stopping:
            return
        self._stopping = True
        self._log.info("shutting_down", connections=len(self.connections))
        if self.config.shutdown_drain > 0:  # /readyz says 503; balancers stop sending clients
            await asyncio.sleep(self.config.shutdown_drain)
        await self._passes.stop(SHUTDOWN_STEP_S)  # before the database closes (server.ops.passes)
        if self._warming is not None:
            self._warming.cancel()
        if self._keepalive is not None:
            self._keepalive.cancel()
        if self._server is not None:
            self._server.close(close_connections=False)
        for conn in list(self.connections):
            conn.send(Shutdown(reason=reason))
            conn.close(1001, "server shutting down")
        if self._server is not None:
            try:
                await asyncio.wait_for(self._server.wait_closed(), 5.0)
            except TimeoutError:
                self._log.warning("connections_did_not_close")
        await self._bounded(self.rated.stop(), "rated queue")
        await self._bounded(self.tournaments.stop(), "tournaments")
        await self.lobby.stop_all()
        if self.cluster is not None:
            await self._bounded(self.cluster.stop(), "cluster")
        if self.bus is not None:
            await self._bounded(self.bus.stop(), "bus")
        close = getattr(self.store, "close", None)
        if close is not None:
            await self._bounded(close(), "store")
        await self._bounded(self.record_writer.close(), "game records")
        await self._bounded(self.team.stop(), "team match notices")  # the writes' notices
        await self._bounded(self.accounts.close(), "database")
        self.ai.shutdown()
        self._log.info("stopped")

    async def _poll_bans(self) -> None:
        """Read the bans every ``config.ban_poll`` seconds (``cardavia-admin`` writes them in
        the database, from outside), then close what they cover here."""
        while await self._passes.pause(self.config.ban_poll):
            try:
                self.bans = await self.moderation.ban_list()
            except Exception as exc:  # the database is away: keep the bans known
                self._log.warning("bans_not_read", error=repr(exc))
                continue
            await self.enforce_bans()

    async def enforce_bans(self) -> None:
        """End the sessions of banned accounts and close connections from banned
        addresses (each is told why first: ``error`` ``banned``)."""
        now = datetime.now(UTC)
        for player in list(self.sessions):
            account = player.account
            ban = None if account is None else self.bans.of_account(account.account_id, now)
            if ban is not None:
                await self._end_banned(player, ban)
        for conn in list(self.connections):
            ban = self.bans.of_address(conn.address, now)
            if ban is not None:
                conn.send(banned_error(ban))
                conn.close(1008, "banned")
                self._log.info("banned_address_closed", ban=ban.ban_id)

    async def _end_banned(self, player: Player, ban: Ban) -> None:
        player.send(banned_error(ban))
        await account_requests.end_session(self, player, "banned", code=1008)
        self._log.info("banned_session_ended", player=player.player_id, ban=ban.ban_id)

    async def _bounded(self, step: Awaitable[None], what: str) -> None:
        """One step of the shutdown, given ``SHUTDOWN_STEP_S`` seconds: a stop that hangs
        (an unreachable store) must not keep the process from exiting."""
        try:
            await asyncio.wait_for(step, SHUTDOWN_STEP_S)
        except TimeoutError:
            self._log.warning("shutdown_step_timed_out", step=what)
        except Exception as exc:  # the process stops anyway; say what failed
            self._log.warning("shutdown_step_failed", step=what, error=repr(exc))

    async def _unwritten_records(self, store: RedisStore) -> None:
        """Write the game records that a process archived with their games and never
        wrote (it died, or stopped with its database away): each is listed in Redis
        from its game's end until its write (:meth:`RedisStore.archive`), and every
        process writes those listed for :data:`UNWRITTEN_AFTER_S` (writes are
        idempotent: one written twice, or by two processes, is stored once)."""
        while await self._passes.pause(UNWRITTEN_PASS_S):
            try:
                found = await store.unwritten_records(UNWRITTEN_AFTER_S)
            except StoreUnavailable:
                continue
            except Exception as exc:  # a bug: said, and the next pass tries again
                self._log.error("unwritten_records_pass_failed", error=repr(exc))
                continue
            for game_id, plain in found:
                try:
                    record = record_from_plain(plain)
                except (KeyError, TypeError, ValueError, AttributeError) as exc:  # never readable
                    self._log.error("unwritten_record_unreadable", game_id=game_id, error=repr(exc))
                    with suppress(StoreUnavailable):  # said once, not every pass
                        await store.record_written(game_id)
                    continue
                self._log.warning("record_written_for_another", game_id=record.game_id)
                self.record_writer.submit(record)

    async def _sweep(self) -> None:
        """Forget sessions that stayed away past ``session_ttl`` (``playing_session_ttl``
        while they hold a seat in a game in progress); with Redis, refresh the sessions
        and the "connected here" records of the players connected to this process."""
        config = self.config
        period = min(15.0, config.session_ttl / 4)
        while await self._passes.pause(period):
            expired = self.sessions.expired(
                self.clock(), config.session_ttl, config.playing_session_ttl, self.lobby.in_game
            )
            for player in expired:
                self.lobby.forget(player)
                await self.rated.forget(player)
                self.sessions.forget(player)
                self.lobby.quotas.drop_session(player)
                self._log.info("session_expired", player=player.player_id)
                if self.session_store is not None:
                    await self.session_store.forget(player)
            if self.session_store is not None:
                here = [p for p in self.sessions if p.connected and p.token]
                await self.session_store.touch(here)
                if isinstance(self.store, RedisStore):
                    with suppress(StoreUnavailable):
                        await self.store.refresh_where(
                            [p.player_id for p in here], config.session_ttl
                        )
            if self.cluster is not None:
                with suppress(StoreUnavailable):
                    await self.cluster.sweep_absent(self.config.session_ttl)

    # -- HTTP and WebSocket ----------------------------------------------------
    async def _http(self, connection: ServerConnection, request: Request) -> Response | None:
        path = request.path.split("?")[0]
        if path == "/metrics":
            headers = Headers([("Content-Type", CONTENT_TYPE)])
            return Response(HTTPStatus.OK.value, "OK", headers, self.metrics.render())
        if path == "/readyz":
            reason = await self.not_ready()
            status = HTTPStatus.OK if reason is None else HTTPStatus.SERVICE_UNAVAILABLE
            body = json.dumps(
                {"status": "ready"} if reason is None else {"status": "not_ready", "reason": reason}
            ).encode()
            headers = Headers([("Content-Type", "application/json")])
            return Response(status.value, status.phrase, headers, body)
        if path == "/healthz":
            body = json.dumps(
                {
                    "status": "ok",
                    "protocol": PROTOCOL_VERSION,
                    "tables": len(self.lobby.tables),
                    "sessions": len(self.sessions),
                    "connections": len(self.connections),
                    "uptime_s": round(time.time() - self._started, 1),
                    "pid": os.getpid(),  # which process answered (ports get reused)
                }
            ).encode()
            headers = Headers([("Content-Type", "application/json")])
            return Response(HTTPStatus.OK.value, "OK", headers, body)
        return static.response(request)  # the browser client's page and files

    async def not_ready(self) -> str | None:
        """Why the server should get no new clients now (``None``: it is ready).

        Ready means listening, not shutting down, the AI workers started, and
        the store answering its health check within :data:`READY_STORE_TIMEOUT`
        seconds.
        """
        if self._stopping:
            return "shutting down"
        if self._server is None or not self._server.is_serving():
            return "not listening"
        if self._warm_failed is not None:
            return f"the AI workers did not start ({self._warm_failed})"
        if self._warming is None or not self._warming.done():
            return "starting the AI workers"
        try:
            healthy = await asyncio.wait_for(self.store.ping(), READY_STORE_TIMEOUT)
        except Exception as exc:  # a store that cannot even answer is not ready
            return f"store unreachable ({type(exc).__name__})"
        return None if healthy else "store unreachable"

    def _gauges(self) -> list[Reading]:
        """The gauges read at each scrape of ``/metrics``."""
        out = [
            Reading("cardavia_connections", "Open WebSocket connections.", len(self.connections)),
            Reading("cardavia_sessions", "Sessions held (connected or not).", len(self.sessions)),
            Reading("cardavia_tables", "Tables held by this process.", len(self.lobby.tables)),
        ]
        counts: dict[tuple[str, str], int] = {}
        for actor in self.lobby.tables.values():
            key = (actor.core.game.id, actor.core.status)
            counts[key] = counts.get(key, 0) + 1
        help_ = "Tables by game and state (waiting, playing, finished)."
        for (game, state), n in sorted(counts.items()):
            labels = {"game": game, "state": state}
            out.append(Reading("cardavia_tables_by_state", help_, n, labels))
        return out

    async def _handler(self, ws: ServerConnection) -> None:
        # the handshake is over: drop websockets' closure for select_subprotocol, which
        # refers back to the connection (connection -> protocol -> closure -> connection),
        # so that a closed connection is freed at once instead of waiting as cyclic
        # garbage for a full collection (a long stall at many tables: server.main)
        vars(ws.protocol).pop("select_subprotocol", None)
        conn = Connection(ws, self)
        if ws.request is not None:
            forwarded = ", ".join(ws.request.headers.get_all("X-Forwarded-For"))
            conn.address = client_address(conn.address, forwarded, self._proxies)
        conn.address = address_group(conn.address)
        ban = self.bans.of_address(conn.address, datetime.now(UTC))
        try:
            if ban is not None:
                raise RequestError(ErrorCode.BANNED, ban.describe(), ban.until.isoformat())
            self.lobby.quotas.connect(conn.address, time.monotonic())
        except RequestError as exc:  # one error, then close: the hello is never read
            error = Error(ref=None, code=exc.code, message=exc.message, detail=exc.detail)
            self.metrics.inc("cardavia_errors_total", code=str(exc.code))
            with contextlib.suppress(ConnectionClosed):
                await ws.send(
                    encode_json(error) if static.is_json(ws.subprotocol) else encode(error)
                )
                await ws.close(1008, f"{exc.code}: {exc.detail}"[:120])
            return
        self.connections.add(conn)
        try:
            await conn.run()
        finally:
            self.connections.discard(conn)
            self.lobby.quotas.disconnect(conn.address)

    def detach(self, player: Player, link: Link) -> None:
        """A connection ended: if it was the player's, their tables start the grace period."""
        if self.sessions.detach(player, link, self.clock()):
            self.lobby.disconnected(player)
            if isinstance(self.store, RedisStore):
                self.keep(asyncio.create_task(self.store.clear_where(player.player_id)))

    # -- requests --------------------------------------------------------------
    async def dispatch(self, player: Player, msg: cm.ClientMessage, *, route: bool = True) -> None:
        """Handle one validated request of a player with an open session.

        With several processes (``route``), a request for a table another process
        owns is sent there (:mod:`server.cluster.bus`).  A request its table takes
        as it is goes there by the way a connection sends a move
        (:meth:`server.tables.reach.TableReach.request`).
        """
        lobby = self.lobby
        if route and isinstance(msg, cm.JoinTable):  # a tournament's seats are reserved
            await self.tournaments.keeper.check_join(player, msg.table, msg.seat)
            await self.team.check_join(player, msg.table, msg.seat)  # a team match's too
        elif route and isinstance(msg, cm.Spectate):
            await self.tournaments.keeper.check_watch(player, msg.table)
        elif isinstance(msg, cm.GetGameRecord):
            await self.tournaments.keeper.check_record(player, msg.game_id)
        if route and self.bus is not None and await self._routed(player, msg):
            return
        if isinstance(msg, TABLE_REQUESTS):
            lobby.reach.request(player, msg)
        elif isinstance(msg, cm.ListGames):
            player.send(lobby.games(msg.id))
        elif isinstance(msg, cm.ListTables):
            player.send(lobby.list_tables(player, msg.game, msg.id))
        elif isinstance(msg, cm.CreateTable):
            await lobby.create(player, msg)
        elif isinstance(msg, cm.QuickPlay) and msg.rated:
            await self.rated.enqueue(player, msg)
        elif isinstance(msg, cm.QuickPlay):
            await lobby.quick_play(player, msg)
        elif isinstance(msg, cm.LeaveQueue):
            await self.rated.leave(player, msg)
        elif isinstance(msg, cm.JoinTable):
            actor = lobby.find(player, msg.table, msg.invite)
            if msg.table not in player.tables:
                lobby.check_room(player)
            actor.pending_joins += 1
            actor.submit(Join(player, msg.id, msg.seat))
        elif isinstance(msg, cm.Spectate):
            actor = lobby.find(player, msg.table, msg.invite)
            if msg.table not in player.tables:
                lobby.check_room(player)
            lobby.check_ai_tables(player, actor)
            actor.submit(Spectate(player, msg.id))
        elif isinstance(msg, cm.Hint):  # checked now, answered from the AI pool (tables.hints)
            self.keep(hints.start(lobby.find(player, msg.table), self.ai, player, msg))
        elif isinstance(msg, account_requests.ACCOUNT_REQUESTS):
            await account_requests.handle(self, self.accounts, player, msg)
        elif isinstance(msg, moderation_requests.MODERATION_REQUESTS):
            await moderation_requests.handle(self, player, msg)
        elif isinstance(msg, TOURNAMENT_REQUESTS):
            await self.tournaments.handle(player, msg)
        elif isinstance(msg, record_requests.RECORD_REQUESTS):
            await record_requests.handle(self.records, player, msg)
        elif isinstance(msg, DUPLICATE_REQUESTS):
            await self.duplicate.handle(player, msg)
        elif isinstance(msg, TEAM_REQUESTS):
            await self.team.handle(player, msg)
        elif isinstance(msg, cm.Hello | cm.Ping):  # the connection answers these itself
            raise RequestError(ErrorCode.BAD_MESSAGE, f"unexpected message {msg.type!r}")
        else:
            unhandled(msg)

    async def _routed(self, player: Player, msg: Any) -> bool:
        """Send ``msg`` to the process owning its table, if another one does; whether sent.

        Without Redis, listing and quick play fall back to this process's tables;
        a request for a table elsewhere is refused with ``store_unavailable``.
        """
        try:
            return await self._route(player, msg)
        except StoreUnavailable:
            if isinstance(msg, cm.ListTables | cm.QuickPlay):
                return False
            raise RequestError(
                ErrorCode.STORE_UNAVAILABLE, "the table's server cannot be reached now; retry"
            ) from None

    async def _route(self, player: Player, msg: Any) -> bool:
        assert self.bus is not None
        if isinstance(msg, cm.ListTables):
            player.send(await self.bus.list_tables(player, msg.game, msg.id))
            return True
        if isinstance(msg, cm.QuickPlay) and not msg.rated:  # the rated queue is shared
            target = await self.bus.quick_target(player, msg)
            if target is None:
                return False
            self.lobby.check_room(player)
            await self.bus.forward(player, msg, target)
            return True
        if isinstance(msg, cm.Report):  # answered here: the reporter's session is here
            return False
        table = getattr(msg, "table", None)
        if not isinstance(table, str) or table in self.lobby.tables:
            return False
        if isinstance(msg, cm.JoinTable | cm.Spectate) and table not in player.tables:
            self.lobby.check_room(player)
        await self.bus.forward(player, msg, table)
        return True


class ClusterSeating:
    """What the rated queue needs to seat players connected to other processes
    (:class:`server.ratings.rated_play.Cluster`): where they are, stand-ins through
    the bus, and the tables they sit at from the lobby's index in Redis."""

    def __init__(self, store: RedisStore, bus: Bus) -> None:
        self.store = store
        self.bus = bus

    async def where(self, player_ids: list[str]) -> dict[str, str]:
        """The other process each of these players is connected to (a record naming this
        one is stale: the sessions here are known without it)."""
        found = await self.store.where(player_ids)
        return {pid: node for pid, node in found.items() if node != self.store.node}

    def stand_in(self, pid: str, name: str, node: str) -> Player:
        """The player connected at ``node``, as the tables here see them."""
        return self.bus.stand_in(pid, name, node)

    async def seated_at(self, player_id: str) -> dict[str, str]:
        """The tables (any process's) where ``player_id`` holds a seat, with their status."""
        out: dict[str, str] = {}
        for table_id, entry in (await self.store.index_of(player_id)).items():
            info = entry["info"]
            if any(s.get("player_id") == player_id for s in info["seats"]):
                out[table_id] = str(info["status"])
        return out


def banned_error(ban: Ban) -> Error:
    """The ``error`` a banned session or connection gets before it is closed."""
    return Error(code=ErrorCode.BANNED, message=ban.describe(), detail=ban.until.isoformat())


@asynccontextmanager
async def running_server(
    config: ServerConfig | None = None, *, log_level: str | None = None
) -> AsyncIterator[CardaviaServer]:
    """A started server, its AI workers too, for the duration of the ``async with``
    block; ``server.url`` is its URL.

    ``config`` defaults to 127.0.0.1 on a free port with the usual settings.
    ``log_level`` (e.g. ``"error"``) configures JSON logs on stderr at that
    level first; leave it ``None`` to keep the process's logging as it is.
    """
    if log_level is not None:
        configure(log_level)
    server = CardaviaServer(config or ServerConfig(port=0))
    await server.start()
    await server.warmed()
    try:
        yield server
    finally:
        await server.shutdown()
