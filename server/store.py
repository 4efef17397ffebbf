"""Where tables are recorded: a table's durable record is options + seed + action log.

The in-memory :class:`MemoryStore` is the default (nothing to install).  A
Redis store (a later issue) implements the same :class:`Store` protocol; the
table actor writes each action before it sends the updates, so a table can
be rebuilt from its record by replaying the log (:func:`server.replay.rebuild`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Protocol


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
    data (the game options inside it); ``seed`` the current game's secret seed.
    """

    table_id: str
    game: str
    options: dict[str, Any]
    game_no: int = 0
    seed: int | None = None
    actions: tuple[LoggedAction, ...] = field(default=())


class Store(Protocol):
    """The persistence a table needs; every method may do I/O."""

    async def create(self, record: TableRecord) -> None:
        """Record a new table (no game started yet)."""

    async def start_game(self, table_id: str, game_no: int, seed: int) -> None:
        """A new game of the table starts from ``seed`` with an empty log."""

    async def append(self, table_id: str, action: LoggedAction) -> None:
        """Append an applied action to the current game's log."""

    async def load(self, table_id: str) -> TableRecord | None:
        """The table's record, or ``None``."""

    async def delete(self, table_id: str) -> None:
        """Forget the table."""

    async def table_ids(self) -> list[str]:
        """Every recorded table."""

    async def ping(self) -> bool:
        """Whether the store is reachable and healthy; cheap (``/readyz`` calls it)."""


class MemoryStore:
    """The default store: records in a dict, gone when the process ends."""

    def __init__(self) -> None:
        self._records: dict[str, TableRecord] = {}
        self._logs: dict[str, list[LoggedAction]] = {}

    async def create(self, record: TableRecord) -> None:
        """Record a new table."""
        self._records[record.table_id] = replace(record, actions=())
        self._logs[record.table_id] = list(record.actions)

    async def start_game(self, table_id: str, game_no: int, seed: int) -> None:
        """Reset the log for a new game."""
        rec = self._records[table_id]
        self._records[table_id] = replace(rec, game_no=game_no, seed=seed)
        self._logs[table_id] = []

    async def append(self, table_id: str, action: LoggedAction) -> None:
        """Append one action."""
        self._logs[table_id].append(action)

    async def load(self, table_id: str) -> TableRecord | None:
        """The record, if any."""
        rec = self._records.get(table_id)
        if rec is None:
            return None
        return replace(rec, actions=tuple(self._logs[table_id]))

    async def delete(self, table_id: str) -> None:
        """Drop the record."""
        self._records.pop(table_id, None)
        self._logs.pop(table_id, None)

    async def table_ids(self) -> list[str]:
        """Every recorded table id."""
        return list(self._records)

    async def ping(self) -> bool:
        """Always healthy: the records are in this process."""
        return True


def make_store(kind: str) -> Store:
    """The store named by the configuration."""
    if kind == "memory":
        return MemoryStore()
    raise ValueError(f"unknown store {kind!r}")
