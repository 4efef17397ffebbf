"""Team duplicate (issue 56): two teams play the same boards at several tables, the
seats rotated so that each team plays every seat of every board once, each time by a
different member, and nobody plays a board twice (docs/duplicate.md, Team matches).

The layout per game (:func:`layout`):

* Scopa (2 seats): 2 tables; team A holds seat 0 at table 1 and seat 1 at table 2,
  team B the other seat: a team of 2, as bridge's teams of four play a board at two
  tables with the directions swapped.
* Cicera (2 partnerships): 2 tables; team A is the 0-2 partnership at table 1 and the
  1-3 one at table 2: a team of 4 (two pairs).
* Dou Dizhu (3 seats) and Schafkopf (4 seats, partners only by the call): as many
  tables as seats; at table *t* team A's member holds seat *t* and team B's seat
  *t + 1*, and the AI (the match's level) the seats left, the same AI at every table:
  a team of 3 (Dou Dizhu) or 4 (Schafkopf).

A board's *net* is team A's scores at its seats (:func:`server.duplicate.scoring.
board_score`, each partnership counted once) less team B's, converted to IMPs on the
game's scale; the match is the sum of the boards' IMPs.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from engine.game import Result
from protocol.errors import ErrorCode
from server.duplicate.boards import BOARD_OPTIONS
from server.duplicate.errors import DuplicateError
from server.duplicate.scoring import board_score, imps

SEATS: Mapping[str, int] = {"scopa": 2, "cicera": 4, "doudizhu": 3, "schafkopf": 4}
PARTNERSHIPS: Mapping[str, tuple[frozenset[int], ...]] = {
    "cicera": (frozenset((0, 2)), frozenset((1, 3)))
}


class Team(enum.Enum):
    """The two teams of a match."""

    A = "a"
    B = "b"


@dataclass(frozen=True, slots=True)
class Sitter:
    """Who holds a seat at a match table: a team's member (by index), or the AI."""

    team: Team | None
    member: int | None = None


@dataclass(frozen=True, slots=True)
class MatchTable:
    """One table of a match: who holds each seat (the same for every board)."""

    index: int
    seats: tuple[Sitter, ...]

    def seats_of(self, team: Team) -> tuple[int, ...]:
        """The seats ``team`` holds here."""
        return tuple(s for s, sitter in enumerate(self.seats) if sitter.team is team)


def team_size(game: str) -> int:
    """How many members a team of ``game`` has."""
    return sum(len(t.seats_of(Team.A)) for t in layout(game))


def layout(game: str) -> tuple[MatchTable, ...]:
    """The tables of a team match of ``game`` (module docstring)."""
    if game not in BOARD_OPTIONS:
        raise DuplicateError(ErrorCode.UNKNOWN_GAME, f"no team duplicate of {game!r}")
    n = SEATS[game]
    pairs = PARTNERSHIPS.get(game)
    tables: list[MatchTable] = []
    if pairs is not None:
        member = {Team.A: 0, Team.B: 0}
        for t in range(2):
            holders: list[Sitter] = []
            for s in range(n):
                team = Team.A if (s in pairs[0]) == (t == 0) else Team.B
                holders.append(Sitter(team, member[team]))
                member[team] += 1
            tables.append(MatchTable(t, tuple(holders)))
        return tuple(tables)
    for t in range(n):
        holders = [Sitter(None) for _ in range(n)]
        holders[t] = Sitter(Team.A, t)
        holders[(t + 1) % n] = Sitter(Team.B, t)
        tables.append(MatchTable(t, tuple(holders)))
    return tuple(tables)


def check_teams(game: str, team_a: Sequence[str], team_b: Sequence[str]) -> None:
    """Two teams of the game's size, nobody twice (``bad_options``)."""
    size = team_size(game)
    if len(team_a) != size or len(team_b) != size:
        raise DuplicateError(ErrorCode.BAD_OPTIONS, f"a {game} team has {size} members")
    if len(set(team_a) | set(team_b)) != 2 * size:
        raise DuplicateError(ErrorCode.BAD_OPTIONS, "a player is in a match once")


@dataclass(frozen=True, slots=True)
class BoardNet:
    """One board of a match: each team's total, the net for team A, and its IMPs."""

    board: int
    a_total: int
    b_total: int
    net: int
    imps: int


def _team_total(game: str, table: MatchTable, result: Result, team: Team) -> int:
    seats = table.seats_of(team)
    if game in PARTNERSHIPS:  # a partnership scores once, not once per partner
        seats = seats[:1]
    return sum(board_score(game, result, s) for s in seats)


def table_totals(game: str, table: int, result: Result) -> tuple[int, int]:
    """Team A's and team B's totals of one board at match table ``table``."""
    at = layout(game)[table]
    return _team_total(game, at, result, Team.A), _team_total(game, at, result, Team.B)


def board_net(game: str, board: int, results: Sequence[Result]) -> BoardNet:
    """Compare one board's results at every table of the match (in table order)."""
    tables = layout(game)
    if len(results) != len(tables):
        raise ValueError(f"a {game} board is played at {len(tables)} tables")
    a = sum(_team_total(game, t, r, Team.A) for t, r in zip(tables, results, strict=True))
    b = sum(_team_total(game, t, r, Team.B) for t, r in zip(tables, results, strict=True))
    return BoardNet(board, a, b, a - b, imps(game, a - b))


def match_imps(nets: Sequence[BoardNet]) -> tuple[int, int]:
    """The match score: IMPs won by team A and by team B over the boards."""
    won_a = sum(n.imps for n in nets if n.imps > 0)
    won_b = -sum(n.imps for n in nets if n.imps < 0)
    return won_a, won_b
