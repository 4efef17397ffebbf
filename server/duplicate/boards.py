"""Duplicate sets and their boards: who plays what, from which seed, until when.

A *set* is ``boards`` seeded boards of one game, each one deal (:data:`BOARD_OPTIONS`
makes a game's table play exactly one), played against one AI level with the player
always in ``seat``.  A board's seed is an HMAC of the set's id and the board's number
under the server's secret: nobody outside the server can predict a daily set's deals,
and every process of a cluster derives the same ones without storing them.  The seeds
are shown only once the set has closed (:meth:`BoardSet.seeds_shown`).

The AI seats decide with a generator of their own per board and seat
(:func:`ai_rng`), not the table's shared one, so that every player of a board meets
the same AI answers to the same moves and results compare (docs/duplicate.md).
"""

from __future__ import annotations

import enum
import hashlib
import hmac
import random
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from types import MappingProxyType
from typing import Any

from engine.registry import get_game
from engine.rng import derive_rng, new_seed
from protocol.errors import ErrorCode
from server.duplicate.errors import DuplicateError, set_closed
from server.ratings.levels import RATED_LEVELS as LEVELS

BOARD_OPTIONS: Mapping[str, Mapping[str, Any]] = MappingProxyType(
    {
        "scopa": MappingProxyType({"deals": 1}),
        "cicera": MappingProxyType({}),
        "doudizhu": MappingProxyType({}),
        "schafkopf": MappingProxyType({"deals": 1}),
    }
)
"""The table options that make one board one deal: Scopa's match and Schafkopf's
table would run several; Cicera and Dou Dizhu are one deal already."""

DEFAULT_BOARDS = 8
MAX_BOARDS = 32
DAILY_LEVEL = "normal"
MAX_DURATION = timedelta(days=7)
MIN_DURATION = timedelta(minutes=10)


class SetKind(enum.StrEnum):
    """A daily set (one per game and UTC day) or one a player made."""

    DAILY = "daily"
    ON_DEMAND = "on_demand"


@dataclass(frozen=True, slots=True)
class BoardSet:
    """One duplicate set; ``opens_at``/``closes_at`` are UTC."""

    set_id: str
    game: str
    kind: SetKind
    level: str
    seat: int
    boards: int
    opens_at: datetime
    closes_at: datetime
    creator: str | None = None

    def __post_init__(self) -> None:
        if self.game not in BOARD_OPTIONS:
            raise DuplicateError(ErrorCode.UNKNOWN_GAME, f"no duplicate play of {self.game!r}")
        if not 1 <= self.boards <= MAX_BOARDS:
            raise DuplicateError(
                ErrorCode.BAD_OPTIONS, f"a set has 1 to {MAX_BOARDS} boards, not {self.boards}"
            )
        if self.level not in LEVELS:
            raise DuplicateError(
                ErrorCode.BAD_OPTIONS, f"the AI level is one of {', '.join(LEVELS)}"
            )
        seats = get_game(self.game).num_seats(get_game(self.game).options(self.options()))
        if not 0 <= self.seat < seats:
            raise DuplicateError(ErrorCode.BAD_OPTIONS, f"the seat is 0 to {seats - 1}")
        if self.closes_at <= self.opens_at:
            raise DuplicateError(ErrorCode.BAD_OPTIONS, "a set closes after it opens")

    def is_open(self, now: datetime) -> bool:
        """Whether boards may be played (and the set joined) at ``now``."""
        return self.opens_at <= now < self.closes_at

    def check_open(self, now: datetime) -> None:
        """Refuse play after the close (:func:`set_closed`)."""
        if not self.is_open(now):
            raise set_closed(self.set_id)

    def seeds_shown(self, now: datetime) -> bool:
        """Seeds stay secret until the set closes: before, a seed is every hand of a board."""
        return now >= self.closes_at

    def options(self) -> dict[str, Any]:
        """The table options of each board."""
        return dict(BOARD_OPTIONS[self.game])


class SeedKey:
    """The server's secret that board seeds derive from (``CARDAVIA_DUPLICATE_SECRET``)."""

    def __init__(self, secret: bytes) -> None:
        if len(secret) < 16:
            raise ValueError("the duplicate secret needs 16 bytes or more")
        self._secret = secret

    def __repr__(self) -> str:  # never print the secret
        return "SeedKey(...)"

    def board_seed(self, set_id: str, board: int) -> int:
        """The seed of board ``board`` (1-based) of set ``set_id``: 63 bits of an HMAC."""
        mac = hmac.new(self._secret, f"{set_id}/{board}".encode(), hashlib.sha256).digest()
        return int.from_bytes(mac[:8], "big") >> 1

    def table_id(self, set_id: str, board: int, account: str) -> str:
        """The id of ``account``'s table of board ``board``: the same on every process,
        so that the store, which makes a table of an id once, deals a board to its
        player at one table at a time across the cluster; an HMAC, so that nobody
        works out another player's table from the set, the board and their account."""
        text = f"table/{set_id}/{board}/{account}".encode()
        return "D" + hmac.new(self._secret, text, hashlib.sha256).hexdigest()[:20]


def ai_rng(board_seed: int, seat: int) -> random.Random:
    """The generator of the AI at ``seat`` of a board: its own per board and seat."""
    return derive_rng(board_seed, "duplicate-ai", seat)


def ai_decision_seed(board_seed: int, seat: int, decision: int) -> int:
    """The seed of the AI's decision number ``decision`` (actions played so far) at
    ``seat`` of a board's table: the server's AI draws each decision's chance from a
    seed of its own (:meth:`server.ai.pool.AiRunner.choose`), so a board's AI seats get
    theirs from the board, the seat and the position in the deal, never the clock."""
    return new_seed(derive_rng(board_seed, "duplicate-ai", seat, decision))


def day_start(day: date) -> datetime:
    """Midnight UTC opening ``day``."""
    return datetime.combine(day, time(0), tzinfo=UTC)


def daily_set(game: str, day: date, boards: int = DEFAULT_BOARDS) -> BoardSet:
    """The daily set of ``game`` for the UTC ``day``: open from its midnight to the next."""
    start = day_start(day)
    return BoardSet(
        set_id=f"daily-{game}-{day:%Y%m%d}",
        game=game,
        kind=SetKind.DAILY,
        level=DAILY_LEVEL,
        seat=0,
        boards=boards,
        opens_at=start,
        closes_at=start + timedelta(days=1),
    )


def on_demand_set(
    game: str,
    level: str,
    boards: int,
    duration: timedelta,
    creator: str,
    now: datetime,
    seat: int = 0,
) -> BoardSet:
    """A set a player makes, open from ``now`` for ``duration``; others join it by id."""
    if not MIN_DURATION <= duration <= MAX_DURATION:
        raise DuplicateError(
            ErrorCode.BAD_OPTIONS, "a set stays open from ten minutes to seven days"
        )
    return BoardSet(
        set_id=f"set-{secrets.token_hex(6)}",
        game=game,
        kind=SetKind.ON_DEMAND,
        level=level,
        seat=seat,
        boards=boards,
        opens_at=now,
        closes_at=now + duration,
        creator=creator,
    )
