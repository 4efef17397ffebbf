"""The Redis store: table records, fenced by a per-table lease, shared by every process.

Keys (``P`` is the configured prefix)::

    P:tables              SET   ids of the recorded (not closed) tables
    P:t:<id>              HASH  game, options, meta (JSON), game_no, seed, version,
                                turn_at, fence
    P:t:<id>:log          LIST  the current game's actions (msgpack [seat, action, by])
    P:t:<id>:lease        STRING "<node>:<fence>" with a TTL: the owner is alive
    P:t:<id>:replays      LIST  game numbers of the finished games kept
    P:r:<id>:<game_no>    STRING a finished game (msgpack), expires after replay_ttl
    P:index               HASH  table id -> the lobby's summary of it (JSON: info, members)
    P:where:<player_id>   STRING the process a player is connected to (for routing)

Ownership: ``fence`` in the table's hash is bumped by every process that
takes the table over (:meth:`RedisStore.acquire`), and every write is a Lua
script that first checks the fence it was given still is the table's —
atomically, so a process that lost its table (paused past its lease, cut off)
can never write to it again.  The lease key only says "the owner is alive";
it expires when the owner stops renewing it, and only then may another
process take the table.  The append also checks the log length it expects,
so an append whose answer was lost cannot be applied twice (sent again, it
finds itself already at the end of the log and succeeds without a copy).

Nothing here is readable by clients: the seed and the log leave Redis only
to rebuild the table in a server process.
"""

from __future__ import annotations

import contextlib
import json
import secrets
import time
from collections.abc import Iterator, Sequence
from typing import Any, TypeVar

import msgpack  # type: ignore[import-untyped]
from redis import asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import RedisError

from server.persist.redis_commit import CommitLane
from server.persist.store import LeaseLost, LoggedAction, StoreUnavailable, TableRecord

_FENCED = """
local f = redis.call('HGET', KEYS[1], 'fence')
if f ~= ARGV[1] then return -1 end
"""

_CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'game', ARGV[1], 'options', ARGV[2], 'meta', ARGV[3],
           'fence', '1', 'game_no', '0', 'version', '0', 'turn_at', '0')
redis.call('SET', KEYS[2], ARGV[4] .. ':1', 'PX', ARGV[5])
redis.call('SADD', KEYS[3], ARGV[6])
return 1
"""

_START = (
    _FENCED
    + """
redis.call('DEL', KEYS[2])
redis.call('HSET', KEYS[1], 'game_no', ARGV[2], 'seed', ARGV[3], 'version', ARGV[4],
           'turn_at', ARGV[5])
return 1
"""
)

_APPEND = (
    _FENCED
    + """
local n = redis.call('LLEN', KEYS[2])
if n == tonumber(ARGV[2]) + 1 and redis.call('LINDEX', KEYS[2], -1) == ARGV[3] then
  return 1
end
if n ~= tonumber(ARGV[2]) then return -2 end
redis.call('RPUSH', KEYS[2], ARGV[3])
redis.call('HSET', KEYS[1], 'turn_at', ARGV[4])
return 1
"""
)

_META = (
    _FENCED
    + """
redis.call('HSET', KEYS[1], 'meta', ARGV[2])
if ARGV[3] ~= '' then redis.call('HSET', KEYS[2], ARGV[4], ARGV[3]) end
return 1
"""
)

_ARCHIVE = (
    _FENCED
    + """
redis.call('SET', KEYS[3], ARGV[3], 'EX', ARGV[4])
redis.call('RPUSH', KEYS[2], ARGV[2])
redis.call('LTRIM', KEYS[2], -tonumber(ARGV[5]), -1)
redis.call('EXPIRE', KEYS[2], ARGV[4])
if ARGV[6] ~= '' then
  redis.call('SET', KEYS[5], ARGV[8], 'EX', ARGV[4])
  redis.call('ZADD', KEYS[4], ARGV[7], ARGV[6])
end
return 1
"""
)

_DELETE = (
    _FENCED
    + """
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
redis.call('SREM', KEYS[4], ARGV[2])
redis.call('HDEL', KEYS[5], ARGV[2])
return 1
"""
)

_ACQUIRE = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
local f = redis.call('HINCRBY', KEYS[1], 'fence', 1)
redis.call('SET', KEYS[2], ARGV[1] .. ':' .. f, 'PX', ARGV[2])
return f
"""

_RENEW = """
local lost = {}
for i = 1, #KEYS, 2 do
  local fence = ARGV[2 + (i + 1) / 2]
  if redis.call('HGET', KEYS[i], 'fence') == fence then
    redis.call('SET', KEYS[i + 1], ARGV[1] .. ':' .. fence, 'PX', ARGV[2])
  else
    lost[#lost + 1] = (i + 1) / 2
  end
end
return lost
"""

_ORPHANS = """
local out = {}
for _, id in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  if redis.call('EXISTS', ARGV[1] .. id .. ARGV[2]) == 0 then out[#out + 1] = id end
end
return out
"""

_INDEX_WITH = """
local out = {}
local all = redis.call('HGETALL', KEYS[1])
for i = 1, #all, 2 do
  local found = true
  for j = 1, #ARGV do
    if not string.find(all[i + 1], ARGV[j], 1, true) then
      found = false
      break
    end
  end
  if found then
    out[#out + 1] = all[i]
    out[#out + 1] = all[i + 1]
  end
end
return out
"""

_UNWHERE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""

_WHERE = """
for i = 1, #KEYS do redis.call('SET', KEYS[i], ARGV[1], 'EX', ARGV[2]) end
return #KEYS
"""

T = TypeVar("T")

CHUNK = 500
"""Tables (or players) per Redis call of a periodic pass over all of them: each call's
packing and answer then hold the event loop briefly, where one call for them all held
it as long as all the calls together."""


def chunks(items: Sequence[T], size: int = CHUNK) -> Iterator[Sequence[T]]:
    """``items`` in slices of ``size`` (:data:`CHUNK`), for one Redis call each."""
    for at in range(0, len(items), size):
        yield items[at : at + size]


_RELEASE = (
    _FENCED
    + """
redis.call('DEL', KEYS[2])
return 1
"""
)


def _pack(value: Any) -> bytes:
    return bytes(msgpack.packb(value, use_bin_type=True))


def _text(raw: bytes | str) -> str:
    return raw.decode() if isinstance(raw, bytes) else raw


def _unpack(raw: bytes) -> Any:
    return msgpack.unpackb(raw, raw=False, strict_map_key=False)


class RedisStore:
    """A :class:`~server.persist.store.Store` in Redis with per-table fencing (module docstring)."""

    may_fail = True
    completes_at_once = False
    lists_tables = True  # the lobby's index (P:index)

    def __init__(
        self,
        url: str,
        *,
        prefix: str = "cardavia",
        lease_ttl: float = 5.0,
        replay_ttl: float = 7 * 86400.0,
        replays_kept: int = 5,
        timeout: float = 2.0,
        connections: int = 64,
    ) -> None:
        self.url = url
        self.prefix = prefix
        self.lease_ttl = lease_ttl
        self.replay_ttl = replay_ttl
        self.replays_kept = replays_kept
        self.node = secrets.token_hex(6)
        # at most ``connections`` at once (one of them the cluster bus's subscription);
        # a command finding all of them busy waits for one up to ``timeout`` seconds,
        # so a burst (thousands of clients saying hello at once) queues instead of
        # failing with store_unavailable, as redis-py's default pool would past 100
        pool = aioredis.BlockingConnectionPool.from_url(
            url,
            max_connections=connections,
            timeout=timeout,
            socket_timeout=timeout,
            socket_connect_timeout=timeout,
            health_check_interval=30,
            # one immediate retry (a pooled connection that died with a Redis restart);
            # beyond that the caller hears store_unavailable within about 2 x timeout
            retry=Retry(NoBackoff(), 1),
        )
        self.redis: aioredis.Redis = aioredis.Redis.from_pool(pool)
        self._fences: dict[str, int] = {}
        self._lens: dict[str, int] = {}
        self._scripts = {
            name: self.redis.register_script(src)
            for name, src in (
                ("create", _CREATE),
                ("start", _START),
                ("append", _APPEND),
                ("meta", _META),
                ("archive", _ARCHIVE),
                ("delete", _DELETE),
                ("acquire", _ACQUIRE),
                ("renew", _RENEW),
                ("release", _RELEASE),
                ("orphans", _ORPHANS),
                ("where", _WHERE),
                ("unwhere", _UNWHERE),
                ("index_with", _INDEX_WITH),
            )
        }
        self._lane = CommitLane(self.redis, self._scripts["append"])
        """The commands on every move's path (appends, owner lookups), batched over one
        connection (group commit)."""

    # -- keys --------------------------------------------------------------------
    def _k(self, *parts: str) -> str:
        return ":".join((self.prefix, *parts))

    def _table_keys(self, table_id: str) -> tuple[str, str, str]:
        base = self._k("t", table_id)
        return base, base + ":log", base + ":lease"

    # -- connection ----------------------------------------------------------------
    async def open(self) -> None:
        """Check Redis answers; raise :class:`StoreUnavailable` with what to do if not."""
        try:
            await self.redis.ping()
            await self.redis.script_load(_APPEND)
        except (RedisError, OSError) as exc:
            raise StoreUnavailable(
                f"cannot reach Redis at {self.url} ({exc}); start Redis there or point "
                "--redis-url / CARDAVIA_REDIS_URL at it"
            ) from None

    async def close(self) -> None:
        """Close the connection pool."""
        await self._lane.close()
        await self.redis.aclose()

    async def ping(self) -> bool:
        """Whether Redis answers now (for readiness checks)."""
        try:
            return bool(await self.redis.ping())
        except (RedisError, OSError):
            return False

    async def _run(self, name: str, keys: list[str], args: list[Any]) -> Any:
        try:
            return await self._scripts[name](keys=keys, args=args)
        except (RedisError, OSError) as exc:
            raise StoreUnavailable(f"Redis did not answer: {exc}") from None

    def _fence(self, table_id: str) -> int:
        fence = self._fences.get(table_id)
        if fence is None:
            raise LeaseLost(f"this process does not own table {table_id}")
        return fence

    def _check(self, table_id: str, result: Any) -> None:
        if result == -1:
            self._fences.pop(table_id, None)
            raise LeaseLost(f"table {table_id} is owned by another process now")
        if result == -2:
            self._fences.pop(table_id, None)
            raise LeaseLost(f"table {table_id}: the log in Redis is not the one this process has")

    # -- ownership -----------------------------------------------------------------
    def owns(self, table_id: str) -> bool:
        """Whether this process holds the table's fence."""
        return table_id in self._fences

    def owned(self) -> list[str]:
        """The tables this process holds."""
        return list(self._fences)

    async def acquire(self, table_id: str) -> bool:
        """Take a table whose lease has expired (or was released); whether it is ours now."""
        base, _, lease = self._table_keys(table_id)
        fence = await self._run("acquire", [base, lease], [self.node, int(self.lease_ttl * 1000)])
        if not fence:
            return False
        self._fences[table_id] = int(fence)
        return True

    async def renew(self) -> list[str]:
        """Extend every lease this process holds; the tables it has lost (fenced out).

        In calls of :data:`CHUNK` tables, each answering only with the lost ones."""
        lost: list[str] = []
        ids = list(self._fences)
        for part in chunks(ids):
            chunk = [t for t in part if t in self._fences]
            if not chunk:
                continue
            keys: list[str] = []
            for table_id in chunk:
                base, _, lease = self._table_keys(table_id)
                keys += [base, lease]
            args = [self.node, int(self.lease_ttl * 1000)] + [self._fences[t] for t in chunk]
            lost += [chunk[int(i) - 1] for i in await self._run("renew", keys, args)]
        for table_id in lost:
            self._fences.pop(table_id, None)
        return lost

    async def release(self, table_id: str) -> None:
        """Give a table up now (graceful stop): another process may take it at once."""
        fence = self._fences.pop(table_id, None)
        self._lens.pop(table_id, None)
        if fence is None:
            return
        base, _, lease = self._table_keys(table_id)
        await self._run("release", [base, lease], [fence])

    def forget(self, table_id: str) -> None:
        """Drop what this process knew of a table it no longer drives."""
        self._fences.pop(table_id, None)
        self._lens.pop(table_id, None)

    async def orphans(self) -> list[str]:
        """Recorded tables that nobody holds a lease on (takeover candidates).

        Looked up inside Redis (one script, answering with those ids only): the
        scan runs every second, and a pipeline of one check per table held the
        event loop in proportion to the tables (docs/performance.md)."""
        prefix, suffix = self._k("t", ""), ":lease"
        ids = await self._run("orphans", [self._k("tables")], [prefix, suffix])
        return sorted(_text(t) for t in ids)

    # -- the Store protocol ------------------------------------------------------------
    async def create(self, record: TableRecord) -> None:
        """Record a new table, owned (lease and fence 1) by this process."""
        base, _, lease = self._table_keys(record.table_id)
        args = [
            record.game,
            json.dumps(record.options),
            json.dumps(record.meta),
            self.node,
            int(self.lease_ttl * 1000),
            record.table_id,
        ]
        created = await self._run("create", [base, lease, self._k("tables")], args)
        if not created:
            raise LeaseLost(f"table {record.table_id} exists already")
        self._fences[record.table_id] = 1
        self._lens[record.table_id] = 0

    async def start_game(self, table_id: str, game_no: int, seed: int, version: int = 0) -> None:
        """A new game: empty log, new seed (fenced)."""
        base, log, _ = self._table_keys(table_id)
        args = [self._fence(table_id), game_no, seed, version, time.time()]
        self._check(table_id, await self._run("start", [base, log], args))
        self._lens[table_id] = 0

    async def append(self, table_id: str, action: LoggedAction, turn_at: float = 0.0) -> None:
        """Append one action (fenced, and only at the log length this process expects)."""
        base, log, _ = self._table_keys(table_id)
        expected = self._lens.get(table_id, 0)
        packed = _pack([action.seat, action.action, action.by])
        args = [self._fence(table_id), expected, packed, turn_at or time.time()]
        sha = self._scripts["append"].sha
        self._check(table_id, await self._lane.call(("EVALSHA", sha, 2, base, log, *args)))
        self._lens[table_id] = expected + 1

    async def save_meta(self, table_id: str, meta: dict[str, Any]) -> None:
        """Replace the seating record (fenced); its ``summary`` goes to the lobby's index."""
        base, _, _ = self._table_keys(table_id)
        record = dict(meta)
        summary = record.pop("summary", None)
        args = [
            self._fence(table_id),
            json.dumps(record),
            "" if summary is None else json.dumps(summary),
            table_id,
        ]
        result = await self._run("meta", [base, self._k("index")], args)
        self._check(table_id, result)

    async def archive(self, table_id: str, game_no: int, finished: dict[str, Any]) -> None:
        """Keep a finished game for ``replay_ttl`` seconds (fenced).  The game record it
        may carry (``record``, :func:`~server.persist.db.game_record.record_to_plain`) is
        kept apart, listed as unwritten in the same step, until its write is done
        (:meth:`record_written`); :meth:`unwritten_records` finds it if it never is."""
        base, _, _ = self._table_keys(table_id)
        game_id = f"{table_id}.{game_no}"
        record = finished.get("record")
        if record is not None:
            finished = {k: v for k, v in finished.items() if k != "record"}
        keys = [
            base,
            base + ":replays",
            self._k("r", table_id, str(game_no)),
            self._k("records", "unwritten"),
            self._k("records", "r", game_id),
        ]
        args = [
            self._fence(table_id),
            game_no,
            _pack(finished),
            max(1, int(self.replay_ttl)),
            self.replays_kept,
            "" if record is None else game_id,
            time.time(),
            b"" if record is None else _pack(record),
        ]
        self._check(table_id, await self._run("archive", keys, args))

    async def record_written(self, game_id: str) -> None:
        """The game record of ``game_id`` (``TABLE.N``) is in the database now."""
        try:
            pipe = self.redis.pipeline(transaction=True)
            pipe.zrem(self._k("records", "unwritten"), game_id)
            pipe.delete(self._k("records", "r", game_id))
            await pipe.execute()
        except (RedisError, OSError) as exc:
            raise StoreUnavailable(str(exc)) from exc

    async def unwritten_records(self, older_than: float, limit: int = 100) -> list[tuple[str, Any]]:
        """The game records archived more than ``older_than`` seconds ago and not written
        since (their process died, or stopped, before its background write), as
        ``(game id, plain record)``; the record is ``None`` when it cannot be read.
        One kept past ``replay_ttl`` has expired, and is dropped from the list."""
        key = self._k("records", "unwritten")
        try:
            due: list[bytes] = await self.redis.zrangebyscore(  # type: ignore[assignment]
                key, "-inf", time.time() - older_than, start=0, num=limit
            )
            if not due:
                return []
            ids = [_text(raw) for raw in due]
            found: list[bytes | None] = await self.redis.mget(  # type: ignore[assignment]
                [self._k("records", "r", game_id) for game_id in ids]
            )
            out: list[tuple[str, Any]] = []
            for game_id, packed in zip(ids, found, strict=True):
                if packed is None:
                    await self.redis.zrem(key, game_id)
                    continue
                try:
                    out.append((game_id, _unpack(packed)))
                except ValueError:  # not a record of ours (msgpack's errors are ValueErrors)
                    out.append((game_id, None))
            return out
        except (RedisError, OSError) as exc:
            raise StoreUnavailable(str(exc)) from exc

    async def kept_game(self, table_id: str, game_no: int) -> dict[str, Any] | None:
        """The finished game :meth:`archive` keeps, also once its table is deleted (a
        table whose people left after its game closes before its record is written:
        if its process died meanwhile, this is what remains of the game)."""
        try:
            raw: bytes | None = await self.redis.get(self._k("r", table_id, str(game_no)))  # type: ignore[assignment]
        except (RedisError, OSError) as exc:
            raise StoreUnavailable(str(exc)) from exc
        if raw is None:
            return None
        game: dict[str, Any] = _unpack(raw)
        return game

    async def load(self, table_id: str) -> TableRecord | None:
        """The table's record with its log and the replays still kept."""
        base, log, _ = self._table_keys(table_id)
        try:
            pipe = self.redis.pipeline(transaction=True)
            pipe.hgetall(base)
            pipe.lrange(log, 0, -1)
            pipe.lrange(base + ":replays", 0, -1)
            fields, raw_log, game_nos = await pipe.execute()
            raw_replays: list[Any] = []
            if game_nos:
                keys = [self._k("r", table_id, n.decode()) for n in game_nos]
                raw_replays = await self.redis.mget(keys)
        except (RedisError, OSError) as exc:
            raise StoreUnavailable(f"Redis did not answer: {exc}") from None
        if not fields:
            return None
        h = {k.decode(): v.decode() for k, v in fields.items()}
        actions = []
        for raw in raw_log:
            seat, action, by = _unpack(raw)
            actions.append(LoggedAction(seat=seat, action=action, by=by))
        self._lens[table_id] = len(actions)
        return TableRecord(
            table_id=table_id,
            game=h["game"],
            options=json.loads(h["options"]),
            game_no=int(h.get("game_no", 0)),
            seed=int(h["seed"]) if "seed" in h else None,
            actions=tuple(actions),
            version=int(h.get("version", 0)),
            meta={**json.loads(h.get("meta", "{}")), "turn_at": float(h.get("turn_at", 0))},
            replays=tuple(_unpack(r) for r in raw_replays if r is not None),
        )

    async def delete(self, table_id: str) -> None:
        """Forget the table (fenced); its replays stay until they expire."""
        base, log, lease = self._table_keys(table_id)
        keys = [base, log, lease, self._k("tables"), self._k("index")]
        self._check(table_id, await self._run("delete", keys, [self._fence(table_id), table_id]))
        self.forget(table_id)

    async def table_ids(self) -> list[str]:
        """Every recorded table id."""
        try:
            return sorted(_text(t) for t in await self.redis.smembers(self._k("tables")))
        except (RedisError, OSError) as exc:
            raise StoreUnavailable(f"Redis did not answer: {exc}") from None

    # -- routing between processes ---------------------------------------------------
    async def owner_of(self, table_id: str) -> str | None:
        """The process holding the table's lease now, or ``None`` (no table, or moving)."""
        raw = await self._lane.call(("GET", self._table_keys(table_id)[2]))
        return None if raw is None else _text(raw).rsplit(":", 1)[0]

    async def exists(self, table_id: str) -> bool:
        """Whether the table is recorded (not closed)."""
        try:
            return bool(await self.redis.sismember(self._k("tables"), table_id))
        except (RedisError, OSError) as exc:
            raise StoreUnavailable(f"Redis did not answer: {exc}") from None

    async def index(self) -> dict[str, dict[str, Any]]:
        """Every table's lobby summary, by table id."""
        try:
            raw = await self.redis.hgetall(self._k("index"))
        except (RedisError, OSError) as exc:
            raise StoreUnavailable(f"Redis did not answer: {exc}") from None
        return {_text(k): json.loads(v) for k, v in raw.items()}

    async def index_of(self, player_id: str) -> dict[str, dict[str, Any]]:
        """The lobby summaries that name ``player_id`` (those of the tables it sits or
        watches at, and perhaps a few more: the caller checks), picked inside Redis.

        A resume at another process asks this: after a process dies, thousands
        of its clients resume elsewhere at once, and reading and parsing the
        whole index for each of them took seconds of CPU per thousand tables."""
        return await self._index_with(json.dumps(player_id))

    async def quick_candidates(self, game: str) -> dict[str, dict[str, Any]]:
        """The lobby summaries of waiting quick-play tables of ``game`` (and perhaps a
        few more: the caller checks), picked inside Redis, as :meth:`index_of` does."""
        # the words json.dumps writes for them (save_meta)
        return await self._index_with('"quick": true', '"status": "waiting"', json.dumps(game))

    async def _index_with(self, *words: str) -> dict[str, dict[str, Any]]:
        """The index entries whose JSON text holds every one of ``words``."""
        raw = await self._run("index_with", [self._k("index")], list(words))
        return {_text(raw[i]): json.loads(raw[i + 1]) for i in range(0, len(raw), 2)}

    async def set_where(self, player_id: str, ttl: float) -> None:
        """Record that the player is connected to this process."""
        try:
            await self.redis.set(self._k("where", player_id), self.node, ex=max(1, int(ttl)))
        except (RedisError, OSError):
            return

    async def refresh_where(self, player_ids: list[str], ttl: float) -> None:
        """Record again that these players are connected to this process, for ``ttl``
        seconds (they still are: a record that expired would make the owners of
        their tables elsewhere take them for players connected nowhere)."""
        for part in chunks(player_ids):
            keys = [self._k("where", p) for p in part]
            await self._run("where", keys, [self.node, max(1, int(ttl))])

    async def clear_where(self, player_id: str) -> None:
        """The player's connection to this process ended."""
        # compare and delete in one step: if the player reconnected to another process
        # meanwhile, its record names that process and stays
        with contextlib.suppress(StoreUnavailable):
            await self._run("unwhere", [self._k("where", player_id)], [self.node])

    async def where(self, player_ids: list[str]) -> dict[str, str]:
        """The process each of these players is connected to (those connected anywhere)."""
        if not player_ids:
            return {}
        try:
            raw = await self.redis.mget([self._k("where", p) for p in player_ids])
        except (RedisError, OSError) as exc:
            raise StoreUnavailable(f"Redis did not answer: {exc}") from None
        return {p: _text(n) for p, n in zip(player_ids, raw, strict=True) if n is not None}
