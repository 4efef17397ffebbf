"""Messages a client sends; ``id`` (optional) is echoed as ``ref`` in the reply.

Every request gets exactly one reply carrying ``ref``: its result message,
``ok``, or ``error``.  Requests without ``id`` get the same reply with
``ref: null``.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from protocol.base import Model, RequestId, Seat, TableId
from protocol.models import PolicyName, TableOptions

GameId = Annotated[str, Field(min_length=1, max_length=32)]
InviteCode = Annotated[str, Field(min_length=1, max_length=64)]


class Hello(Model):
    """Open a session (the first message), or resume one with ``token``."""

    type: Literal["hello"] = "hello"
    id: RequestId | None = None
    version: int
    name: Annotated[str, Field(max_length=256)]
    token: Annotated[str, Field(max_length=256)] | None = None
    features: Annotated[tuple[Annotated[str, Field(max_length=32)], ...], Field(max_length=16)] = ()
    """Optional protocol features the client handles (:data:`protocol.base.FEATURES`);
    the server turns on those it knows and lists them in ``welcome``."""


class ListTables(Model):
    """The tables in the lobby (public ones and those the player is at)."""

    type: Literal["list_tables"] = "list_tables"
    id: RequestId | None = None
    game: GameId | None = None


class ListGames(Model):
    """The games this server serves, with seat counts and AI levels."""

    type: Literal["list_games"] = "list_games"
    id: RequestId | None = None


class CreateTable(Model):
    """Create a table of ``game``; the creator sits at ``options.seat``."""

    type: Literal["create_table"] = "create_table"
    id: RequestId | None = None
    game: GameId
    options: TableOptions = TableOptions()


class JoinTable(Model):
    """Take ``seat`` (``None``: the first free seat) at a waiting table."""

    type: Literal["join_table"] = "join_table"
    id: RequestId | None = None
    table: TableId
    seat: Seat | None = None
    invite: InviteCode | None = None


class Spectate(Model):
    """Watch a table: the spectator view only."""

    type: Literal["spectate"] = "spectate"
    id: RequestId | None = None
    table: TableId
    invite: InviteCode | None = None


class Leave(Model):
    """Leave a table; a seat left during play is taken over by the AI."""

    type: Literal["leave"] = "leave"
    id: RequestId | None = None
    table: TableId


class QuickPlay(Model):
    """Join a waiting quick-play table of ``game`` or open one.

    If no other human arrives within the server's wait, the AI (``level``,
    ``None``: the strongest) takes the empty seats and play starts.
    """

    type: Literal["quick_play"] = "quick_play"
    id: RequestId | None = None
    game: GameId
    level: PolicyName | None = None
    partner: Annotated[str, Field(min_length=1, max_length=64)] | None = None
    """Sit opposite this player (in Cicera: as their partner) at their waiting
    quick-play table; when there is none, open one as usual."""
    rated: bool = False
    """Join the game's rated queue instead (a logged-in session only; ``level`` and
    ``partner`` must be left out): answered by ``queued``, then ``joined`` once the
    queue seats the player at a rated table with players of close rating, or with
    the AI level of the closest rating after the documented wait
    (``docs/ratings.md``, "Rated quick play")."""
    with_bots: bool = False
    """In the rated queue: may be seated with bot accounts (people who leave it false
    never are; AI levels fill seats either way)."""


class LeaveQueue(Model):
    """Leave the rated queue (``game``: only if queued for that game). Answered by ``ok``;
    ``not_queued`` when the session is not queued (or already being seated)."""

    type: Literal["leave_queue"] = "leave_queue"
    id: RequestId | None = None
    game: GameId | None = None


class Start(Model):
    """The table's owner starts a waiting table now: the AI takes the empty seats."""

    type: Literal["start"] = "start"
    id: RequestId | None = None
    table: TableId


class Act(Model):
    """Play ``action`` for ``seat`` at table ``version`` (as last received).

    ``action`` is plain data as the engine encodes it, normally one of the
    ``legal`` entries of the seat's view (e.g. ``{"type": "play", "card": "7D",
    "capture": ["3S", "4C"]}``).
    """

    type: Literal["act"] = "act"
    id: RequestId | None = None
    table: TableId
    seat: Seat
    version: Annotated[int, Field(ge=0)]
    action: dict[str, Any]


class Chat(Model):
    """Say something at a table (seated players and spectators)."""

    type: Literal["chat"] = "chat"
    id: RequestId | None = None
    table: TableId
    text: Annotated[str, Field(min_length=1, max_length=2000)]


class Rematch(Model):
    """Vote for another game at a finished table; it starts once every human agrees."""

    type: Literal["rematch"] = "rematch"
    id: RequestId | None = None
    table: TableId


class GetReplay(Model):
    """The replay of a finished game, every card shown (``game_no`` ``None``: the last)."""

    type: Literal["get_replay"] = "get_replay"
    id: RequestId | None = None
    table: TableId
    game_no: Annotated[int, Field(ge=0)] | None = None


class Hint(Model):
    """The strongest AI's move for the sender's own seat, from that seat's view only
    (as the terminal's ``hint``); answered by ``hint``. Refused at a table created
    with ``hints`` off, to a spectator, and when it is not the seat's turn."""

    type: Literal["hint"] = "hint"
    id: RequestId | None = None
    table: TableId


AccountName = Annotated[str, Field(min_length=1, max_length=256)]
"""A name as typed; the server normalises and checks it (server.players.names)."""
Password = Annotated[str, Field(min_length=1, max_length=1024, repr=False)]
"""A password as typed (its length rules: server.players.accounts); never shown in a repr."""


class Register(Model):
    """Create an account named ``name`` and log this session in to it.

    Answered by ``account``.  The session must be at no table (its name changes).
    """

    type: Literal["register"] = "register"
    id: RequestId | None = None
    name: AccountName
    password: Password


class Login(Model):
    """Log this session in to the account ``name``; answered by ``account``.

    A wrong password and an unknown name get the same ``bad_credentials``; after
    failures the name and the address must wait (``login_throttled``).
    """

    type: Literal["login"] = "login"
    id: RequestId | None = None
    name: AccountName
    password: Password


class Logout(Model):
    """End this session (its token stops working); answered by ``ok``, then the
    connection closes (1000) and the client may say ``hello`` again, anonymously."""

    type: Literal["logout"] = "logout"
    id: RequestId | None = None


class ChangePassword(Model):
    """Change the logged-in account's password (the current one is asked again)."""

    type: Literal["change_password"] = "change_password"
    id: RequestId | None = None
    password: Password
    new_password: Password


class DeleteAccount(Model):
    """Delete the logged-in account for good (with its bots), then as ``logout``."""

    type: Literal["delete_account"] = "delete_account"
    id: RequestId | None = None
    password: Password


class CreateBot(Model):
    """Create a bot account named ``name``, owned by the logged-in (human) account;
    answered by ``bot``. A bot has no password: it logs in with API tokens."""

    type: Literal["create_bot"] = "create_bot"
    id: RequestId | None = None
    name: AccountName


class ListBots(Model):
    """The logged-in account's bots and their tokens (ids and labels); answered by ``bots``."""

    type: Literal["list_bots"] = "list_bots"
    id: RequestId | None = None


class CreateApiToken(Model):
    """A new API token for one of the logged-in account's bots; answered by ``api_token``,
    which shows the token this once."""

    type: Literal["create_api_token"] = "create_api_token"
    id: RequestId | None = None
    bot: Annotated[str, Field(min_length=1, max_length=32)]
    label: Annotated[str, Field(min_length=1, max_length=64)]


class RevokeApiToken(Model):
    """Revoke an API token of one of the logged-in account's bots (its bot's sessions end)."""

    type: Literal["revoke_api_token"] = "revoke_api_token"
    id: RequestId | None = None
    token_id: Annotated[str, Field(min_length=1, max_length=32)]


class BotLogin(Model):
    """Log this session in to the bot whose API ``token`` this is; answered by ``account``."""

    type: Literal["bot_login"] = "bot_login"
    id: RequestId | None = None
    token: Annotated[str, Field(min_length=1, max_length=128, repr=False)]


PlayerRef = Annotated[str, Field(min_length=1, max_length=32)]
"""A player as the tables show them: a ``player_id`` (seats, chat lines), or an
account id (``a_…``) as ``relations`` lists it."""


class Kick(Model):
    """The table's owner removes ``player`` (seated or watching) from a table whose
    game has not started; they may not come back to that table."""

    type: Literal["kick"] = "kick"
    id: RequestId | None = None
    table: TableId
    player: PlayerRef


class Mute(Model):
    """Stop delivering ``player``'s chat lines to this session (and to the account's
    other sessions, for good, when logged in)."""

    type: Literal["mute"] = "mute"
    id: RequestId | None = None
    player: PlayerRef


class Unmute(Model):
    """Deliver ``player``'s chat lines again."""

    type: Literal["unmute"] = "unmute"
    id: RequestId | None = None
    player: PlayerRef


class Block(Model):
    """Quick play never seats this player and ``player`` together (either way round);
    a block mutes too."""

    type: Literal["block"] = "block"
    id: RequestId | None = None
    player: PlayerRef


class Unblock(Model):
    """Lift a block of ``player``."""

    type: Literal["unblock"] = "unblock"
    id: RequestId | None = None
    player: PlayerRef


class ListRelations(Model):
    """Whom this session mutes and blocks; answered by ``relations``."""

    type: Literal["list_relations"] = "list_relations"
    id: RequestId | None = None


class Report(Model):
    """Report ``player`` to the operators: ``reason``, and the ``table`` (its recent chat
    and the game ``game_no``, the current one when ``None``) it happened at."""

    type: Literal["report"] = "report"
    id: RequestId | None = None
    player: PlayerRef
    reason: Annotated[str, Field(min_length=1, max_length=500)]
    table: TableId | None = None
    game_no: Annotated[int, Field(ge=0, le=2**31 - 1)] | None = None


class History(Model):
    """The logged-in account's stored games, newest first (``game``: of that game only),
    ``limit`` per page; send the reply's ``cursor`` back for the next page. Answered by
    ``history``."""

    type: Literal["history"] = "history"
    id: RequestId | None = None
    game: GameId | None = None
    cursor: Annotated[str, Field(min_length=1, max_length=200)] | None = None
    limit: Annotated[int, Field(ge=1, le=50)] = 20


class GetProfile(Model):
    """An account's public profile (``name`` ``None``: the logged-in account's own):
    games played and won per game, member since. Answered by ``profile``."""

    type: Literal["profile"] = "profile"
    id: RequestId | None = None
    name: AccountName | None = None


class GetLeaderboard(Model):
    """One page (``page``, from 1) of ``game``'s leaderboard: the people, or with ``bots``
    the bot accounts and AI levels, listed apart. Only ratings that are no longer
    provisional, of accounts that played a rated game in the last 90 days, are listed.
    Answered by ``leaderboard``."""

    type: Literal["leaderboard"] = "leaderboard"
    id: RequestId | None = None
    game: GameId
    page: Annotated[int, Field(ge=1, le=10_000)] = 1
    bots: bool = False


class GetGameRecord(Model):
    """A stored (finished) game by its id (``TABLE.N``, as ``history`` lists it): its
    replay and deal seed, for its players and, when its table was public, anyone.
    Answered by ``game_record``."""

    type: Literal["get_game_record"] = "get_game_record"
    id: RequestId | None = None
    game_id: Annotated[str, Field(min_length=3, max_length=80)]


SetId = Annotated[str, Field(min_length=1, max_length=40)]
BoardNo = Annotated[int, Field(ge=1, le=64)]


class ListDuplicateSets(Model):
    """The open duplicate sets (issue 56; ``game``: of that game only), today's daily
    sets among them. Answered by ``duplicate_sets``."""

    type: Literal["list_duplicate_sets"] = "list_duplicate_sets"
    id: RequestId | None = None
    game: GameId | None = None


class CreateDuplicateSet(Model):
    """Make an on-demand duplicate set: ``boards`` one-deal boards of ``game`` against
    ``level`` from ``seat``, open for ``minutes``; others join it by its id. Needs an
    account. Answered by ``duplicate_sets`` (the new set)."""

    type: Literal["create_duplicate_set"] = "create_duplicate_set"
    id: RequestId | None = None
    game: GameId
    level: PolicyName = "normal"
    boards: Annotated[int, Field(ge=1, le=32)] = 8
    minutes: Annotated[int, Field(ge=10, le=10_080)] = 60
    seat: Seat = 0


class PlayDuplicate(Model):
    """Play the next board of set ``set_id`` at a private table against the set's AI
    (boards in order, each once). Needs an account. Answered as ``join_table`` is."""

    type: Literal["play_duplicate"] = "play_duplicate"
    id: RequestId | None = None
    set_id: SetId


class GetDuplicateStandings(Model):
    """The live standings of set ``set_id``. Answered by ``duplicate_standings``."""

    type: Literal["duplicate_standings"] = "duplicate_standings"
    id: RequestId | None = None
    set_id: SetId


class GetDuplicateBoard(Model):
    """Board ``board``'s results and every other player's replay of it: only once the
    asker has finished that board, or the set has closed (``board_not_played``).
    Answered by ``duplicate_board``."""

    type: Literal["duplicate_board"] = "duplicate_board"
    id: RequestId | None = None
    set_id: SetId
    board: BoardNo


TournamentId = Annotated[str, Field(min_length=1, max_length=32)]
TournamentKind = Literal["swiss", "arena", "duplicate-swiss"]


class ListTournaments(Model):
    """The tournaments not over yet (with ``finished``: the finished ones too), soonest
    first. Answered by ``tournaments``."""

    type: Literal["list_tournaments"] = "list_tournaments"
    id: RequestId | None = None
    finished: bool = False


class CreateTournament(Model):
    """Create a tournament (logged-in accounts): ``game``, ``kind``, ``starts_at``
    (seconds since the epoch), ``rounds`` (a Swiss) or ``duration`` (an arena, seconds),
    ``turn_timer`` (seconds per turn) and the AI ``level`` that fills the seats left over.
    Answered by ``tournaments`` with the new one."""

    type: Literal["create_tournament"] = "create_tournament"
    id: RequestId | None = None
    name: Annotated[str, Field(min_length=1, max_length=64)]
    game: GameId
    kind: TournamentKind
    starts_at: Annotated[float, Field(ge=0)]
    rounds: Annotated[int, Field(ge=1, le=50)] | None = None
    duration: Annotated[int, Field(ge=10, le=86_400)] | None = None
    turn_timer: Annotated[float, Field(ge=5.0, le=600.0)] | None = None
    level: Annotated[str, Field(min_length=1, max_length=16)] = "normal"


class RegisterTournament(Model):
    """Enter a tournament (logged-in accounts), before it starts or while it runs: the
    next round pairs the player. Answered by ``ok``."""

    type: Literal["register_tournament"] = "register_tournament"
    id: RequestId | None = None
    tournament: TournamentId


class WithdrawTournament(Model):
    """Leave a tournament: no more pairings (a table under way plays on; its games
    stay in the standings). Answered by ``ok``."""

    type: Literal["withdraw_tournament"] = "withdraw_tournament"
    id: RequestId | None = None
    tournament: TournamentId


class GetStandings(Model):
    """A tournament and its standings. Answered by ``standings``."""

    type: Literal["standings"] = "standings"
    id: RequestId | None = None
    tournament: TournamentId


class NextTournamentTable(Model):
    """The player's table in the tournament's current round (or arena pairing), if one
    waits for them. Answered by ``tournament_table``."""

    type: Literal["next_tournament_table"] = "next_tournament_table"
    id: RequestId | None = None
    tournament: TournamentId


MatchId = Annotated[str, Field(min_length=1, max_length=40)]
TeamName = Literal["a", "b"]


class CreateTeamMatch(Model):
    """Make a team duplicate match (issue 56, docs/duplicate.md Team matches): two teams
    play ``boards`` boards of ``game`` at the layout's tables, ``level`` at the AI seats;
    a ``private`` match is joined by its id only, a public one is listed. Needs an
    account; the creator takes the first free slot. Answered by ``team_match``."""

    type: Literal["create_team_match"] = "create_team_match"
    id: RequestId | None = None
    game: GameId
    boards: Annotated[int, Field(ge=1, le=32)] = 4
    level: PolicyName = "normal"
    private: bool = False
    auto_start: bool = True
    """Start when the last slot is taken; ``False``: when the creator starts it."""


class ListTeamMatches(Model):
    """The public team matches still forming or playing (``game``: of that game only).
    Answered by ``team_matches``."""

    type: Literal["list_team_matches"] = "list_team_matches"
    id: RequestId | None = None
    game: GameId | None = None


class JoinTeamMatch(Model):
    """Join team ``team`` at member slot ``slot`` of a match that has not started
    (``None``: any free one); a member moves to the slot asked. Needs an account.
    Answered by ``team_match``."""

    type: Literal["join_team_match"] = "join_team_match"
    id: RequestId | None = None
    match_id: MatchId
    team: TeamName | None = None
    slot: Annotated[int, Field(ge=0, le=7)] | None = None


class LeaveTeamMatch(Model):
    """Leave a match's roster before it starts. Answered by ``team_match``."""

    type: Literal["leave_team_match"] = "leave_team_match"
    id: RequestId | None = None
    match_id: MatchId


class StartTeamMatch(Model):
    """Start a match whose rosters are full (its creator only; a match also starts by
    itself when its last slot is taken). Answered by ``team_match``."""

    type: Literal["start_team_match"] = "start_team_match"
    id: RequestId | None = None
    match_id: MatchId


class GetTeamMatch(Model):
    """A match: rosters, each board's results and IMPs as the asker may see them, the
    total and the status. Answered by ``team_match``."""

    type: Literal["team_match"] = "team_match"
    id: RequestId | None = None
    match_id: MatchId


class PlayTeamMatch(Model):
    """Sit at one's table of one's next board of a started match (a member only).
    Answered as ``join_table`` is."""

    type: Literal["play_team_match"] = "play_team_match"
    id: RequestId | None = None
    match_id: MatchId


class GetTeamMatchBoard(Model):
    """A board's results at every table and the replays of the other tables: for a
    member once their own table has finished the board, for anyone else once every
    table has (``board_not_played``). Answered by ``team_match_board``."""

    type: Literal["team_match_board"] = "team_match_board"
    id: RequestId | None = None
    match_id: MatchId
    board: BoardNo


class Ping(Model):
    """Answered by ``pong``."""

    type: Literal["ping"] = "ping"
    id: RequestId | None = None


ClientMessage = Annotated[
    Hello
    | ListGames
    | ListTables
    | CreateTable
    | JoinTable
    | Spectate
    | Leave
    | QuickPlay
    | LeaveQueue
    | Start
    | Act
    | Chat
    | Rematch
    | GetReplay
    | Hint
    | Ping
    | Register
    | Login
    | Logout
    | ChangePassword
    | DeleteAccount
    | CreateBot
    | ListBots
    | CreateApiToken
    | RevokeApiToken
    | BotLogin
    | Kick
    | Mute
    | Unmute
    | Block
    | Unblock
    | ListRelations
    | Report
    | History
    | GetProfile
    | GetLeaderboard
    | GetGameRecord
    | ListDuplicateSets
    | CreateDuplicateSet
    | PlayDuplicate
    | GetDuplicateStandings
    | GetDuplicateBoard
    | ListTournaments
    | CreateTournament
    | RegisterTournament
    | WithdrawTournament
    | GetStandings
    | NextTournamentTable
    | CreateTeamMatch
    | ListTeamMatches
    | JoinTeamMatch
    | LeaveTeamMatch
    | StartTeamMatch
    | GetTeamMatch
    | PlayTeamMatch
    | GetTeamMatchBoard,
    Field(discriminator="type"),
]
"""Every message a client may send, told apart by ``type``."""

CLIENT_MESSAGES: tuple[type[Model], ...] = (
    Hello,
    ListGames,
    ListTables,
    CreateTable,
    JoinTable,
    Spectate,
    Leave,
    QuickPlay,
    LeaveQueue,
    Start,
    Act,
    Chat,
    Rematch,
    GetReplay,
    Hint,
    Ping,
    Register,
    Login,
    Logout,
    ChangePassword,
    DeleteAccount,
    CreateBot,
    ListBots,
    CreateApiToken,
    RevokeApiToken,
    BotLogin,
    Kick,
    Mute,
    Unmute,
    Block,
    Unblock,
    ListRelations,
    Report,
    History,
    GetProfile,
    GetLeaderboard,
    GetGameRecord,
    ListDuplicateSets,
    CreateDuplicateSet,
    PlayDuplicate,
    GetDuplicateStandings,
    GetDuplicateBoard,
    ListTournaments,
    CreateTournament,
    RegisterTournament,
    WithdrawTournament,
    GetStandings,
    NextTournamentTable,
    CreateTeamMatch,
    ListTeamMatches,
    JoinTeamMatch,
    LeaveTeamMatch,
    StartTeamMatch,
    GetTeamMatch,
    PlayTeamMatch,
    GetTeamMatchBoard,
)
