"""A finished game as the records store it (issue 54): its seats, result, log and seed.

The values only, apart from :mod:`server.persist.db.records` (which writes and
reads them): the rating store (:mod:`server.ratings.store`) rates a stored game
from them inside the records' write, without importing the records.
"""

from __future__ import annotations

from dataclasses import astuple, dataclass
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


def record_to_plain(record: GameRecord) -> dict[str, Any]:
    """``record`` as plain data (msgpack- and JSON-able): kept in Redis with the finished
    game until its write is done (:meth:`server.persist.redis_store.RedisStore.archive`),
    so that another process writes it if this one dies first."""
    return {
        "table_id": record.table_id,
        "game_no": record.game_no,
        "game": record.game,
        "private": record.private,
        "options": record.options,
        "seed": record.seed,
        "log": [[a.seat, a.action, a.by] for a in record.log],
        "seats": [
            [s.seat, s.kind.value, s.name, s.account_id, s.level, s.left, s.score, s.won]
            for s in record.seats
        ],
        "result": record.result,
        "finished_at": record.finished_at,
        "rated": record.rated,
        "contests": [
            [[sorted(side) for side in c.sides], list(c.ranks), c.deal, list(c.roles)]
            for c in record.contests
        ],
        "duplicate": None if record.duplicate is None else astuple(record.duplicate),
        "team": None
        if record.team is None
        else [record.team.match_id, record.team.board, record.team.table, list(record.team.scores)],
    }


def record_from_plain(data: dict[str, Any]) -> GameRecord:
    """The inverse of :func:`record_to_plain`."""
    dup, team = data["duplicate"], data["team"]
    return GameRecord(
        table_id=data["table_id"],
        game_no=int(data["game_no"]),
        game=data["game"],
        private=bool(data["private"]),
        options=dict(data["options"]),
        seed=int(data["seed"]),
        log=tuple(LoggedAction(seat, action, by) for seat, action, by in data["log"]),
        seats=tuple(
            SeatRecord(seat, SeatKind(kind), name, account, level, left, score, won)
            for seat, kind, name, account, level, left, score, won in data["seats"]
        ),
        result=dict(data["result"]),
        finished_at=float(data["finished_at"]),
        rated=bool(data["rated"]),
        contests=tuple(
            Contest(tuple(frozenset(side) for side in sides), tuple(ranks), deal, tuple(roles))
            for sides, ranks, deal, roles in data["contests"]
        ),
        duplicate=None if dup is None else DuplicateResult(*dup),
        team=None if team is None else TeamResult(team[0], team[1], team[2], tuple(team[3])),
    )
