"""Pure pairing for tournaments (issue 56): Swiss groups, arena pairing, standings.

Nothing here does I/O: the director (:mod:`server.tournaments.director`) reads the
state, calls these functions and stores what they return, so a round paired again
after a restart is the same round (``docs/tournaments.md``).

Card games seat three or four people as often as two, so a Swiss "pairing" here
forms *groups* of the game's seat count: players are ordered by score, and each
table is filled from the top of what is left with the closest-scored players who
have met its members least often.  When the players do not fill the last tables,
the seats left over go to the AI (a rated AI level), at most one per table where
the tables allow, given to the lowest-scored players who have had the fewest AI
seats before: the Swiss "bye", which a group game need not give as a free point.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from server.duplicate.scoring import matchpoints, seat_score

WINDOW_TABLES = 3
"""How many tables' worth of players below the top one a table may take from to avoid
repeated opponents: wide enough to find fresh opponents, narrow enough that a table
stays a group of close scores (the Swiss principle)."""


class PairingError(ValueError):
    """The pairing cannot be made (no players, or a table of fewer than two seats)."""


@dataclass(frozen=True)
class Entrant:
    """A player to pair: their tournament score, and the AI seats (byes) they had."""

    player_id: str
    score: float
    byes: int = 0
    order: int = 0
    """Registration order: the last tie-break of the pairing order (stable and fair)."""


@dataclass(frozen=True)
class PairedTable:
    """One table of a round: its number (1 up), the people seated, the AI seats."""

    number: int
    players: tuple[str, ...]
    ai_seats: int

    @property
    def size(self) -> int:
        """The seats of the table (people and AI)."""
        return len(self.players) + self.ai_seats


@dataclass(frozen=True)
class Met:
    """Who met whom so far: ``times[a][b]`` games at one table (symmetric)."""

    times: Mapping[str, Mapping[str, int]] = field(default_factory=dict)

    def count(self, a: str, b: str) -> int:
        """How many games ``a`` and ``b`` sat at one table."""
        return self.times.get(a, {}).get(b, 0)

    @staticmethod
    def of(tables: Iterable[Sequence[str]]) -> Met:
        """The meetings of the people at ``tables`` (each a sequence of player ids)."""
        times: dict[str, dict[str, int]] = {}
        for players in tables:
            for a in players:
                row = times.setdefault(a, {})
                for b in players:
                    if a != b:
                        row[b] = row.get(b, 0) + 1
        return Met(times)


def table_sizes(players: int, seats: int) -> list[int]:
    """The people at each table of a round of ``players`` at ``seats``-seat tables:
    as few AI seats as possible (fewer than ``seats``), spread one to a table from the
    bottom, so that no table is mostly AI while another has none."""
    if seats < 2:
        raise PairingError("a table has two seats or more")
    if players < 1:
        raise PairingError("a round needs a player")
    tables = -(-players // seats)
    ai = tables * seats - players
    sizes = [seats] * tables
    i = tables - 1
    while ai:
        sizes[i] -= 1
        ai -= 1
        i = i - 1 if i > 0 else tables - 1
    return sizes


def _order(entrants: Sequence[Entrant]) -> list[Entrant]:
    """Score first, then registration: the Swiss order."""
    return sorted(entrants, key=lambda e: (-e.score, e.order, e.player_id))


def _bye_last(ordered: list[Entrant], short_seats: int) -> list[Entrant]:
    """Move the players who should sit at the tables with AI seats to the bottom: among
    the lowest scores, those with the fewest byes so far (no one gets a second AI seat
    while another has none, as a Swiss gives the bye)."""
    if short_seats == 0:
        return ordered
    fewest = min(e.byes for e in ordered)
    chosen: list[Entrant] = []
    for level in range(fewest, max(e.byes for e in ordered) + 1):
        for e in reversed(ordered):
            if len(chosen) == short_seats:
                break
            if e.byes == level:
                chosen.append(e)
        if len(chosen) == short_seats:
            break
    taken = {e.player_id for e in chosen}
    return [e for e in ordered if e.player_id not in taken] + list(reversed(chosen))


def swiss_round(entrants: Sequence[Entrant], seats: int, met: Met) -> tuple[PairedTable, ...]:
    """The tables of a Swiss round (see the module docstring): every entrant at one table,
    tables of ``seats`` seats, AI seats only where the entrants do not fill them."""
    sizes = table_sizes(len(entrants), seats)
    short = [size for size in sizes if size < seats]
    ordered = _order(entrants)
    if short:
        # the players for the short tables: the bottom, fewest byes first
        people_at_short = sum(short)
        head = _bye_last(ordered, people_at_short)
        ordered = head
    pool = [e.player_id for e in ordered]
    tables: list[PairedTable] = []
    start = 0
    full_count = len(sizes) - len(short)
    for number, size in enumerate(sizes, start=1):
        end_of_zone = len(pool) if number > full_count else len(pool) - sum(short)
        group = [pool[start]]
        window_end = min(end_of_zone, start + 1 + WINDOW_TABLES * seats)
        candidates = list(range(start + 1, window_end))
        while len(group) < size:
            best = min(
                candidates,
                key=lambda i: (sum(met.count(pool[i], g) for g in group), i),
            )
            candidates.remove(best)
            group.append(pool[best])
        chosen = set(group)
        rest = [p for p in pool[start:] if p not in chosen]
        pool[start:] = group + rest
        start += size
        tables.append(PairedTable(number, tuple(group), seats - size))
    return _repair(tables, met)


def _repeats(players: Sequence[str], met: Met) -> int:
    return sum(met.count(a, b) for i, a in enumerate(players) for b in players[i + 1 :])


def _repair(tables: list[PairedTable], met: Met) -> tuple[PairedTable, ...]:
    """Swap people between neighbouring tables (both full or both short, so that the byes
    stay where they were given) while a swap lowers their repeated meetings: the greedy
    fill leaves its last table little choice."""
    groups = [list(t.players) for t in tables]
    for _ in range(2):
        changed = False
        for i in range(len(groups) - 1):
            j = i + 1
            if tables[i].ai_seats != tables[j].ai_seats:
                continue
            before = _repeats(groups[i], met) + _repeats(groups[j], met)
            if before == 0:
                continue
            for x in range(len(groups[i])):
                for y in range(len(groups[j])):
                    a, b = groups[i][:], groups[j][:]
                    a[x], b[y] = b[y], a[x]
                    after = _repeats(a, met) + _repeats(b, met)
                    if after < before:
                        groups[i], groups[j], before, changed = a, b, after, True
        if not changed:
            break
    return tuple(
        PairedTable(t.number, tuple(g), t.ai_seats) for t, g in zip(tables, groups, strict=True)
    )


def repeated_meetings(tables: Iterable[PairedTable], met: Met) -> int:
    """Pairs of people at one table of ``tables`` who had met before."""
    repeats = 0
    for table in tables:
        players = table.players
        for i, a in enumerate(players):
            for b in players[i + 1 :]:
                if met.count(a, b):
                    repeats += 1
    return repeats


@dataclass(frozen=True)
class Waiting:
    """A player waiting in an arena: their score and since when (seconds)."""

    player_id: str
    score: float
    since: float
    last_opponents: frozenset[str] = frozenset()


@dataclass(frozen=True)
class ArenaPairing:
    """An arena pass: the tables formed and the players left waiting."""

    tables: tuple[PairedTable, ...]
    waiting: tuple[str, ...]


def arena_pairing(
    waiting: Sequence[Waiting],
    now: float,
    seats: int,
    *,
    min_wait: float,
    ai_wait: float,
    first_number: int = 1,
) -> ArenaPairing:
    """An arena pass (continuous pairing, as lichess runs its arenas): the players who
    have waited ``min_wait`` seconds are seated in groups of close score, avoiding the
    opponents of their last game; a group too small to fill a table waits for more,
    unless its longest waiter has waited ``ai_wait`` seconds: then the AI fills it, so
    nobody waits out the tournament alone."""
    if seats < 2:
        raise PairingError("a table has two seats or more")
    ready = sorted(
        (w for w in waiting if now - w.since >= min_wait),
        key=lambda w: (-w.score, w.since, w.player_id),
    )
    tables: list[PairedTable] = []
    number = first_number
    pool = list(ready)
    while len(pool) >= seats:
        group = [pool.pop(0)]
        while len(group) < seats:
            window = pool[: WINDOW_TABLES * seats]
            best = min(
                range(len(window)),
                key=lambda i: (
                    sum(
                        (g.player_id in window[i].last_opponents)
                        + (window[i].player_id in g.last_opponents)
                        for g in group
                    ),
                    i,
                ),
            )
            group.append(pool.pop(best))
        tables.append(PairedTable(number, tuple(g.player_id for g in group), 0))
        number += 1
    if pool and now - min(w.since for w in pool) >= ai_wait:
        tables.append(PairedTable(number, tuple(w.player_id for w in pool), seats - len(pool)))
        pool = []
    seated = {p for t in tables for p in t.players}
    left = tuple(w.player_id for w in waiting if w.player_id not in seated)
    return ArenaPairing(tuple(tables), left)


# -- results and standings ---------------------------------------------------


@dataclass(frozen=True)
class SeatResult:
    """One person's result at a finished tournament table (from the game record)."""

    player_id: str | None
    """``None``: an AI seat."""
    won: bool
    score: int


def placement_points(results: Sequence[SeatResult]) -> dict[str, float]:
    """Each person's tournament points for one game: the share of their table-mates
    (AI seats included) they finished ahead of, a tie counting half: 1 for the best,
    0 for the worst, whatever the table's size, so that rounds at tables of two, three
    and four weigh alike.  "Ahead" is a win over a loss first, then the game's score
    (Dou Dizhu's two farmers who win together tie)."""
    others = len(results) - 1
    points: dict[str, float] = {}
    for r in results:
        if r.player_id is None:
            continue
        beaten = 0.0
        for o in results:
            if o is r:
                continue
            mine, theirs = (r.won, r.score), (o.won, o.score)
            beaten += 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0
        points[r.player_id] = beaten / others if others else 0.0
    return points


@dataclass(frozen=True)
class GameResult:
    """A finished tournament game: its round, table and seats' results."""

    round: int
    table: int
    seats: tuple[SeatResult, ...]


@dataclass(frozen=True)
class Standing:
    """One line of the standings (``docs/tournaments.md``, "Standings")."""

    rank: int
    player_id: str
    points: float
    buchholz: float
    head_to_head: float
    game_score: int
    games: int
    withdrawn: bool
    matchpoints: int | None = None
    """Duplicate Swiss only: the cross-table matchpoints (:func:`cross_table_matchpoints`)."""

    @property
    def score(self) -> float:
        """What the standings rank by first, and the next round is paired by: the
        matchpoints in a Duplicate Swiss, else the placement points."""
        return float(self.matchpoints) if self.matchpoints is not None else self.points


def cross_table_matchpoints(game: str, games: Iterable[GameResult]) -> dict[str, int]:
    """Each person's matchpoints in a Duplicate Swiss: every table of a round deals the
    same cards to the same seats, so a seat's result (its score in the game's unit,
    :func:`server.duplicate.scoring.seat_score`) is compared with the results of that
    seat at the round's other finished tables: 2 per result beaten, 1 per tie
    (:func:`server.duplicate.scoring.matchpoints`).  An AI
    seat's result is compared against (it held the same cards) but earns nobody
    anything, as in :func:`placement_points`."""
    fields: dict[tuple[int, int], list[int]] = {}  # (round, seat): the seat's results
    held: list[tuple[int, int, int, str]] = []  # round, seat, result, who held the seat
    for g in games:
        scores = [r.score for r in g.seats]
        for seat, r in enumerate(g.seats):
            result = seat_score(game, scores, seat)
            fields.setdefault((g.round, seat), []).append(result)
            if r.player_id is not None:
                held.append((g.round, seat, result, r.player_id))
    for results in fields.values():
        results.sort()
    out: dict[str, int] = {}
    for round_no, seat, result, person in held:
        out[person] = out.get(person, 0) + matchpoints(result, fields[(round_no, seat)])
    return out


def standings(
    players: Sequence[str],
    games: Iterable[GameResult],
    withdrawn: Iterable[str] = (),
    *,
    duplicate_game: str | None = None,
) -> tuple[Standing, ...]:
    """The standings: points, then the Buchholz of groups (the sum of the final points
    of every person met, once per game met: a harder draw counts), then head-to-head
    (points won in the games that the tied players played together), then the sum of
    game scores, then registration order (``players``' order).  With
    ``duplicate_game`` (a Duplicate Swiss of that game) the cross-table matchpoints
    come first and the rest break their ties."""
    games = list(games)
    points = dict.fromkeys(players, 0.0)
    score = dict.fromkeys(players, 0)
    played = dict.fromkeys(players, 0)
    met: dict[str, list[str]] = {p: [] for p in players}
    game_points: list[tuple[dict[str, float], frozenset[str]]] = []
    for g in games:
        gp = placement_points(g.seats)
        people = frozenset(gp)
        game_points.append((gp, people))
        for r in g.seats:
            if r.player_id is None or r.player_id not in points:
                continue
            points[r.player_id] += gp[r.player_id]
            score[r.player_id] += r.score
            played[r.player_id] += 1
            met[r.player_id].extend(o for o in people if o != r.player_id)
    buchholz = {p: sum(points.get(o, 0.0) for o in met[p]) for p in players}
    mp: dict[str, int] | None = None
    if duplicate_game is not None:
        found = cross_table_matchpoints(duplicate_game, games)
        mp = {p: found.get(p, 0) for p in players}

    def ahead(p: str) -> tuple[float, ...]:
        """What ranks before head-to-head (whom it compares are tied on all of it)."""
        first = (float(mp[p]),) if mp is not None else ()
        return (*first, points[p], buchholz[p])

    tied: dict[tuple[float, ...], set[str]] = {}
    for p in players:
        tied.setdefault(ahead(p), set()).add(p)
    h2h = dict.fromkeys(players, 0.0)
    for gp, people in game_points:
        for p in people:
            if p not in points:
                continue
            group = tied[ahead(p)]
            if len(group) > 1 and len(people & group) > 1:
                h2h[p] += gp[p]
    order = {p: i for i, p in enumerate(players)}
    out = set(withdrawn)
    ranked = sorted(
        players,
        key=lambda p: (*(-x for x in ahead(p)), -h2h[p], -score[p], order[p]),
    )
    return tuple(
        Standing(
            i + 1,
            p,
            points[p],
            buchholz[p],
            h2h[p],
            score[p],
            played[p],
            p in out,
            None if mp is None else mp[p],
        )
        for i, p in enumerate(ranked)
    )


# -- ids and seeds -------------------------------------------------------------


def table_id(tournament_id: str, round_no: int, number: int) -> str:
    """The id of a round's table, derived (never drawn) so that creating it twice, by a
    director that took over mid-round, finds the table made already."""
    return f"{tournament_id}-r{round_no}-t{number}"


def round_seed(secret: bytes, round_no: int) -> int:
    """The deal seed of every table of a Duplicate Swiss round: one per round, from the
    tournament's secret (kept in the database, never sent), so each round's tables play
    the same deals and nobody can compute them."""
    digest = hashlib.blake2b(round_no.to_bytes(4, "big"), key=secret, digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1
