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

Pub/sub delivers at most once: a request lost while Redis restarts gets no
answer (the client's request times out and it retries; an ``act`` carries
the table version, so a retry is never applied twice).  Nothing durable
travels here: the table's record is written by its owner before any message
about it is sent.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
from dataclasses import astuple
from typing import TYPE_CHECKING, Any

import msgpack  # type: ignore[import-untyped]
from pydantic import BaseModel
from redis.exceptions import RedisError

from protocol import client_messages as cm
from protocol import server_messages as sm
from protocol.base import known_features
from protocol.codec import Frame, FrameError, decode_client, decode_server, encode, unchecked
from protocol.errors import ErrorCode
from protocol.models import TableInfo
from server.lobby import listing_group
from server.ops.logs import get_logger
from server.persist.redis_commit import CommitLane
from server.persist.redis_store import RedisStore
from server.persist.store import StoreUnavailable
from server.players.accounts import Account
from server.players.sessions import Player
from server.tables.actor import Command
from server.tables.core import LISTING_TTL, TableCore
from server.tables.options import RequestError

if TYPE_CHECKING:
    from server.app import CardaviaServer

OUTBOX_LIMIT = 100_000
"""Messages waiting to be published before new ones are dropped (Redis is gone)."""


STOP_TIMEOUT = 3.0
"""Seconds the bus's tasks get to end when the server stops."""


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


class Bus:
    """This process's end of the routing (see the module docstring)."""

    def __init__(self, store: RedisStore, app: CardaviaServer) -> None:
        self.store = store
        self.app = app
        self.node = store.node
        self._outbox: asyncio.Queue[tuple[str, bytes]] = asyncio.Queue(OUTBOX_LIMIT)
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

    def post(self, node: str, payload: dict[str, Any]) -> None:
        """Queue a message for another process (never blocks)."""
        try:
            self._outbox.put_nowait((node, msgpack.packb(payload, use_bin_type=True)))
        except asyncio.QueueFull:
            self._log.warning("bus_outbox_full")

    async def _publish(self) -> None:
        lane = CommitLane(self.store.redis)  # its own connection, kept: one write a batch
        try:
            while True:
                batch = [await self._outbox.get()]
                while not self._outbox.empty() and len(batch) < 500:
                    batch.append(self._outbox.get_nowait())
                try:
                    await lane.send([("PUBLISH", self.channel(node), data) for node, data in batch])
                except StoreUnavailable as exc:
                    self._log.warning("bus_publish_failed", dropped=len(batch), error=str(exc))
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
                await conn.send_command("SUBSCRIBE", self.channel(self.node))
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
    async def forward(self, player: Player, msg: Any, table_id: str) -> None:
        """Send a request for a table owned elsewhere to its owner."""
        owner = await self.store.owner_of(table_id)
        if owner is None or owner == self.node:
            if await self.store.exists(table_id):
                raise RequestError(
                    ErrorCode.STORE_UNAVAILABLE,
                    "the table is moving to another server process; retry in a few seconds",
                )
            raise RequestError(ErrorCode.NOT_FOUND, f"no table {table_id!r}")
        self.post(
            owner,
            {
                "t": "cmd",
                "pid": player.player_id,
                "name": player.name,
                "from": self.node,
                "frame": encode(msg),
                "features": list(player.link.features) if player.link is not None else [],
                "account": None if player.account is None else list(astuple(player.account)),
            },
        )

    def presence(self, player: Player, table_id: str, kind: str) -> None:
        """A player's disconnect / reconnect / expiry, for a table owned elsewhere."""
        task = asyncio.create_task(self._presence(player, table_id, kind))
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
        lobby = self.app.lobby
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
        listed = [t for group in groups for t in group][: self.app.config.max_listed_tables]
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
            if player_id in entry.get("members", ()) and table_id not in self.app.lobby.tables:
                seats = [s["seat"] for s in entry["info"]["seats"] if s["player_id"] == player_id]
                out[table_id] = seats[0] if seats else None
        return out

    async def quick_target(self, player: Player, msg: cm.QuickPlay) -> str | None:
        """A waiting quick-play table of the game owned elsewhere, to join there (only when
        this process has none: the local one is preferred)."""
        for actor in self.app.lobby.tables.values():
            core = actor.core
            if core.quick and core.game.id == msg.game and core.status == "waiting":
                return None
        # picked inside Redis: a quick play must not read and parse the whole index
        for table_id, entry in (await self.store.quick_candidates(msg.game)).items():
            info = entry["info"]
            if (
                table_id not in self.app.lobby.tables
                and info["quick"]
                and info["game"] == msg.game
                and info["status"] == "waiting"
                and (msg.level is None or entry.get("fill_level") == msg.level)
                and any(s["kind"] == "empty" for s in info["seats"])
                and player.player_id not in entry.get("members", ())
            ):
                return table_id
        return None

    def _deliver(self, pid: str, raw: bytes) -> None:
        """Hand a message from a table's owner to the player's connection here.

        Most (updates, answers) go on as the bytes the owner encoded; those that
        change what the player's session knows, errors (counted here) and
        anything for a JSON connection are decoded first.
        """
        player = self.app.sessions.get(pid)
        link = None if player is None else player.link
        if player is None or link is None or isinstance(link, RemoteLink):
            return
        if not getattr(link, "json", True) and _kind(raw) in _RELAYED_AS_IS:
            player.send(Frame(None, raw))
            return
        try:
            message = decode_server(raw)
        except FrameError:
            return
        if isinstance(message, sm.Joined):
            player.tables[message.table.id] = message.seat
        elif isinstance(message, sm.Left | sm.TableClosed):
            player.tables.pop(message.table, None)
        player.send(message)

    # -- the owner: this process drives the table --------------------------------------
    def stand_in(
        self, pid: str, name: str, node: str, features: tuple[str, ...] | None = None
    ) -> Player:
        """The player connected at ``node``, as the tables here see them; ``features``:
        those of its connection there (None: not told, kept as they were)."""
        player = self.app.sessions.get(pid)
        if player is None:
            player = Player(player_id=pid, name=name, token="")
            self.app.sessions.adopt(player, by_token=False)
        link = player.link
        if link is None or isinstance(link, RemoteLink):
            if features is None:
                features = link.features if link is not None else ()
            player.link = RemoteLink(self, node, pid, features)
            player.away_since = None  # connected (elsewhere): not a session to expire here
        return player

    async def _receive(self, data: dict[str, Any]) -> None:
        kind = data.get("t")
        if kind == "out":
            self._deliver(data["pid"], data["m"])
        elif kind == "close":
            player = self.app.sessions.get(data["pid"])
            link = None if player is None else player.link
            if link is not None and not isinstance(link, RemoteLink):
                link.close(int(data["code"]), str(data["reason"]))
        elif kind == "cmd":
            told = data.get("features")
            known = known_features(told) if isinstance(told, list) else None
            player = self.stand_in(data["pid"], data["name"], data["from"], known)
            told_account = data.get("account")  # the session's account travels with it: a
            if isinstance(told_account, list):  # seat taken here records it (game records)
                player.account = Account(*told_account)
            msg = decode_client(data["frame"])
            try:
                await self.app.dispatch(player, msg, route=False)
            except RequestError as exc:
                player.send(
                    sm.Error(ref=msg.id, code=exc.code, message=exc.message, detail=exc.detail)
                )
        elif kind == "ev":
            player = self.stand_in(data["pid"], data["name"], data["from"])
            actor = self.app.lobby.tables.get(data["table"])
            if actor is not None and data["kind"] in ("disconnect", "reconnect", "forget"):
                player.tables.setdefault(actor.id, actor.core.seat_of(player.player_id))
                actor.submit(Command(data["kind"], player))

    async def adopt_members(self, actor: Any) -> None:
        """A table rebuilt here: its members connected to other processes get stand-ins,
        and a snapshot through them (they are back at the table)."""
        core = actor.core
        away = [pid for pid in core.members() if self.app.sessions.get(pid) is None]
        for pid, node in (await self.store.where(away)).items():
            seat = core.seat_of(pid)
            name = core.seats[seat].name if seat is not None else core.spectators.get(pid, "")
            player = self.stand_in(pid, name or "", node)
            player.tables[actor.id] = seat
            actor.submit(Command("reconnect", player))
