"""The requests on stored games: ``history``, ``profile``, ``get_game_record``
(docs/protocol.md, "Game records"), and on the ratings kept with them: ``leaderboard``
and the ``ratings`` of a profile (docs/ratings.md).

All of them only read (:class:`~server.persist.db.records.GameRecords`); a bad
cursor or an unknown game is a typed error, and a database that cannot be
reached is ``store_unavailable``, as for the account requests.  Only finished
games are stored, so none of them can show a game in progress or its seed.
"""

from __future__ import annotations

from sqlalchemy.exc import DBAPIError

from engine.registry import GAMES
from protocol import client_messages as cm
from protocol.errors import ErrorCode
from protocol.models import SeatInfo, TableOptions
from protocol.server_messages import (
    GameRecord,
    HistoryGame,
    HistoryPage,
    Leaderboard,
    LeaderboardEntry,
    Profile,
    ProfileGame,
    ProfileRating,
    RatingPoint,
    StoredSeat,
)
from server.ops.logs import get_logger
from server.persist.db import game_record as stored
from server.persist.db import records as db
from server.players.sessions import Player
from server.ratings.store import GameRating
from server.tables.options import RequestError, check_options, game_named
from server.tables.replay import build_replay
from server.tables.values import FinishedGame

RECORD_REQUESTS = (cm.History, cm.GetProfile, cm.GetGameRecord, cm.GetLeaderboard)
"""The messages :func:`handle` answers."""

_log = get_logger(component="records")


def stored_seat(seat: stored.SeatRecord) -> StoredSeat:
    """A stored seat as the protocol shows it (never its account id)."""
    return StoredSeat(
        seat=seat.seat,
        kind=seat.kind.value,
        name=seat.name,
        level=seat.level,
        left=seat.left,
        score=seat.score,
        won=seat.won,
    )


def _seat_info(seat: stored.SeatRecord) -> SeatInfo:
    return SeatInfo(
        seat=seat.seat,
        kind="ai" if seat.kind is stored.SeatKind.AI else "human",
        name=seat.name,
        level=seat.level,
        bot=seat.kind is stored.SeatKind.BOT,
    )


def game_record_message(record: stored.GameRecord, ref: int | None) -> GameRecord:
    """The ``game_record`` message of a stored game: its replay rebuilt from options,
    seed and log (:func:`server.tables.replay.build_replay`)."""
    game = GAMES.get(record.game)
    if game is None:  # a game this server no longer offers
        raise RequestError(ErrorCode.UNKNOWN_GAME, f"{record.game} is not played here")
    setup = check_options(game, TableOptions.model_validate(record.options, strict=False))
    finished = FinishedGame(
        game_no=record.game_no,
        seed=record.seed,
        log=record.log,
        seats=tuple(_seat_info(s) for s in record.seats),
        result=record.result,
    )
    replay = build_replay(record.table_id, game, setup.game_options, finished)
    return GameRecord(
        ref=ref,
        game_id=record.game_id,
        finished_at=record.finished_at,
        private=record.private,
        seed=record.seed,
        seats=tuple(stored_seat(s) for s in record.seats),
        replay=replay,
    )


def profile_rating(rating: GameRating) -> ProfileRating:
    """One game's rating as a profile shows it (never the model's μ and σ themselves)."""
    return ProfileRating(
        game=rating.game,
        rating=rating.rating.points,
        deviation=rating.rating.deviation,
        provisional=rating.rating.provisional,
        games=rating.rating.games,
        change=rating.change,
        history=tuple(
            RatingPoint(at=p.at, rating=p.rating, deviation=p.deviation) for p in rating.history
        ),
    )


async def handle(records: db.GameRecords, player: Player, msg: object) -> None:
    """Answer one request on stored games; ``store_unavailable`` when the database
    cannot be reached."""
    try:
        await _handle(records, player, msg)
    except (DBAPIError, OSError) as exc:
        _log.warning("database_unavailable", type=type(msg).__name__, error=type(exc).__name__)
        raise RequestError(
            ErrorCode.STORE_UNAVAILABLE, "game records cannot be reached now; retry soon"
        ) from None


async def _handle(records: db.GameRecords, player: Player, msg: object) -> None:
    account = player.account
    if isinstance(msg, cm.History):
        if account is None:
            raise RequestError(ErrorCode.NOT_LOGGED_IN, "log in to see your games")
        if msg.game is not None:
            game_named(msg.game)
        page = await records.history(
            account.account_id, game=msg.game, cursor=msg.cursor, limit=msg.limit
        )
        games = tuple(
            HistoryGame(
                game_id=g.game_id,
                game=g.game,
                finished_at=g.finished_at,
                private=g.private,
                seat=g.seat,
                seats=tuple(stored_seat(s) for s in g.seats),
            )
            for g in page.games
        )
        player.send(HistoryPage(ref=msg.id, games=games, cursor=page.cursor))
    elif isinstance(msg, cm.GetProfile):
        if msg.name is None and account is None:
            raise RequestError(ErrorCode.NOT_LOGGED_IN, "log in, or name the account")
        if msg.name is None:
            assert account is not None
            found = await records.profile(account_id=account.account_id)
        else:
            found = await records.profile(name=msg.name)
        player.send(
            Profile(
                ref=msg.id,
                name=found.name,
                bot=found.bot,
                member_since=found.member_since,
                games=tuple(
                    ProfileGame(game=c.game, played=c.played, won=c.won) for c in found.games
                ),
                ratings=tuple(
                    profile_rating(r)
                    for r in await records.ratings.profile_ratings(found.account_id)
                ),
            )
        )
    elif isinstance(msg, cm.GetLeaderboard):
        game_named(msg.game)
        board = await records.ratings.leaderboard(msg.game, msg.page, bots=msg.bots)
        player.send(
            Leaderboard(
                ref=msg.id,
                game=board.game,
                bots=board.bots,
                page=board.page,
                pages=board.pages,
                entries=tuple(
                    LeaderboardEntry(
                        rank=e.rank,
                        name=e.name,
                        bot=e.bot,
                        rating=e.rating,
                        deviation=e.deviation,
                        games=e.games,
                        last_played=e.last_played,
                    )
                    for e in board.entries
                ),
            )
        )
    elif isinstance(msg, cm.GetGameRecord):
        record = await records.stored(msg.game_id, None if account is None else account.account_id)
        if record.options.get("duplicate") is not None:
            # its seed is the board's, secret until the set closes (issue 56)
            raise RequestError(
                ErrorCode.FORBIDDEN, "a duplicate board's games are shown by duplicate_board"
            )
        player.send(game_record_message(record, msg.id))
    else:  # pragma: no cover - the app passes only RECORD_REQUESTS here
        raise RequestError(ErrorCode.BAD_MESSAGE, "not a request on stored games")
