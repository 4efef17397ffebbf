"""The rated queues' storage: in this process (memory store), or in Redis (redis store).

One entry per account, in one game's queue at a time (``docs/ratings.md``,
"Rated quick play"). A process that makes a table *claims* its players first:
the claim is taken for all of them at once or for none (a Lua script in Redis),
so two processes matching at the same moment never seat one player twice. A
claim lasts :data:`CLAIM_TTL` seconds: the entries are deleted once the players
are seated (:meth:`done`), given back if the table could not be made
(:meth:`release`), and if the claiming process dies the claim runs out and the
entries are matched again — unless the claim's table seated them already, which
the next matcher checks (:class:`Waiting.stale`) before it seats anybody. Nobody
leaves the queue but by being seated, by leaving it, or with their session.

Redis keys (``P`` the configured prefix)::

    P:mm:q:<game>    HASH  account id -> the entry (JSON; ``queued_at`` on Redis's clock)
    P:mm:c:<game>    HASH  account id -> its claim (JSON: node, table, until in ms)
    P:mm:who         HASH  account id -> the game it is queued for
    P:mm:lock:<game> STRING the process matching the game now (expires)

Times come from Redis's clock (``TIME``) so that every process measures the waits
alike.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from redis import asyncio as aioredis
from redis.exceptions import RedisError

from server.persist.store import StoreUnavailable
from server.ratings.matchmaking import QueueEntry

CLAIM_TTL = 5.0
"""Seconds a process's claim on the players of a table it is making holds: long enough
to create the table and seat them, short enough that a process dying meanwhile
leaves them waiting only briefly."""


class AlreadyQueued(Exception):
    """The account waits in a rated queue already (``game``)."""

    def __init__(self, game: str) -> None:
        super().__init__(f"already queued for {game}")
        self.game = game


class BeingSeated(Exception):
    """The entry is claimed: a table is being made for the player now."""


@dataclass(frozen=True)
class Waiting:
    """A game's queue as a matcher reads it: the queue's clock ``now`` (seconds since the
    epoch), the entries nobody has claimed, and of those the ones whose claim ran out
    (``stale``: entry key -> the table the claim was for)."""

    now: float
    entries: tuple[QueueEntry, ...]
    stale: dict[str, str]


def entry_json(entry: QueueEntry) -> str:
    """An entry as the queue stores it."""
    return json.dumps(
        {
            "player_id": entry.player_id,
            "key": entry.key,
            "name": entry.name,
            "rating": entry.rating,
            "queued_at": entry.queued_at,
            "bot": entry.bot,
            "with_bots": entry.with_bots,
            "blocked": sorted(entry.blocked),
            "look": entry.look,
        }
    )


def entry_of(raw: str | bytes) -> QueueEntry:
    """The entry :func:`entry_json` stored."""
    data = json.loads(raw)
    return QueueEntry(
        player_id=str(data["player_id"]),
        key=str(data["key"]),
        name=str(data["name"]),
        rating=int(data["rating"]),
        queued_at=float(data["queued_at"]),
        bot=bool(data["bot"]),
        with_bots=bool(data["with_bots"]),
        blocked=frozenset(str(k) for k in data["blocked"] or ()),
        look=str(data.get("look", "")),
    )


class QueueStore(Protocol):
    """Where the rated queues are kept (:class:`MemoryQueue`, :class:`RedisQueue`)."""

    async def add(self, game: str, entry: QueueEntry) -> QueueEntry:
        """Queue ``entry`` (its ``queued_at`` set to now); :class:`AlreadyQueued` if its
        account waits already."""

    async def find(self, key: str) -> tuple[str, QueueEntry] | None:
        """The game and entry of account ``key``, if queued."""

    async def remove(self, key: str, game: str | None = None) -> str | None:
        """Take account ``key`` out of its queue (of ``game`` only, if given); its game,
        or None if not queued; :class:`BeingSeated` while a live claim holds it."""

    async def waiting(self, game: str) -> Waiting:
        """``game``'s unclaimed entries (see :class:`Waiting`)."""

    async def claim(self, game: str, keys: Sequence[str], table: str) -> bool:
        """Claim every one of ``keys`` for ``table``, or none (one is gone or claimed)."""

    async def release(self, game: str, keys: Sequence[str]) -> None:
        """Give back this process's claims on ``keys``: they wait again."""

    async def done(self, game: str, keys: Sequence[str]) -> None:
        """The claimed ``keys`` are seated: out of the queue."""

    async def lock(self, game: str, ttl: float) -> bool:
        """Whether this process may match ``game`` now (one process at a time; held
        ``ttl`` seconds unless taken again)."""


@dataclass(frozen=True)
class _Claim:
    table: str
    until: float


class MemoryQueue:
    """The queues of one process (the memory store: nothing is shared or survives)."""

    def __init__(self, clock: Any = time.time) -> None:
        self.clock = clock
        self._queues: dict[str, dict[str, QueueEntry]] = {}
        self._claims: dict[str, _Claim] = {}
        self._who: dict[str, str] = {}

    async def add(self, game: str, entry: QueueEntry) -> QueueEntry:
        held = self._who.get(entry.key)
        if held is not None:
            raise AlreadyQueued(held)
        entry = replace(entry, queued_at=self.clock())
        self._queues.setdefault(game, {})[entry.key] = entry
        self._who[entry.key] = game
        return entry

    async def find(self, key: str) -> tuple[str, QueueEntry] | None:
        game = self._who.get(key)
        return None if game is None else (game, self._queues[game][key])

    async def remove(self, key: str, game: str | None = None) -> str | None:
        held = self._who.get(key)
        if held is None or (game is not None and held != game):
            return None
        claim = self._claims.get(key)
        if claim is not None and claim.until > self.clock():
            raise BeingSeated(key)
        self._drop(held, key)
        return held

    def _drop(self, game: str, key: str) -> None:
        self._queues.get(game, {}).pop(key, None)
        self._claims.pop(key, None)
        self._who.pop(key, None)

    async def waiting(self, game: str) -> Waiting:
        now = self.clock()
        entries: list[QueueEntry] = []
        stale: dict[str, str] = {}
        for key, entry in self._queues.get(game, {}).items():
            claim = self._claims.get(key)
            if claim is not None and claim.until > now:
                continue
            if claim is not None:
                stale[key] = claim.table
            entries.append(entry)
        return Waiting(now, tuple(entries), stale)

    async def claim(self, game: str, keys: Sequence[str], table: str) -> bool:
        now = self.clock()
        queue = self._queues.get(game, {})
        for key in keys:
            claim = self._claims.get(key)
            if key not in queue or (claim is not None and claim.until > now):
                return False
        for key in keys:
            self._claims[key] = _Claim(table, now + CLAIM_TTL)
        return True

    async def release(self, game: str, keys: Sequence[str]) -> None:
        for key in keys:
            self._claims.pop(key, None)

    async def done(self, game: str, keys: Sequence[str]) -> None:
        for key in keys:
            self._drop(game, key)

    async def lock(self, game: str, ttl: float) -> bool:
        return True  # one process


_NOW_MS = """
local t = redis.call('TIME')
local now_ms = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
"""

_ADD = (
    _NOW_MS
    + """
local held = redis.call('HGET', KEYS[2], ARGV[1])
if held then return {0, held} end
local e = cjson.decode(ARGV[3])
e['queued_at'] = now_ms / 1000
local s = cjson.encode(e)
redis.call('HSET', KEYS[1], ARGV[1], s)
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
return {1, s}
"""
)

_REMOVE = (
    _NOW_MS
    + """
local game = redis.call('HGET', KEYS[1], ARGV[1])
if not game then return {0, ''} end
if ARGV[3] ~= '' and game ~= ARGV[3] then return {0, ''} end
local c = redis.call('HGET', ARGV[2] .. 'c:' .. game, ARGV[1])
if c and cjson.decode(c)['until'] > now_ms then return {-1, game} end
redis.call('HDEL', ARGV[2] .. 'q:' .. game, ARGV[1])
redis.call('HDEL', ARGV[2] .. 'c:' .. game, ARGV[1])
redis.call('HDEL', KEYS[1], ARGV[1])
return {1, game}
"""
)

_WAITING = (
    _NOW_MS
    + """
local out = {tostring(now_ms)}
local all = redis.call('HGETALL', KEYS[1])
for i = 1, #all, 2 do
  local c = redis.call('HGET', KEYS[2], all[i])
  if not c then
    out[#out + 1] = all[i + 1]; out[#out + 1] = ''
  else
    local claim = cjson.decode(c)
    if claim['until'] <= now_ms then
      out[#out + 1] = all[i + 1]; out[#out + 1] = claim['table']
    end
  end
end
return out
"""
)

_CLAIM = (
    _NOW_MS
    + """
for i = 4, #ARGV do
  if redis.call('HEXISTS', KEYS[1], ARGV[i]) == 0 then return 0 end
  local c = redis.call('HGET', KEYS[2], ARGV[i])
  if c and cjson.decode(c)['until'] > now_ms then return 0 end
end
local claim = cjson.encode({node = ARGV[1], table = ARGV[2], ['until'] = now_ms + ARGV[3]})
for i = 4, #ARGV do redis.call('HSET', KEYS[2], ARGV[i], claim) end
return 1
"""
)

_RELEASE = """
local n = 0
for i = 2, #ARGV do
  local c = redis.call('HGET', KEYS[1], ARGV[i])
  if c and cjson.decode(c)['node'] == ARGV[1] then
    redis.call('HDEL', KEYS[1], ARGV[i]); n = n + 1
  end
end
return n
"""

_DONE = """
local n = 0
for i = 2, #ARGV do
  local c = redis.call('HGET', KEYS[2], ARGV[i])
  if c and cjson.decode(c)['node'] == ARGV[1] then
    redis.call('HDEL', KEYS[1], ARGV[i]); redis.call('HDEL', KEYS[2], ARGV[i])
    redis.call('HDEL', KEYS[3], ARGV[i]); n = n + 1
  end
end
return n
"""

_LOCK = """
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2]); return 1
end
return 0
"""


def _text(raw: bytes | str) -> str:
    return raw.decode() if isinstance(raw, bytes) else raw


class RedisQueue:
    """The rated queues in Redis, shared by every process (module docstring)."""

    def __init__(self, redis: aioredis.Redis, prefix: str, node: str) -> None:
        self.redis = redis
        self.base = f"{prefix}:mm:"
        self.node = node
        self._scripts = {
            name: redis.register_script(src)
            for name, src in (
                ("add", _ADD),
                ("remove", _REMOVE),
                ("waiting", _WAITING),
                ("claim", _CLAIM),
                ("release", _RELEASE),
                ("done", _DONE),
                ("lock", _LOCK),
            )
        }

    def _q(self, game: str) -> str:
        return f"{self.base}q:{game}"

    def _c(self, game: str) -> str:
        return f"{self.base}c:{game}"

    @property
    def _who(self) -> str:
        return f"{self.base}who"

    async def _run(self, name: str, keys: list[str], args: list[Any]) -> Any:
        try:
            return await self._scripts[name](keys=keys, args=args)
        except (RedisError, OSError) as exc:
            raise StoreUnavailable(f"Redis did not answer: {exc}") from None

    async def add(self, game: str, entry: QueueEntry) -> QueueEntry:
        added, value = await self._run(
            "add", [self._q(game), self._who], [entry.key, game, entry_json(entry)]
        )
        if not added:
            raise AlreadyQueued(_text(value))
        return entry_of(value)

    async def find(self, key: str) -> tuple[str, QueueEntry] | None:
        try:
            game = await self.redis.hget(self._who, key)
            if game is None:
                return None
            raw = await self.redis.hget(self._q(_text(game)), key)
        except (RedisError, OSError) as exc:
            raise StoreUnavailable(f"Redis did not answer: {exc}") from None
        return None if raw is None else (_text(game), entry_of(raw))

    async def remove(self, key: str, game: str | None = None) -> str | None:
        result, held = await self._run("remove", [self._who], [key, self.base, game or ""])
        if result == -1:
            raise BeingSeated(key)
        return _text(held) if result == 1 else None

    async def waiting(self, game: str) -> Waiting:
        raw = await self._run("waiting", [self._q(game), self._c(game)], [])
        entries: list[QueueEntry] = []
        stale: dict[str, str] = {}
        for i in range(1, len(raw), 2):
            entry = entry_of(raw[i])
            entries.append(entry)
            table = _text(raw[i + 1])
            if table:
                stale[entry.key] = table
        return Waiting(int(raw[0]) / 1000, tuple(entries), stale)

    async def claim(self, game: str, keys: Sequence[str], table: str) -> bool:
        keys_ = [self._q(game), self._c(game)]
        ttl = int(CLAIM_TTL * 1000)
        return bool(await self._run("claim", keys_, [self.node, table, ttl, *keys]))

    async def release(self, game: str, keys: Sequence[str]) -> None:
        await self._run("release", [self._c(game)], [self.node, *keys])

    async def done(self, game: str, keys: Sequence[str]) -> None:
        keys_ = [self._q(game), self._c(game), self._who]
        await self._run("done", keys_, [self.node, *keys])

    async def lock(self, game: str, ttl: float) -> bool:
        key = f"{self.base}lock:{game}"
        return bool(await self._run("lock", [key], [self.node, max(1, int(ttl * 1000))]))
