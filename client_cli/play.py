"""``cardavia play GAME``: play in the terminal against AIs or people.

Without ``--url`` an embedded server starts in this process (on 127.0.0.1,
any free port) so ``cardavia play scopa`` needs no setup: you against the
AI (in Cicera with an AI partner).  With ``--url`` it plays on that server:
it creates a table (``--humans`` seats for people, the rest AI; or each seat
as ``--seats you,ai,human,ai:random`` says), joins one
(``--table``) or quick-plays (``--quick``).

Updates are printed as they happen while the prompt waits; on your turn the
legal moves are numbered: type a number, or the cards of a move (``7D``,
``5S 5H``), or words (``pass``, ``bid 2``, ``herz solo``, ``rufer E``).
When what you typed fits several moves you are asked which; a move the
rules refuse is answered with the rule.  ``help`` lists the other commands.

``--lang`` (en, it, de, hu, tr, zh) picks the language of card names, game
terms, prompts and messages; without it ``CARDAVIA_LANG``, else the locale
(``LC_ALL``, ``LC_MESSAGES``, ``LANG``), else English.  Card codes are typed
the same in every language.

On a server (``--url``) the seat you hold is remembered in a per-user state
file: if this process dies, the next ``cardavia play`` on that server takes
the same seat again (the AI covers your turns meanwhile).  Only ``quit``
gives the seat up; while a game is on it asks first.  Without ``--url`` the
game lives in this process: ending it (``quit``, Ctrl-C, closing the window)
ends the game, and the next ``cardavia play`` starts a new one.

``--rated`` creates a rated table: its games change the players' ratings
(``cardavia profile``, ``cardavia leaderboard``).  Every seat is then an
account or an AI level (easy, normal or hard), so it needs ``--url`` and the
account ``cardavia login`` kept for that server; the game's standard options
apply (``-o pattern=...`` may still pick the cards) and nobody gets hints.
``--quick --rated`` waits in the game's rated queue instead, which seats you
with players of close rating (``--with-bots``: bot accounts too), or after
its wait with the AI level of the closest rating; Ctrl-C leaves the queue.

With ``--quick``, a seat at a table that still waits lasts only as long as the
connection (the server gives it up when it closes): a dropped connection is
resumed and quick play asked again, as ``--quick`` asked the first time.
"""

# The session itself is client_cli.play_session.PlaySession; the state file,
# client_cli.seatfile.

from __future__ import annotations

import argparse
import asyncio
import logging
from typing import Any

from client_cli.client import Client, ClientClosed, ServerError
from client_cli.common import (
    EXIT_USAGE,
    CliError,
    add_ca_file,
    connect,
    parse_options,
    refused,
)
from client_cli.credentials import CredentialFile
from client_cli.lang import Language, add_lang, run_with_lang
from client_cli.options import PORT, SECONDS, TURN_SECONDS, number_in
from client_cli.play_session import PlaySession, QuickAsk
from client_cli.rated_queue import wait_in_queue
from client_cli.seatfile import HeldSeat, SeatFile
from client_cli.terminal import Screen
from protocol import server_messages as sm
from protocol.models import AiSeat, TableInfo, TableOptions


def add_parser(sub: Any) -> None:
    """Register ``cardavia play``."""
    p = sub.add_parser(
        "play",
        help="play a game in the terminal (embedded server, or --url)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("game", help="scopa, cicera, doudizhu, schafkopf …")
    p.add_argument("--url", help="server to play on (default: start one in this process)")
    add_ca_file(p)
    p.add_argument("--name", default="player", help="your display name")
    add_lang(p)
    how = p.add_mutually_exclusive_group()
    how.add_argument("--table", metavar="ID", help="join this table instead of creating one")
    how.add_argument("--quick", action="store_true", help="quick-play: join or open a table")
    p.add_argument("--invite", help="invite code of a private table")
    p.add_argument(
        "--partner",
        metavar="NAME",
        help="with --quick: sit opposite this player at their table (Cicera: as partners)",
    )
    p.add_argument(
        "--seat",
        type=number_in(0, 15, integer=True, what="a seat number"),
        help="the seat to take (default: 0, or the first free); in Cicera partners sit "
        "opposite: seats 0+2 and 1+3",
    )
    p.add_argument(
        "--humans",
        type=number_in(1, 16, integer=True, what="a number of players"),
        default=1,
        help="seats for people at a new table, yours included (the others are AI; default 1)",
    )
    p.add_argument("--ai-seats", metavar="S,S", help="exactly these seats are AI (overrides)")
    p.add_argument(
        "--seats",
        metavar="SPEC",
        help="every seat in order, e.g. you,ai,human,ai:random (overrides the three above)",
    )
    p.add_argument("--level", help="AI level (a policy name; default: the game's strongest)")
    p.add_argument(
        "-o",
        "--option",
        action="append",
        dest="options",
        metavar="KEY=VALUE",
        help="a game option, e.g. -o target=3 or -o pattern=french (repeatable)",
    )
    p.add_argument(
        "--ai-delay", type=SECONDS, help="seconds (0-3600) each AI move waits before it shows"
    )
    p.add_argument(
        "--turn-timer", type=TURN_SECONDS, help="seconds (1-3600) per turn before the AI plays it"
    )
    p.add_argument(
        "--new",
        action="store_true",
        help="take a new seat even if this player holds one on the server (see 'quit')",
    )
    p.add_argument(
        "--no-hints",
        action="store_true",
        help="a new table where 'hint' is off for everybody",
    )
    p.add_argument(
        "--plain",
        action="store_true",
        help="read plain lines (no line editing, history or Tab completion)",
    )
    p.add_argument(
        "--auto-pass",
        action="store_true",
        help="pass by itself when pass is the only move (Dou Dizhu)",
    )
    p.add_argument("--private", action="store_true", help="a private table (invite code)")
    p.add_argument(
        "--rated",
        action="store_true",
        help="a new rated table: its games change your rating (needs --url and cardavia "
        "login; standard options, no hints, AI levels easy, normal or hard); with --quick: "
        "wait in the rated queue for players of close rating",
    )
    p.add_argument(
        "--with-bots",
        action="store_true",
        help="with --quick --rated: bot accounts may be seated with you",
    )
    p.add_argument("--host", default="127.0.0.1", help="embedded server: interface")
    p.add_argument("--port", type=PORT, default=0, help="embedded server: port (0: any free)")
    p.set_defaults(func=run_with_lang(play_main))


async def play_main(args: argparse.Namespace, lang: Language) -> int:
    """Start the embedded server if needed, take a seat, play until done."""
    check_rated(args)
    if args.url:
        return await play_at(args.url, args, lang, embedded=False)
    from engine.registry import GAMES
    from server.app import running_server
    from server.config import ServerConfig
    from server.ops.logs import configure

    if args.game not in GAMES:
        raise CliError(f"unknown game {args.game!r}; known: {', '.join(GAMES)}", EXIT_USAGE)
    configure("error")  # the embedded server's log lines would garble the screen
    # nor may SQLAlchemy's own: a pooled connection whose reset Ctrl-C cut short is
    # logged with a traceback as the process exits (nothing is lost: a rollback)
    logging.getLogger("sqlalchemy.pool").setLevel(logging.CRITICAL)
    config = ServerConfig(
        host=args.host,
        port=args.port,
        ai_delay=0.8 if args.ai_delay is None else args.ai_delay,
        quick_fill_wait=2.0,
        ai_mode="thread",  # one table: starts at once, no worker processes to spawn
    )
    async with running_server(config) as server:
        return await play_at(server.url, args, lang, embedded=True)


async def play_at(url: str, args: argparse.Namespace, lang: Language, *, embedded: bool) -> int:
    """Connect to ``url``, resume the seat held there or take one as asked, and play."""
    screen = Screen()
    seats = None if embedded else SeatFile()
    kept = None if embedded else CredentialFile().get(url)  # cardavia login
    if args.rated and kept is None:
        raise CliError(
            f"a rated table needs an account: run cardavia login --url {url} first", EXIT_USAGE
        )
    name = kept.name if kept is not None else args.name
    held = seats.get(url, name) if seats is not None else None
    resumed: tuple[Client, sm.Joined | None, list[Any]] | None = None
    if (
        held is not None
        and not args.new
        and args.table in (None, held.table)
        and (args.table is not None or held.game == args.game)
    ):
        resumed = await resume_seat(url, held, seats)
    pending: list[Any] = []
    if resumed is not None:
        client, joined, pending = resumed
    else:
        login = kept.login if kept is not None else None
        client, joined = await connect(url, name, ca_file=args.ca_file, login=login), None
    session: PlaySession | None = None
    try:
        if joined is None and args.quick and args.rated:
            game = await known_game(client, args.game)
            try:
                client, joined = await wait_in_queue(
                    client,
                    url,
                    game.id,
                    game.title,
                    with_bots=args.with_bots,
                    screen=screen,
                    lang=lang,
                )
            except ServerError as exc:
                raise refused("cannot join the rated queue", exc) from None
        elif joined is None:
            joined = await take_seat(client, args)
        else:
            where = (
                lang.t("session.seat", n=joined.seat)
                if joined.seat is not None
                else lang.t("session.watching")
            )
            screen.show([lang.t("session.resumed", table=joined.table.id, where=where)])
        session = PlaySession(
            client,
            joined,
            screen,
            url=url,
            embedded=embedded,
            seatfile=seats,
            auto_pass=args.auto_pass,
            lang=lang,
            quick=QuickAsk(args.game, args.level, args.partner)
            if (args.quick or args.partner) and not args.table and not args.rated
            else None,
        )
        session.fancy_input = not args.plain
        session.remember()
        return await session.run(pending)
    finally:
        await (session.client if session is not None else client).close()


async def resume_seat(
    url: str, held: HeldSeat, seats: SeatFile | None
) -> tuple[Client, sm.Joined | None, list[Any]] | None:
    """Resume the session that held a seat at ``url``: the client, the table (None when
    the session lives but the table is gone) and the messages read on the way; None when
    the server no longer knows the session."""
    try:
        client = await connect(url, held.name, token=held.token)
    except CliError:
        if seats is not None:
            seats.forget(url, held.name)
        return None
    if held.table not in client.tables:
        if seats is not None:
            seats.forget(url, held.name)
        return client, None, []
    pending: list[Any] = []
    info: TableInfo | None = None
    seat = held.seat
    try:
        async with asyncio.timeout(5.0):
            while True:
                msg = await client.receive()
                pending.append(msg)
                if isinstance(msg, sm.TableChanged) and msg.table.id == held.table:
                    info = msg.table
                    if info.status == "waiting":
                        break
                elif isinstance(msg, sm.Snapshot) and msg.table == held.table:
                    seat = msg.seat
                    if info is not None:
                        break
    except TimeoutError:
        pass
    except ClientClosed:
        return None
    if info is None:
        return client, None, pending
    return client, sm.Joined(table=info, seat=seat), pending


async def take_seat(client: Client, args: argparse.Namespace) -> sm.Joined:
    """Join ``--table``, quick-play, or create a table as the options say."""
    try:
        if args.table:
            return await client.join(args.table, args.seat, args.invite)
        game = await known_game(client, args.game)
        if args.quick or args.partner:
            return await client.quick_play(args.game, args.level, args.partner)
        return await client.create_table(args.game, table_options(args, game.seats))
    except ServerError as exc:
        if exc.code == "not_found" and args.table:
            raise CliError(f"table {args.table!r} not found ({exc.message})") from None
        raise refused("cannot take a seat", exc) from None


async def known_game(client: Client, game: str) -> sm.GameInfo:
    """The server's ``game``; a usage error naming the games it has when it has not."""
    games = {g.id: g for g in await client.list_games()}
    if game not in games:
        known = ", ".join(games) or "none"
        raise CliError(f"unknown game {game!r}; this server has: {known}", EXIT_USAGE)
    return games[game]


def table_options(args: argparse.Namespace, seats: int) -> TableOptions:
    """The new table: ``--seats`` as given, else you at ``--seat``, ``--humans`` seats
    for people (from yours on), and the rest AI (``--ai-seats`` names them instead)."""
    if args.seats is not None:
        me, ai = parse_seats(args.seats, seats, args.level)
    else:
        me = 0 if args.seat is None else args.seat
        if not 0 <= me < seats:
            raise CliError(f"--seat must be between 0 and {seats - 1}", EXIT_USAGE)
        if args.ai_seats is not None:
            try:
                numbers = sorted({int(s) for s in args.ai_seats.split(",") if s.strip()})
            except ValueError:
                raise CliError(
                    f"--ai-seats {args.ai_seats!r}: seat numbers like 1,3", EXIT_USAGE
                ) from None
        else:
            if not 1 <= args.humans <= seats:
                raise CliError(f"--humans must be between 1 and {seats}", EXIT_USAGE)
            order = partners_first(me, seats, args.game)
            humans = set(order[: args.humans])
            numbers = [s for s in range(seats) if s not in humans]
        ai = [AiSeat(seat=s, level=args.level) for s in numbers]
    return TableOptions(
        ai=tuple(ai),
        seat=me,
        private=args.private,
        turn_timer=args.turn_timer,
        ai_delay=args.ai_delay,
        game=parse_options(args.options),
        hints=not (args.no_hints or args.rated),
        rated=args.rated,
    )


def check_rated(args: argparse.Namespace) -> None:
    """``--rated`` asks for a new rated table, or with ``--quick`` the rated queue, on a
    server: refuse what cannot give one before connecting (the server checks the rest:
    options, levels, accounts)."""
    if args.with_bots and not (args.rated and args.quick):
        raise CliError("--with-bots is for the rated queue: give --quick --rated", EXIT_USAGE)
    if not args.rated:
        return
    if not args.url:
        raise CliError(
            "--rated needs --url: ratings live on a server with accounts (cardavia login)",
            EXIT_USAGE,
        )
    if args.table:
        raise CliError(
            "--rated makes a new table; to join a rated table give --table alone", EXIT_USAGE
        )
    if args.partner:
        raise CliError(
            "--rated does not go with --partner: the rated queue seats players by rating",
            EXIT_USAGE,
        )
    if args.quick and args.level:
        raise CliError(
            "--quick --rated does not take --level: the queue picks the AI level of the "
            "closest rating",
            EXIT_USAGE,
        )


TEAM_GAMES = frozenset({"cicera"})
"""Games played in partnerships of opposite seats (0+2 against 1+3)."""


def partners_first(me: int, seats: int, game: str) -> list[int]:
    """The seats in the order they go to people: yours, then (in a team game) your
    partner's opposite, then the others; friends at a new Cicera table play together."""
    order = [(me + k) % seats for k in range(seats)]
    if game in TEAM_GAMES:
        half = seats // 2
        order = [(me + k * half + j) % seats for j in range(half) for k in range(2)]
    return order


def parse_seats(spec: str, seats: int, level: str | None = None) -> tuple[int, list[AiSeat]]:
    """``you,ai,human,ai:random``: every seat in order; your seat and the AI seats.

    ``you`` is your seat (exactly one), ``human`` a seat left for a person,
    ``ai`` or ``ai:LEVEL`` an AI seat (``LEVEL`` defaults to ``--level``).
    """
    items = [item.strip().lower() for item in spec.split(",")]
    if len(items) != seats:
        raise CliError(
            f"--seats {spec!r}: this game has {seats} seats, so give {seats} entries "
            f"(you, human, ai or ai:LEVEL)",
            EXIT_USAGE,
        )
    mine = [i for i, item in enumerate(items) if item in ("you", "me")]
    if len(mine) != 1:
        raise CliError(f"--seats {spec!r}: name your own seat 'you' exactly once", EXIT_USAGE)
    ai: list[AiSeat] = []
    for i, item in enumerate(items):
        kind, _, lvl = item.partition(":")
        if kind == "ai":
            ai.append(AiSeat(seat=i, level=lvl or level))
        elif item not in ("you", "me", "human"):
            raise CliError(
                f"--seats {spec!r}: {item!r} is not you, human, ai or ai:LEVEL", EXIT_USAGE
            )
    return mine[0], ai
