"""The tables, declared once for SQLite and PostgreSQL (SQLAlchemy 2 typed mappings).

Migrations (``migrations/versions``) create exactly these; a test compares the two.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column
from sqlalchemy.sql.expression import false

NAMING = {
    "ix": "ix_%(table_name)s_%(column_0_name)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s",
    "pk": "pk_%(table_name)s",
}
"""Constraint names fixed here, not left to each database (migrations refer to them)."""


class Base(DeclarativeBase):
    """The declarative base of every table."""

    metadata = MetaData(naming_convention=NAMING)


class AccountRow(Base):
    """A registered player or bot.

    ``skeleton`` is what the name looks like (:func:`server.players.names.skeleton`):
    unique, so no second account can take ``Ann`` as ``ANN``, ``Аnn`` or ``Ａｎｎ``.
    A bot has no password (``password_hash`` is null): it signs in with API tokens.
    """

    __tablename__ = "accounts"

    account_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    name: Mapped[str] = mapped_column(String(64))
    skeleton: Mapped[str] = mapped_column(String(256), unique=True)
    password_hash: Mapped[str | None] = mapped_column(String(256), nullable=True)
    bot: Mapped[bool] = mapped_column(Boolean, default=False)
    owner_id: Mapped[str | None] = mapped_column(
        String(32), ForeignKey("accounts.account_id", ondelete="CASCADE"), nullable=True
    )
    """For a bot: the human account that made it (and may make and revoke its tokens)."""
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    password_changed_at: Mapped[datetime | None] = mapped_column(
        DateTime(timezone=True), nullable=True
    )


class ApiTokenRow(Base):
    """An API token of a bot account; only its SHA-256 is kept (the token is shown once)."""

    __tablename__ = "api_tokens"

    token_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    account_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("accounts.account_id", ondelete="CASCADE"), index=True
    )
    digest: Mapped[str] = mapped_column(String(64), unique=True)
    label: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    uses: Mapped[int] = mapped_column(Integer, default=0)


class GameRecordRow(Base):
    """A finished game, written once by its table's owner (issue 54, game records).

    ``game_id`` is the table id and the game's number (stable across processes), so
    a table rebuilt elsewhere that finishes the same game again stores nothing new.
    ``options`` are the table's options (the game's own among them), ``log`` the
    actions as the table logged them: with ``seed`` they rebuild every state
    (:mod:`server.tables.replay`).  The seed is written only here, once the game
    is over: until then it is the deal's secret.  Times are microseconds since
    the epoch (UTC): one integer orders and pages alike on every backend.
    """

    __tablename__ = "game_records"

    game_id: Mapped[str] = mapped_column(String(80), primary_key=True)
    table_id: Mapped[str] = mapped_column(String(64))
    game_no: Mapped[int] = mapped_column(Integer)
    game: Mapped[str] = mapped_column(String(32))
    private: Mapped[bool] = mapped_column(Boolean)
    options: Mapped[dict[str, Any]] = mapped_column(JSON)
    seed: Mapped[int] = mapped_column(BigInteger)
    log: Mapped[list[Any]] = mapped_column(JSON)
    result: Mapped[dict[str, Any]] = mapped_column(JSON)
    finished_us: Mapped[int] = mapped_column(BigInteger)
    rated: Mapped[bool] = mapped_column(Boolean, server_default=false())
    """The game changed its players' ratings (issue 55), in the transaction that stored it."""


class GameSeatRow(Base):
    """One seat of a stored game: its account (null: anonymous, the AI, or deleted),
    the name shown then, its kind (``human``, ``bot``, ``ai``) and its result.

    ``game`` and ``finished_us`` repeat the game's, so that an account's history
    (newest first, by game or not) is one range of an index.
    """

    __tablename__ = "game_seats"
    __table_args__ = (
        Index("ix_game_seats_history", "account_id", "finished_us", "game_id", "seat"),
        Index("ix_game_seats_history_game", "account_id", "game", "finished_us", "game_id", "seat"),
    )

    game_id: Mapped[str] = mapped_column(
        String(80), ForeignKey("game_records.game_id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    account_id: Mapped[str | None] = mapped_column(
        String(32), ForeignKey("accounts.account_id", ondelete="SET NULL"), nullable=True
    )
    name: Mapped[str | None] = mapped_column(String(64), nullable=True)
    kind: Mapped[str] = mapped_column(String(8))
    level: Mapped[str | None] = mapped_column(String(32), nullable=True)
    left: Mapped[bool] = mapped_column(Boolean)
    score: Mapped[int] = mapped_column(BigInteger)
    won: Mapped[bool] = mapped_column(Boolean)
    game: Mapped[str] = mapped_column(String(32))
    finished_us: Mapped[int] = mapped_column(BigInteger)


class ProfileCountRow(Base):
    """Games played and won by one account at one game: updated in the transaction that
    stores each game, so a profile is read from a handful of rows, not counted."""

    __tablename__ = "profile_counts"

    account_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("accounts.account_id", ondelete="CASCADE"), primary_key=True
    )
    game: Mapped[str] = mapped_column(String(32), primary_key=True)
    played: Mapped[int] = mapped_column(Integer)
    won: Mapped[int] = mapped_column(Integer)


class RelationRow(Base):
    """One account muting or blocking another (``kind``: ``mute`` or ``block``).

    Kept with the account, so a player's lists follow them to every device and
    process; deleting either account deletes the row.
    """

    __tablename__ = "relations"

    account_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("accounts.account_id", ondelete="CASCADE"), primary_key=True
    )
    other_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("accounts.account_id", ondelete="CASCADE"), primary_key=True
    )
    kind: Mapped[str] = mapped_column(String(8), primary_key=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class ReportRow(Base):
    """A player's report about another, for an operator (``cardavia-admin reports``).

    Names and ids are copied, not referenced: a report outlives the accounts and
    sessions it is about.  ``chat`` is the table's recent chat as JSON; ``table_id``
    and ``game_no`` say which game (its replay) the report is about.
    """

    __tablename__ = "reports"

    report_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
    reporter_player: Mapped[str] = mapped_column(String(32))
    reporter_account: Mapped[str | None] = mapped_column(String(32), nullable=True)
    reporter_name: Mapped[str] = mapped_column(String(64))
    target_player: Mapped[str] = mapped_column(String(32))
    target_account: Mapped[str | None] = mapped_column(String(32), nullable=True)
    target_name: Mapped[str] = mapped_column(String(64))
    table_id: Mapped[str | None] = mapped_column(String(64), nullable=True)
    game_no: Mapped[int | None] = mapped_column(Integer, nullable=True)
    reason: Mapped[str] = mapped_column(String(500))
    chat: Mapped[str] = mapped_column(Text)


class BanRow(Base):
    """An operator's ban of an account or of an address (a network, in CIDR notation)
    until ``until``; ``lifted_at`` is set when an operator lifts it early."""

    __tablename__ = "bans"

    ban_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    account_id: Mapped[str | None] = mapped_column(String(32), nullable=True, index=True)
    account_name: Mapped[str | None] = mapped_column(String(64), nullable=True)
    address: Mapped[str | None] = mapped_column(String(64), nullable=True)
    until: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    reason: Mapped[str] = mapped_column(String(500))
    banned_by: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    lifted_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    lifted_by: Mapped[str | None] = mapped_column(String(64), nullable=True)


class RatingRow(Base):
    """One account's rating at one game (issue 55), changed only in the transaction that
    stores a rated game (:mod:`server.ratings.store`).

    ``mu``, ``sigma`` and ``games`` are the model's (:class:`server.ratings.model.Rating`);
    ``points``, ``deviation`` and ``provisional`` repeat what they show, and ``bot``
    whether the account is a bot or an AI level, so that a leaderboard page (people
    or bots, listed ratings, best first) is one range of ``ix_ratings_leaderboard``
    and needs no row of its own read until its entries are named.  ``last_us`` is
    the last rated game (microseconds since the epoch), ``change`` what it did to
    ``points``.
    """

    __tablename__ = "ratings"
    __table_args__ = (
        Index(
            "ix_ratings_leaderboard",
            "game",
            "bot",
            "provisional",
            "points",
            "account_id",
            "last_us",
        ),
    )

    account_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("accounts.account_id", ondelete="CASCADE"), primary_key=True
    )
    game: Mapped[str] = mapped_column(String(32), primary_key=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer)
    points: Mapped[int] = mapped_column(Integer)
    deviation: Mapped[int] = mapped_column(Integer)
    provisional: Mapped[bool] = mapped_column(Boolean)
    bot: Mapped[bool] = mapped_column(Boolean)
    last_us: Mapped[int] = mapped_column(BigInteger)
    change: Mapped[int] = mapped_column(Integer)


class RatingPointRow(Base):
    """An account's rating after one rated game: a point of its profile's graph.

    Keyed by account and stored game (one point a game, written with the game); the
    graph reads an account's newest points at one game from ``ix_rating_points_graph``.
    """

    __tablename__ = "rating_points"
    __table_args__ = (Index("ix_rating_points_graph", "account_id", "game", "at_us"),)

    account_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("accounts.account_id", ondelete="CASCADE"), primary_key=True
    )
    game_id: Mapped[str] = mapped_column(String(80), primary_key=True)
    game: Mapped[str] = mapped_column(String(32))
    at_us: Mapped[int] = mapped_column(BigInteger)
    points: Mapped[int] = mapped_column(Integer)
    deviation: Mapped[int] = mapped_column(Integer)


class RoleRatingRow(Base):
    """The rating of a role at one game (the landlord; a Schafkopf contract): the
    pseudo-player that learns the edge of an unequal side (:mod:`server.ratings.model`)."""

    __tablename__ = "role_ratings"

    game: Mapped[str] = mapped_column(String(32), primary_key=True)
    role: Mapped[str] = mapped_column(String(32), primary_key=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer)


class ServerSecretRow(Base):
    """A secret every process of a deployment shares, made once by the first that needs
    it (issue 56: the duplicate boards' seed key, unless the configuration gives one)."""

    __tablename__ = "server_secrets"

    name: Mapped[str] = mapped_column(String(32), primary_key=True)
    value: Mapped[str] = mapped_column(String(128))


class DuplicateSetRow(Base):
    """A duplicate set (issue 56, :mod:`server.duplicate.boards`): its seeds are not
    stored; they derive from the server's secret and the set's id."""

    __tablename__ = "duplicate_sets"
    __table_args__ = (Index("ix_duplicate_sets_closes_at", "closes_at"),)

    set_id: Mapped[str] = mapped_column(String(40), primary_key=True)
    game: Mapped[str] = mapped_column(String(32))
    kind: Mapped[str] = mapped_column(String(16))
    level: Mapped[str] = mapped_column(String(16))
    seat: Mapped[int] = mapped_column(Integer)
    boards: Mapped[int] = mapped_column(Integer)
    opens_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    closes_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    creator: Mapped[str | None] = mapped_column(
        String(32), ForeignKey("accounts.account_id", ondelete="SET NULL"), nullable=True
    )


class DuplicateResultRow(Base):
    """One finished board of a set by one account, written once (the key makes a second
    write of the same board a no-op).  ``record_id`` names the stored game, the replay
    others see once they have played the board."""

    __tablename__ = "duplicate_results"

    set_id: Mapped[str] = mapped_column(
        String(40), ForeignKey("duplicate_sets.set_id", ondelete="CASCADE"), primary_key=True
    )
    board: Mapped[int] = mapped_column(Integer, primary_key=True)
    account_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("accounts.account_id", ondelete="CASCADE"), primary_key=True
    )
    score: Mapped[int] = mapped_column(Integer)
    record_id: Mapped[str | None] = mapped_column(String(80), nullable=True)
    finished_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class TournamentRow(Base):
    """A tournament (issue 56): what it plays, when, and how far it is.

    ``round`` is the last round paired (0: none yet); pairing a round and storing
    its tables is one transaction that moves ``round`` on from the value read, so a
    director that took over can neither lose a round nor pair it twice.
    ``secret`` derives a Duplicate Swiss round's deal seed: it never leaves the
    server.  Times are microseconds since the epoch (UTC).
    """

    __tablename__ = "tournaments"

    tournament_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    name: Mapped[str] = mapped_column(String(64))
    game: Mapped[str] = mapped_column(String(32))
    kind: Mapped[str] = mapped_column(String(16))
    status: Mapped[str] = mapped_column(String(16), index=True)
    starts_us: Mapped[int] = mapped_column(BigInteger)
    rounds: Mapped[int | None] = mapped_column(Integer, nullable=True)
    duration_s: Mapped[int | None] = mapped_column(Integer, nullable=True)
    turn_timer: Mapped[float | None] = mapped_column(Float, nullable=True)
    level: Mapped[str] = mapped_column(String(16))
    options: Mapped[dict[str, Any]] = mapped_column(JSON)
    secret: Mapped[str] = mapped_column(String(64))
    created_by: Mapped[str | None] = mapped_column(
        String(32), ForeignKey("accounts.account_id", ondelete="SET NULL"), nullable=True
    )
    created_us: Mapped[int] = mapped_column(BigInteger)
    round: Mapped[int] = mapped_column(Integer)
    finished_us: Mapped[int | None] = mapped_column(BigInteger, nullable=True)


class TournamentEntryRow(Base):
    """A player registered in a tournament; ``withdrawn`` keeps their games in the
    standings and leaves them out of the next pairings."""

    __tablename__ = "tournament_entries"

    tournament_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("tournaments.tournament_id", ondelete="CASCADE"), primary_key=True
    )
    account_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("accounts.account_id", ondelete="CASCADE"), primary_key=True
    )
    name: Mapped[str] = mapped_column(String(64))
    entry_no: Mapped[int] = mapped_column(Integer)
    withdrawn: Mapped[bool] = mapped_column(Boolean)


class TournamentTableRow(Base):
    """A table of a tournament round (an arena's tables count up in ``round`` 0 by
    ``number``): its derived table id, its people in seat order (null: an AI seat)
    and, once its game is stored, its results."""

    __tablename__ = "tournament_tables"

    tournament_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("tournaments.tournament_id", ondelete="CASCADE"), primary_key=True
    )
    round: Mapped[int] = mapped_column(Integer, primary_key=True)
    number: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[str] = mapped_column(String(64), unique=True)
    seats: Mapped[list[Any]] = mapped_column(JSON)
    created_us: Mapped[int] = mapped_column(BigInteger)
    results: Mapped[list[Any] | None] = mapped_column(JSON(none_as_null=True), nullable=True)
    """Per seat ``[won, score, present]`` from the game record (``present`` false: the AI
    played the seat of a person who never came: it counts for nobody); null: playing."""


class TeamMatchRow(Base):
    """A team duplicate match (issue 56, :mod:`server.duplicate.teams`).

    ``status`` is ``forming``, ``playing`` or ``finished``; ``imps_a``/``imps_b`` and
    ``boards_done`` move in the game write that stores a board's last table
    (:func:`server.duplicate.team_store.record_table`), once, so the total is never
    counted twice.  The boards' seeds derive from the server's secret and the id."""

    __tablename__ = "team_matches"
    __table_args__ = (Index("ix_team_matches_status", "status"),)

    match_id: Mapped[str] = mapped_column(String(40), primary_key=True)
    game: Mapped[str] = mapped_column(String(32))
    level: Mapped[str] = mapped_column(String(16))
    boards: Mapped[int] = mapped_column(Integer)
    private: Mapped[bool] = mapped_column(Boolean)
    auto_start: Mapped[bool] = mapped_column(Boolean)
    status: Mapped[str] = mapped_column(String(16))
    creator: Mapped[str | None] = mapped_column(
        String(32), ForeignKey("accounts.account_id", ondelete="SET NULL"), nullable=True
    )
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    started_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    """When it started (migration 0008): its absent members are waited for from then."""
    imps_a: Mapped[int] = mapped_column(Integer)
    imps_b: Mapped[int] = mapped_column(Integer)
    boards_done: Mapped[int] = mapped_column(Integer)


class TeamMemberRow(Base):
    """A member of a team match's roster: team ``a``/``b`` and member slot (the seats
    it holds follow from :func:`server.duplicate.teams.layout`); one slot a person."""

    __tablename__ = "team_match_members"
    __table_args__ = (
        UniqueConstraint("match_id", "account_id", name="uq_team_match_members_account"),
    )

    match_id: Mapped[str] = mapped_column(
        String(40), ForeignKey("team_matches.match_id", ondelete="CASCADE"), primary_key=True
    )
    team: Mapped[str] = mapped_column(String(1), primary_key=True)
    slot: Mapped[int] = mapped_column(Integer, primary_key=True)
    account_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("accounts.account_id", ondelete="CASCADE")
    )


class TeamTableRow(Base):
    """A match table of one board, claimed by the process that makes it live (the key
    makes a second claim a no-op, so no board's table is made twice in a cluster).
    ``claimed_at``: a table that closed before its game began is made again by the
    one caller that moves an old claim on (:meth:`server.duplicate.team_store.
    TeamStore.reclaim`)."""

    __tablename__ = "team_match_tables"

    match_id: Mapped[str] = mapped_column(
        String(40), ForeignKey("team_matches.match_id", ondelete="CASCADE"), primary_key=True
    )
    board: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_no: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[str] = mapped_column(String(64))
    claimed_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class TeamResultRow(Base):
    """One board's result at one match table, written in the game's own write (once:
    the key makes a repeated write a no-op); ``scores`` per seat, ``record_id`` the
    stored game (the replay members see once their own table has played the board)."""

    __tablename__ = "team_match_results"

    match_id: Mapped[str] = mapped_column(
        String(40), ForeignKey("team_matches.match_id", ondelete="CASCADE"), primary_key=True
    )
    board: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_no: Mapped[int] = mapped_column(Integer, primary_key=True)
    scores: Mapped[list[Any]] = mapped_column(JSON)
    record_id: Mapped[str] = mapped_column(String(80))
    finished_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
