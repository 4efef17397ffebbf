"""Sessions in Redis, so a resume token works after a restart or on another process.

Only what a resume needs is kept: the player id and name (and the account the
session is logged in to, if any: a resume on another process stays logged in), under the SHA-256
of the token (the token itself is never stored), with an expiry of
``session_ttl`` refreshed while the player is connected.  Which tables the
player is at is not kept here: the tables' own records say who sits and
watches there.  A rotated token replaces the previous one atomically.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from typing import NamedTuple

from redis import asyncio as aioredis
from redis.exceptions import RedisError

from server.ops.logs import get_logger
from server.persist.redis_store import chunks
from server.persist.store import StoreUnavailable
from server.players.accounts import Account
from server.players.sessions import Player

_SAVE = """
local old = redis.call('GET', KEYS[2])
if old and old ~= ARGV[1] then redis.call('DEL', ARGV[4] .. old) end
redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3])
redis.call('SET', KEYS[2], ARGV[1], 'EX', ARGV[3])
return 1
"""

_TOUCH = """
for i = 1, #KEYS do redis.call('EXPIRE', KEYS[i], ARGV[1]) end
return #KEYS
"""


class StoredSession(NamedTuple):
    """A session as Redis keeps it."""

    player_id: str
    name: str
    account: Account | None = None


def token_digest(token: str) -> str:
    """The hex SHA-256 of a token: what Redis keys are named by."""
    return hashlib.sha256(token.encode()).hexdigest()


class SessionStore:
    """Save and find sessions in Redis (see the module docstring)."""

    def __init__(self, redis: aioredis.Redis, prefix: str, ttl: float) -> None:
        self.redis = redis
        self.prefix = prefix
        self.ttl = max(1, int(ttl))
        self._save = redis.register_script(_SAVE)
        self._touch = redis.register_script(_TOUCH)
        self._log = get_logger(component="session_store")

    def _token_key(self, digest: str) -> str:
        return f"{self.prefix}:s:{digest}"

    def _player_key(self, player_id: str) -> str:
        return f"{self.prefix}:sp:{player_id}"

    async def save(self, player: Player) -> None:
        """Record (or refresh) the player's session under its current token."""
        digest = token_digest(player.token)
        record: dict[str, object] = {"player_id": player.player_id, "name": player.name}
        if player.account is not None:
            account = player.account
            record["account"] = [account.account_id, account.name, account.bot]
        value = json.dumps(record)
        keys = [self._token_key(digest), self._player_key(player.player_id)]
        try:
            await self._save(keys=keys, args=[digest, value, self.ttl, self._token_key("")])
        except (RedisError, OSError) as exc:
            self._log.warning("session_not_saved", player=player.player_id, error=repr(exc))

    async def touch(self, players: Iterable[Player]) -> None:
        """Refresh the expiry of connected players' sessions, in calls of
        :data:`~server.persist.redis_store.CHUNK` keys (one pipeline of two commands per
        player for every connected player held the event loop too long:
        docs/performance.md)."""
        keys: list[str] = []
        for player in players:
            keys.append(self._token_key(token_digest(player.token)))
            keys.append(self._player_key(player.player_id))
        try:
            for part in chunks(keys):
                await self._touch(keys=list(part), args=[self.ttl])
        except (RedisError, OSError) as exc:
            self._log.warning("sessions_not_refreshed", error=repr(exc))

    async def load(self, token: str) -> StoredSession | None:
        """The session holding ``token``, or ``None``."""
        try:
            raw = await self.redis.get(self._token_key(token_digest(token)))
        except (RedisError, OSError) as exc:
            raise StoreUnavailable(f"Redis did not answer: {exc}") from None
        if raw is None:
            return None
        data = json.loads(raw)
        held = data.get("account")  # absent: anonymous, or saved before accounts
        account = None if not held else Account(str(held[0]), str(held[1]), bool(held[2]))
        return StoredSession(str(data["player_id"]), str(data["name"]), account)

    async def forget(self, player: Player) -> None:
        """Drop an expired session."""
        try:
            await self.redis.delete(
                self._token_key(token_digest(player.token)), self._player_key(player.player_id)
            )
        except (RedisError, OSError) as exc:
            self._log.warning("session_not_forgotten", player=player.player_id, error=repr(exc))
