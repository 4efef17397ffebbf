"""A finished game as the records store it (issue 54): its seats, result, log and seed.

The values only, apart from :mod:`server.persist.db.records` (which writes and
reads them): the rating store (:mod:`server.ratings.store`) rates a stored game
from them inside the records' write, without importing the records.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from engine.game import Contest
from server.persist.store import LoggedAction


class SeatKind(StrEnum):
    """Who played a stored seat."""

    HUMAN = "human"
    BOT = "bot"
    AI = "ai"


@dataclass(frozen=True)
class SeatRecord:
    """One seat of a finished game: ``account_id`` ``None`` for an anonymous player or the
    AI; ``left`` a human who left mid-game (the AI played on for them)."""

    seat: int
    kind: SeatKind
    name: str | None
    account_id: str | None
    level: str | None
    left: bool
    score: int
    won: bool


@dataclass(frozen=True)
class DuplicateResult:
    """A duplicate board's result that the game's write stores with it (issue 56): the
    player's account and score (:func:`server.duplicate.scoring.board_score`)."""

    set_id: str
    board: int
    account_id: str
    score: int


@dataclass(frozen=True)
class TeamResult:
    """A team match board's result at one of its tables, stored with the game's write
    (issue 56): every seat's score (:func:`server.duplicate.teams.board_net` compares the
    tables once all have played the board)."""

    match_id: str
    board: int
    table: int
    scores: tuple[int, ...]


@dataclass(frozen=True)
class GameRecord:
    """A finished game as stored: enough to list it and to replay it, seed included."""

    table_id: str
    game_no: int
    game: str
    private: bool
    options: dict[str, Any]
    seed: int
    log: tuple[LoggedAction, ...]
    seats: tuple[SeatRecord, ...]
    result: dict[str, Any]
    finished_at: float
    """Seconds since the epoch (UTC)."""
    rated: bool = False
    """The game was played at a rated table: storing it updates its players' ratings."""
    contests: tuple[Contest, ...] = ()
    """What the game rates (:meth:`engine.game.Game.contests`), for a rated game."""
    duplicate: DuplicateResult | None = None
    """The duplicate board's result the game's write stores (exactly once with it)."""
    team: TeamResult | None = None
    """A team match table's result of its board, stored likewise (exactly once)."""

    @property
    def game_id(self) -> str:
        """The stored game's id (:func:`game_id`)."""
        return game_id(self.table_id, self.game_no)


def game_id(table_id: str, game_no: int) -> str:
    """A finished game's id: its table's and its number, the same on every process that
    ever owns the table (``TABLE.N``; a table id never holds a dot)."""
    return f"{table_id}.{game_no}"
