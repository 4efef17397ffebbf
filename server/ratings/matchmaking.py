"""Rated matchmaking, the pure part: who in a game's rated queue sits down together.

The queue itself (in memory, or in Redis shared by every process) and the seating
are :mod:`server.ratings.queue`; this module only decides, from the entries and the
time, which tables to make (``docs/ratings.md``, "Rated quick play"):

* a table is a group of the game's seat count whose ratings lie within the gap
  every member allows now; a member allows :data:`BASE_GAP` points on arrival,
  :data:`GAP_PER_SECOND` more for each second waited, at most :data:`MAX_GAP`;
* once the oldest member of a group has waited the fill wait (the quick-play
  fill wait, ``quick_fill_wait``), the seats nobody of close rating took go to
  the AI level whose rating is closest to the group's mean;
* two players one of whom blocks the other never sit together, and people who
  did not opt in (``with_bots``) never meet a bot account (AI levels fill seats
  for everyone: they are the server's own players, labelled as AI).

Everybody who waited the fill wait is seated in that round (alone with the AI
if need be), so no one waits longer than the wait plus one round.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from server.ratings.levels import RATED_LEVELS

BASE_GAP = 100.0
"""Rating points a group may span when its members have just queued."""
GAP_PER_SECOND = 40.0
"""Rating points the allowed span widens by for every second a member waits."""
MAX_GAP = 600.0
"""The widest span ever allowed among people (past it the AI is the closer opponent)."""


def allowed_gap(waited: float) -> float:
    """The rating span a player who waited ``waited`` seconds accepts."""
    return min(MAX_GAP, BASE_GAP + GAP_PER_SECOND * max(0.0, waited))


@dataclass(frozen=True)
class QueueEntry:
    """One player waiting in a game's rated queue (as the queue stores it).

    ``key`` is what blocks name the player by (the account id: only accounts
    queue); ``blocked`` the keys this player blocks; ``queued_at`` seconds since
    the epoch on the queue's clock.
    """

    player_id: str
    key: str
    name: str
    rating: int
    queued_at: float
    bot: bool = False
    with_bots: bool = False
    blocked: frozenset[str] = frozenset()
    look: str = ""
    """What the name looks like (:func:`server.players.names.skeleton`): a table seats
    no two players whose names look alike, so neither does the queue."""

    def waited(self, now: float) -> float:
        """Seconds this entry has waited at ``now``."""
        return max(0.0, now - self.queued_at)

    def may_meet(self, other: QueueEntry) -> bool:
        """Whether the two may sit at one table: neither blocks the other, their names do
        not look alike, and a bot account meets only bot accounts and people who
        opted in."""
        if other.key in self.blocked or self.key in other.blocked or other.key == self.key:
            return False
        if self.look and self.look == other.look:
            return False
        if other.bot and not (self.bot or self.with_bots):
            return False
        return not (self.bot and not (other.bot or other.with_bots))


@dataclass(frozen=True)
class Match:
    """One table to make: its people (oldest first) and the AI level of the seats left
    (``None``: the people fill every seat)."""

    players: tuple[QueueEntry, ...]
    ai_level: str | None
    ai_seats: int
    ai_rating: int | None

    @property
    def ratings(self) -> tuple[int, ...]:
        """Every seat's rating: the people's, then the AI's (once per AI seat)."""
        ai = () if self.ai_rating is None else (self.ai_rating,) * self.ai_seats
        return tuple(p.rating for p in self.players) + ai

    @property
    def gap(self) -> int:
        """The span of the ratings at the table, the AI seats included."""
        ratings = self.ratings
        return max(ratings) - min(ratings)

    @property
    def people_gap(self) -> int:
        """The span of the people's ratings (0 for a player alone with the AI)."""
        ratings = [p.rating for p in self.players]
        return max(ratings) - min(ratings)


def _fits(group: Sequence[QueueEntry], now: float) -> bool:
    """Whether ``group``'s span lies within the gap each of its members allows."""
    ratings = [p.rating for p in group]
    span = max(ratings) - min(ratings)
    return all(span <= allowed_gap(p.waited(now)) for p in group)


def closest_level(mean: float, ai: Mapping[str, int]) -> tuple[str, int]:
    """The AI level (of the rated levels, those ``ai`` rates: level -> rating) closest
    to ``mean``; the stronger one of two as close."""
    rated = [(level, ai[level]) for level in RATED_LEVELS if level in ai]
    if not rated:
        raise ValueError("no AI level is rated")
    return min(reversed(rated), key=lambda lr: abs(lr[1] - mean))


def _group_for(
    anchor: QueueEntry, pool: Iterable[QueueEntry], seats: int, now: float
) -> list[QueueEntry]:
    """The largest group, up to ``seats``, that ``anchor`` may sit with: the others taken
    closest rating first while everyone still fits and may meet everyone."""
    group = [anchor]
    for other in sorted(pool, key=lambda e: (abs(e.rating - anchor.rating), e.queued_at)):
        if len(group) == seats:
            break
        if all(other.may_meet(g) for g in group) and _fits([*group, other], now):
            group.append(other)
    return group


def match(
    entries: Iterable[QueueEntry],
    seats: int,
    now: float,
    fill_wait: float,
    ai: Mapping[str, int],
) -> tuple[Match, ...]:
    """The tables to make now from a game's queue (``seats`` a table).

    Entries are taken oldest first; each one not matched yet anchors a group
    (:func:`_group_for`, among those within the anchor's allowed gap of its
    rating: nobody further can share its table). A full group is a table; a
    partial one is one only once its anchor has waited ``fill_wait``, the AI
    level of ``ai`` (level -> rating) closest to the group's mean taking the other
    seats. Each entry is in at most one table.
    """
    waiting = sorted(entries, key=lambda e: (e.queued_at, e.player_id))
    by_rating = sorted(waiting, key=lambda e: (e.rating, e.queued_at, e.player_id))
    ratings = [e.rating for e in by_rating]
    taken: set[str] = set()
    out: list[Match] = []
    for anchor in waiting:
        if anchor.player_id in taken:
            continue
        reach = allowed_gap(anchor.waited(now))
        low = bisect_left(ratings, anchor.rating - reach)
        high = bisect_right(ratings, anchor.rating + reach)
        pool = [
            e
            for e in by_rating[low:high]
            if e.player_id not in taken and e.player_id != anchor.player_id
        ]
        group = _group_for(anchor, pool, seats, now)
        if len(group) == seats:
            out.append(Match(tuple(group), None, 0, None))
        elif anchor.waited(now) >= fill_wait:
            mean = sum(p.rating for p in group) / len(group)
            level, rating = closest_level(mean, ai)
            out.append(Match(tuple(group), level, seats - len(group), rating))
        else:
            continue
        taken.update(p.player_id for p in group)
    return tuple(out)
