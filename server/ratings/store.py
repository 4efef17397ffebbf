"""Ratings kept in the database (issue 55): read, updated with each rated game's record,
listed on leaderboards and shown on profiles.

A rated game changes ratings exactly once: :meth:`RatingStore.update` runs inside
the transaction of :meth:`server.persist.db.records.GameRecords.write`, and only
when that transaction's insert of the game happened (a game written again, by a
retry or by the process a table moved to, inserts nothing and rates nothing).

Two games of one account may finish at once on two processes.  Each update
*claims* the rows it reads, in key order (so two updates never wait for each
other in a circle): an upsert that inserts a newcomer's placeholder row or
"updates" an existing row to itself, which locks it until the write commits,
waits for another write that holds it, and returns its newest values.  So the
second game is rated from the first one's result, never from the same old
rating.  SQLite runs one writer at a time, and the write's first statement is
the game's insert, so its reads come after the other writer's commit there too.
"""

from __future__ import annotations

import math
import time
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import and_, func, insert, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncConnection

from server.ops.logs import get_logger
from server.persist.db.engine import Database
from server.persist.db.game_record import GameRecord
from server.persist.db.models import AccountRow, RatingPointRow, RatingRow, RoleRatingRow
from server.ratings.levels import RATED_LEVELS, ai_account
from server.ratings.model import ROLE_PREFIX, Rating, RatingError, rate_game, role_key

LEADERBOARD_PAGE = 50
"""Entries in one page of a leaderboard."""
ACTIVE_DAYS = 90
"""A rating is listed only while its account has played a rated game this recently."""
HISTORY_POINTS = 100
"""The points of a profile's rating graph at most (the newest)."""
COUNT_TTL_S = 10.0
"""How long a leaderboard's tally (its listed ratings counted by value) is reused: it
costs a pass over the whole board, and one some seconds old places pages the same
but for the few ratings changed meanwhile."""

_DAY_US = 86_400 * 1_000_000
_GONE = "gone:"
"""What starts the stand-in key of a seat whose account was deleted before the write:
it is rated as a newcomer, so the others' contest stays whole, and never stored."""
_COPY = "copy:"
"""What starts the stand-in key of an AI level's further seat (:attr:`RatedSeats.copies`)."""

_MODEL_COLUMNS = (RoleRatingRow.mu, RoleRatingRow.sigma, RoleRatingRow.games)
_MODEL_ROW_COLUMNS = (RatingRow.mu, RatingRow.sigma, RatingRow.games)


@dataclass(frozen=True)
class LeaderboardEntry:
    """One listed rating: its place (from 1), the account, the rating as shown."""

    rank: int
    account_id: str
    name: str
    bot: bool
    rating: int
    deviation: int
    games: int
    last_played: float
    """Seconds since the epoch."""


@dataclass(frozen=True)
class LeaderboardPage:
    """A page of a leaderboard, best first; ``pages``: how many there are now."""

    game: str
    bots: bool
    page: int
    pages: int
    entries: tuple[LeaderboardEntry, ...]


@dataclass(frozen=True)
class RatingHistoryPoint:
    """A rating after one rated game (``at``: seconds since the epoch)."""

    at: float
    rating: int
    deviation: int


@dataclass(frozen=True)
class GameRating:
    """An account's rating at one game for its profile: the model's rating, the change
    its last rated game made, when that was, and the newest points, oldest first."""

    game: str
    rating: Rating
    change: int
    last_played: float
    history: tuple[RatingHistoryPoint, ...]


@dataclass(frozen=True)
class RatedSeats:
    """Who a rated game's seats are, as the model rates them: each seat's key (an
    account, an AI level's account, or a stand-in for a deleted account), the keys
    whose ratings are stored, which of those are bots, and who left mid-game."""

    keys: Mapping[int, str]
    stored: frozenset[str]
    bots: frozenset[str]
    leavers: frozenset[str]
    copies: Mapping[str, str]
    """Stand-ins for the further seats of an AI level at one table (Dou Dizhu's two
    farmers of ``hard``): each plays with the level's rating, and only the level's
    first seat changes it (one player cannot sit twice in a contest)."""


class UnratedSeat(ValueError):
    """A seat of a game marked rated that cannot be rated (an anonymous player, an AI
    level that is not rated): the game is stored, its ratings left alone."""


def rated_seats(record: GameRecord, alive: Collection[str] | None) -> RatedSeats:
    """The seats of ``record`` as rated; ``alive``: the accounts that still exist
    (``None``: all of them).  A seat whose player left mid-game is played on by the
    AI but rated as its account's, a loss (:func:`server.ratings.model.rate_contest`)."""
    keys: dict[int, str] = {}
    stored: set[str] = set()
    bots: set[str] = set()
    leavers: set[str] = set()
    copies: dict[str, str] = {}
    for seat in record.seats:
        if seat.account_id is not None:
            key = seat.account_id
            bot = seat.kind.value != "human"  # a bot account's, or a leaver's kept
        elif seat.kind.value == "ai" and seat.level in RATED_LEVELS:
            key = ai_account(seat.level)
            bot = True
        else:
            raise UnratedSeat(f"seat {seat.seat} is neither an account nor a rated AI level")
        if alive is not None and key not in alive:
            keys[seat.seat] = f"{_GONE}{seat.seat}"
            continue
        if seat.account_id is None and key in stored:  # the level's further seat
            copy = f"{_COPY}{seat.seat}"
            keys[seat.seat] = copy
            copies[copy] = key
            continue
        keys[seat.seat] = key
        stored.add(key)
        if bot:
            bots.add(key)
        if seat.left and seat.account_id is not None:
            leavers.add(key)
    named = [k for k in keys.values() if not k.startswith((_GONE, _COPY))]
    if len(set(named)) != len(named):
        raise UnratedSeat("one account holds two seats")
    return RatedSeats(keys, frozenset(stored), frozenset(bots), frozenset(leavers), copies)


def rating_keys(record: GameRecord) -> frozenset[str]:
    """The accounts whose ratings ``record`` changes when every one exists."""
    try:
        return rated_seats(record, None).stored
    except UnratedSeat:
        return frozenset()


def _page_start(tally: Sequence[tuple[int, int]], skip: int) -> tuple[int, int] | None:
    """Where the page after the ``skip`` best ratings starts: the rating value its first
    entry shows and how many entries of that value come before it (``None``: past the
    last page)."""
    above = 0
    for points, n in tally:
        if above + n > skip:
            return points, skip - above
        above += n
    return None


def _role_of(key: str) -> tuple[str, str]:
    game, _, role = key[len(ROLE_PREFIX) :].partition(":")
    return game, role


def _rating(mu: float, sigma: float, games: int) -> Rating:
    return Rating(mu=mu, sigma=sigma, games=games)


class RatingStore:
    """The ratings on one :class:`Database` (its schema migrated by the accounts)."""

    def __init__(self, db: Database, *, count_ttl: float = COUNT_TTL_S) -> None:
        self.db = db
        self.count_ttl = count_ttl
        self._tallies: dict[tuple[str, bool], tuple[float, tuple[tuple[int, int], ...]]] = {}
        """Each board's tally (:meth:`_tally`) and until when (monotonic) it is reused."""
        self._log = get_logger(component="ratings")
        self._postgres = db.backend == "postgresql"
        dialect = postgresql if self._postgres else sqlite
        # the update's statements, made once: each update only binds its values
        # a row claimed: inserted as a placeholder when missing, else "updated" to itself,
        # which locks it until the write commits (waiting for a writer that holds it)
        # and gives back its newest values, in one statement
        claim = dialect.insert(RatingRow)
        self._claim_rows = claim.on_conflict_do_update(
            index_elements=["account_id", "game"], set_={"games": RatingRow.games}
        ).returning(RatingRow.account_id, *_MODEL_ROW_COLUMNS)
        claim_roles = dialect.insert(RoleRatingRow)
        self._claim_roles = claim_roles.on_conflict_do_update(
            index_elements=["game", "role"], set_={"games": RoleRatingRow.games}
        ).returning(RoleRatingRow.role, *_MODEL_COLUMNS)
        rows = dialect.insert(RatingRow)
        self._save_rows = rows.on_conflict_do_update(
            index_elements=["account_id", "game"],
            set_={
                c: rows.excluded[c]
                for c in (
                    "mu",
                    "sigma",
                    "games",
                    "points",
                    "deviation",
                    "provisional",
                    "last_us",
                    "change",
                )
            },
        )
        roles = dialect.insert(RoleRatingRow)
        self._save_roles = roles.on_conflict_do_update(
            index_elements=["game", "role"],
            set_={c: roles.excluded[c] for c in ("mu", "sigma", "games")},
        )
        self._new_points = insert(RatingPointRow)

    # -- reading ------------------------------------------------------------------------

    async def ratings(self, game: str, keys: Collection[str]) -> dict[str, Rating]:
        """The ratings at ``game`` of ``keys`` (accounts, AI levels' accounts, role keys);
        a key absent from the answer has none yet (a newcomer)."""
        accounts = sorted(k for k in keys if not k.startswith(ROLE_PREFIX))
        roles = sorted(k for k in keys if k.startswith(ROLE_PREFIX))
        async with self.db.begin() as conn:
            return await self._read(conn, game, accounts, roles)

    async def _read(
        self,
        conn: AsyncConnection,
        game: str,
        accounts: Sequence[str],
        roles: Sequence[str],
    ) -> dict[str, Rating]:
        found: dict[str, Rating] = {}
        if accounts:
            query = (
                select(RatingRow.account_id, RatingRow.mu, RatingRow.sigma, RatingRow.games)
                .where(RatingRow.game == game, RatingRow.account_id.in_(accounts))
                .order_by(RatingRow.account_id)
            )
            for key, mu, sigma, games in await conn.execute(query):
                found[key] = _rating(mu, sigma, games)
        if roles:
            names = [role for of, role in map(_role_of, roles) if of == game]
            of_roles = (
                select(RoleRatingRow.role, *_MODEL_COLUMNS)
                .where(RoleRatingRow.game == game, RoleRatingRow.role.in_(names))
                .order_by(RoleRatingRow.role)
            )
            for role, mu, sigma, games in await conn.execute(of_roles):
                found[role_key(game, role)] = _rating(mu, sigma, games)
        return found

    async def leaderboard(
        self, game: str, page: int, *, bots: bool, now: float | None = None
    ) -> LeaderboardPage:
        """Page ``page`` (from 1) of ``game``'s leaderboard: the people, or with ``bots``
        the bot accounts and AI levels; only ratings that are no longer provisional, of
        accounts with a rated game in the last :data:`ACTIVE_DAYS` days (at ``now``),
        best first (equal ratings by account).  A page past the last is empty.

        A deep page is not reached by skipping every rating above it: the board's
        *tally* (how many listed ratings show each value, one pass over the index,
        reused for :data:`COUNT_TTL_S` unless ``now`` is given) says at which rating
        the page starts and how many equal ones come before it, so the page is read
        from there: one short range of ``ix_ratings_leaderboard``.
        """
        page = max(1, page)
        since = round((time.time() if now is None else now) * 1_000_000) - ACTIVE_DAYS * _DAY_US
        listed = and_(
            RatingRow.game == game,
            RatingRow.bot == bots,
            RatingRow.provisional == False,  # noqa: E712 (SQL, not Python)
            RatingRow.last_us >= since,
        )
        skip = (page - 1) * LEADERBOARD_PAGE
        async with self.db.begin() as conn:
            if self._postgres:
                # planned for this page's values each time: a plan made once for any
                # rating and date (after five runs of a prepared statement) may sort
                # the whole board instead of reading one range of its index
                await conn.exec_driver_sql("SET LOCAL plan_cache_mode = force_custom_plan")
            tally = await self._tally(conn, game, bots, listed, cached=now is None)
            start = _page_start(tally, skip)
            rows: Sequence[Any] = ()
            if start is not None:
                top, within = start
                ranked = (
                    select(
                        RatingRow.account_id,
                        RatingRow.points,
                        RatingRow.deviation,
                        RatingRow.games,
                        RatingRow.last_us,
                    )
                    .where(listed, RatingRow.points <= top)
                    .order_by(RatingRow.points.desc(), RatingRow.account_id.desc())
                    .limit(LEADERBOARD_PAGE)
                    .offset(within)
                    .subquery()
                )
                # the page first, then the names of its 50 accounts only
                named = (
                    select(ranked, AccountRow.name)
                    .join(AccountRow, AccountRow.account_id == ranked.c.account_id)
                    .order_by(ranked.c.points.desc(), ranked.c.account_id.desc())
                )
                rows = (await conn.execute(named)).all()
        entries = tuple(
            LeaderboardEntry(
                rank=skip + 1 + i,
                account_id=r.account_id,
                name=r.name,
                bot=bots,
                rating=r.points,
                deviation=r.deviation,
                games=r.games,
                last_played=r.last_us / 1_000_000,
            )
            for i, r in enumerate(rows)
        )
        total = sum(n for _, n in tally)
        return LeaderboardPage(game, bots, page, math.ceil(total / LEADERBOARD_PAGE), entries)

    async def _tally(
        self, conn: AsyncConnection, game: str, bots: bool, listed: Any, *, cached: bool
    ) -> tuple[tuple[int, int], ...]:
        """How many listed ratings of the board show each value, best first (reused for
        :attr:`count_ttl` seconds when ``cached``)."""
        key = (game, bots)
        kept = self._tallies.get(key) if cached else None
        if kept is not None and kept[0] > time.monotonic():
            return kept[1]
        counted = (
            select(RatingRow.points, func.count())
            .where(listed)
            .group_by(RatingRow.points)
            .order_by(RatingRow.points.desc())
        )
        tally = tuple((int(points), int(n)) for points, n in await conn.execute(counted))
        if cached:
            self._tallies[key] = (time.monotonic() + self.count_ttl, tally)
        return tally

    async def profile_ratings(self, account_id: str) -> tuple[GameRating, ...]:
        """``account_id``'s rating at each game it played rated, by game, each with the
        newest :data:`HISTORY_POINTS` points of its graph."""
        async with self.db.begin() as conn:
            rows = (
                await conn.execute(
                    select(
                        RatingRow.game,
                        *_MODEL_ROW_COLUMNS,
                        RatingRow.change,
                        RatingRow.last_us,
                    )
                    .where(RatingRow.account_id == account_id, RatingRow.games > 0)
                    .order_by(RatingRow.game)
                )
            ).all()
            out = []
            for game, mu, sigma, games, change, last_us in rows:
                points = (
                    await conn.execute(
                        select(
                            RatingPointRow.at_us, RatingPointRow.points, RatingPointRow.deviation
                        )
                        .where(RatingPointRow.account_id == account_id, RatingPointRow.game == game)
                        .order_by(RatingPointRow.at_us.desc(), RatingPointRow.game_id.desc())
                        .limit(HISTORY_POINTS)
                    )
                ).all()
                history = tuple(
                    RatingHistoryPoint(at / 1_000_000, rating, deviation)
                    for at, rating, deviation in reversed(points)
                )
                out.append(
                    GameRating(
                        game, _rating(mu, sigma, games), change, last_us / 1_000_000, history
                    )
                )
        return tuple(out)

    # -- the update, in the records' write transaction ----------------------------------

    async def update(
        self, conn: AsyncConnection, record: GameRecord, alive: Collection[str] | None
    ) -> dict[str, Rating]:
        """Rate ``record`` (a rated game just inserted) in its write's transaction
        ``conn``: the new ratings of its stored accounts and roles (none when the game
        has no contest, every Schafkopf deal thrown in).  ``alive``: the accounts that
        exist (``None``: all); a deleted one is rated as a newcomer and not stored."""
        if not record.contests:
            return {}
        try:
            seats = rated_seats(record, alive)
        except UnratedSeat as exc:
            self._log.error("game_not_rated", game_id=record.game_id, reason=str(exc))
            return {}
        game = record.game
        at_us = round(record.finished_at * 1_000_000)
        accounts = sorted(seats.stored)
        roles = sorted({role_key(game, r) for c in record.contests for r in c.roles if r})
        before: dict[str, Rating] = {}
        if accounts:  # claimed in key order: two writes never wait for each other in a circle
            claimed = await conn.execute(
                self._claim_rows,
                [self._row(a, game, Rating(), a in seats.bots, at_us, 0) for a in accounts],
            )
            before.update((key, _rating(mu, sigma, n)) for key, mu, sigma, n in claimed)
        if roles:
            claimed = await conn.execute(
                self._claim_roles,
                [{"game": game, "role": _role_of(k)[1], **_model(None)} for k in roles],
            )
            before.update((role_key(game, r), _rating(mu, sigma, n)) for r, mu, sigma, n in claimed)
        # a row just made is a newcomer's (or a role's start): absent to the model
        fresh = {k: r for k, r in before.items() if r.games > 0}
        fresh.update({c: fresh[k] for c, k in seats.copies.items() if k in fresh})
        try:
            new = rate_game(record.contests, game, seats.keys, fresh, seats.leavers)
        except RatingError as exc:
            self._log.error("game_not_rated", game_id=record.game_id, reason=str(exc))
            return {}
        stored = {k: r for k, r in new.items() if k in seats.stored}
        if stored:
            old = {k: fresh.get(k, Rating()).points for k in stored}
            await conn.execute(
                self._save_rows,
                [
                    self._row(k, game, r, k in seats.bots, at_us, r.points - old[k])
                    for k, r in sorted(stored.items())
                ],
            )
            await conn.execute(
                self._new_points,
                [
                    {
                        "account_id": k,
                        "game_id": record.game_id,
                        "game": game,
                        "at_us": at_us,
                        "points": r.points,
                        "deviation": r.deviation,
                    }
                    for k, r in sorted(stored.items())
                ],
            )
        played = {k: r for k, r in new.items() if k.startswith(ROLE_PREFIX)}
        if played:
            await conn.execute(
                self._save_roles,
                [
                    {"game": game, "role": _role_of(k)[1], **_model(r)}
                    for k, r in sorted(played.items())
                ],
            )
        return {**stored, **played}

    @staticmethod
    def _row(
        account: str, game: str, r: Rating, bot: bool, at_us: int, change: int
    ) -> dict[str, Any]:
        return {
            "account_id": account,
            "game": game,
            **_model(r),
            "points": r.points,
            "deviation": r.deviation,
            "provisional": r.provisional,
            "bot": bot,
            "last_us": at_us,
            "change": change,
        }


def _model(r: Rating | None) -> dict[str, Any]:
    """The model's columns of ``r`` (``None``: a placeholder row, read as absent)."""
    r = r or Rating()
    return {"mu": r.mu, "sigma": r.sigma, "games": r.games}
