"""Values shared by requests and replies: table options and table summaries."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from protocol.base import Model, Seat, TableId

PolicyName = Annotated[str, Field(min_length=1, max_length=32)]
Seconds = Annotated[float, Field(ge=0.0, le=3600.0)]


class AiSeat(Model):
    """A seat played by the AI from the start, at ``level`` (a policy name).

    ``level`` ``None`` is the strongest policy the game has.
    """

    seat: Seat
    level: PolicyName | None = None


class DuplicateBoardRef(Model):
    """The duplicate board a table plays (issue 56): board ``board`` of set ``set_id``.

    Only the server sets it (``play_duplicate``); a ``create_table`` naming it is refused.
    """

    set_id: Annotated[str, Field(min_length=1, max_length=40)]
    board: Annotated[int, Field(ge=1, le=64)]
    match_table: Annotated[int, Field(ge=0, le=7)] | None = None
    """A team match's table (issue 56): ``set_id`` is then the match's id, and every
    table of the match deals the board's same seed; ``None``: a set's board."""


class TableOptions(Model):
    """How a table is set up (``create_table``).

    * ``ai`` — seats played by the AI from the start, each with its level;
    * ``seat`` — the seat the creator takes (``None``: the creator only watches);
    * ``private`` — not listed in the lobby; joining needs the invite code;
    * ``turn_timer`` — seconds a human has per turn before the AI plays it;
    * ``ai_delay`` — seconds an AI seat waits before its move shows (pacing);
      ``None`` is the server's default;
    * ``fill_after`` — seconds after which the AI takes the seats still empty
      and play starts (``None``: wait for humans);
    * ``game`` — the game's own options as plain data (e.g. ``{"target": 11}``,
      a deal count, ``{"pattern": "piacentine"}``); the game validates them.
    * ``rated`` — the game changes its players' ratings: every seat is an
      account or an AI level (``easy``, ``normal``, ``hard``), the game's own
      options are the standard ones (a card pattern only), and nobody gets hints.
    """

    ai: tuple[AiSeat, ...] = ()
    seat: Seat | None = 0
    private: bool = False
    turn_timer: Annotated[float, Field(ge=1.0, le=3600.0)] | None = None
    ai_delay: Seconds | None = None
    fill_after: Seconds | None = None
    game: dict[str, Any] = Field(default_factory=dict)
    hints: bool = True
    """Whether clients offer ``hint`` (an AI's suggestion from the player's own view)."""
    rated: bool = False
    duplicate: DuplicateBoardRef | None = None
    """The duplicate board this table plays (:class:`DuplicateBoardRef`); ``None``: none."""


SeatKind = Literal["empty", "human", "ai"]
TableStatus = Literal["waiting", "playing", "finished"]


class SeatInfo(Model):
    """Who sits at a seat.

    ``kind`` is ``empty``, ``human`` or ``ai``; a human seat names its player;
    ``connected`` is false while the human is away; ``ai_covering`` is true
    while the AI plays that human's turns (after a disconnect or a leave).
    """

    seat: Seat
    kind: SeatKind
    player_id: str | None = None
    name: str | None = None
    level: PolicyName | None = None
    connected: bool = True
    ai_covering: bool = False
    bot: bool = False
    """The human seat's player is a bot account: clients show it as a bot."""


class TableInfo(Model):
    """A table as the lobby shows it."""

    id: TableId
    game: str
    title: str
    status: TableStatus
    seats: tuple[SeatInfo, ...]
    spectators: int
    private: bool
    quick: bool
    owner: str | None
    game_no: int
    version: int
    turn_timer: float | None
    ai_delay: float
    options: dict[str, Any]
    rematch_votes: tuple[Seat, ...] = ()
    hints: bool = True
    rated: bool = False
    """Its games change the players' ratings (the lobby says so)."""
