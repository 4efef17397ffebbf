"""Failed-login backoffs in Redis, shared by every process on it (issue 54).

Kept in one process's memory, the backoff of a name or an address restarts on
each process: a guesser behind a balancer gets a fresh budget per process.
Here each key (a name's skeleton, a client address) has two Redis keys:

    <prefix>:lb:n:<kind>:<value>   the failures in a row (INCR), kept ``cap``
                                   seconds past the wait, as the memory throttle
                                   forgets a quiet key
    <prefix>:lb:w:<kind>:<value>   present while the key waits; its PTTL is the wait

A failure is one script (atomic: two processes' failures at once both count);
the wait is the longest PTTL, so no clocks are compared between processes.
"""

from __future__ import annotations

from collections.abc import Sequence

from redis import asyncio as aioredis
from redis.exceptions import RedisError

from server.persist.store import StoreUnavailable
from server.players.accounts import ThrottleKey

_FAILED = """
local base, cap = tonumber(ARGV[1]), tonumber(ARGV[2])
for i = 1, #KEYS, 2 do
  local failures = redis.call('INCR', KEYS[i])
  local delay = math.min(cap, base * 2 ^ math.min(failures - 1, 62))
  local ms = math.max(1, math.floor(delay * 1000))
  redis.call('SET', KEYS[i + 1], '1', 'PX', ms)
  redis.call('PEXPIRE', KEYS[i], ms + math.floor(cap * 1000))
end
return 1
"""


class RedisBackoffs:
    """:class:`~server.players.accounts.Backoffs` in Redis: the same doubling backoff as
    :func:`~server.players.accounts.after_failure`, counted once for all processes.
    ``now`` is not used: Redis's own expiry is the clock every process shares."""

    def __init__(self, redis: aioredis.Redis, prefix: str, base: float, cap: float) -> None:
        self.redis = redis
        self.prefix = prefix
        self.base = base
        self.cap = cap
        self._failed = redis.register_script(_FAILED)

    def _keys(self, key: ThrottleKey) -> tuple[str, str]:
        tail = f"{key.kind}:{key.value}"
        return f"{self.prefix}:lb:n:{tail}", f"{self.prefix}:lb:w:{tail}"

    async def wait(self, keys: Sequence[ThrottleKey], now: float) -> float:
        try:
            async with self.redis.pipeline(transaction=False) as pipe:
                for key in keys:
                    pipe.pttl(self._keys(key)[1])
                left: list[int] = await pipe.execute()
        except RedisError as exc:
            raise StoreUnavailable(f"login backoffs: {exc}") from exc
        return max([0.0, *(ms / 1000 for ms in left if ms > 0)])

    async def failed(self, keys: Sequence[ThrottleKey], now: float) -> None:
        names = [name for key in keys for name in self._keys(key)]
        try:
            await self._failed(keys=names, args=[self.base, self.cap])
        except RedisError as exc:
            raise StoreUnavailable(f"login backoffs: {exc}") from exc

    async def succeeded(self, key: ThrottleKey) -> None:
        try:
            await self.redis.delete(*self._keys(key))
        except RedisError as exc:
            raise StoreUnavailable(f"login backoffs: {exc}") from exc
