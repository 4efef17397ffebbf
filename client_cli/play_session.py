"""The play session of ``cardavia play``: one table seen from one seat, in the terminal.

:class:`PlaySession` reads the server's messages and the player's lines,
shows the table laid out for the terminal, turns what was typed into a move
(:mod:`client_cli.moves`), and resumes the session when the connection drops.
:mod:`client_cli.play` parses the command line and seats the player.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Coroutine
from dataclasses import dataclass
from typing import Any

from websockets.exceptions import InvalidHandshake

from client_cli.client import Client, ClientClosed, RequestTimeout, ServerError, table_peers
from client_cli.common import EXIT_OK, CliError
from client_cli.lang import Language, language
from client_cli.moves import Ask, Pick, Refuse, Send, choose_move, key_range
from client_cli.rated_game import RatingChange, rating_line
from client_cli.render import Renderer, Seats, chat_name, renderer_for, seat_name
from client_cli.rulebook import rules_lines
from client_cli.seatfile import HeldSeat, SeatFile
from client_cli.style import Style, colour_wanted, terminal_size
from client_cli.terminal import Lines, PromptInput, Screen, StdinLines, wants_prompt_toolkit
from protocol import server_messages as sm
from protocol.models import TableInfo

COMMAND_WORDS = (
    "help", "view", "moves", "last", "hint", "who", "rules", "say", "start", "again", "quit",
    "mute", "unmute", "block", "unblock", "report", "kick",
)  # fmt: skip
"""The commands at the prompt (completed with Tab)."""

MODERATION_WORDS = frozenset({"mute", "unmute", "block", "unblock", "report", "kick"})
"""The commands that name another player (:meth:`PlaySession.moderate`)."""

RECONNECT_DELAYS = (0.2, 0.5, 1.0, 2.0, 4.0, 8.0)
"""Seconds to wait before each attempt to resume a dropped session."""


@dataclass(frozen=True)
class QuickAsk:
    """What ``--quick`` asked the server for (``quick_play``'s fields)."""

    game: str
    level: str | None = None
    partner: str | None = None


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
        lang: Language | None = None,
        quick: QuickAsk | None = None,
    ) -> None:
        self.lang = lang or language()
        self.client = client
        self.seatfile = seatfile
        self.auto_pass = auto_pass
        self._auto: asyncio.Future[None] | None = None
        self.fancy_input = True
        """prompt_toolkit on a terminal (history, completion); False: plain lines."""
        self.done: int | None = None
        self.screen = screen
        self.url = url
        self.embedded = embedded
        self.quick = quick
        """What quick play asked for, when it seated this player: asked again when the
        server gives the waiting seat up (see :meth:`seat_given_up`)."""
        self._rating_tasks: set[asyncio.Future[None]] = set()
        self.sit(joined)

    def sit(self, joined: sm.Joined) -> None:
        """Show the table of ``joined`` from its seat, from the start (a new session,
        or a new quick-play table after the waiting seat was given up)."""
        self.table = joined.table.id
        self.seat = joined.seat
        self.info: TableInfo = joined.table
        self.invite = joined.invite
        self.seats = Seats(me=joined.seat, lang=self.lang)
        self.seats.update(joined.table)
        self.rating: RatingChange | None = None
        """The player's rating at this table's game as its current game changes it (a rated
        table): said once the server has rated the game (:mod:`client_cli.rated_game`)."""
        self.render: Renderer = renderer_for(joined.table.game, self.seats)
        self.render.set_pattern(joined.table.options)
        self.render.style = Style(colour_wanted(self.screen.out))
        self.view: dict[str, Any] | None = None
        self.version = -1
        self.game_no = 0
        self.moves: list[dict[str, Any]] = []
        self.moves_version = -1
        self.unsent: tuple[int, Any] | None = None
        """A move (its version, the action) whose answer the dropped connection never
        brought: sent again if the table is back at that version (the version keeps
        it from counting twice)."""
        self.over = False
        self.quitting = False
        """'quit' was typed while a game is on: the next line says whether to go."""
        self.chatted: dict[str, tuple[str, str]] = {}
        """Player ids of the names seen in chat (spectators too), for mute, report …"""

    # -- main loop -----------------------------------------------------------
    def completions(self) -> list[str]:
        """What Tab completes: the commands, and the cards and words of the moves now."""
        words = [w.split()[0] for w in COMMAND_WORDS]
        for action in self.moves:
            words.extend(sorted(self.render.action_cards(action)))
            kind = str(action.get("type", ""))
            words.append(kind)
            words.extend(w for w, english in self.lang.words().items() if english == kind)
            if kind == "announce":
                announce = ("rufer", "sau", "wenz", "solo", "tout", "sie", "weiter")
                suits = ("eichel", "gras", "herz", "schellen")
                words.extend((*announce, *suits))
                own = self.lang.words().items()  # makk, szóló …
                words.extend(w for w, english in own if english in (*announce, *suits))
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
                if source == "net" and self.seat_given_up(item):
                    await self.quick_again_here()
                elif source == "net":
                    self.on_message(item)
                else:
                    await self.on_line(item)
                if self.done is not None:
                    return self.done
        finally:
            lines.stop()
            self.screen.ask(None)
            for task in self._rating_tasks:
                task.cancel()
        return EXIT_OK

    async def _events(self, lines: Lines) -> AsyncIterator[tuple[str, Any]]:
        """Messages and typed lines as they come, whichever first."""
        reading = self.client
        net: asyncio.Task[Any] = asyncio.ensure_future(reading.receive())
        typed: asyncio.Task[str | None] = asyncio.ensure_future(lines.get())
        try:
            while True:
                done, _ = await asyncio.wait({net, typed}, return_when=asyncio.FIRST_COMPLETED)
                if net in done:
                    try:
                        msg = net.result()
                    except ClientClosed as exc:
                        if reading is not self.client or await self.reconnect(exc):
                            # resumed already (a request went unanswered): read the new one
                            if self.done is not None:
                                return  # resumed, but quick play again was refused
                            reading = self.client
                            net = asyncio.ensure_future(self.client.receive())
                            continue
                        self.screen.show([self.lang.t("session.closed", reason=exc.reason)])
                        self.done = 1 if not self.over else EXIT_OK
                        return
                    net = asyncio.ensure_future(reading.receive())
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
        self.screen.show([self.lang.t("session.reconnecting", reason=exc)])
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
            if client.resumed and self.table not in client.tables and self.given_up_here():
                try:
                    await self.quick_again()
                except (ClientClosed, RequestTimeout):
                    continue  # the next try resumes the session and asks again
                return True
            for _ in range(100):  # after a failover the table comes back within seconds
                if not client.resumed or self.table in client.tables or client.closed:
                    break
                await asyncio.sleep(0.1)
            if not client.resumed or self.table not in client.tables:
                self.screen.show([self.lang.t("session.unknown_session")])
                return False
            self.screen.show([self.lang.t("session.reconnected")])
            self.remember()
            return True
        return False

    def given_up_here(self) -> bool:
        """Whether the server gives this seat up when the connection closes: a seat
        quick play took at a quick-play table that still waits (docs/protocol.md,
        Quick play), which quick play may then take anew."""
        return self.quick is not None and self.info.quick and self.info.status == "waiting"

    def seat_given_up(self, msg: Any) -> bool:
        """Whether ``msg`` says the waiting quick-play seat was given up: ``left`` with
        no ``ref`` (no ``leave`` of ours) for this table, sent to a session that was back
        before the server saw its old connection close."""
        return (
            isinstance(msg, sm.Left)
            and msg.ref is None
            and msg.table == self.table
            and self.given_up_here()
        )

    async def quick_again(self) -> None:
        """Quick play again after the server gave the waiting seat up, as ``--quick``
        asked: say so in one line, then show the new table from the start. A refusal
        (a quota, say) ends the session; a dropped connection or a missing answer is
        the caller's to resume."""
        assert self.quick is not None
        self.screen.ask(None)
        self.screen.show([self.lang.t("session.quick_again")])
        try:
            joined = await self.client.quick_play(
                self.quick.game, self.quick.level, self.quick.partner
            )
        except ServerError as exc:
            self.screen.show([self.refused(exc)])
            self.forget()
            self.done = 1
            return
        self.sit(joined)
        self.remember()
        self.intro()

    async def quick_again_here(self) -> None:
        """:meth:`quick_again` on this connection (its seat was given up after it was
        resumed): a dropped connection or a missing answer resumes the session in the
        message loop, whose welcome then lacks the table, so it asks again."""
        try:
            await self.quick_again()
        except ClientClosed:
            pass  # the message loop resumes the session
        except RequestTimeout:
            await self.client.close()  # the message loop resumes on a new connection

    def intro(self) -> None:
        """Say where we are; how others join a table that waits for people."""
        info = self.info
        t = self.lang.t
        where = "" if self.embedded else t("session.on_url", url=self.url)
        seat = t("session.seat", n=self.seat) if self.seat is not None else t("session.watching")
        lines = [t("session.intro", title=info.title, table=info.id, where=where, seat=seat)]
        players = ", ".join(
            f"{s.seat}: "
            + (self.seats(s.seat) if s.seat == self.seat else seat_name(s, lang=self.lang))
            for s in info.seats
        )
        lines.append(t("session.players", players=players))
        if info.rated:
            lines.append(t("session.rated"))
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
        lines = [self.lang.t("session.waiting", n=empty), f"  {join}"]
        if self.info.owner == self.client.player_id:
            lines.append(self.lang.t("session.start_hint"))
        return lines

    # -- what the server says ------------------------------------------------------
    def on_message(self, msg: Any) -> None:
        """React to one pushed message."""
        self.render.width = self.screen_size()[0]  # a resized window lays out anew
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
            self.screen.ask(self.lang.t("session.again_prompt"))
            if self.rating is not None:
                self.in_background(self.say_rating(self.rating))
        elif isinstance(msg, sm.ChatLine) and msg.table == self.table:
            self.chatted[msg.name.casefold()] = (msg.player_id, msg.name)
            self.screen.show([f"[{chat_name(msg, self.lang)}] {msg.text}"])
        elif isinstance(msg, sm.Kicked) and msg.table == self.table:
            self.screen.show([self.lang.t("session.kicked")])
            self.forget()
            self.done = EXIT_OK
        elif isinstance(msg, sm.TableClosed) and msg.table == self.table:
            self.screen.show([self.lang.t("session.table_closed", reason=msg.reason)])
            self.forget()
            self.done = EXIT_OK
        elif isinstance(msg, sm.Shutdown):
            reason = msg.reason.strip().rstrip(".")
            same = not reason or reason.lower() == "the server is shutting down"
            self.screen.show(
                [
                    self.lang.t("session.shutdown")
                    if same
                    else self.lang.t("session.shutdown_why", reason=reason)
                ]
            )
            self.done = EXIT_OK if self.over else 1
        elif isinstance(msg, sm.Error):
            self.screen.show(
                [
                    self.lang.t(
                        "session.server_error",
                        message=self.lang.error(msg.code, msg.message),
                        code=msg.code,
                    )
                ]
            )

    def on_game_message(self, msg: sm.Update | sm.Snapshot) -> None:
        new_game = msg.game_no != self.game_no
        if new_game:
            self.game_no = msg.game_no
            self.over = False
            self.screen.ask(None)
            self.screen.show(["", self.lang.t("session.game_no", n=msg.game_no)])
            if self.info.rated and self.seat is not None:  # a rated seat is an account's
                last = self.rating
                self.rating = last.next_game() if last else RatingChange(self.info.game)
                self.in_background(self.rating.before(self.client))
        self.view, self.version = msg.view, msg.version
        self.render.set_pattern(msg.view.get("options"))
        if isinstance(msg, sm.Update):
            lines: list[str] = []
            if msg.actor is not None and msg.actor == self.seat and msg.by in ("ai", "timer"):
                key = "session.ai_played_timer" if msg.by == "timer" else "session.ai_played_away"
                lines.append(self.lang.t(key))
            for event in msg.events:
                lines.extend(self.render.event(event))
            self.screen.show(lines)
        legal = list(msg.view.get("legal") or []) if self.seat is not None else []
        unsent, self.unsent = self.unsent, None
        if legal and not self.over:
            self.moves, self.moves_version = legal, msg.version
            if unsent is not None and unsent[0] == msg.version and unsent[1] in legal:
                self._auto = asyncio.ensure_future(self.send_unprompted(None, unsent[1]))
                return
            self.show_turn(msg.timer_s)
        else:
            self.moves = []
            if not self.over:
                self.screen.ask(None)
            if isinstance(msg, sm.Snapshot) or new_game:
                self.screen.show(self.render.view_lines(msg.view))

    def in_background(self, work: Coroutine[Any, Any, None]) -> None:
        """Run ``work`` beside the session (cancelled when it ends)."""
        task = asyncio.ensure_future(work)
        self._rating_tasks.add(task)
        task.add_done_callback(self._rating_tasks.discard)

    async def say_rating(self, change: RatingChange) -> None:
        """Once the server has rated the game just over: the player's new rating."""
        rating = await change.after(self.client)
        if rating is not None:
            self.screen.show([rating_line(rating, self.info.title, self.lang)])

    def show_turn(self, timer_s: float | None = None) -> None:
        """The table, the moves (as many as the screen holds) and the prompt."""
        assert self.view is not None
        if self.auto_pass and [a.get("type") for a in self.moves] == ["pass"]:
            self.screen.show([self.lang.t("session.auto_pass")])
            self._auto = asyncio.ensure_future(self.send_unprompted(0))
            return
        width, rows = self.screen_size()
        self.render.width = width
        lines = ["", *self.render.view_lines(self.view), *self.render.notices(self.view)]
        if timer_s is not None:
            lines.append(self.lang.t("session.timer", s=f"{timer_s:.0f}"))
        moves = self.render.moves_lines(self.moves)
        room = rows - len(lines) - 2
        if len(moves) > max(room, 4):
            keep = max(room - 1, 3)
            moves = [
                *moves[:keep],
                "  " + self.lang.t("session.more_moves", n=len(self.moves)),
            ]
        self.screen.ask(None)
        self.screen.show([*lines, *moves])
        self.prompt_move()

    def screen_size(self) -> tuple[int, int]:
        """Columns and rows to lay out in: the terminal's; roomy when not a terminal."""
        return terminal_size() if self.screen.tty else (100, 1000)

    def prompt_move(self) -> None:
        if self.quitting:
            self.ask_quit()
            return
        keys = key_range(self.render.move_keys(self.moves), self.lang)
        self.screen.ask(self.lang.t("session.move_prompt", keys=keys))

    def absent_lines(self) -> list[str]:
        """Who of the other people is away, after a game (a rematch does not wait for them)."""
        lines = []
        for s in self.info.seats:
            if s.seat == self.seat or s.kind != "human":
                continue
            if not s.connected:
                name = s.name or self.lang.t("seat.numbered", n=s.seat)
                lines.append(self.lang.t("session.is_away", name=name))
        return lines

    def on_table(self, info: TableInfo) -> None:
        before = self.info
        self.info = info
        lines = self.seats.update(info)
        if info.status != before.status:
            if info.status == "waiting":
                lines.extend(self.waiting_lines())
            elif info.status == "playing":
                lines.append(self.lang.t("session.play_starts"))
        if self.over:
            for old, new in zip(before.seats, info.seats, strict=False):
                if old.kind == "human" and new.kind == "empty" and old.seat != self.seat:
                    name = old.name or self.lang.t("seat.numbered", n=old.seat)
                    lines.append(self.lang.t("session.left", name=name))
        votes = [v for v in info.rematch_votes if v not in before.rematch_votes]
        lines.extend(self.lang.t("session.rematch_vote", who=self.seats.title(v)) for v in votes)
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
        if self.quitting:
            await self.confirm_quit(word)
            return
        if self.over and word in self.lang.t("session.yes_words").split():
            word = "yes"  # sì / ja / igen / evet
        elif self.over and word in self.lang.t("session.no_words").split():
            word = "no"
        try:
            if not text:
                self.reprompt()
            elif word in ("q", "quit", "exit"):
                await self.ask_to_quit()
            elif self.over and word in ("n", "no"):
                await self.quit()
            elif word in ("h", "help", "?"):
                self.screen.show(
                    [
                        self.lang.t("session.help"),
                        self.lang.t("session.help_moderation"),
                        "",
                        self.seat_help(),
                    ]
                )
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
                self.screen.show(found or [self.lang.t("session.nothing_played")])
                self.reprompt()
            elif word == "rules":
                topic = rest.strip() or self.info.game
                width = self.screen_size()[0]
                self.screen.show(rules_lines(topic, width, self.render.style))
                self.reprompt()
            elif word == "who":
                self.screen.show([f"{s.seat}: {self.seats(s.seat)}" for s in self.info.seats])
            elif word in MODERATION_WORDS and rest.strip():
                await self.moderate(word, rest.strip())
            elif word == "say" and rest.strip():
                await self.client.chat(self.table, rest.strip())
            elif word == "start":
                await self.client.start(self.table)
            elif word in ("again", "rematch") or (self.over and word in ("y", "yes")):
                await self.again()
            else:
                await self.move(text)
        except ServerError as exc:
            self.screen.show([self.refused(exc)])
            self.reprompt()
        except RequestTimeout as exc:  # resume on a new connection: its snapshot resyncs
            if not await self.reconnect(ClientClosed(None, str(exc))):
                self.screen.show([self.lang.t("session.closed", reason=exc)])
                self.done = 1 if not self.over else EXIT_OK
        except ClientClosed:
            pass  # the connection dropped: the message loop resumes the session
        except CliError as exc:
            self.screen.show([str(exc)])
            self.reprompt()
        if self.done is None and self.screen.prompt is None:
            self.reprompt()  # a prompt_toolkit prompt is cleared when answered

    def player_named(self, name: str) -> tuple[str, str]:
        """The player id of ``name`` (seated here, or seen in this table's chat; any case),
        and the name as the table shows it."""
        wanted = name.casefold()
        for slot in self.info.seats:
            shown = slot.name or ""
            if slot.kind == "human" and slot.player_id and shown.casefold() == wanted:
                return slot.player_id, shown
        found = self.chatted.get(wanted)
        if found is None:
            raise CliError(self.lang.t("session.no_player", name=name))
        return found

    async def moderate(self, word: str, rest: str) -> None:
        """``mute NAME``, ``unmute``, ``block``, ``unblock``, ``kick NAME`` (the owner, before
        the game) and ``report NAME REASON`` (with this table's chat and game)."""
        client = self.client
        if word == "report":
            typed, _, reason = rest.partition(" ")
            if not reason.strip():
                raise CliError(self.lang.t("session.report_usage"))
            player, name = self.player_named(typed)
            await client.report(player, reason.strip(), table=self.table)
            self.screen.show([self.lang.t("session.reported", name=name)])
            return
        player, name = self.player_named(rest)
        if word == "kick":
            await client.kick(self.table, player)
        else:
            actions = {
                "mute": client.mute,
                "unmute": client.unmute,
                "block": client.block,
                "unblock": client.unblock,
            }
            await actions[word](player)
        self.screen.show([self.lang.t(f"session.{word}_done", name=name)])

    def refused(self, exc: ServerError) -> str:
        """``Refused: … (code)``, the message in the player's language."""
        message = self.lang.error(exc.code, exc.message)
        return self.lang.t("session.refused", message=message, code=exc.code)

    async def show_hint(self) -> None:
        """The strongest AI's move for this seat, computed here from this seat's view."""
        if not self.info.hints:
            self.screen.show([self.lang.t("session.hints_off")])
        elif not self.moves or self.view is None:
            self.screen.show([self.lang.t("session.hint_needs_turn")])
        else:
            from client_cli.hint import hint

            view = dict(self.view)
            peers = table_peers(self.client.tables.get(self.table))
            index, why = await asyncio.to_thread(hint, self.info.game, view, self.lang, peers)
            if self.view is view or self.view == view:
                label = self.render.move_labels(self.moves)[index]
                self.screen.show([self.lang.t("session.hint", move=label, why=why)])
        self.reprompt()

    def reprompt(self) -> None:
        if self.quitting:
            self.ask_quit()
        elif self.moves and not self.over:
            self.prompt_move()
        elif self.over:
            self.screen.ask(self.lang.t("session.again_prompt"))

    def list_moves(self, word: str) -> None:
        """Every move (``moves``), or those whose description holds ``word``."""
        if not self.moves:
            self.screen.show([self.lang.t("session.no_moves")])
            return
        labels = self.render.move_labels(self.moves)
        picked = (
            [
                label
                for action, label in zip(self.moves, labels, strict=True)
                if self.render.mentions(action, label, word)
            ]
            if word
            else labels
        )
        self.screen.show(
            ["  " + lab for lab in picked]
            or [self.lang.t("session.no_move_mentions", word=repr(word))]
        )
        self.reprompt()

    async def move(self, text: str) -> None:
        if self.over:
            self.screen.show([self.lang.t("session.game_over_again")])
            self.reprompt()
            return
        if not self.moves:
            waiting = (
                self.render.turn_line(self.view) if self.view else self.lang.t("session.not_begun")
            )
            self.screen.show([self.lang.t("session.not_your_turn", waiting=waiting)])
            return
        choice = choose_move(text, self.moves, self.render, self.view)
        if isinstance(choice, Pick):
            await self.send_move(choice.index)
        elif isinstance(choice, Ask):
            keys = self.render.move_keys(self.moves)
            labels = self.render.move_labels(self.moves)
            self.screen.show(
                [self.lang.t("session.fits", text=repr(text.strip()), n=len(choice.indices))]
                + ["  " + labels[i] for i in choice.indices]
            )
            which = ", ".join(keys[i] for i in choice.indices)
            self.screen.ask(self.lang.t("session.which_prompt", keys=which))
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
        except (ClientClosed, RequestTimeout):
            self.unsent = (version, action)  # the resumed session's snapshot sends it again
            raise
        except ServerError as exc:
            if exc.code in ("stale_version", "not_your_turn", "not_playing"):
                self.screen.show([self.lang.t("session.too_late")])
                return
            said = (
                self.render.reason(exc.reason.key, exc.reason.params)
                if exc.reason is not None
                else None
            )
            if said is not None:
                self.screen.show([self.lang.t("session.not_allowed", message=said)])
            elif exc.code == "illegal_action" and self.lang.code == "en":
                # the server's English message names the rule: "you must follow Eichel …"
                message = exc.message.rstrip(".")
                self.screen.show([self.lang.t("session.not_allowed", message=message)])
            elif exc.code == "illegal_action":
                self.screen.show([self.lang.error(exc.code, exc.message)])  # a whole sentence
            else:
                self.screen.show([self.refused(exc)])
            if self.version == version:
                self.moves = legal
                self.reprompt()

    async def send_unprompted(self, index: int | None, action: Any = None) -> None:
        """:meth:`send_move` for a move nobody typed (auto-pass, a move sent again): a
        dropped connection or a missing answer resumes the session, as a typed move's
        does (its snapshot then sends the move once more)."""
        try:
            await self.send_move(index, action)
        except ClientClosed:
            pass  # the message loop resumes the session
        except RequestTimeout:
            await self.client.close()  # the message loop resumes on a new connection

    async def again(self) -> None:
        if not self.over:
            self.screen.show([self.lang.t("session.still_running")])
            return
        await self.client.rematch(self.table)
        self.screen.ask(None)
        humans = [s for s in self.info.seats if s.kind == "human" and s.seat != self.seat]
        if humans:
            self.screen.show([self.lang.t("session.waiting_agree")])

    def seat_help(self) -> str:
        """What Ctrl-C and closing the window do to the seat: on a server it is kept and
        resumed; the embedded server ends with this command, and the game with it."""
        if self.embedded:
            command = f"cardavia play {self.info.game} --url ws://127.0.0.1:8765"
            return self.lang.t("session.help_embedded", command=command)
        command = f"cardavia play {self.info.game} --url {self.url}"
        return self.lang.t("session.help_server", command=command)

    def game_on(self) -> bool:
        """Whether this seat is in a game that has not ended (leaving it gives it up)."""
        return self.seat is not None and not self.over and self.info.status == "playing"

    async def ask_to_quit(self) -> None:
        """``quit``: while a game is on, ask first (y/N); else leave."""
        if not self.game_on():
            await self.quit()
            return
        self.quitting = True
        self.ask_quit()

    def ask_quit(self) -> None:
        key = "session.quit_confirm_embedded" if self.embedded else "session.quit_confirm"
        self.screen.ask(self.lang.t(key))

    async def confirm_quit(self, word: str) -> None:
        """The answer to 'Give up your seat? [y/N]': only yes leaves."""
        self.quitting = False
        if word in ("y", "yes", *self.lang.t("session.yes_words").split()):
            await self.quit()
            return
        self.screen.show([self.lang.t("session.quit_kept")])
        self.reprompt()

    async def quit(self) -> None:
        """Leave for good: the seat goes to the AI (or is freed) and is not resumed."""
        if not self.embedded:
            with contextlib.suppress(ServerError, ClientClosed):
                await self.client.leave(self.table)
        self.forget()
        self.screen.ask(None)
        self.screen.show([self.lang.t("session.bye")])
        self.done = EXIT_OK

    def detach(self) -> None:
        """Input ended (not a 'quit'): go, keeping the seat to resume it later."""
        self.screen.ask(None)
        if self.embedded or self.seat is None:
            self.screen.show([self.lang.t("session.bye")])
        else:
            command = f"cardavia play {self.info.game} --url {self.url}"
            self.screen.show([self.lang.t("session.bye_kept", command=command)])
        self.done = EXIT_OK
