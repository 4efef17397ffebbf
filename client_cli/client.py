"""The Cardavia client library: talk to a server from Python (bots, tools, the CLI).

Connect, say hello (or resume a session with its token), call the lobby,
read pushed messages as an async iterator, and act::

    import asyncio
    from client_cli.client import Client, policy_chooser, play_table

    async def main() -> None:
        async with await Client.connect("ws://127.0.0.1:8765", "bot") as client:
            joined = await client.quick_play("scopa")
            result = await play_table(client, joined.table.id, policy_chooser("scopa"))
            print(result)

    asyncio.run(main())

Every request method sends one message and waits for its reply: the result
message (``Joined``, ``Tables``, ``Replay`` …), or ``Ok``; a refusal raises
:class:`ServerError` with the protocol's error code.  Everything the server
pushes (``update``, ``snapshot``, ``table``, ``game_over``, ``chat`` …) is
read with ``async for message in client`` (or :meth:`Client.receive`); the
client also keeps the latest view of each table in :attr:`Client.tables`.

Views and actions are plain data (dicts) shaped by the engine; an action is
normally one of ``view["legal"]``.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import itertools
import math
import random
import secrets
import ssl
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, TypeVar

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from protocol import client_messages as cm
from protocol import server_messages as sm
from protocol.base import FEATURES, PROTOCOL_VERSION
from protocol.codec import FrameError, decode_server, encode
from protocol.models import TableInfo, TableOptions

__all__ = [
    "Client",
    "ClientClosed",
    "ServerError",
    "TableState",
    "play_table",
    "policy_chooser",
    "random_chooser",
    "reconnect",
    "table_peers",
]

M = TypeVar("M")
RATE_LIMIT_RETRIES = 8
"""Attempts of a request the server answers with ``rate_limited``."""
RATE_LIMIT_PAUSE = 0.1
"""Pause of every request after a ``rate_limited`` answer."""
RATE_LIMIT_GAP = (0.02, 0.5)
"""First and largest gap between sends once rate-limited (the first matches the default
50 messages/s): it doubles with each new refusal and shrinks by 2 % with each success,
to none once it is below an eighth of the first."""
MOVING_RETRY_FOR = 30.0
"""Seconds a request refused with ``table_moving`` (its table's server process stopped;
another one is taking the table over) keeps being sent again, each time after the
pause the server suggests (its ``detail``), before :class:`ServerError` is raised."""
MOVING_PAUSE = (0.1, 5.0)
"""Bounds of that pause (a missing or odd hint counts as 1 s)."""
Chooser = Callable[[dict[str, Any]], Any]
"""Picks an action (plain data) from a seat's view (plain data); may be async."""


class ServerError(Exception):
    """The server refused a request: ``code`` is the protocol's error code."""

    def __init__(self, error: sm.Error) -> None:
        super().__init__(f"{error.code}: {error.message}")
        self.error = error
        self.code = str(error.code)
        self.message = error.message
        self.detail = error.detail
        self.reason = error.reason
        """Why the rules refused a move, as data (``reasons`` feature), else None."""


class RequestTimeout(TimeoutError):
    """No answer came within the client's ``request_timeout`` (the request may or may
    not have taken effect: an ``act`` carries its version, so sending it again is safe)."""


class ClientClosed(ConnectionError):
    """The connection closed (``code`` and ``reason`` as the server gave them)."""

    def __init__(self, code: int | None, reason: str) -> None:
        super().__init__(f"connection closed ({code}) {reason}".strip())
        self.code = code
        self.reason = reason


@dataclass
class TableState:
    """What the client knows of one table it is at; updated as messages arrive."""

    table_id: str
    seat: int | None
    info: TableInfo | None = None
    invite: str | None = None
    game_no: int = 0
    version: int = 0
    view: dict[str, Any] | None = None
    events: list[dict[str, Any]] = field(default_factory=list)
    result: dict[str, Any] | None = None
    closed: bool = False

    @property
    def legal(self) -> list[Any]:
        """The seat's legal actions now (empty when it is not its turn)."""
        if self.view is None or self.seat is None:
            return []
        return list(self.view.get("legal") or [])

    @property
    def my_turn(self) -> bool:
        """Whether the seat has something to play now."""
        return bool(self.legal) and (self.info is None or self.info.status == "playing")


class Client:
    """A connection to a Cardavia server with an open session (see module docstring)."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.player_id = ""
        self.name = ""
        self.token = ""
        self.resumed = False
        self.account: sm.Account | None = None
        """The account this session is logged in to (:meth:`login`, :meth:`register`)."""
        self.ca_file: str | None = None
        self.request_timeout: float | None = REQUEST_TIMEOUT
        """Seconds a request waits for its answer before :class:`RequestTimeout`."""
        self.tables: dict[str, TableState] = {}
        self._ids = itertools.count(1)
        self._pending: dict[int, asyncio.Future[Any]] = {}
        self._pushed: asyncio.Queue[Any] = asyncio.Queue()
        self._closed: ClientClosed | None = None
        self._reader: asyncio.Task[None] | None = None
        self._next_send = 0.0
        """No request is sent before this loop time (paced when the server rate-limits us)."""
        self._gap = 0.0
        """Seconds between two requests while pacing (0: not pacing)."""
        self._slowed_at = 0.0
        """When the gap last grew: refusals of requests sent before then do not grow it."""

    # -- opening and closing -------------------------------------------------
    @classmethod
    async def connect(
        cls,
        url: str,
        name: str = "player",
        *,
        token: str | None = None,
        open_timeout: float = 10.0,
        ca_file: str | None = None,
        features: tuple[str, ...] = FEATURES,
        login: tuple[str, str] | None = None,
        api_token: str | None = None,
    ) -> Client:
        """Connect to ``url`` and open a session (resume it when ``token`` is given).

        ``login`` (name, password): open a new session and log it in to that
        account (:meth:`login`; the hello uses a guest name, since an anonymous
        session may not take a registered one).  A resumed session (``token``)
        is still logged in to its account.  ``api_token``: likewise for a bot, with
        one of its API tokens (:meth:`bot_login`).

        A ``wss://`` URL is verified against the system's CAs, or against the
        PEM file ``ca_file`` (e.g. a self-signed server certificate).
        Raises :class:`ServerError` (``bad_name``, ``bad_token`` …), ``OSError``
        when nothing listens there (``ssl.SSLError`` for an untrusted
        certificate), ``TimeoutError`` after ``open_timeout``.  ``features``: the
        optional protocol features to ask for (all by default); the client
        behaves the same either way.
        """
        tls: dict[str, Any] = {}
        if ca_file is not None and url.startswith("wss:"):
            tls["ssl"] = ssl.create_default_context(cafile=ca_file)
        ws = await connect(url, open_timeout=open_timeout, max_size=2**24, compression=None, **tls)
        client = cls(ws)
        client.ca_file = ca_file
        client._reader = asyncio.create_task(client._read())
        if (login is not None or api_token is not None) and token is None:
            name = f"guest {secrets.randbelow(10**6)}"
        try:
            welcome = await asyncio.wait_for(
                client._request(
                    cm.Hello(version=PROTOCOL_VERSION, name=name, token=token, features=features),
                    sm.Welcome,
                ),
                open_timeout,
            )
            client._welcomed(welcome)
            if login is not None and token is None:
                await client.login(*login)
            elif api_token is not None and token is None:
                await client.bot_login(api_token)
        except BaseException:
            await client.close()
            raise
        return client

    def _welcomed(self, welcome: sm.Welcome) -> None:
        self.player_id = welcome.player_id
        self.name = welcome.name
        self.token = welcome.token
        self.resumed = welcome.resumed
        for table_id in welcome.tables:
            self.tables.setdefault(table_id, TableState(table_id, None))

    async def close(self) -> None:
        """Close the connection (the session stays resumable with :attr:`token`)."""
        with contextlib.suppress(ConnectionClosed):  # the server closed it with an error
            await self.ws.close()
        if self._reader is not None:
            await asyncio.gather(self._reader, return_exceptions=True)

    async def __aenter__(self) -> Client:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    @property
    def closed(self) -> bool:
        """Whether the connection has ended."""
        return self._closed is not None

    # -- requests ------------------------------------------------------------
    async def list_games(self) -> tuple[sm.GameInfo, ...]:
        """The games the server serves."""
        return (await self._request(cm.ListGames(), sm.Games)).games

    async def list_tables(self, game: str | None = None) -> tuple[TableInfo, ...]:
        """The lobby's tables (optionally of one game)."""
        return (await self._request(cm.ListTables(game=game), sm.Tables)).tables

    async def create_table(
        self, game: str, options: TableOptions | Mapping[str, Any] | None = None
    ) -> sm.Joined:
        """Create a table; ``options`` as :class:`TableOptions` or a dict of its fields."""
        if options is None:
            opts = TableOptions()
        elif isinstance(options, TableOptions):
            opts = options
        else:
            opts = TableOptions.model_validate(dict(options), strict=False)
        return await self._request(cm.CreateTable(game=game, options=opts), sm.Joined)

    async def join(
        self, table: str, seat: int | None = None, invite: str | None = None
    ) -> sm.Joined:
        """Take a seat (the first free one when ``seat`` is None)."""
        return await self._request(cm.JoinTable(table=table, seat=seat, invite=invite), sm.Joined)

    async def spectate(self, table: str, invite: str | None = None) -> sm.Joined:
        """Watch a table."""
        return await self._request(cm.Spectate(table=table, invite=invite), sm.Joined)

    async def quick_play(
        self, game: str, level: str | None = None, partner: str | None = None
    ) -> sm.Joined:
        """Join or open a quick-play table; the AI fills it if nobody else comes.

        ``partner``: sit opposite that player (Cicera: as partners) at their table.
        """
        return await self._request(cm.QuickPlay(game=game, level=level, partner=partner), sm.Joined)

    async def queue_rated(self, game: str, *, with_bots: bool = False) -> sm.Queued:
        """Join ``game``'s rated queue (a logged-in session): answered at once by
        ``queued``; the queue then pushes ``joined`` when it seats the player
        (``with_bots``: bot accounts may be seated with them)."""
        msg = cm.QuickPlay(game=game, rated=True, with_bots=with_bots)
        return await self._request(msg, sm.Queued)

    async def leave_queue(self, game: str | None = None) -> None:
        """Leave the rated queue (``game``: only if queued for that game)."""
        await self._request(cm.LeaveQueue(game=game), sm.Ok)

    async def leave(self, table: str) -> None:
        """Leave a table."""
        await self._request(cm.Leave(table=table), sm.Left)

    async def start(self, table: str) -> None:
        """Start a waiting table now (owner only); the AI takes the empty seats."""
        await self._request(cm.Start(table=table), sm.Ok)

    async def act(
        self,
        table: str,
        action: Mapping[str, Any],
        *,
        seat: int | None = None,
        version: int | None = None,
    ) -> None:
        """Play ``action``; seat and version default to the latest known for the table.

        Returns once the server applied it (the updates are already queued).
        """
        state = self.tables.get(table)
        if seat is None:
            seat = state.seat if state is not None else None
            if seat is None:
                raise ValueError(f"no seat known at table {table!r}; pass seat=")
        if version is None:
            version = state.version if state is not None else 0
        msg = cm.Act(table=table, seat=seat, version=version, action=dict(action))
        await self._request(msg, (sm.Ok, sm.Update))  # update_ref: the mover's update answers

    async def chat(self, table: str, text: str) -> None:
        """Say ``text`` at a table."""
        await self._request(cm.Chat(table=table, text=text), sm.Ok)

    async def rematch(self, table: str) -> None:
        """Vote for another game at a finished table."""
        await self._request(cm.Rematch(table=table), sm.Ok)

    async def replay(self, table: str, game_no: int | None = None) -> sm.Replay:
        """The full replay of a finished game (every card shown)."""
        return await self._request(cm.GetReplay(table=table, game_no=game_no), sm.Replay)

    async def ping(self) -> None:
        """A round trip to the server."""
        await self._request(cm.Ping(), sm.Pong)

    # -- accounts ----------------------------------------------------------------
    async def register(self, name: str, password: str) -> sm.Account:
        """Create an account and log this session in to it (its name becomes the account's)."""
        return self._logged_in(
            await self._request(cm.Register(name=name, password=password), sm.Account)
        )

    async def login(self, name: str, password: str) -> sm.Account:
        """Log this session in to an account (``bad_credentials``, ``login_throttled`` …)."""
        return self._logged_in(
            await self._request(cm.Login(name=name, password=password), sm.Account)
        )

    def _logged_in(self, account: sm.Account) -> sm.Account:
        self.account = account
        self.name = account.name
        return account

    async def logout(self) -> None:
        """End this session (its token stops working); the server then closes the connection."""
        await self._request(cm.Logout(), sm.Ok)
        self.account = None

    async def change_password(self, password: str, new_password: str) -> None:
        """Change the account's password (the account's other sessions end)."""
        await self._request(cm.ChangePassword(password=password, new_password=new_password), sm.Ok)

    async def delete_account(self, password: str) -> None:
        """Delete the account for good; the server then closes the connection."""
        await self._request(cm.DeleteAccount(password=password), sm.Ok)
        self.account = None

    async def bot_login(self, api_token: str) -> sm.Account:
        """Log this session in to the bot whose API token this is."""
        return self._logged_in(await self._request(cm.BotLogin(token=api_token), sm.Account))

    async def create_bot(self, name: str) -> sm.Bot:
        """Create a bot account owned by the logged-in account."""
        return await self._request(cm.CreateBot(name=name), sm.Bot)

    async def list_bots(self) -> tuple[sm.BotInfo, ...]:
        """The logged-in account's bots and their tokens (ids and labels)."""
        return (await self._request(cm.ListBots(), sm.Bots)).bots

    async def create_api_token(self, bot: str, label: str) -> sm.ApiToken:
        """A new API token for the bot ``bot`` (an account id); ``.token`` is shown once."""
        return await self._request(cm.CreateApiToken(bot=bot, label=label), sm.ApiToken)

    async def revoke_api_token(self, token_id: str) -> None:
        """Revoke one of your bots' API tokens (the bot's sessions end)."""
        await self._request(cm.RevokeApiToken(token_id=token_id), sm.Ok)

    # -- moderation -------------------------------------------------------------------
    async def kick(self, table: str, player: str) -> None:
        """Remove ``player`` (a player id) from your table before its game begins (owner only)."""
        await self._request(cm.Kick(table=table, player=player), sm.Ok)

    async def mute(self, player: str) -> None:
        """Stop receiving ``player``'s chat lines (a player id, or an account id as listed)."""
        await self._request(cm.Mute(player=player), sm.Ok)

    async def unmute(self, player: str) -> None:
        """Receive ``player``'s chat lines again."""
        await self._request(cm.Unmute(player=player), sm.Ok)

    async def block(self, player: str) -> None:
        """Never be seated with ``player`` by quick play (and mute them)."""
        await self._request(cm.Block(player=player), sm.Ok)

    async def unblock(self, player: str) -> None:
        """Lift a block of ``player``."""
        await self._request(cm.Unblock(player=player), sm.Ok)

    async def relations(self) -> sm.Relations:
        """Whom this session mutes and blocks (``kept``: with the account, for good)."""
        return await self._request(cm.ListRelations(), sm.Relations)

    async def report(
        self, player: str, reason: str, table: str | None = None, game_no: int | None = None
    ) -> str:
        """Report ``player`` to the operators (with ``table``'s recent chat); the report's id."""
        msg = cm.Report(player=player, reason=reason, table=table, game_no=game_no)
        return (await self._request(msg, sm.Reported)).report_id

    # -- stored games ------------------------------------------------------------------
    async def history(
        self, game: str | None = None, cursor: str | None = None, limit: int = 20
    ) -> sm.HistoryPage:
        """A page of the logged-in account's stored games, newest first (``game``: of
        that game only); pass the page's ``cursor`` for the next one."""
        return await self._request(
            cm.History(game=game, cursor=cursor, limit=limit), sm.HistoryPage
        )

    async def profile(self, name: str | None = None) -> sm.Profile:
        """An account's profile (``None``: the logged-in account's own)."""
        return await self._request(cm.GetProfile(name=name), sm.Profile)

    async def leaderboard(self, game: str, page: int = 1, *, bots: bool = False) -> sm.Leaderboard:
        """A page (from 1) of ``game``'s leaderboard: its people, or with ``bots`` its bot
        accounts and AI levels, best first."""
        return await self._request(
            cm.GetLeaderboard(game=game, page=page, bots=bots), sm.Leaderboard
        )

    async def game_record(self, game_id: str) -> sm.GameRecord:
        """A stored game by its id (``TABLE.N``): its replay and deal seed."""
        return await self._request(cm.GetGameRecord(game_id=game_id), sm.GameRecord)

    async def duplicate_sets(self, game: str | None = None) -> sm.DuplicateSets:
        """The open duplicate sets (issue 56), today's daily ones among them."""
        return await self._request(cm.ListDuplicateSets(game=game), sm.DuplicateSets)

    async def create_duplicate_set(
        self, game: str, level: str = "normal", boards: int = 8, minutes: int = 60, seat: int = 0
    ) -> sm.DuplicateSetInfo:
        """Make an on-demand duplicate set; its info (others join it by ``set_id``)."""
        msg = cm.CreateDuplicateSet(
            game=game, level=level, boards=boards, minutes=minutes, seat=seat
        )
        return (await self._request(msg, sm.DuplicateSets)).sets[0]

    async def play_duplicate(self, set_id: str) -> sm.Joined:
        """Sit at the private table of one's next board of set ``set_id``."""
        return await self._request(cm.PlayDuplicate(set_id=set_id), sm.Joined)

    async def duplicate_standings(self, set_id: str) -> sm.DuplicateStandings:
        """The live standings of a duplicate set."""
        return await self._request(cm.GetDuplicateStandings(set_id=set_id), sm.DuplicateStandings)

    async def duplicate_board(self, set_id: str, board: int) -> sm.DuplicateBoard:
        """A board's results and the others' replays (once one has played it)."""
        return await self._request(
            cm.GetDuplicateBoard(set_id=set_id, board=board), sm.DuplicateBoard
        )

    async def tournaments(self, *, finished: bool = False) -> tuple[sm.TournamentInfo, ...]:
        """The tournaments not over yet (with ``finished``: all), soonest first."""
        answer = await self._request(cm.ListTournaments(finished=finished), sm.Tournaments)
        return answer.tournaments

    async def create_tournament(self, msg: cm.CreateTournament) -> sm.TournamentInfo:
        """Create the tournament ``msg`` describes; the tournament made."""
        return (await self._request(msg, sm.Tournaments)).tournaments[0]

    async def register_tournament(self, tournament: str) -> None:
        """Enter ``tournament`` (again, after a withdrawal)."""
        await self._request(cm.RegisterTournament(tournament=tournament), sm.Ok)

    async def withdraw_tournament(self, tournament: str) -> None:
        """Leave ``tournament``: no more pairings."""
        await self._request(cm.WithdrawTournament(tournament=tournament), sm.Ok)

    async def standings(self, tournament: str) -> sm.Standings:
        """``tournament`` and its standings."""
        return await self._request(cm.GetStandings(tournament=tournament), sm.Standings)

    async def next_tournament_table(self, tournament: str) -> sm.TournamentTable:
        """The table waiting for this player in ``tournament`` (``table`` None: none)."""
        return await self._request(
            cm.NextTournamentTable(tournament=tournament), sm.TournamentTable
        )

    async def create_team_match(
        self,
        game: str,
        boards: int = 4,
        level: str = "normal",
        *,
        private: bool = False,
        auto_start: bool = True,
    ) -> sm.TeamMatchInfo:
        """Make a team duplicate match (issue 56); one is its first member (team A)."""
        msg = cm.CreateTeamMatch(
            game=game, boards=boards, level=level, private=private, auto_start=auto_start
        )
        return (await self._request(msg, sm.TeamMatch)).match

    async def team_matches(self, game: str | None = None) -> sm.TeamMatches:
        """The public team matches forming or playing."""
        return await self._request(cm.ListTeamMatches(game=game), sm.TeamMatches)

    async def join_team_match(
        self, match_id: str, team: cm.TeamName | None = None, slot: int | None = None
    ) -> sm.TeamMatchInfo:
        """Take a slot of a team (``None``: any free one) of a match not started."""
        msg = cm.JoinTeamMatch(match_id=match_id, team=team, slot=slot)
        return (await self._request(msg, sm.TeamMatch)).match

    async def leave_team_match(self, match_id: str) -> sm.TeamMatchInfo:
        """Leave a match's roster before it starts."""
        return (await self._request(cm.LeaveTeamMatch(match_id=match_id), sm.TeamMatch)).match

    async def start_team_match(self, match_id: str) -> sm.TeamMatchInfo:
        """Start one's match (its creator, with both rosters full)."""
        return (await self._request(cm.StartTeamMatch(match_id=match_id), sm.TeamMatch)).match

    async def team_match(self, match_id: str) -> sm.TeamMatchInfo:
        """A match as one may see it: rosters, board results, IMPs, status."""
        return (await self._request(cm.GetTeamMatch(match_id=match_id), sm.TeamMatch)).match

    async def play_team_match(self, match_id: str) -> sm.Joined:
        """Sit at one's table of one's next board of a started match."""
        return await self._request(cm.PlayTeamMatch(match_id=match_id), sm.Joined)

    async def team_match_board(self, match_id: str, board: int) -> sm.TeamMatchBoard:
        """A board's results and the other tables' replays (once one's table played it)."""
        return await self._request(
            cm.GetTeamMatchBoard(match_id=match_id, board=board), sm.TeamMatchBoard
        )

    async def send_raw(self, frame: bytes | str) -> None:
        """Send a frame as is (for testing servers); replies arrive as pushed messages."""
        await self.ws.send(frame)

    async def _request(self, msg: Any, expect: type[M] | tuple[type[M], ...]) -> M:
        """Send ``msg`` and wait for its reply; retry (backing off) while rate-limited,
        and while its table moves to another server process (``table_moving``: sent
        again after the server's hint, for up to :data:`MOVING_RETRY_FOR` seconds; an
        ``act`` carries the table version, so it is never applied twice).

        A ``rate_limited`` answer pauses every request of this client, not only
        the refused one, and from then on requests are paced (a gap that grows
        with new refusals and shrinks with successes), so retries do not pile
        up refusals (which the server counts as strikes) while its bucket refills.
        """
        loop = asyncio.get_running_loop()
        give_up = loop.time() + MOVING_RETRY_FOR
        while True:
            try:
                return await self._request_paced(msg, expect)
            except ServerError as exc:
                if exc.code != "table_moving" or loop.time() >= give_up:
                    raise
                await asyncio.sleep(moving_pause(exc.error.detail))

    async def _request_paced(self, msg: Any, expect: type[M] | tuple[type[M], ...]) -> M:
        loop = asyncio.get_running_loop()
        for attempt in range(RATE_LIMIT_RETRIES):
            now = loop.time()
            start = max(now, self._next_send)
            self._next_send = start + self._gap
            if start > now:
                await asyncio.sleep(start - now)
            sent_at = loop.time()
            try:
                reply = await self._request_once(msg, expect)
            except ServerError as exc:
                # a connection-wide limit clears in milliseconds; a table's chat limit does not
                connection_limit = exc.code == "rate_limited" and exc.error.table is None
                if not connection_limit or attempt == RATE_LIMIT_RETRIES - 1:
                    raise
                now = loop.time()
                if sent_at >= self._slowed_at:  # not one of a wave already answered
                    low, high = RATE_LIMIT_GAP
                    self._gap = min(high, max(low, self._gap * 2))
                    self._slowed_at = now
                pause = RATE_LIMIT_PAUSE * random.uniform(0.8, 1.2)
                self._next_send = max(self._next_send, now + pause)
                continue
            if self._gap:
                self._gap = 0.0 if self._gap < RATE_LIMIT_GAP[0] / 8 else self._gap * 0.98
            return reply
        raise AssertionError("unreachable")  # pragma: no cover

    async def _request_once(self, msg: Any, expect: type[M] | tuple[type[M], ...]) -> M:
        if self._closed is not None:
            raise self._closed
        rid = next(self._ids)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[rid] = future
        try:
            await self.ws.send(encode(msg.model_copy(update={"id": rid})))
            reply = await asyncio.wait_for(future, self.request_timeout)
        except TimeoutError:
            raise RequestTimeout(
                f"no answer to {msg.type} within {self.request_timeout} s"
            ) from None
        except ConnectionClosed:  # e.g. refused at once (quota_exceeded, close code 1008)
            await asyncio.gather(self._reader or asyncio.sleep(0), return_exceptions=True)
            raise self._closed or ClientClosed(self.ws.close_code, "") from None
        finally:
            self._pending.pop(rid, None)
            if future.done() and not future.cancelled():
                future.exception()  # retrieved: the caller gets it or ConnectionClosed
        if isinstance(reply, sm.Error):
            raise ServerError(reply)
        if not isinstance(reply, expect):
            wanted = getattr(expect, "__name__", str(expect))
            raise TypeError(f"expected {wanted}, got {type(reply).__name__}")
        return reply

    # -- pushed messages -----------------------------------------------------
    async def receive(self, timeout: float | None = None) -> Any:
        """The next pushed message; raise :class:`ClientClosed` once the connection ended.

        Pushed messages queue up until read: a long-lived client should keep reading.
        """
        if self._closed is not None and self._pushed.empty():
            raise self._closed
        item = await asyncio.wait_for(self._pushed.get(), timeout)
        if isinstance(item, ClientClosed):
            self._pushed.put_nowait(item)  # later calls see the end too
            raise item
        return item

    async def wait_for(self, predicate: Callable[[Any], bool], timeout: float | None = 10.0) -> Any:
        """The first pushed message for which ``predicate`` is true (others are dropped)."""
        async with asyncio.timeout(timeout):
            while True:
                msg = await self.receive()
                if predicate(msg):
                    return msg

    async def __aiter__(self) -> AsyncIterator[Any]:
        """Pushed messages until the connection closes."""
        while True:
            try:
                yield await self.receive()
            except ClientClosed:
                return

    async def _read(self) -> None:
        try:
            async for frame in self.ws:
                try:
                    msg = decode_server(frame)
                except FrameError:
                    continue  # a newer server may send what this client does not know
                if isinstance(msg, sm.Update):
                    msg = self._whole(msg)
                self._track(msg)
                ref = getattr(msg, "ref", None)
                future = self._pending.get(ref) if ref is not None else None
                if future is not None and not future.done():
                    future.set_result(msg)
                    if isinstance(msg, sm.Update):  # it answers an act and is news too
                        self._pushed.put_nowait(msg)
                else:
                    self._pushed.put_nowait(msg)
        except ConnectionClosed:
            pass
        finally:
            self._closed = ClientClosed(self.ws.close_code, self.ws.close_reason or "")
            for future in self._pending.values():
                if not future.done():
                    future.set_exception(self._closed)
            self._pushed.put_nowait(self._closed)

    def _whole(self, update: sm.Update) -> sm.Update:
        """``update`` with its whole view: with the ``view_changes`` feature it holds
        only the fields that changed since the table's last view in the same game."""
        state = self.tables.get(update.table)
        if state is None or state.view is None or state.game_no != update.game_no:
            return update
        return update.model_copy(update={"view": {**state.view, **update.view}})

    def _track(self, msg: Any) -> None:
        """Keep :attr:`tables` current."""
        if isinstance(msg, sm.Joined):
            state = self.tables.setdefault(msg.table.id, TableState(msg.table.id, msg.seat))
            state.seat, state.info, state.invite = msg.seat, msg.table, msg.invite
        elif isinstance(msg, sm.TableChanged):
            if msg.table.id in self.tables:
                self.tables[msg.table.id].info = msg.table
        elif isinstance(msg, sm.Update | sm.Snapshot):
            state = self.tables.setdefault(msg.table, TableState(msg.table, msg.seat))
            state.seat = msg.seat
            if msg.game_no != state.game_no:
                state.result = None
                state.events = []
            state.game_no, state.version, state.view = msg.game_no, msg.version, msg.view
            if isinstance(msg, sm.Update):
                state.events.extend(msg.events)
        elif isinstance(msg, sm.GameOver):
            if msg.table in self.tables:
                self.tables[msg.table].result = msg.result
        elif isinstance(msg, sm.Left | sm.Kicked):
            self.tables.pop(msg.table, None)
        elif isinstance(msg, sm.TableClosed) and msg.table in self.tables:
            self.tables[msg.table].closed = True


REQUEST_TIMEOUT = 20.0
"""Seconds a request waits for its answer (:attr:`Client.request_timeout`): a server
answers at once, but a request routed to a server process that has just died or
frozen is never answered (it reaches the table's new owner once sent again)."""

_SEND_AGAIN = ("store_unavailable", "table_moving")
"""Refusals after which :func:`play_table` sends the same move again: nothing changed
(or, for ``table_moving``, the version the move carries keeps it from counting twice)."""

STORE_RETRY_DELAYS = (0.25, 0.5, 1.0, 2.0, *([4.0] * 29))
"""Seconds :func:`play_table` waits before each new try of a move refused with
``store_unavailable`` (the server's store is down, nothing changed: about two
minutes in all before it gives up)."""

RECONNECT_DELAYS = (0.2, 0.5, 1.0, 1.0, 2.0, 2.0, 3.0, 4.0)
"""Seconds before each attempt of :func:`reconnect` (about 14 s in all)."""


async def reconnect(
    url: str, old: Client, table: str | None = None, delays: tuple[float, ...] = RECONNECT_DELAYS
) -> Client | None:
    """Resume ``old``'s session (its token) on a new connection to ``url``, or ``None``.

    Behind a balancer the new connection may reach another server process;
    with ``table``, wait until that table is back (after a failover the
    process that takes it over rebuilds it within seconds, then sends a snapshot).
    """
    for delay in delays:
        await asyncio.sleep(delay)
        try:
            client = await Client.connect(url, old.name, token=old.token, open_timeout=5.0)
        except ServerError as exc:
            if exc.code == "bad_token":
                return None
            continue
        except (OSError, TimeoutError, InvalidHandshake, ClientClosed):
            continue
        if table is None or table in client.tables:
            return client
        try:
            await client.wait_for(lambda m: isinstance(m, sm.Snapshot) and m.table == table, 5.0)
        except (TimeoutError, ClientClosed):
            await client.close()
            continue
        return client
    return None


def moving_pause(detail: str | None) -> float:
    """Seconds to wait before sending again a request refused with ``table_moving``:
    the server's hint (its ``detail``), within :data:`MOVING_PAUSE`."""
    try:
        pause = float(detail) if detail is not None else 1.0
    except ValueError:
        pause = 1.0
    low, high = MOVING_PAUSE
    return min(high, max(low, pause)) if math.isfinite(pause) else 1.0


# -- choosing moves ------------------------------------------------------------
def random_chooser(seed: int | None = None) -> Chooser:
    """A chooser that picks uniformly among ``view["legal"]``."""
    rng = random.Random(seed)

    def choose(view: dict[str, Any]) -> Any:
        legal = view["legal"]
        return legal[rng.randrange(len(legal))]

    return choose


def table_peers(state: TableState | None) -> tuple[str | None, ...]:
    """What the table shows of each seat's player (engine.policy.Peers): the level of
    the server's AI at the seats it plays, ``None`` at a person's; nothing while the
    table is not known."""
    if state is None or state.info is None:
        return ()
    return tuple(seat.level for seat in state.info.seats)


def policy_chooser(
    game_id: str,
    policy: str | None = None,
    seed: int | None = None,
    peers: Callable[[], tuple[str | None, ...]] | None = None,
) -> Chooser:
    """A chooser running an engine policy (default: the game's strongest) on the seat's view.

    The plain view is decoded into the game's typed view, so the policy sees
    exactly what the server allowed this seat to see.  ``peers``, asked before
    each decision, says who sits at the table (:func:`table_peers`); a policy
    that models the server's own AI then plays as the server's AI does when
    told its seats (engine.policy.seated).
    """
    from engine.codec import from_plain, to_plain
    from engine.policy import Policy, seated
    from engine.registry import get_game, get_policy, policy_names

    game = get_game(game_id)
    chosen = get_policy(game_id, policy or policy_names(game_id)[-1])
    told: dict[tuple[str | None, ...], Policy] = {}
    rng = random.Random(seed)

    def choose(view: dict[str, Any]) -> Any:
        table = peers() if peers is not None else ()
        playing = told.get(table)
        if playing is None:
            playing = told[table] = seated(chosen, table)
        typed = from_plain(game.view_type, view, "view")
        return to_plain(playing.choose(typed, typed.legal, rng))

    return choose


async def play_table(
    client: Client,
    table: str,
    choose: Chooser | Callable[[dict[str, Any]], Awaitable[Any]],
    *,
    on_message: Callable[[Any], None] | None = None,
) -> dict[str, Any]:
    """Play the client's seat at ``table`` with ``choose`` until the game ends; its result.

    Reads the client's pushed messages (passing each to ``on_message``);
    acts whenever the seat has legal actions at a version not yet tried.  A
    move refused because the server's store is unavailable (nothing changed) or
    its table is still moving after the library's own retries (``table_moving``),
    or left without an answer (:class:`RequestTimeout`: the version it carries
    keeps it from counting twice), is sent again after a pause
    (:data:`STORE_RETRY_DELAYS`), unless an update came meanwhile.
    """
    tried = -1
    pending: Any = None  # the move refused for store_unavailable, to send again
    waits = iter(STORE_RETRY_DELAYS)
    while True:
        state = client.tables.get(table)
        if state is not None and state.result is not None and state.game_no > 0:
            return state.result
        if state is not None and state.closed:
            raise ClientClosed(None, f"table {table} closed")
        if state is not None and state.my_turn and state.version != tried:
            tried = state.version
            assert state.view is not None
            if pending is not None and pending[0] == state.version:
                action = pending[1]
            else:
                action = choose(state.view)
                if inspect.isawaitable(action):
                    action = await action
            pending = None
            try:
                await client.act(table, action, seat=state.seat, version=state.version)
            except (ServerError, RequestTimeout) as exc:
                if isinstance(exc, RequestTimeout) or exc.code in _SEND_AGAIN:
                    delay = next(waits, None)
                    if delay is None:
                        raise
                    await asyncio.sleep(delay)
                    pending, tried = (state.version, action), -1
                # someone (a timer, a covering AI) played first: the next update says more
                elif exc.code not in ("stale_version", "not_your_turn", "not_playing"):
                    raise
            else:
                waits = iter(STORE_RETRY_DELAYS)
            continue
        msg = await client.receive()
        if on_message is not None:
            on_message(msg)
