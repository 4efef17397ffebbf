"""Where tables are recorded: a table's durable record is options + seed + action log.

The in-memory :class:`MemoryStore` is the default (nothing to install);
:class:`server.persist.redis_store.RedisStore` keeps the same record in Redis so a
table survives a restart or the death of its process.  The table actor
writes each action before it sends the updates, so a table can be rebuilt
from its record by replaying the log (:func:`server.tables.replay.restore_core`).

Besides the log, a record holds ``meta``: what the game does not know but a
rebuilt table needs (seats and AI seats, spectators, owner, invite, quick,
fill level, turn timer start), written when it changes.  Writes that fail
raise :class:`StoreUnavailable` (nothing was applied, the request is refused
with ``store_unavailable``) or :class:`LeaseLost` (another process owns the
table now: this process must stop driving it).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from engine.frozen import fast_init


class StoreUnavailable(Exception):
    """The store could not be reached or did not answer: nothing was written."""


class LeaseLost(Exception):
    """This process no longer owns the table (fenced): it must stop driving it."""


@fast_init
@dataclass(frozen=True, slots=True)
class LoggedAction:
    """One applied action: the seat, the action as plain data, who chose it."""

    seat: int
    action: Any
    by: str = "human"


@dataclass(frozen=True, slots=True)
class TableRecord:
    """Everything needed to rebuild a table's current game.

    ``options`` is the table's :class:`~protocol.models.TableOptions` as plain
    data (the game options inside it); ``seed`` the current game's secret seed;
    ``version`` the table version right after the current game started;
    ``meta`` the seating (see the module docstring); ``replays`` the finished
    games still kept (plain data, see :func:`server.tables.replay.finished_to_plain`).
    """

    table_id: str
    game: str
    options: dict[str, Any]
    game_no: int = 0
    seed: int | None = None
    actions: tuple[LoggedAction, ...] = field(default=())
    version: int = 0
    meta: dict[str, Any] = field(default_factory=dict)
    replays: tuple[dict[str, Any], ...] = field(default=())


class Store(Protocol):
    """The persistence a table needs; every method may do I/O."""

    may_fail: bool
    """Whether a write may raise :class:`StoreUnavailable` (then the table actor snapshots
    its core before each command, to roll the command back)."""

    completes_at_once: bool
    """Whether every method returns without waiting (its coroutine ends at its first
    step): a table then handles a move in the turn of the loop that brought it
    (:meth:`server.tables.actor.TableActor.submit`)."""

    lists_tables: bool
    """Whether the store keeps each table's lobby summary (``save_meta``'s ``summary``)
    for every process to list; a store that does not is given none."""

    async def create(self, record: TableRecord) -> None:
        """Record a new table (no game started yet)."""

    async def start_game(self, table_id: str, game_no: int, seed: int, version: int = 0) -> None:
        """A new game of the table starts from ``seed`` with an empty log."""

    async def append(self, table_id: str, action: LoggedAction, turn_at: float = 0.0) -> None:
        """Append an applied action to the current game's log (``turn_at``: wall time)."""

    async def save_meta(self, table_id: str, meta: dict[str, Any]) -> None:
        """Replace the table's seating record."""

    async def archive(self, table_id: str, game_no: int, finished: dict[str, Any]) -> None:
        """Keep a finished game for its replay; its game record (``finished["record"]``,
        when the server stores records) until that is written, in a store that outlives
        the process (:meth:`server.persist.redis_store.RedisStore.unwritten_records`)."""

    async def load(self, table_id: str) -> TableRecord | None:
        """The table's record, or ``None``."""

    async def exists(self, table_id: str) -> bool:
        """Whether the table is recorded (a cheaper :meth:`load` ``is not None``)."""

    async def delete(self, table_id: str) -> None:
        """Forget the table."""

    async def table_ids(self) -> list[str]:
        """Every recorded table."""

    async def ping(self) -> bool:
        """Whether the store is reachable and healthy; cheap (``/readyz`` calls it)."""


class MemoryStore:
    """The default store: records in a dict, gone when the process ends.

    What changes during a table's life (the current game, the seating) is kept
    beside the record made at its creation, and the record put together only
    when loaded: seating is saved at every change (each rematch vote, say), and
    :func:`dataclasses.replace` on every save cost more than the save itself.
    """

    may_fail = False
    completes_at_once = True
    lists_tables = False  # one process: its lobby lists its own tables

    def __init__(self) -> None:
        self._records: dict[str, TableRecord] = {}
        """Each table's record as created (the fields below override it)."""
        self._games: dict[str, tuple[int, int | None, int]] = {}
        """Each table's current ``(game_no, seed, version)``."""
        self._metas: dict[str, dict[str, Any]] = {}
        self._logs: dict[str, list[LoggedAction]] = {}
        self._replays: dict[str, list[dict[str, Any]]] = {}

    async def create(self, record: TableRecord) -> None:
        """Record a new table."""
        table_id = record.table_id
        self._records[table_id] = replace(record, actions=())  # the log is kept below
        self._games[table_id] = (record.game_no, record.seed, record.version)
        self._metas[table_id] = record.meta
        self._logs[table_id] = list(record.actions)
        self._replays[table_id] = []

    async def start_game(self, table_id: str, game_no: int, seed: int, version: int = 0) -> None:
        """Reset the log for a new game."""
        if table_id not in self._records:
            raise KeyError(table_id)
        self._games[table_id] = (game_no, seed, version)
        self._logs[table_id] = []

    async def append(self, table_id: str, action: LoggedAction, turn_at: float = 0.0) -> None:
        """Append one action."""
        self._logs[table_id].append(action)

    async def save_meta(self, table_id: str, meta: dict[str, Any]) -> None:
        """Replace the seating record."""
        if table_id in self._records:
            self._metas[table_id] = dict(meta)

    async def archive(self, table_id: str, game_no: int, finished: dict[str, Any]) -> None:
        """Keep a finished game (only while the table lives: memory is not kept); the
        game record it may carry is the process's record writer's alone."""
        if table_id in self._replays:
            self._replays[table_id].append({k: v for k, v in finished.items() if k != "record"})

    async def exists(self, table_id: str) -> bool:
        """Whether the table is recorded."""
        return table_id in self._records

    async def load(self, table_id: str) -> TableRecord | None:
        """The record, if any."""
        rec = self._records.get(table_id)
        if rec is None:
            return None
        game_no, seed, version = self._games[table_id]
        return replace(
            rec,
            game_no=game_no,
            seed=seed,
            version=version,
            meta=self._metas[table_id],
            actions=tuple(self._logs[table_id]),
            replays=tuple(self._replays.get(table_id, ())),
        )

    async def delete(self, table_id: str) -> None:
        """Drop the record."""
        for kept in (self._records, self._games, self._metas, self._logs, self._replays):
            kept.pop(table_id, None)

    async def table_ids(self) -> list[str]:
        """Every recorded table id."""
        return list(self._records)

    async def ping(self) -> bool:
        """Always healthy: the records are in this process."""
        return True


def make_store(kind: str) -> Store:
    """The in-process store named by the configuration (Redis: :func:`server.app` builds it)."""
    if kind == "memory":
        return MemoryStore()
    raise ValueError(f"unknown store {kind!r}")
