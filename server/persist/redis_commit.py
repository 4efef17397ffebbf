"""Group commit for the Redis commands on every move's path: one held connection,
one write per batch.

Every move is appended to its table's log in Redis before its updates go out
(:meth:`server.persist.redis_store.RedisStore.append`), and a request for a table
another process owns first looks its owner up
(:meth:`~server.persist.redis_store.RedisStore.owner_of`).  :class:`CommitLane` sends
such commands for all tables: those that arrive while a batch is on its way
wait and go together in the next one, as one write of the commands (packed
by hiredis, in C), their replies read in order on a connection the lane
keeps.  redis-py's pipeline takes a connection from the pool for each batch
and packs and wraps every command in Python, which cost an append much more
CPU than it takes this way (docs/performance.md, The server process).  The cluster
bus publishes through a lane of its own (:meth:`CommitLane.send`).

Failures: a connection that fails (Redis restarted, cut off, a timeout) is
dropped and the batch is sent once more on a fresh one; re-sending is safe
for these commands (the append script recognises an append it already
applied; a lookup only reads).  Redis that lost its script cache gets the
script again, once.  Anything else fails the batch's commands with
:class:`~server.persist.store.StoreUnavailable`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import hiredis
from redis import asyncio as aioredis
from redis.asyncio.connection import AbstractConnection
from redis.commands.core import AsyncScript
from redis.exceptions import NoScriptError, RedisError, ResponseError

from server.persist.store import StoreUnavailable

Pending = tuple[Sequence[Any], "asyncio.Future[Any]"]


class CommitLane:
    """Sends Redis commands in batches on one connection it holds.

    :meth:`call` sends one command for one of many callers, batched as the
    module docstring says; :meth:`send` writes a batch of commands at once
    (the cluster bus's publishes).  ``script``, if given, is loaded again when
    Redis answers that it does not know it (then the batch is sent again:
    only for commands that may be repeated, as the append script may).
    ``redis`` lends the lane one connection of its pool, held until :meth:`close`.
    """

    def __init__(self, redis: aioredis.Redis, script: AsyncScript | None = None) -> None:
        self._redis = redis
        self._script = script
        self._queue: list[Pending] = []
        self._task: asyncio.Task[None] | None = None
        self._conn: AbstractConnection | None = None
        self._sending = asyncio.Lock()
        self._closed = False

    async def call(self, command: Sequence[Any]) -> Any:
        """The reply to ``command`` (e.g. ``("EVALSHA", sha, 2, key, key, arg)``),
        sent in the next batch.

        Raises :class:`StoreUnavailable` when Redis could not run it.
        """
        if self._closed:
            raise StoreUnavailable("the store is closed")
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()
        self._queue.append((command, future))
        if self._task is None:  # the lane is idle: what comes in this turn goes together
            self._task = loop.create_task(self._drain())
        return await future

    async def close(self) -> None:
        """Fail what is still waiting and give the connection back to the pool."""
        self._closed = True
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        _fail(self._queue, StoreUnavailable("the store is closing"))
        self._queue = []
        await self._drop()  # disconnected first: no reply of a cut batch can reach another user

    async def _drain(self) -> None:
        """Send batches until nobody waits (what arrives meanwhile makes the next one)."""
        try:
            while self._queue:
                batch, self._queue = self._queue, []
                try:
                    results = await self.send([command for command, _ in batch])
                except StoreUnavailable as exc:
                    _fail(batch, exc)
                    continue
                except BaseException:  # cancelled (closing) or a bug: nobody waits forever
                    _fail(batch, StoreUnavailable("the command was interrupted"))
                    raise
                for (_, future), result in zip(batch, results, strict=True):
                    if future.done():
                        continue
                    if isinstance(result, Exception):
                        error = StoreUnavailable(f"Redis refused the command: {result}")
                        future.set_exception(error)
                    else:
                        future.set_result(result)
        finally:
            if self._task is asyncio.current_task():
                self._task = None

    async def send(self, commands: Sequence[Sequence[Any]]) -> list[Any]:
        """Each command's reply (an error reply as its exception), in order; the
        commands are written at once.  Raises :class:`StoreUnavailable`."""
        if self._closed:
            raise StoreUnavailable("the store is closed")
        packed = b"".join(hiredis.pack_command(tuple(command)) for command in commands)
        async with self._sending:
            for attempt in (1, 2):
                try:
                    conn = await self._connection()
                    await conn.send_packed_command(packed)
                    results = [await _reply(conn) for _ in commands]
                except (RedisError, OSError) as exc:
                    await self._drop()
                    if attempt == 2:
                        raise StoreUnavailable(f"Redis did not answer: {exc}") from None
                    continue  # a connection that died with a Redis restart: once more, anew
                script = self._script
                if attempt == 1 and script and any(isinstance(r, NoScriptError) for r in results):
                    try:  # Redis restarted with an empty script cache: load it, once
                        await conn.send_command("SCRIPT", "LOAD", script.script)
                        await conn.read_response()
                    except (RedisError, OSError) as exc:
                        await self._drop()
                        raise StoreUnavailable(f"Redis did not answer: {exc}") from None
                    continue
                return results
        raise AssertionError("unreachable")  # pragma: no cover

    async def _connection(self) -> AbstractConnection:
        if self._conn is None:
            pool = self._redis.connection_pool
            self._conn = await pool.get_connection()  # type: ignore[no-untyped-call]
        return self._conn

    async def _drop(self) -> None:
        """Forget the lane's connection (disconnected: its replies cannot be trusted)."""
        conn, self._conn = self._conn, None
        if conn is not None:
            await conn.disconnect(nowait=True)
            await self._redis.connection_pool.release(conn)


async def _reply(conn: AbstractConnection) -> Any:
    """The next reply on ``conn``; an error reply is returned, not raised."""
    try:
        return await conn.read_response()
    except ResponseError as exc:
        return exc


def _fail(batch: list[Pending], error: BaseException) -> None:
    for _, future in batch:
        if not future.done():
            future.set_exception(error)
