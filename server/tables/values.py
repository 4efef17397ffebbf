"""The values a table's core deals in: seats, AI turns, finished games, effects.

:class:`~server.tables.core.TableCore` answers each command with
:class:`Effects` (messages to send, what to persist); the table actor
(:mod:`server.tables.actor`) persists, then sends them.

Compiled with the hot path (:data:`compiled.modules.HOT_PATH`), these are
native classes: the core and the actor read their fields directly, not by
attribute lookups.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel

from protocol.codec import Frame
from protocol.models import SeatInfo
from server.persist.store import LoggedAction

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
    bot: bool = False
    """The human seat's player is a bot account (shown as a bot wherever its name is)."""
    account: str | None = None
    """The human seat's account id (``None``: anonymous); kept when the AI takes over a
    seat left mid-game, so the game is recorded as the account's (game records)."""

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
            self.bot,
            self.account,
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


class Effects:
    """What a command did: messages to send and what to persist before sending them.

    Not a dataclass: every command makes one, and compiled (:data:`compiled.modules.HOT_PATH`)
    a dataclass's ``__init__`` is the interpreted one :mod:`dataclasses` writes.
    """

    __slots__ = ("answered", "applied", "close_reason", "closed", "outs", "started")

    def __init__(
        self,
        outs: list[Out] | None = None,
        started: tuple[int, int] | None = None,
        applied: LoggedAction | None = None,
        closed: bool = False,
        close_reason: str | None = None,
        answered: bool = False,
    ) -> None:
        self.outs: list[Out] = [] if outs is None else outs
        self.started = started
        """``(game_no, seed)`` of a game that just started."""
        self.applied = applied
        """The action that was just applied (append it to the log)."""
        self.closed = closed
        """The table has no human left at it and should close."""
        self.close_reason = close_reason
        """Why it closes, when not because everybody left."""
        self.answered = answered
        """The requester's own ``update`` answers its request (carries its ``ref``): no ``ok``."""

    def __repr__(self) -> str:
        return (
            f"Effects(outs={self.outs!r}, started={self.started!r}, applied={self.applied!r}, "
            f"closed={self.closed!r}, close_reason={self.close_reason!r}, "
            f"answered={self.answered!r})"
        )
