"""Table ownership across processes sharing one Redis: leases, renewal, takeover.

Every process runs a :class:`Cluster` next to its lobby:

* it renews the leases of the tables it drives every ``lease_ttl / 3``
  seconds; a table whose fence moved on (another process took it while this
  one was paused or cut off) is dropped here at once, its people sent to
  reconnect;
* every ``takeover_interval`` seconds it looks for tables nobody holds a
  lease on (their owner died, or stopped and released them), takes them
  (bumping the fence, so the old owner can never write again) and rebuilds
  them from their record;
* at start it does the same scan first, so a restarted service finds its
  tables; at a graceful stop it releases its leases so another process (or
  the restarted one) takes the tables without waiting for the lease to expire.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable

from server.lobby import Lobby
from server.ops.logs import get_logger
from server.persist.redis_store import RedisStore
from server.persist.store import StoreUnavailable
from server.players.sessions import Player
from server.tables.commands import Forget

RESTORES_AT_ONCE = 32
"""Tables a takeover scan rebuilds concurrently (:meth:`Cluster.scan`)."""
HOLD_TTLS = 2.0
"""Lease TTLs a process takes no other's table for once Redis is back after an outage.

Every live owner renews at its first pass that reaches Redis (every third of
a TTL), but that pass may come late: its loop busy with the tables' own
retries, its connection to Redis made anew.  One TTL left that to chance
(in one full test run on a loaded machine, one process took all of the other's);
two give each owner about six passes, and delay only the takeover of a
process that died during the outage, by one TTL."""


STAND_IN_KEEP = 30.0
"""Seconds a stand-in that no table here needs is kept after its last request: a request
of theirs may still wait in a table's queue (a join not applied yet), and a table
delivers to the session it finds by id, so one forgotten meanwhile would take the seat
and never hear of the table again (the stalled arena tables of issue 56)."""


class Cluster:
    """Lease renewal and takeover scans for one process (see the module docstring)."""

    def __init__(self, store: RedisStore, lobby: Lobby, takeover_interval: float) -> None:
        self.store = store
        self.lobby = lobby
        self.takeover_interval = takeover_interval
        self._tasks: list[asyncio.Task[None]] = []
        self._restoring: set[str] = set()
        self._absent: dict[str, float] = {}
        self._cut_off = False
        """Whether the last pass found Redis unreachable."""
        self._hold_until = 0.0
        """No takeover before this time (event-loop clock): see :meth:`_every`."""
        self._log = get_logger(component="cluster", node=store.node)

    async def start(self) -> None:
        """Take the tables nobody holds, then keep leases and scans going."""
        await self.scan()
        self._tasks = [
            asyncio.create_task(self._every(self.store.lease_ttl / 3, self.renew), name="renew"),
            asyncio.create_task(self._every(self.takeover_interval, self.scan), name="scan"),
        ]

    async def stop(self) -> None:
        """Stop the loops and release every lease (the lobby's actors have stopped)."""
        for task in self._tasks:
            task.cancel()
        if self._tasks:  # bounded: a Redis call that ignores the cancellation must not hang it
            await asyncio.wait(self._tasks, timeout=3.0)
        for table_id in self.store.owned():
            try:
                await self.store.release(table_id)
            except StoreUnavailable:
                break  # the leases expire by themselves
        self._log.info("leases_released")

    async def _every(self, period: float, job: Callable[[], Awaitable[None]]) -> None:
        """Run ``job`` every ``period`` seconds (jittered).

        After Redis was unreachable, every process's leases may have expired
        meanwhile, though every process lives: the first pass that reaches Redis
        again renews this process's leases at once and holds its takeovers off
        for :data:`HOLD_TTLS` lease TTLs, so that each owner keeps its tables
        instead of the processes taking each other's (a 4 s Redis restart under
        300 tables on two processes had moved about 150 of them).
        """
        while True:
            await asyncio.sleep(period * random.uniform(0.9, 1.1))
            try:
                if self._cut_off:  # this pass is the renewal; the next one runs ``job``
                    await self.renew()
                    self._cut_off = False
                    hold = HOLD_TTLS * self.store.lease_ttl
                    self._hold_until = self._now() + hold
                    self._log.info("store_back", hold_takeovers_s=hold)
                    continue
                await job()
            except StoreUnavailable as exc:
                self._cut_off = True
                self._log.warning("store_unavailable", error=str(exc))
            except Exception as exc:  # keep the loop alive whatever one pass did
                self._log.exception("cluster_pass_failed", error=repr(exc))

    @staticmethod
    def _now() -> float:
        return asyncio.get_running_loop().time()

    async def renew(self) -> None:
        """Renew this process's leases; drop the tables it lost; release closed ones."""
        for table_id in await self.store.renew():
            self._log.warning("lease_lost", table=table_id)
            self.lobby.lost(table_id)
        for table_id in self.store.owned():
            if table_id not in self.lobby.tables and table_id not in self._restoring:
                await self.store.release(table_id)

    async def scan(self) -> None:
        """Take over and rebuild every table whose lease has expired, up to
        :data:`RESTORES_AT_ONCE` at a time (each waits on Redis several times: one
        after the other, the 600 tables of a dead process took 16 s to come back)."""
        if self._now() < self._hold_until:
            return  # Redis is just back: the owners renew first (_every)
        orphans = [t for t in await self.store.orphans() if t not in self.lobby.tables]
        gate = asyncio.Semaphore(RESTORES_AT_ONCE)

        async def take(table_id: str) -> None:
            async with gate:
                await self._take(table_id)

        results = await asyncio.gather(*(take(t) for t in orphans), return_exceptions=True)
        for result in results:
            if isinstance(result, BaseException):
                raise result  # StoreUnavailable: _take logs everything else itself

    async def take(self, table_id: str) -> None:
        """Take one table whose lease has expired over now, without waiting for the next
        scan: a front holding requests for it (:meth:`server.cluster.bus.Bus.forward`)
        saw the lease gone.  Raises :class:`StoreUnavailable`."""
        if self._now() >= self._hold_until:  # Redis just back: the owners renew first
            await self._take(table_id)

    async def _take(self, table_id: str) -> None:
        """Take one table over and rebuild it, if nobody took it meanwhile."""
        if table_id in self.lobby.tables or not await self.store.acquire(table_id):
            return
        self._restoring.add(table_id)
        try:
            await self.lobby.restore(table_id)
        except StoreUnavailable:
            self.store.forget(table_id)
            raise
        except Exception as exc:  # a record that does not rebuild: leave it, say so
            self._log.exception("restore_failed", table=table_id, error=repr(exc))
            self.store.forget(table_id)
            return
        finally:
            self._restoring.discard(table_id)
        self._log.info("table_taken_over", table=table_id)

    async def sweep_absent(self, ttl: float) -> None:
        """Members of this process's tables connected nowhere for ``ttl`` seconds leave them.

        A player whose process died leaves no session that could expire (that
        process's sweeper is gone); the owner of the table notices instead.
        """
        now = self.lobby.clock()
        everyone = {pid for actor in self.lobby.tables.values() for pid in actor.core.members()}
        for player in list(self.lobby.sessions):  # stand-ins no table here needs any more
            if (
                player.is_stand_in
                and player.player_id not in everyone
                and (player.relayed_at is None or now - player.relayed_at >= STAND_IN_KEEP)
            ):
                self.lobby.sessions.forget(player)
        members = {pid for pid in everyone if not self._here(pid)}
        connected = await self.store.where(sorted(members))
        absent = members - set(connected)
        self._absent = {pid: self._absent.get(pid, now) for pid in absent}
        for pid, since in self._absent.items():
            if now - since < ttl:
                continue
            for actor in list(self.lobby.tables.values()):
                if actor.core.is_member(pid):
                    actor.submit(Forget(Player(player_id=pid, name="", token="")))
            self._log.info("absent_member_forgotten", player=pid)

    def _here(self, player_id: str) -> bool:
        """Whether the player has a real session on this process (its sweeper covers it)."""
        player = self.lobby.sessions.get(player_id)
        return player is not None and bool(player.token)
