"""Routing between server processes through Redis pub/sub: any process serves any client.

A client talks to whichever process its connection reached (the "front");
each table is driven by exactly one process (its "owner", the lease holder).
When a client addresses a table owned elsewhere, the front publishes the
request — the client's own frame, re-encoded — on the owner's channel
``P:node:<owner>``; the owner runs it as if the player were connected there,
through a stand-in player whose link publishes every message back on the
front's channel, where the front hands it to the connection (the request
carries the connection's optional protocol features, so the owner answers
as the client asked: an ``act`` with its update under ``update_ref``).  Presence
(disconnect, reconnect, an expired session) follows the same way.

Every request the front forwards is answered, even while its table moves
(its owner died, another process takes it over):

* Redis says how many processes heard a ``PUBLISH``: none means the owner is
  gone (a killed process's subscription ends with its connection), so nobody
  saw the request and the front holds it (:class:`Held`): it watches the
  table's lease, takes the table over itself the moment the lease has
  expired (:meth:`~server.cluster.leases.Cluster.take`), and then handles the
  request here or sends it to the new owner; if the table is not back within
  :meth:`Bus.hold_limit` the request is refused with ``table_moving`` (and a
  retry hint in ``detail``).  A request for a table between two owners
  (lease expired, not taken yet) is held the same way.
* A request an owner heard but did not answer (it died meanwhile, or froze)
  is tracked (:class:`Forwarded`) until its answer comes back; when the
  owner's channel has no listener any more, or the same limit passed, the
  front refuses it with ``table_moving``: it may have been applied, so it is
  not sent again by the server (a client sending an ``act`` again is safe: it
  carries the table version, so it is never applied twice).

Nothing durable travels here: the table's record is written by its owner
before any message about it is sent.

Every process also listens on one shared channel (:data:`EVERY`), for notices to an
account's connections wherever they are (:meth:`Bus.push_accounts`: a team match's
``team_match_table``, decided by the process that stored the board or made the table).
"""

from __future__ import annotations

import asyncio
import contextlib
import math
from collections.abc import Callable, Sequence
from dataclasses import astuple, dataclass
from typing import Any, Protocol

import msgpack  # type: ignore[import-untyped]
from pydantic import BaseModel
from redis.exceptions import RedisError

from protocol import client_messages as cm
from protocol import server_messages as sm
from protocol.base import known_features
from protocol.codec import Frame, FrameError, decode_client, decode_server, encode, unchecked
from protocol.errors import ErrorCode
from protocol.models import TableInfo
from server.lobby import Lobby, listing_group
from server.ops.logs import get_logger
from server.persist.redis_commit import CommitLane
from server.persist.redis_store import RedisStore
from server.persist.store import StoreUnavailable
from server.players.accounts import Account
from server.players.sessions import Player
from server.tables.actor import TableActor, table_moving
from server.tables.commands import PRESENCE_BY_KIND, Presence, Reconnect
from server.tables.core import LISTING_TTL, TableCore
from server.tables.options import RequestError

OUTBOX_LIMIT = 100_000
EVERY = "*"
"""The node name of the channel every process listens on (no process is named so)."""
"""Messages waiting to be published before new ones are dropped (Redis is gone)."""


STOP_TIMEOUT = 3.0
"""Seconds the bus's tasks get to end when the server stops."""


WATCH_PERIOD = 0.5
"""Seconds between two checks that the owners of unanswered forwarded requests still
listen (and between two looks at a held request's table, at most)."""


@dataclass(frozen=True)
class Forwarded:
    """A request the front sent to a table's owner, its answer not seen yet."""

    player_id: str
    ref: int
    table: str
    owner: str
    sent_at: float
    """Event-loop time it was published."""
    deadline: float
    """Event-loop time after which the front refuses it with ``table_moving``."""


@dataclass(frozen=True)
class Held:
    """A request nobody heard (its table's owner is gone), or one the process it was sent
    to gave back (it does not drive the table), waiting for the table."""

    player: Player
    msg: Any
    table: str
    deadline: float
    """Event-loop time after which it is refused with ``table_moving``."""
    given_back: bool = False
    """Whether the owner it was sent to gave it back: looked at again only after a
    pause (that owner is still rebuilding the table, or has just dropped it)."""


@dataclass(frozen=True)
class Posted:
    """A message waiting in the outbox; ``unheard`` runs if no process heard it."""

    node: str
    data: bytes
    unheard: Callable[[], None] | None = None


_RELAYED_AS_IS = frozenset({"update", "ok", "snapshot", "game_over", "chat", "table"})
"""Messages a front passes on to a msgpack connection without decoding them."""


def _kind(raw: bytes) -> str | None:
    """The ``type`` of an encoded server message, read from its first field (messages
    are encoded field by field, ``type`` first); None if it is not there."""
    unpacker = msgpack.Unpacker(raw=False)
    unpacker.feed(raw)
    try:
        if unpacker.read_map_header() < 1 or unpacker.unpack() != "type":
            return None
        kind = unpacker.unpack()
    except Exception:  # msgpack raises several types; the full decode will refuse it
        return None
    return kind if isinstance(kind, str) else None


def _text(raw: bytes | str) -> str:
    return raw.decode() if isinstance(raw, bytes) else raw


def _ref(raw: bytes) -> int | None:
    """The ``ref`` of an encoded server message (the request it answers), or None,
    read without decoding the other fields."""
    unpacker = msgpack.Unpacker(raw=False)
    unpacker.feed(raw)
    try:
        for _ in range(unpacker.read_map_header()):
            if unpacker.unpack() == "ref":
                ref = unpacker.unpack()
                return ref if isinstance(ref, int) else None
            unpacker.skip()
    except Exception:  # msgpack raises several types; not an answer we can match
        return None
    return None


class RemoteLink:
    """The link of a player connected to another process: sends go there via Redis.

    ``features`` are those of the player's connection there, as its last
    request routed here said (what this process encodes is relayed as is).
    """

    def __init__(self, bus: Bus, node: str, player_id: str, features: tuple[str, ...] = ()) -> None:
        self.bus = bus
        self.node = node
        self.player_id = player_id
        self.features = features

    def send(self, message: BaseModel | Frame) -> None:
        """Publish ``message`` (or its already encoded frame) to the player's process."""
        data = message.data if isinstance(message, Frame) else encode(message)
        self.bus.post(self.node, {"t": "out", "pid": self.player_id, "m": data})

    def close(self, code: int, reason: str) -> None:
        """Ask the player's process to close the connection."""
        self.bus.post(
            self.node, {"t": "close", "pid": self.player_id, "code": code, "reason": reason}
        )


class Taker(Protocol):
    """Takes over a table whose lease expired, now (:class:`server.cluster.leases.Cluster`)."""

    async def take(self, table_id: str) -> None:
        """Take ``table_id`` over now, if its lease is gone."""


class Server(Protocol):
    """What the bus needs of the server it routes for (:class:`server.app.CardaviaServer`):
    its lobby, to handle a request that came from another process, to hold a task, and
    the takeover of tables, to take a moving table a held request waits for."""

    @property
    def lobby(self) -> Lobby:
        """This process's tables."""

    @property
    def cluster(self) -> Taker | None:
        """The leases' keeper (None until the server has started it)."""

    async def dispatch(self, player: Player, msg: cm.ClientMessage, *, route: bool = True) -> None:
        """Handle one request of ``player`` (``route`` False: here, whatever the table)."""

    def keep(self, task: asyncio.Task[Any]) -> None:
        """Hold a background task until it ends."""


class Bus:
    """This process's end of the routing (see the module docstring)."""

    def __init__(self, store: RedisStore, app: Server) -> None:
        self.store = store
        self.app = app
        self.lobby = app.lobby
        self.node = store.node
        self._outbox: asyncio.Queue[Posted] = asyncio.Queue(OUTBOX_LIMIT)
        self._forwarded: dict[str, dict[int, Forwarded]] = {}
        """Requests sent to owners and not answered yet, by player id and request id."""

        self._tasks: list[asyncio.Task[None]] = []
        self._subscribed = asyncio.Event()
        self._index_read: tuple[float, dict[str, dict[str, Any]]] | None = None
        self._infos: dict[str, TableInfo] = {}
        """The lobby summaries of the index last read, validated when first listed."""
        self._log = get_logger(component="bus", node=self.node)

    def channel(self, node: str) -> str:
        """The channel a process listens on."""
        return f"{self.store.prefix}:node:{node}"

    # -- lifecycle ---------------------------------------------------------------
    async def start(self) -> None:
        """Listen on this process's channel; publish what is posted, in order."""
        self._tasks = [
            asyncio.create_task(self._listen(), name="bus-listen"),
            asyncio.create_task(self._publish(), name="bus-publish"),
            asyncio.create_task(self._watch(), name="bus-watch"),
        ]
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._subscribed.wait(), 5.0)

    async def stop(self) -> None:
        """Stop listening and publishing (bounded: a Redis call that ignores the
        cancellation must not hold the shutdown up)."""
        for task in self._tasks:
            task.cancel()
        if self._tasks:
            await asyncio.wait(self._tasks, timeout=STOP_TIMEOUT)

    def post(
        self, node: str, payload: dict[str, Any], unheard: Callable[[], None] | None = None
    ) -> None:
        """Queue a message for another process (never blocks); ``unheard`` runs when
        no process heard it (nobody listens on that channel, or it could not be sent)."""
        try:
            data = msgpack.packb(payload, use_bin_type=True)
            self._outbox.put_nowait(Posted(node, data, unheard))
        except asyncio.QueueFull:
            self._log.warning("bus_outbox_full")
            if unheard is not None:
                unheard()

    async def _publish(self) -> None:
        lane = CommitLane(self.store.redis)  # its own connection, kept: one write a batch
        try:
            while True:
                batch = [await self._outbox.get()]
                while not self._outbox.empty() and len(batch) < 500:
                    batch.append(self._outbox.get_nowait())
                try:
                    heard = await lane.send(
                        [("PUBLISH", self.channel(p.node), p.data) for p in batch]
                    )
                except StoreUnavailable as exc:
                    self._log.warning("bus_publish_failed", dropped=len(batch), error=str(exc))
                    heard = [None] * len(batch)
                for posted, listeners in zip(batch, heard, strict=True):
                    if posted.unheard is not None and listeners in (0, None):
                        posted.unheard()
        finally:
            await lane.close()

    async def _listen(self) -> None:
        """Read this process's channel on a connection of its own, subscribing again
        after Redis went away.  Each message is read straight off the connection
        (redis-py's ``PubSub`` wraps every one in more Python than the routing
        itself costs); a health-check ``PING`` goes out before a read when one is
        due, as ``PubSub`` does."""
        pool = self.store.redis.connection_pool
        loop = asyncio.get_running_loop()
        while True:
            conn: Any = None
            try:
                conn = await pool.get_connection()  # type: ignore[no-untyped-call]
                await conn.send_command("SUBSCRIBE", self.channel(self.node), self.channel(EVERY))
                while True:
                    if conn.health_check_interval and loop.time() > conn.next_health_check:
                        await conn.send_command("PING", check_health=False)
                    reply = await conn.read_response(timeout=math.inf, push_request=True)
                    if not isinstance(reply, list) or len(reply) < 3:
                        continue
                    if reply[0] == b"subscribe":
                        self._subscribed.set()
                    elif reply[0] == b"message":
                        try:
                            await self._receive(msgpack.unpackb(reply[2], raw=False))
                        except Exception as exc:  # one bad message must not stop the routing
                            self._log.exception("bus_message_failed", error=repr(exc))
            except (RedisError, OSError) as exc:
                self._log.warning("bus_disconnected", error=repr(exc))
                await asyncio.sleep(0.5)
            finally:
                if conn is not None:  # back to the pool even if it could not say goodbye
                    with contextlib.suppress(Exception):
                        await asyncio.wait_for(conn.disconnect(), STOP_TIMEOUT)
                    await pool.release(conn)

    # -- the front: this process holds the client's connection ------------------------
    @property
    def unanswered(self) -> int:
        """Forwarded requests whose answer has not passed here yet."""
        return sum(len(waiting) for waiting in self._forwarded.values())

    def hold_limit(self) -> float:
        """Seconds a request for a moving table waits for it (held, or unanswered by
        an owner that may have died): a dead owner's lease runs out within one lease
        TTL, and the front then takes the table at once; a second more covers the
        rebuild and the polling."""
        return self.store.lease_ttl + 1.0

    async def forward(self, player: Player, msg: Any, table_id: str) -> None:
        """Send a request for a table owned elsewhere to its owner; held while the
        table moves (see the module docstring)."""
        owner = await self.store.owner_of(table_id)
        if owner is None or owner == self.node:
            if not await self.store.exists(table_id):
                raise RequestError(ErrorCode.NOT_FOUND, f"no table {table_id!r}")
            self._hold(Held(player, msg, table_id, self._now() + self.hold_limit()))
            return
        self._send(player, msg, table_id, owner, self._now() + self.hold_limit())

    @staticmethod
    def _now() -> float:
        return asyncio.get_running_loop().time()

    def _command(self, player: Player, msg: Any, deadline: float) -> dict[str, Any]:
        """The bus message carrying ``msg`` to a table's owner; ``deadline`` (this
        process's clock) comes back with it if the owner gives it back (:meth:`_give_back`)."""
        return {
            "t": "cmd",
            "pid": player.player_id,
            "name": player.name,
            "from": self.node,
            "frame": encode(msg),
            "features": list(player.link.features) if player.link is not None else [],
            # the session's account travels with it: a seat taken there records it
            "account": None if player.account is None else list(astuple(player.account)),
            "until": deadline,
        }

    def _send(self, player: Player, msg: Any, table_id: str, owner: str, deadline: float) -> None:
        """Publish ``msg`` to ``owner``; tracked until answered; held if nobody heard it."""
        forwarded = self._track(player, msg, table_id, owner, deadline)

        def unheard() -> None:
            if forwarded is not None:
                waiting = self._forwarded.get(player.player_id, {})
                if waiting.get(forwarded.ref) is forwarded:
                    self._unforward(player.player_id, forwarded.ref)
            self._hold(Held(player, msg, table_id, deadline))

        self.post(owner, self._command(player, msg, deadline), unheard)

    def _unforward(self, player_id: str, ref: int) -> Forwarded | None:
        """Stop tracking a forwarded request (answered, or refused here)."""
        waiting = self._forwarded.get(player_id)
        if waiting is None:
            return None
        forwarded = waiting.pop(ref, None)
        if not waiting:
            del self._forwarded[player_id]
        return forwarded

    def _hold(self, held: Held) -> None:
        self.app.keep(asyncio.create_task(self._until_back(held)))

    async def _until_back(self, held: Held) -> None:
        """Wait for ``held``'s table to be back, then handle the request here (this
        process took the table) or send it to the new owner; refuse it with
        ``table_moving`` once its deadline passed.  Nobody applied it before, so
        handling it now applies it once."""
        player, msg, table_id = held.player, held.msg, held.table
        poll = min(WATCH_PERIOD, max(0.05, self.store.lease_ttl / 10))
        if held.given_back:  # its owner has not got the table (yet, or any more)
            await asyncio.sleep(poll)
        while True:
            try:
                if self.drives(table_id):
                    await self.app.dispatch(player, msg, route=False)
                    return
                owner = await self.store.owner_of(table_id)
                if owner is not None and owner != self.node:
                    tracked = self._track(player, msg, table_id, owner, held.deadline)
                    command = self._command(player, msg, held.deadline)
                    data = msgpack.packb(command, use_bin_type=True)
                    if await self._publish_now(owner, data):
                        return
                    if tracked is not None:
                        self._unforward(tracked.player_id, tracked.ref)
                elif owner is None:
                    if not await self.store.exists(table_id):
                        raise RequestError(ErrorCode.NOT_FOUND, f"no table {table_id!r}")
                    cluster = self.app.cluster
                    if cluster is not None:  # the lease is gone: take it now
                        await cluster.take(table_id)
                        if table_id in self.lobby.tables:
                            continue
            except RequestError as exc:
                player.send(
                    sm.Error(
                        ref=msg.id,
                        code=exc.code,
                        message=exc.message,
                        detail=exc.detail,
                        table=table_id,
                    )
                )
                return
            except StoreUnavailable as exc:
                self._log.warning("bus_hold_store_unavailable", error=str(exc))
            except Exception as exc:  # a bug must not leave the request unanswered
                self._log.exception("held_request_failed", type=msg.type, error=repr(exc))
                player.send(
                    sm.Error(
                        ref=msg.id,
                        code=ErrorCode.INTERNAL_ERROR,
                        message="the server failed on this request; it had no effect",
                    )
                )
                return
            if self._now() >= held.deadline:
                player.send(table_moving(msg.id, table_id))
                self._log.info("request_refused_moving", table=table_id, type=msg.type)
                return
            await asyncio.sleep(poll)

    async def _publish_now(self, owner: str, data: bytes) -> bool:
        """Publish on ``owner``'s channel now; whether a process heard it."""
        try:
            return bool(await self.store.redis.publish(self.channel(owner), data))
        except (RedisError, OSError) as exc:
            raise StoreUnavailable(f"Redis did not answer: {exc}") from None

    def _track(
        self, player: Player, msg: Any, table_id: str, owner: str, deadline: float
    ) -> Forwarded | None:
        """Remember a request sent to ``owner`` until its answer passes here (one
        without an id cannot be matched to its answer: not tracked)."""
        if msg.id is None:
            return None
        forwarded = Forwarded(player.player_id, msg.id, table_id, owner, self._now(), deadline)
        self._forwarded.setdefault(player.player_id, {})[msg.id] = forwarded
        return forwarded

    async def _watch(self) -> None:
        """Refuse, with ``table_moving``, forwarded requests whose owner stopped
        listening before answering (it died) or that passed their deadline (it froze)."""
        while True:
            await asyncio.sleep(WATCH_PERIOD)
            try:
                await self._check_forwarded()
            except Exception as exc:  # keep watching whatever one pass met
                self._log.warning("bus_watch_failed", error=repr(exc))

    async def _check_forwarded(self) -> None:
        now = self._now()
        due = [
            f
            for waiting in self._forwarded.values()
            for f in waiting.values()
            if now - f.sent_at >= WATCH_PERIOD
        ]
        if not due:
            return
        owners = sorted({f.owner for f in due})
        try:
            counts = await self.store.redis.pubsub_numsub(*(self.channel(o) for o in owners))
        except (RedisError, OSError):
            counts = []  # the store is away: only the deadlines decide
        listening = {_text(channel) for channel, n in counts if n}
        for f in due:
            if self.channel(f.owner) in listening and now < f.deadline:
                continue
            self._unforward(f.player_id, f.ref)
            player = self.lobby.sessions.get(f.player_id)
            if player is not None:
                player.send(table_moving(f.ref, f.table))
            self._log.info("forwarded_request_unanswered", table=f.table, owner=f.owner)

    def presence(self, player: Player, table_id: str, presence: type[Presence]) -> None:
        """A player's disconnect / reconnect / expiry, for a table owned elsewhere."""
        task = asyncio.create_task(self._presence(player, table_id, presence.kind))
        self.app.keep(task)

    async def _presence(self, player: Player, table_id: str, kind: str) -> None:
        try:
            owner = await self.store.owner_of(table_id)
            if owner is None:
                if not await self.store.exists(table_id):
                    player.tables.pop(table_id, None)
                return
        except StoreUnavailable:
            return
        payload = {"t": "ev", "pid": player.player_id, "name": player.name}
        self.post(owner, {**payload, "from": self.node, "table": table_id, "kind": kind})

    async def list_tables(self, player: Player, game: str | None, ref: int | None) -> sm.Tables:
        """The lobby across every process: this one's tables fresh, the others' from the
        index in Redis (read at most once a :data:`~server.tables.core.LISTING_TTL`), in
        the lobby's order (:meth:`~server.lobby.Lobby.listing`) and up to its cap."""
        lobby = self.lobby
        now = lobby.clock()
        groups: list[list[TableInfo | TableCore]] = [list(g) for g in lobby.listing(player, game)]
        for table_id, entry in (await self._index()).items():
            if table_id in lobby.tables:
                continue
            info = entry["info"]
            if game is not None and info["game"] != game:
                continue
            group = listing_group(
                player.player_id in entry.get("members", ()),
                info["private"],
                info["status"] == "finished",
                info["status"] == "waiting" and any(s["kind"] == "empty" for s in info["seats"]),
            )
            if group is None:
                continue
            known = self._infos.get(table_id)
            if known is None:  # validated once per reading of the index
                known = self._infos[table_id] = TableInfo.model_validate(info, strict=False)
            groups[group].append(known)
        listed = [t for group in groups for t in group][: lobby.config.max_listed_tables]
        infos = tuple(t.listed_info(now) if isinstance(t, TableCore) else t for t in listed)
        # summaries validated already (here, or by the table that built them)
        return unchecked(sm.Tables, {"type": "tables", "ref": ref, "tables": infos})

    async def _index(self) -> dict[str, dict[str, Any]]:
        """The tables' index in Redis, read again once it is a listing's TTL old: clients
        listing the lobby again and again must not each read and parse all of it."""
        now = asyncio.get_running_loop().time()
        if self._index_read is None or not 0 <= now - self._index_read[0] < LISTING_TTL:
            self._index_read = (now, await self.store.index())
            self._infos = {}
        return self._index_read[1]

    async def remote_tables_of(self, player_id: str) -> dict[str, int | None]:
        """Tables owned elsewhere that the player sits (seat) or watches (None) at."""
        out: dict[str, int | None] = {}
        for table_id, entry in (await self.store.index_of(player_id)).items():
            if player_id in entry.get("members", ()) and table_id not in self.lobby.tables:
                seats = [s["seat"] for s in entry["info"]["seats"] if s["player_id"] == player_id]
                out[table_id] = seats[0] if seats else None
        return out

    async def quick_target(self, player: Player, msg: cm.QuickPlay) -> str | None:
        """A waiting quick-play table of the game owned elsewhere, to join there (only when
        this process has none: the local one is preferred)."""
        for actor in self.lobby.tables.values():
            core = actor.core
            if core.quick and core.game.id == msg.game and core.status == "waiting":
                return None
        # picked inside Redis: a quick play must not read and parse the whole index
        for table_id, entry in (await self.store.quick_candidates(msg.game)).items():
            info = entry["info"]
            if (
                table_id not in self.lobby.tables
                and info["quick"]
                and info["game"] == msg.game
                and info["status"] == "waiting"
                and (msg.level is None or entry.get("fill_level") == msg.level)
                and any(s["kind"] == "empty" for s in info["seats"])
                # nobody gone: their seat is being given up (Lobby._all_here)
                and all(s["connected"] for s in info["seats"] if s["kind"] == "human")
                and player.player_id not in entry.get("members", ())
                and not self.app.lobby.blocked_with(
                    player, [s.get("player_id") for s in info["seats"]]
                )
            ):
                return table_id
        return None

    def _deliver(self, pid: str, raw: bytes) -> None:
        """Hand a message from a table's owner to the player's connection here.

        Most (updates, answers) go on as the bytes the owner encoded; those that
        change what the player's session knows, errors (counted here) and
        anything for a JSON connection are decoded first.
        """
        if pid in self._forwarded:
            ref = _ref(raw)
            if ref is not None:
                self._unforward(pid, ref)
        player = self.lobby.sessions.get(pid)
        link = None if player is None else player.link
        if player is None or link is None or isinstance(link, RemoteLink):
            return
        kind = _kind(raw)
        ignoring = player.relations.muted or player.relations.blocked
        as_is = not getattr(link, "json", True) and kind in _RELAYED_AS_IS
        if as_is and not (kind == "chat" and ignoring):  # a muter's chat is looked at first
            player.send(Frame(None, raw))
            return
        try:
            message = decode_server(raw)
        except FrameError:
            return
        if isinstance(message, sm.ChatLine) and ignoring:
            sender = self.lobby.sessions.get(message.player_id)
            if player.ignores(message.player_id if sender is None else sender.key):
                return  # muted here, where the muting session is (the owner cannot know)
        if isinstance(message, sm.Joined):
            player.tables[message.table.id] = message.seat
        elif isinstance(message, sm.Left | sm.TableClosed | sm.Kicked):
            player.tables.pop(message.table, None)
        player.send(message)

    def push_accounts(self, notices: Sequence[tuple[str, BaseModel]]) -> None:
        """Send each message to the connections of its account on every process (this
        one too, through the same channel): what the process deciding it cannot reach."""
        items = [[account, encode(message)] for account, message in notices]
        self.post(EVERY, {"t": "acct", "items": items})

    def _to_accounts(self, items: list[list[Any]]) -> None:
        """Hand the messages of :meth:`push_accounts` to the connections here (not to
        stand-ins: their own process hands them over)."""
        wanted: dict[str, list[Any]] = {}
        for account, raw in items:
            try:
                wanted.setdefault(str(account), []).append(decode_server(raw))
            except FrameError:
                continue
        for player in self.lobby.sessions:
            account = player.account
            link = player.link
            if account is None or link is None or isinstance(link, RemoteLink):
                continue
            for message in wanted.get(account.account_id, ()):
                if player.connected:
                    player.send(message)

    # -- the owner: this process drives the table --------------------------------------
    def stand_in(
        self, pid: str, name: str, node: str, features: tuple[str, ...] | None = None
    ) -> Player:
        """The player connected at ``node``, as the tables here see them; ``features``:
        those of its connection there (None: not told, kept as they were)."""
        player = self.lobby.sessions.get(pid)
        if player is None:
            player = Player(player_id=pid, name=name, token="")
            self.lobby.sessions.adopt(player, by_token=False)
        link = player.link
        if link is None or isinstance(link, RemoteLink):
            if features is None:
                features = link.features if link is not None else ()
            player.link = RemoteLink(self, node, pid, features)
            player.away_since = None  # connected (elsewhere): not a session to expire here
            player.relayed_at = self.lobby.clock()  # kept while its request is in flight
        return player

    async def _receive(self, data: dict[str, Any]) -> None:
        kind = data.get("t")
        if kind == "out":
            self._deliver(data["pid"], data["m"])
        elif kind == "close":
            player = self.lobby.sessions.get(data["pid"])
            link = None if player is None else player.link
            if link is not None and not isinstance(link, RemoteLink):
                link.close(int(data["code"]), str(data["reason"]))
        elif kind == "cmd":
            msg = decode_client(data["frame"])
            table = getattr(msg, "table", None)
            if isinstance(table, str) and not self.drives(table):
                self._give_back(data)
                return
            told = data.get("features")
            known = known_features(told) if isinstance(told, list) else None
            player = self.stand_in(data["pid"], data["name"], data["from"], known)
            told_account = data.get("account")  # the session's account travels with it: a
            if isinstance(told_account, list):  # seat taken here records it (game records)
                player.account = Account(*told_account)
            try:
                await self.app.dispatch(player, msg, route=False)
            except RequestError as exc:
                player.send(
                    sm.Error(ref=msg.id, code=exc.code, message=exc.message, detail=exc.detail)
                )
        elif kind == "back":
            self._given_back(data)
        elif kind == "acct":
            self._to_accounts(list(data.get("items") or ()))
        elif kind == "ev":
            player = self.stand_in(data["pid"], data["name"], data["from"])
            actor = self.lobby.tables.get(data["table"])
            presence = PRESENCE_BY_KIND.get(data["kind"])
            if actor is not None and presence is not None:
                player.tables.setdefault(actor.id, actor.core.seat_of(player.player_id))
                actor.submit(presence(player))

    def drives(self, table_id: str) -> bool:
        """Whether this process drives ``table_id`` now (its actor runs here)."""
        actor = self.lobby.tables.get(table_id)
        return actor is not None and not actor.closed

    def _give_back(self, data: dict[str, Any]) -> None:
        """Send a request for a table this process does not drive back to its front,
        unapplied, instead of answering ``not_found`` for a table that exists: the
        front's lookup of the owner was overtaken (this process has just lost or
        given the table up) or came early (it has taken the table and is still
        rebuilding it).  The front routes it again (:meth:`_given_back`)."""
        back = {"t": "back", "pid": data["pid"], "frame": data["frame"], "until": data.get("until")}
        self.post(str(data["from"]), back)

    def _given_back(self, data: dict[str, Any]) -> None:
        """A request the process it was sent to gave back, unapplied (:meth:`_give_back`):
        held until its table is back (:meth:`_until_back`), by the deadline it had."""
        pid = data["pid"]
        msg = decode_client(data["frame"])
        if msg.id is not None and self._unforward(pid, msg.id) is None:
            return  # refused meanwhile (its deadline passed): answered once is enough
        player = self.lobby.sessions.get(pid)
        link = None if player is None else player.link
        if player is None or link is None or isinstance(link, RemoteLink):
            return  # its connection is gone: nobody waits for the answer, nothing was done
        table = getattr(msg, "table", None)
        if not isinstance(table, str):
            return  # only a request naming its table is given back
        now = self._now()
        until = data.get("until")
        latest = now + self.hold_limit()
        deadline = min(float(until), latest) if isinstance(until, int | float) else latest
        if now >= deadline:
            player.send(table_moving(msg.id, table))
            return
        self._hold(Held(player, msg, table, deadline, given_back=True))

    async def adopt_members(self, actor: TableActor) -> None:
        """A table rebuilt here: its members connected to other processes get stand-ins,
        and a snapshot through them (they are back at the table)."""
        core = actor.core
        away = [pid for pid in core.members() if self.lobby.sessions.get(pid) is None]
        for pid, node in (await self.store.where(away)).items():
            seat = core.seat_of(pid)
            name = core.seats[seat].name if seat is not None else core.spectators.get(pid, "")
            player = self.stand_in(pid, name or "", node)
            player.tables[actor.id] = seat
            actor.submit(Reconnect(player))
