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

On a server (``--url``) the seat you hold is remembered in a per-user state
file (:mod:`client_cli.seatfile`): if this process dies, the next
``cardavia play`` on that server takes the same seat again (the AI covers
your turns meanwhile).  Only ``quit`` gives the seat up.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

from websockets.exceptions import InvalidHandshake

from client_cli.client import Client, ClientClosed, ServerError
from client_cli.common import (
    EXIT_OK,
    EXIT_USAGE,
    CliError,
    add_ca_file,
    connect,
    parse_options,
    refused,
    run,
)
from client_cli.moves import Ask, Pick, Refuse, Send, choose_move, key_range
from client_cli.options import PORT, SECONDS, TURN_SECONDS, number_in
from client_cli.render import Renderer, Seats, renderer_for, seat_name
from client_cli.rulebook import rules_text
from client_cli.seatfile import HeldSeat, SeatFile
from client_cli.style import Style, colour_wanted, terminal_size
from client_cli.terminal import Lines, PromptInput, Screen, StdinLines, wants_prompt_toolkit
from protocol import server_messages as sm
from protocol.models import AiSeat, TableInfo, TableOptions

HELP = """Commands:
  NUMBER          play the move with that number
  CARDS           play the move made of these cards, e.g. 7D or 7D 3S 4C
  WORDS           pass, bid 2 (or just 2 in the auction), herz solo, solo H,
                  wenz, wenz tout, rufer E, sau G, sie
  view            show the table again        moves [WORD]  list your moves
  last            the last trick / play        who     who sits where
  hint            the strongest AI's move for you, from your own view only
  rules           the rules of this game       rules cards  how cards are written
  say TEXT        chat at the table            start   let the AI fill the empty seats
  again           another game when this one is over
  quit            leave for good (the AI takes your seat); Ctrl-C or closing the
                  window keeps your seat: 'cardavia play' again resumes it"""

COMMAND_WORDS = (
    "help", "view", "moves", "last", "hint", "who", "rules", "say", "start", "again", "quit",
)  # fmt: skip
"""The commands at the prompt (completed with Tab)."""

RECONNECT_DELAYS = (0.2, 0.5, 1.0, 2.0, 4.0, 8.0)
"""Seconds to wait before each attempt to resume a dropped session."""


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
    p.add_argument("--host", default="127.0.0.1", help="embedded server: interface")
    p.add_argument("--port", type=PORT, default=0, help="embedded server: port (0: any free)")
    p.set_defaults(func=lambda args: run(play_main(args)))


async def play_main(args: argparse.Namespace) -> int:
    """Start the embedded server if needed, take a seat, play until done."""
    if args.url:
        return await play_at(args.url, args, embedded=False)
    from engine.registry import GAMES
    from server.app import running_server
    from server.config import ServerConfig
    from server.logs import configure

    if args.game not in GAMES:
        raise CliError(f"unknown game {args.game!r}; known: {', '.join(GAMES)}", EXIT_USAGE)
    configure("error")  # the embedded server's log lines would garble the screen
    config = ServerConfig(
        host=args.host,
        port=args.port,
        ai_delay=0.8 if args.ai_delay is None else args.ai_delay,
        quick_fill_wait=2.0,
        ai_mode="thread",  # one table: starts at once, no worker processes to spawn
    )
    async with running_server(config) as server:
        return await play_at(server.url, args, embedded=True)


async def play_at(url: str, args: argparse.Namespace, *, embedded: bool) -> int:
    """Connect to ``url``, resume the seat held there or take one as asked, and play."""
    screen = Screen()
    seats = None if embedded else SeatFile()
    held = seats.get(url, args.name) if seats is not None else None
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
        client, joined = await connect(url, args.name, ca_file=args.ca_file), None
    session: PlaySession | None = None
    try:
        if joined is None:
            joined = await take_seat(client, args)
        else:
            where = f"seat {joined.seat}" if joined.seat is not None else "watching"
            screen.show([f"Resumed your place at table {joined.table.id} ({where})."])
        session = PlaySession(
            client,
            joined,
            screen,
            url=url,
            embedded=embedded,
            seatfile=seats,
            auto_pass=args.auto_pass,
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
        games = {g.id: g for g in await client.list_games()}
        if args.game not in games:
            known = ", ".join(games) or "none"
            raise CliError(f"unknown game {args.game!r}; this server has: {known}", EXIT_USAGE)
        if args.quick or args.partner:
            return await client.quick_play(args.game, args.level, args.partner)
        return await client.create_table(args.game, table_options(args, games[args.game].seats))
    except ServerError as exc:
        if exc.code == "not_found" and args.table:
            raise CliError(f"table {args.table!r} not found ({exc.message})") from None
        raise refused("cannot take a seat", exc) from None


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
        hints=not args.no_hints,
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


class PlaySession:
    """One person at one table: prints what happens, reads moves and commands."""

    def __init__(
        self,
        client: Client,
        joined: sm.Joined,
        screen: Screen,
        *,
        url: str = "",
        embedded: bool = False,
        seatfile: SeatFile | None = None,
        auto_pass: bool = False,
    ) -> None:
        self.client = client
        self.seatfile = seatfile
        self.auto_pass = auto_pass
        self._auto: asyncio.Future[None] | None = None
        self.fancy_input = True
        """prompt_toolkit on a terminal (history, completion); False: plain lines."""
        self.table = joined.table.id
        self.seat = joined.seat
        self.info: TableInfo = joined.table
        self.invite = joined.invite
        self.screen = screen
        self.url = url
        self.embedded = embedded
        self.seats = Seats(me=joined.seat)
        self.seats.update(joined.table)
        self.render: Renderer = renderer_for(joined.table.game, self.seats)
        self.render.set_pattern(joined.table.options)
        self.render.style = Style(colour_wanted(screen.out))
        self.view: dict[str, Any] | None = None
        self.version = -1
        self.game_no = 0
        self.moves: list[dict[str, Any]] = []
        self.moves_version = -1
        self.over = False
        self.done: int | None = None

    # -- main loop -----------------------------------------------------------
    def completions(self) -> list[str]:
        """What Tab completes: the commands, and the cards and words of the moves now."""
        words = [w.split()[0] for w in COMMAND_WORDS]
        for action in self.moves:
            words.extend(sorted(self.render.action_cards(action)))
            kind = str(action.get("type", ""))
            words.append(kind)
            if kind == "announce":
                words.extend(("rufer", "sau", "wenz", "solo", "tout", "sie", "weiter"))
                words.extend(("eichel", "gras", "herz", "schellen"))
        return words

    def remember(self) -> None:
        """Keep the seat in the state file, so a new process can resume it."""
        if self.seatfile is not None and self.seat is not None:
            self.seatfile.put(
                HeldSeat(
                    url=self.url,
                    token=self.client.token,
                    table=self.table,
                    seat=self.seat,
                    game=self.info.game,
                    name=self.client.name,
                )
            )

    def forget(self) -> None:
        """The seat is given up (quit, or the table closed): nothing to resume."""
        if self.seatfile is not None:
            self.seatfile.forget(self.url, self.client.name)

    async def run(self, pending: list[Any] | None = None) -> int:
        """Until the player quits, the table closes or the server goes away."""
        self.intro()
        for msg in pending or ():
            self.on_message(msg)
        lines: Lines = (
            PromptInput(self.screen, self.completions)
            if self.fancy_input and wants_prompt_toolkit()
            else StdinLines()
        )
        lines.start()
        try:
            async for source, item in self._events(lines):
                if source == "net":
                    self.on_message(item)
                else:
                    await self.on_line(item)
                if self.done is not None:
                    return self.done
        finally:
            lines.stop()
            self.screen.ask(None)
        return EXIT_OK

    async def _events(self, lines: Lines) -> AsyncIterator[tuple[str, Any]]:
        """Messages and typed lines as they come, whichever first."""
        net: asyncio.Task[Any] = asyncio.ensure_future(self.client.receive())
        typed: asyncio.Task[str | None] = asyncio.ensure_future(lines.get())
        try:
            while True:
                done, _ = await asyncio.wait({net, typed}, return_when=asyncio.FIRST_COMPLETED)
                if net in done:
                    try:
                        msg = net.result()
                    except ClientClosed as exc:
                        if await self.reconnect(exc):
                            net = asyncio.ensure_future(self.client.receive())
                            continue
                        self.screen.show([f"The connection to the server closed. {exc.reason}"])
                        self.done = 1 if not self.over else EXIT_OK
                        return
                    net = asyncio.ensure_future(self.client.receive())
                    yield "net", msg
                if typed in done:
                    line = typed.result()
                    typed = asyncio.ensure_future(lines.get())
                    yield "line", line
        finally:
            for task in (net, typed):
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task

    async def reconnect(self, exc: ClientClosed) -> bool:
        """Resume the session with its token after the connection dropped.

        The server gives the seat back and sends a snapshot of the table, so
        play goes on where it was; meanwhile the AI may have covered a turn.
        """
        if self.done is not None or not self.client.token:
            return False
        self.screen.ask(None)
        self.screen.show([f"Lost the connection to the server ({exc}); reconnecting…"])
        for delay in RECONNECT_DELAYS:
            await asyncio.sleep(delay)
            try:
                client = await Client.connect(
                    self.url,
                    self.client.name,
                    token=self.client.token,
                    open_timeout=5.0,
                    ca_file=self.client.ca_file,
                )
            except (OSError, TimeoutError, InvalidHandshake, ServerError, ClientClosed):
                continue
            old, self.client = self.client, client
            await old.close()
            for _ in range(100):  # after a failover the table comes back within seconds
                if not client.resumed or self.table in client.tables or client.closed:
                    break
                await asyncio.sleep(0.1)
            if not client.resumed or self.table not in client.tables:
                self.screen.show(["The server no longer knows this session or table."])
                return False
            self.screen.show(["Reconnected."])
            self.remember()
            return True
        return False

    def intro(self) -> None:
        """Say where we are; how others join a table that waits for people."""
        info = self.info
        where = "" if self.embedded else f" on {self.url}"
        seat = f"seat {self.seat}" if self.seat is not None else "watching"
        lines = [f"{info.title} at table {info.id}{where}, {seat}. Type 'help' for commands."]
        lines.append(
            "Players: "
            + ", ".join(
                f"{s.seat}: {'you' if s.seat == self.seat else seat_name(s)}" for s in info.seats
            )
        )
        if info.status == "waiting":
            lines.extend(self.waiting_lines())
        self.screen.show(lines)

    def waiting_lines(self) -> list[str]:
        empty = sum(1 for s in self.info.seats if s.kind == "empty")
        table = self.info.id
        # an id may start with "-": written --table=ID, the shell and argparse still read it
        table_arg = f"--table={table}" if table.startswith("-") else f"--table {table}"
        join = f"cardavia play {self.info.game} --url {self.url} {table_arg}"
        if self.invite:
            join += f" --invite {self.invite}"
        lines = [f"Waiting for {empty} more player(s). Others join with:", f"  {join}"]
        if self.info.owner == self.client.player_id:
            lines.append("Type 'start' to let the AI take the empty seats now.")
        return lines

    # -- what the server says ------------------------------------------------------
    def on_message(self, msg: Any) -> None:
        """React to one pushed message."""
        if isinstance(msg, sm.Update | sm.Snapshot):
            if msg.table != self.table:
                return
            self.on_game_message(msg)
        elif isinstance(msg, sm.TableChanged) and msg.table.id == self.table:
            self.on_table(msg.table)
        elif isinstance(msg, sm.GameOver) and msg.table == self.table:
            self.over = True
            self.moves = []
            self.screen.ask(None)
            self.screen.show(["", *self.render.result_lines(msg.result), *self.absent_lines()])
            self.screen.ask("Again? [y/n] ")
        elif isinstance(msg, sm.ChatLine) and msg.table == self.table:
            self.screen.show([f"[{msg.name}] {msg.text}"])
        elif isinstance(msg, sm.TableClosed) and msg.table == self.table:
            self.screen.show([f"The table closed: {msg.reason}"])
            self.forget()
            self.done = EXIT_OK
        elif isinstance(msg, sm.Shutdown):
            reason = msg.reason.strip().rstrip(".")
            same = not reason or reason.lower() == "the server is shutting down"
            self.screen.show(["The server is shutting down" + ("." if same else f": {reason}.")])
            self.done = EXIT_OK if self.over else 1
        elif isinstance(msg, sm.Error):
            self.screen.show([f"Server: {msg.message} ({msg.code})"])

    def on_game_message(self, msg: sm.Update | sm.Snapshot) -> None:
        new_game = msg.game_no != self.game_no
        if new_game:
            self.game_no = msg.game_no
            self.over = False
            self.screen.ask(None)
            self.screen.show(["", f"=== Game {msg.game_no} ==="])
        self.view, self.version = msg.view, msg.version
        self.render.set_pattern(msg.view.get("options"))
        if isinstance(msg, sm.Update):
            lines: list[str] = []
            if msg.actor is not None and msg.actor == self.seat and msg.by in ("ai", "timer"):
                why = "your time ran out" if msg.by == "timer" else "you were away"
                lines.append(f"(The AI played your turn: {why}.)")
            for event in msg.events:
                lines.extend(self.render.event(event))
            self.screen.show(lines)
        legal = list(msg.view.get("legal") or []) if self.seat is not None else []
        if legal and not self.over:
            self.moves, self.moves_version = legal, msg.version
            self.show_turn(msg.timer_s)
        else:
            self.moves = []
            if not self.over:
                self.screen.ask(None)
            if isinstance(msg, sm.Snapshot) or new_game:
                self.screen.show(self.render.view_lines(msg.view))

    def show_turn(self, timer_s: float | None = None) -> None:
        """The table, the moves (as many as the screen holds) and the prompt."""
        assert self.view is not None
        if self.auto_pass and [a.get("type") for a in self.moves] == ["pass"]:
            self.screen.show(["(Auto-pass: pass is your only move.)"])
            self._auto = asyncio.ensure_future(self.send_move(0))
            return
        width, rows = terminal_size() if self.screen.tty else (100, 1000)
        self.render.width = width
        lines = ["", *self.render.view_lines(self.view), *self.render.notices(self.view)]
        if timer_s is not None:
            lines.append(f"You have {timer_s:.0f} s.")
        moves = self.render.moves_lines(self.moves)
        room = rows - len(lines) - 2
        if len(moves) > max(room, 4):
            keep = max(room - 1, 3)
            moves = [
                *moves[:keep],
                f"  … and more: 'moves' lists all {len(self.moves)}, 'moves WORD' those with WORD",
            ]
        self.screen.ask(None)
        self.screen.show([*lines, *moves])
        self.prompt_move()

    def prompt_move(self) -> None:
        self.screen.ask(f"Your move [{key_range(self.render.move_keys(self.moves))}]: ")

    def absent_lines(self) -> list[str]:
        """Who of the other people is away, after a game (a rematch does not wait for them)."""
        lines = []
        for s in self.info.seats:
            if s.seat == self.seat or s.kind != "human":
                continue
            if not s.connected:
                lines.append(
                    f"{s.name or f'seat {s.seat}'} is away: type 'again' to play on without "
                    "waiting (the AI plays their seat until they are back), or 'quit'."
                )
        return lines

    def on_table(self, info: TableInfo) -> None:
        before = self.info
        self.info = info
        lines = self.seats.update(info)
        if info.status != before.status:
            if info.status == "waiting":
                lines.extend(self.waiting_lines())
            elif info.status == "playing":
                lines.append("Play starts.")
        if self.over:
            for old, new in zip(before.seats, info.seats, strict=False):
                if old.kind == "human" and new.kind == "empty" and old.seat != self.seat:
                    lines.append(
                        f"{old.name or f'seat {old.seat}'} left the table: the AI takes "
                        "that seat if you play again."
                    )
        votes = [v for v in info.rematch_votes if v not in before.rematch_votes]
        lines.extend(f"{self.seats.title(v)} asked for another game." for v in votes)
        self.screen.show(lines)

    # -- what the player types -------------------------------------------------------
    async def on_line(self, line: str | None) -> None:
        """Handle one typed line (``None``: stdin closed)."""
        self.screen.answered()
        if line is None:
            self.detach()
            return
        text = line.strip()
        word, _, rest = text.partition(" ")
        word = word.lower()
        try:
            if not text:
                self.reprompt()
            elif word in ("q", "quit", "exit") or (self.over and word in ("n", "no")):
                await self.quit()
            elif word in ("h", "help", "?"):
                self.screen.show([HELP])
            elif word in ("v", "view"):
                if self.view is not None:
                    self.screen.show(self.render.view_lines(self.view))
                self.reprompt()
            elif word in ("m", "moves"):
                self.list_moves(rest.strip().lower())
            elif word == "hint":
                await self.show_hint()
            elif word == "last":
                found = self.render.last_lines(self.view) if self.view is not None else None
                self.screen.show(found or ["Nothing has been played yet."])
                self.reprompt()
            elif word == "rules":
                self.screen.show(rules_text(rest.strip() or self.info.game).splitlines())
                self.reprompt()
            elif word == "who":
                self.screen.show([f"{s.seat}: {self.seats(s.seat)}" for s in self.info.seats])
            elif word == "say" and rest.strip():
                await self.client.chat(self.table, rest.strip())
            elif word == "start":
                await self.client.start(self.table)
            elif word in ("again", "rematch") or (self.over and word in ("y", "yes")):
                await self.again()
            else:
                await self.move(text)
        except ServerError as exc:
            self.screen.show([f"Refused: {exc.message} ({exc.code})"])
            self.reprompt()
        except CliError as exc:
            self.screen.show([str(exc)])
            self.reprompt()
        if self.done is None and self.screen.prompt is None:
            self.reprompt()  # a prompt_toolkit prompt is cleared when answered

    async def show_hint(self) -> None:
        """The strongest AI's move for this seat, computed here from this seat's view."""
        if not self.info.hints:
            self.screen.show(["Hints are off at this table."])
        elif not self.moves or self.view is None:
            self.screen.show(["A hint needs your turn."])
        else:
            from client_cli.hint import hint

            view = dict(self.view)
            index, why = await asyncio.to_thread(hint, self.info.game, view)
            if self.view is view or self.view == view:
                label = self.render.move_labels(self.moves)[index]
                self.screen.show([f"Hint: {label} — {why}."])
        self.reprompt()

    def reprompt(self) -> None:
        if self.moves and not self.over:
            self.prompt_move()
        elif self.over:
            self.screen.ask("Again? [y/n] ")

    def list_moves(self, word: str) -> None:
        """Every move (``moves``), or those whose description holds ``word``."""
        if not self.moves:
            self.screen.show(["You have no moves now."])
            return
        labels = self.render.move_labels(self.moves)
        picked = [lab for lab in labels if word in lab.lower()] if word else labels
        self.screen.show(["  " + lab for lab in picked] or [f"No move mentions {word!r}."])
        self.reprompt()

    async def move(self, text: str) -> None:
        if self.over:
            self.screen.show(["The game is over: 'again' or 'quit'."])
            self.reprompt()
            return
        if not self.moves:
            waiting = self.render.turn_line(self.view) if self.view else "The game has not begun."
            self.screen.show([f"It is not your turn. {waiting}"])
            return
        choice = choose_move(text, self.moves, self.render, self.view)
        if isinstance(choice, Pick):
            await self.send_move(choice.index)
        elif isinstance(choice, Ask):
            keys = self.render.move_keys(self.moves)
            labels = self.render.move_labels(self.moves)
            self.screen.show(
                [f"{text.strip()!r} fits {len(choice.indices)} moves:"]
                + ["  " + labels[i] for i in choice.indices]
            )
            self.screen.ask(f"Which one? [{', '.join(keys[i] for i in choice.indices)}]: ")
        elif isinstance(choice, Send):
            await self.send_move(None, choice.action)
        elif isinstance(choice, Refuse):
            self.screen.show([choice.message])
            self.reprompt()

    async def send_move(self, index: int | None, action: Any = None) -> None:
        """Send the move at ``index`` of the legal moves (or ``action``); say why when the
        rules refuse it."""
        version = self.moves_version
        if index is not None:
            action = self.moves[index]
        legal, self.moves = self.moves, []
        self.screen.ask(None)
        try:
            await self.client.act(self.table, action, seat=self.seat, version=version)
        except ServerError as exc:
            if exc.code in ("stale_version", "not_your_turn", "not_playing"):
                self.screen.show(["Too late: the game moved on."])
                return
            if exc.code == "illegal_action":
                self.screen.show([f"Not allowed: {exc.message}."])
            else:
                self.screen.show([f"Refused: {exc.message} ({exc.code})"])
            if self.version == version:
                self.moves = legal
                self.reprompt()

    async def again(self) -> None:
        if not self.over:
            self.screen.show(["The game is still running."])
            return
        await self.client.rematch(self.table)
        self.screen.ask(None)
        humans = [s for s in self.info.seats if s.kind == "human" and s.seat != self.seat]
        if humans:
            self.screen.show(["Waiting for the other players to agree…"])

    async def quit(self) -> None:
        """Leave for good: the seat goes to the AI (or is freed) and is not resumed."""
        if not self.embedded:
            with contextlib.suppress(ServerError, ClientClosed):
                await self.client.leave(self.table)
        self.forget()
        self.screen.ask(None)
        self.screen.show(["Bye."])
        self.done = EXIT_OK

    def detach(self) -> None:
        """Input ended (not a 'quit'): go, keeping the seat to resume it later."""
        self.screen.ask(None)
        if self.embedded or self.seat is None:
            self.screen.show(["Bye."])
        else:
            self.screen.show(
                [
                    f"Bye. Your seat is kept: 'cardavia play {self.info.game} --url {self.url}' "
                    "resumes it ('quit' gives it up)."
                ]
            )
        self.done = EXIT_OK
