"""Messages the server sends.

Replies to a request carry ``ref`` (the request's ``id``); pushed messages
(``update``, ``snapshot``, ``table``, ``game_over``, ``chat``, ``shutdown``,
``table_closed``) have no ``ref``.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from protocol.base import Model, RequestId, Seat, TableId
from protocol.errors import ErrorCode
from protocol.models import SeatInfo, TableInfo

Ref = RequestId | None
ActedBy = Literal["human", "ai", "timer"]


class Welcome(Model):
    """The session is open: keep ``token`` secret and send it to resume.

    ``resumed`` is true when a ``hello`` with a token re-attached an old
    session; ``tables`` lists the tables the player is at (a ``snapshot`` of
    each follows); ``features`` the optional features of the ``hello`` this
    connection has (:data:`protocol.base.FEATURES`).
    """

    type: Literal["welcome"] = "welcome"
    ref: Ref = None
    version: int
    player_id: str
    name: str
    token: str
    resumed: bool = False
    tables: tuple[TableId, ...] = ()
    features: tuple[str, ...] = ()


ReasonParam = str | int | list[str]
"""A reason's parameter: a code or name, a number, or several codes (engine.reasons)."""


class Reason(Model):
    """Why the rules refuse a move, in no one language (``engine.reasons``): ``key`` is
    one of ``engine.reasons.Why``, ``params`` the cards, suit or numbers it names."""

    key: Annotated[str, Field(min_length=1, max_length=64)]
    params: dict[Annotated[str, Field(max_length=32)], ReasonParam] = Field(default_factory=dict)


class Error(Model):
    """A refused request: nothing changed.  ``ref`` names it; ``detail`` may
    hold the engine's reason code (e.g. ``must_capture``) for ``illegal_action``;
    ``reason`` (only for a client that asked for the ``reasons`` feature) says
    why as data, for the client to say in its player's language."""

    type: Literal["error"] = "error"
    ref: Ref = None
    code: ErrorCode
    message: str
    detail: str | None = None
    table: TableId | None = None
    reason: Reason | None = None


class Ok(Model):
    """A request without a result of its own succeeded."""

    type: Literal["ok"] = "ok"
    ref: Ref = None


class Pong(Model):
    """The answer to ``ping``."""

    type: Literal["pong"] = "pong"
    ref: Ref = None


class GameInfo(Model):
    """A game this server serves: seats with the default options, AI levels
    weakest first, and the default game options."""

    id: str
    title: str
    seats: int
    levels: tuple[str, ...]
    options: dict[str, Any]


class Games(Model):
    """The answer to ``list_games``."""

    type: Literal["games"] = "games"
    ref: Ref = None
    games: tuple[GameInfo, ...]


class Tables(Model):
    """The answer to ``list_tables``."""

    type: Literal["tables"] = "tables"
    ref: Ref = None
    tables: tuple[TableInfo, ...]


class Joined(Model):
    """The player is at ``table``: at ``seat``, or watching when ``seat`` is ``None``.

    ``invite`` is the code others need to join a private table.
    """

    type: Literal["joined"] = "joined"
    ref: Ref = None
    table: TableInfo
    seat: Seat | None
    invite: str | None = None


class Left(Model):
    """The player left ``table``."""

    type: Literal["left"] = "left"
    ref: Ref = None
    table: TableId


class TableChanged(Model):
    """Pushed to everybody at a table when its seats or status change."""

    type: Literal["table"] = "table"
    table: TableInfo


class Update(Model):
    """After each applied action (and at the start of a game), to each seat and spectator.

    ``seat`` is the recipient's seat (``None``: spectator); ``actor`` the seat
    that acted (``None`` at the start of a game) and ``by`` who chose the move;
    ``events`` are only those the recipient may see, each
    ``{"kind": ..., "data": {...}}``; ``view`` is the recipient's full view
    after the action (with the ``view_changes`` feature, only its fields that
    changed since the last view sent to that connection in the same game).
    ``timer_s`` is the time left on the turn timer, if any.

    With the ``update_ref`` feature, ``ref`` on the mover's update answers its
    ``act`` (no ``ok`` follows).
    """

    type: Literal["update"] = "update"
    table: TableId
    game_no: int
    version: int
    seat: Seat | None
    actor: Seat | None = None
    by: ActedBy | None = None
    events: tuple[dict[str, Any], ...] = ()
    view: dict[str, Any]
    timer_s: float | None = None
    ref: Ref = None


class Snapshot(Model):
    """The full view of a running or finished game: on joining, watching or reconnecting."""

    type: Literal["snapshot"] = "snapshot"
    table: TableId
    game_no: int
    version: int
    seat: Seat | None
    view: dict[str, Any]
    timer_s: float | None = None


class GameOver(Model):
    """The game ended: ``result`` holds ``scores`` per seat, ``winners`` and a ``summary``.

    A ``get_replay`` now shows every card; ``rematch`` votes for another game.
    """

    type: Literal["game_over"] = "game_over"
    table: TableId
    game_no: int
    version: int
    result: dict[str, Any]


class ChatLine(Model):
    """A chat line at ``table`` (``seat`` ``None``: from a spectator)."""

    type: Literal["chat"] = "chat"
    table: TableId
    player_id: str
    name: str
    seat: Seat | None
    text: str
    bot: bool = False
    """Said by a bot account (clients show it as a bot)."""


class ReplayStep(Model):
    """One applied action with every event it produced, whatever its audience."""

    seat: Seat
    by: ActedBy
    action: dict[str, Any]
    events: tuple[dict[str, Any], ...]


class Replay(Model):
    """A finished game in full: every action, every event of every audience, every card.

    ``start_events`` reveal the opening deal (each hand), the steps' events
    everything dealt later; ``final`` lists where each card lay at the end
    (the game's card zones).  The deal seed never leaves the server, not even
    here: a seed could reveal more than the finished game showed.
    """

    type: Literal["replay"] = "replay"
    ref: Ref = None
    table: TableId
    game: str
    game_no: int
    options: dict[str, Any]
    seats: tuple[SeatInfo, ...]
    start_events: tuple[dict[str, Any], ...]
    steps: tuple[ReplayStep, ...]
    final: dict[str, Any]
    result: dict[str, Any]


class HintReply(Model):
    """The answer to ``hint``: the move the strongest policy (``level``) picks for
    ``seat`` from that seat's view at ``version``; ``index`` is its place in the
    view's ``legal``, ``action`` the move itself (send it back in ``act``)."""

    type: Literal["hint"] = "hint"
    ref: Ref = None
    table: TableId
    seat: Seat
    version: Annotated[int, Field(ge=0)]
    index: Annotated[int, Field(ge=0)]
    action: dict[str, Any]
    level: str


class Account(Model):
    """The answer to ``register`` and ``login``: this session is now the account's
    (``bot``: a bot account, shown as a bot wherever its name is)."""

    type: Literal["account"] = "account"
    ref: Ref = None
    account_id: str
    name: str
    bot: bool = False


class Bot(Model):
    """The answer to ``create_bot``: the new bot account (it has no token yet)."""

    type: Literal["bot"] = "bot"
    ref: Ref = None
    account_id: str
    name: str


class TokenInfo(Model):
    """An API token as listed: its id and label, never the token."""

    token_id: str
    label: str


class BotInfo(Model):
    """A bot account and its live API tokens."""

    account_id: str
    name: str
    tokens: tuple[TokenInfo, ...]


class Bots(Model):
    """The answer to ``list_bots``."""

    type: Literal["bots"] = "bots"
    ref: Ref = None
    bots: tuple[BotInfo, ...]


class ApiToken(Model):
    """The answer to ``create_api_token``: ``token`` is shown this once (the server keeps
    only its digest); a bot logs in with it (``bot_login``)."""

    type: Literal["api_token"] = "api_token"
    ref: Ref = None
    token_id: str
    bot: str
    label: str
    token: str = Field(repr=False)


class RelatedPlayer(Model):
    """A muted or blocked player: the key the server keeps (an account id, or for an
    anonymous player their player id) and the name last known."""

    player: str
    name: str


class Relations(Model):
    """The answer to ``list_relations``: whom the session mutes and blocks."""

    type: Literal["relations"] = "relations"
    ref: Ref = None
    muted: tuple[RelatedPlayer, ...] = ()
    blocked: tuple[RelatedPlayer, ...] = ()
    kept: bool
    """True when the lists are kept with the account; false: for this session only."""


class Reported(Model):
    """The answer to ``report``: it is stored for the operators."""

    type: Literal["reported"] = "reported"
    ref: Ref = None
    report_id: str


class Kicked(Model):
    """Pushed to a player the table's owner removed from ``table`` (they may not
    come back to it)."""

    type: Literal["kicked"] = "kicked"
    table: TableId
    reason: str


StoredSeatKind = Literal["human", "bot", "ai"]


class StoredSeat(Model):
    """A seat of a stored game: who sat there then (``deleted player`` once that account
    is gone), ``level`` for the AI, ``left`` for a human the AI replaced mid-game."""

    seat: Seat
    kind: StoredSeatKind
    name: str | None = None
    level: str | None = None
    left: bool = False
    score: int
    won: bool


class HistoryGame(Model):
    """One stored game of an account's history; ``seat`` is the account's own."""

    game_id: str
    game: str
    finished_at: float
    private: bool
    seat: Seat
    seats: tuple[StoredSeat, ...]


class HistoryPage(Model):
    """The answer to ``history``: games newest first; ``cursor`` fetches the next page
    (``None``: this was the last)."""

    type: Literal["history"] = "history"
    ref: Ref = None
    games: tuple[HistoryGame, ...]
    cursor: str | None = None


class ProfileGame(Model):
    """Games of one kind an account played and won."""

    game: str
    played: int
    won: int


class RatingPoint(Model):
    """A rating after one rated game (seconds since the epoch): a point of its graph."""

    at: float
    rating: int
    deviation: int


class ProfileRating(Model):
    """An account's rating at one game, as shown: ``rating`` ± ``deviation`` (``1612 ±
    94``; ``provisional``: shown with ``?``), the rated games it rests on, the change
    of the last one, and its history (oldest first, the last points only)."""

    game: str
    rating: int
    deviation: int
    provisional: bool
    games: int
    change: int
    history: tuple[RatingPoint, ...] = ()


class Profile(Model):
    """The answer to ``profile``: an account's name, since when it exists (seconds since
    the epoch), its stored games per game and its ratings."""

    type: Literal["profile"] = "profile"
    ref: Ref = None
    name: str
    bot: bool = False
    member_since: float
    games: tuple[ProfileGame, ...]
    ratings: tuple[ProfileRating, ...] = ()


class LeaderboardEntry(Model):
    """One listed account: its place, name, rating as shown, rated games, last rated
    game (seconds since the epoch)."""

    rank: int
    name: str
    bot: bool
    rating: int
    deviation: int
    games: int
    last_played: float


class Leaderboard(Model):
    """The answer to ``leaderboard``: a page of ``game``'s people (or bots), best first;
    ``pages`` is how many there are now."""

    type: Literal["leaderboard"] = "leaderboard"
    ref: Ref = None
    game: str
    bots: bool
    page: int
    pages: int
    entries: tuple[LeaderboardEntry, ...]


class TournamentInfo(Model):
    """A tournament as listed: ``status`` ``scheduled``, ``running`` or ``finished``;
    ``round`` the last round paired (an arena: its pairings so far); ``players`` those
    registered and not withdrawn; ``registered`` whether the asking player is."""

    id: str
    name: str
    game: str
    kind: str
    status: str
    starts_at: float
    rounds: int | None
    duration: int | None
    turn_timer: float | None
    level: str
    round: int
    players: int
    registered: bool = False


class Tournaments(Model):
    """The answer to ``list_tournaments`` and ``create_tournament``."""

    type: Literal["tournaments"] = "tournaments"
    ref: Ref = None
    tournaments: tuple[TournamentInfo, ...]


class StandingLine(Model):
    """One line of a tournament's standings (``docs/tournaments.md``, "Standings")."""

    rank: int
    name: str
    points: float
    buchholz: float
    head_to_head: float
    game_score: int
    games: int
    withdrawn: bool
    matchpoints: int | None = None
    """Duplicate Swiss only: the cross-table matchpoints, which rank first there."""


class Standings(Model):
    """The answer to ``standings``: the tournament and its standings, best first."""

    type: Literal["standings"] = "standings"
    ref: Ref = None
    tournament: TournamentInfo
    standings: tuple[StandingLine, ...]


class TournamentTable(Model):
    """The player's table in a tournament round: pushed (``ref`` null) when a round
    starts with the player's table, just before they are seated there; the answer to
    ``next_tournament_table`` (``table`` null: none waits for them now)."""

    type: Literal["tournament_table"] = "tournament_table"
    ref: Ref = None
    tournament: str
    round: int
    table: str | None
    seat: int | None = None


class Queued(Model):
    """The answer to a rated ``quick_play``, and pushed again (``ref`` null) when a queued
    session resumes: the player waits in ``game``'s rated queue since ``since`` (seconds
    since the epoch) at ``rating``; within ``wait`` seconds of ``since`` the queue seats
    them (``joined``), with the AI level of the closest rating in the seats nobody of
    close rating took. ``with_bots``: bot accounts may be seated with them."""

    type: Literal["queued"] = "queued"
    ref: Ref = None
    game: str
    since: float
    wait: float
    rating: int
    with_bots: bool = False


class GameRecord(Model):
    """The answer to ``get_game_record``: a stored game's replay, its seats as stored and
    its deal seed. Only finished games are stored, so the seed is shown only once the
    game is over; each game's seed is drawn afresh, so it tells nothing of another."""

    type: Literal["game_record"] = "game_record"
    ref: Ref = None
    game_id: str
    finished_at: float
    private: bool
    seed: int
    seats: tuple[StoredSeat, ...]
    replay: Replay


class DuplicateSetInfo(Model):
    """A duplicate set as listed (issue 56); times are seconds since the epoch (UTC).
    ``next_board``: the asker's next board (``None``: all played, or not logged in);
    ``seeds``: the boards' seeds, only once the set has closed (else empty)."""

    set_id: str
    game: str
    kind: Literal["daily", "on_demand"]
    level: str
    seat: Seat
    boards: int
    opens_at: float
    closes_at: float
    players: int
    next_board: int | None = None
    seeds: tuple[int, ...] = ()


class DuplicateSets(Model):
    """The answer to ``list_duplicate_sets`` and ``create_duplicate_set``."""

    type: Literal["duplicate_sets"] = "duplicate_sets"
    ref: Ref = None
    sets: tuple[DuplicateSetInfo, ...]


class DuplicateStanding(Model):
    """One player's line of a set's standings: matchpoints over the boards played (and
    their share of the tops in ``percent``) and cross-IMPs."""

    rank: int
    name: str
    boards: int
    matchpoints: int
    top: int
    percent: float
    imps: float


class DuplicateStandings(Model):
    """The answer to ``duplicate_standings``: live, as boards finish."""

    type: Literal["duplicate_standings"] = "duplicate_standings"
    ref: Ref = None
    set_id: str
    standings: tuple[DuplicateStanding, ...]


class DuplicateBoardResult(Model):
    """One player's result of a board: the score in the game's unit, its matchpoints
    (2 per result beaten, 1 per tie, of ``top``) and cross-IMPs."""

    name: str
    score: int
    matchpoints: int
    top: int
    imps: float


class DuplicateBoard(Model):
    """The answer to ``duplicate_board``: every result of the board and the replay of
    every other player's game of it (the asker has played it, or the set closed)."""

    type: Literal["duplicate_board"] = "duplicate_board"
    ref: Ref = None
    set_id: str
    board: int
    results: tuple[DuplicateBoardResult, ...]
    replays: tuple[Replay, ...]


class TeamMember(Model):
    """A roster slot of a team match: ``team`` ``a``/``b``, member ``slot``, the name."""

    team: Literal["a", "b"]
    slot: int
    name: str


class TeamTableResult(Model):
    """One table's result of a board: ``done`` once its game is stored; each team's
    total there (:func:`server.duplicate.teams.board_net`) only when the asker may see
    it (a member: once their own table finished the board)."""

    table: int
    done: bool
    a_total: int | None = None
    b_total: int | None = None


class TeamBoardLine(Model):
    """A board of a match: each table, and once every table has played it the net for
    team A and its IMPs (negative: team B won the board)."""

    board: int
    tables: tuple[TeamTableResult, ...]
    net: int | None = None
    imps: int | None = None


class TeamMatchInfo(Model):
    """A team match (issue 56). ``status``: ``forming`` (rosters open), ``playing``,
    ``finished``; ``imps_a``/``imps_b``: the IMPs each team won over the boards every
    table has played; ``my_team``/``my_slot``/``my_table``/``next_board``: the asker's
    place (``None``: not a member; ``next_board`` ``None``: none left)."""

    match_id: str
    game: str
    boards: int
    level: str
    private: bool
    status: Literal["forming", "playing", "finished"]
    creator: str | None
    team_size: int
    tables: int
    roster: tuple[TeamMember, ...]
    results: tuple[TeamBoardLine, ...] = ()
    imps_a: int = 0
    imps_b: int = 0
    my_team: Literal["a", "b"] | None = None
    my_slot: int | None = None
    my_table: int | None = None
    next_board: int | None = None


class TeamMatches(Model):
    """The answer to ``list_team_matches``: public matches forming or playing."""

    type: Literal["team_matches"] = "team_matches"
    ref: Ref = None
    matches: tuple[TeamMatchInfo, ...]


class TeamMatch(Model):
    """The answer to the team match requests (create, join, leave, start, get)."""

    type: Literal["team_match"] = "team_match"
    ref: Ref = None
    match: TeamMatchInfo


class TeamMatchTable(Model):
    """Pushed to a member when their next table of a match is ready to sit at
    (``play_team_match`` seats them): the match started, or their table's previous
    board was stored. ``board`` ``None``: the match is over."""

    type: Literal["team_match_table"] = "team_match_table"
    match_id: str
    board: int | None
    table: int | None = None
    seat: int | None = None


class TeamMatchBoard(Model):
    """The answer to ``team_match_board``: the board's line and the replays of the
    tables other than the asker's own."""

    type: Literal["team_match_board"] = "team_match_board"
    ref: Ref = None
    match_id: str
    line: TeamBoardLine
    replays: tuple[Replay, ...]


class TableClosed(Model):
    """The table is gone (everybody left, or the server shuts down)."""

    type: Literal["table_closed"] = "table_closed"
    table: TableId
    reason: str


class Shutdown(Model):
    """The server is stopping; the connection closes with code 1001 right after."""

    type: Literal["shutdown"] = "shutdown"
    reason: str


ServerMessage = Annotated[
    Welcome
    | Error
    | Ok
    | Pong
    | Games
    | Tables
    | Joined
    | Left
    | TableChanged
    | Update
    | Snapshot
    | GameOver
    | ChatLine
    | Replay
    | HintReply
    | TableClosed
    | Shutdown
    | Account
    | Bot
    | Bots
    | ApiToken
    | Relations
    | Reported
    | Kicked
    | HistoryPage
    | Profile
    | Leaderboard
    | Queued
    | GameRecord
    | DuplicateSets
    | DuplicateStandings
    | DuplicateBoard
    | Tournaments
    | Standings
    | TournamentTable
    | TeamMatches
    | TeamMatch
    | TeamMatchTable
    | TeamMatchBoard,
    Field(discriminator="type"),
]
"""Every message the server may send, told apart by ``type``."""

SERVER_MESSAGES: tuple[type[Model], ...] = (
    Welcome,
    Error,
    Ok,
    Pong,
    Games,
    Tables,
    Joined,
    Left,
    TableChanged,
    Update,
    Snapshot,
    GameOver,
    ChatLine,
    Replay,
    HintReply,
    TableClosed,
    Shutdown,
    Account,
    Bot,
    Bots,
    ApiToken,
    Relations,
    Reported,
    Kicked,
    HistoryPage,
    Profile,
    Leaderboard,
    Queued,
    GameRecord,
    DuplicateSets,
    DuplicateStandings,
    DuplicateBoard,
    Tournaments,
    Standings,
    TournamentTable,
    TeamMatches,
    TeamMatch,
    TeamMatchTable,
    TeamMatchBoard,
)
