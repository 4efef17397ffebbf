"""The values a table's core deals in: seats, AI turns, finished games, effects.

:class:`~server.table_core.TableCore` answers each command with
:class:`Effects` (messages to send, what to persist); the table actor
(:mod:`server.table`) persists, then sends them.

Compiled with the hot path (:data:`engine.compiled.HOT_PATH`), these
dataclasses are native classes: the core and the actor read their fields
directly, not by attribute lookups.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel

from protocol.codec import Frame
from protocol.models import SeatInfo
from server.store import LoggedAction

Out = tuple[str, BaseModel | Frame]
"""A message for one player (by player id)."""

ActedBy = Literal["human", "ai", "timer"]
Status = Literal["waiting", "playing", "finished"]


@dataclass
class SeatSlot:
    """One seat: empty, a human (by player id) or the AI at ``level``.

    ``left`` marks a seat whose human left mid-game: the AI plays it to the end.
    """

    kind: Literal["empty", "human", "ai"] = "empty"
    player_id: str | None = None
    name: str | None = None
    level: str | None = None
    connected: bool = True
    away_since: float | None = None
    left: bool = False

    def copy(self) -> SeatSlot:
        """A copy of this slot (its fields are immutable values)."""
        return SeatSlot(
            self.kind,
            self.player_id,
            self.name,
            self.level,
            self.connected,
            self.away_since,
            self.left,
        )


@dataclass(frozen=True)
class AiTurn:
    """A turn the AI must play now: ``seat`` at table ``version``, ``by`` AI or timer."""

    seat: int
    version: int
    by: ActedBy
    level: str


@dataclass(frozen=True)
class FinishedGame:
    """What a table keeps of a finished game to replay it: seed, log, seats, result."""

    game_no: int
    seed: int
    log: tuple[LoggedAction, ...]
    seats: tuple[SeatInfo, ...]
    result: dict[str, Any]


@dataclass
class Effects:
    """What a command did: messages to send and what to persist before sending them."""

    outs: list[Out] = field(default_factory=list)
    started: tuple[int, int] | None = None
    """``(game_no, seed)`` of a game that just started."""
    applied: LoggedAction | None = None
    """The action that was just applied (append it to the log)."""
    closed: bool = False
    """The table has no human left at it and should close."""
    close_reason: str | None = None
    """Why it closes, when not because everybody left."""
    answered: bool = False
    """The requester's own ``update`` answers its request (carries its ``ref``): no ``ok``."""
