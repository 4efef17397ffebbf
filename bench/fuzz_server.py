"""The server side of :mod:`bench.fuzz`: a real server in a thread of its own, the tables
it is set up with, and what the fuzzer reads from it to judge a step (its state
before and after a refused request, dead tasks, exceptions in its log)."""

from __future__ import annotations

import asyncio
import json
import logging
import math
import threading
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any, TypeVar

import structlog
from sqlalchemy import select

from bench.loopback import NO_ADDRESS_CAPS
from client_cli.client import Client, play_table, random_chooser
from engine.codec import to_plain
from server.app import CardaviaServer, running_server
from server.config import ServerConfig
from server.ops.logs import configure
from server.persist.db.models import TeamMatchRow, TeamMemberRow

T = TypeVar("T")

MAX_FRAME = 65536
"""Largest incoming frame of the fuzzed server (bigger ones must close with 1009)."""

CONFIG = ServerConfig(
    port=0,
    ai_mode="thread",
    ai_delay=0.0,
    ai_think=0.01,
    ai_workers=2,
    quick_fill_wait=0.3,
    disconnect_grace=0.3,
    rate_per_s=100_000.0,
    rate_burst=100_000,
    max_frame=MAX_FRAME,
    max_tables=400,
    max_created_tables_per_session=20,
    max_waiting_tables_per_session=20,
    database_url="sqlite+aiosqlite://",  # accounts in memory: register and login are fuzzed too
    login_backoff=0.01,
    **NO_ADDRESS_CAPS,
)
"""Fast AI and short waits; rate limits and the per-address caps (every fuzzing client comes
from 127.0.0.1) out of the way so requests reach the handlers; the per-session caps stay on."""


# -- the server in a thread of its own ----------------------------------------------
class LogTap:
    """A text stream for the server's JSON log lines that keeps what matters."""

    def __init__(self) -> None:
        self.exceptions: list[str] = []
        self.errors = 0

    def write(self, text: str) -> int:
        for line in text.splitlines():
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            if "exception" in entry or entry.get("level") == "critical":
                self.exceptions.append(f"{entry.get('event')}: {entry.get('error', '')}"[:300])
            elif entry.get("level") == "error":
                self.errors += 1
        return len(text)

    def flush(self) -> None:
        """Nothing is buffered."""


_SERVER_LOGGERS = ("websockets.server", "asyncio")
"""The server's side of websockets, and asyncio: not ``websockets.client``, where the
fuzzer's own sync client logs its races (a socket closed while a reply comes in:
"unexpected internal error", EOFError: stream ended), which are not the server's."""


class _StdlibTap(logging.Handler):
    """Errors logged by websockets or asyncio (a failed handler, a lost task exception)."""

    def __init__(self, tap: LogTap) -> None:
        super().__init__(logging.ERROR)
        self.tap = tap

    def emit(self, record: logging.LogRecord) -> None:
        self.tap.exceptions.append(f"{record.name}: {record.getMessage()}"[:300])


@dataclass(frozen=True)
class Known:
    """A table the fuzzer knows about: its id and invite code (private tables)."""

    id: str
    invite: str | None = None


class ServerThread:
    """A running server and its owner's tables, driven from the fuzzer's thread."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.tap = LogTap()
        self.tables: list[Known] = []
        self.matches: list[str] = []
        """The team matches made at set-up (the fuzzer also learns those it makes)."""
        self.url = ""
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: CardaviaServer | None = None
        self._stop: asyncio.Event | None = None
        self._ready = threading.Event()
        self._failure: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="fuzz-server", daemon=True)

    def __enter__(self) -> ServerThread:
        self._thread.start()
        self._ready.wait(60)
        if self._failure is not None or self._server is None:
            raise RuntimeError(f"the server did not start: {self._failure!r}")
        return self

    def __exit__(self, *exc: object) -> None:
        if self._loop is not None and self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(30)

    def call(self, fn: Callable[[CardaviaServer], T]) -> T:
        """Run ``fn(server)`` on the server's loop (consistent reads) and return its result."""
        assert self._loop is not None and self._server is not None
        server = self._server

        async def run() -> T:
            return fn(server)

        return asyncio.run_coroutine_threadsafe(run(), self._loop).result(30)

    def read(self, fn: Callable[[CardaviaServer], Coroutine[Any, Any, T]]) -> T:
        """Run ``fn(server)``, which awaits (a read of the database), on the server's loop."""
        assert self._loop is not None and self._server is not None
        return asyncio.run_coroutine_threadsafe(fn(self._server), self._loop).result(30)

    def _run(self) -> None:
        try:
            asyncio.run(self._main())
        except BaseException as exc:  # reported by __enter__ or as a crash
            self._failure = exc
            self._ready.set()

    async def _main(self) -> None:
        saved = structlog.get_config()
        configure("warning", stream=self.tap)  # type: ignore[arg-type]
        handler = _StdlibTap(self.tap)
        for name in _SERVER_LOGGERS:
            logging.getLogger(name).addHandler(handler)
        loop = asyncio.get_running_loop()
        loop.set_exception_handler(
            lambda _, ctx: self.tap.exceptions.append(f"loop: {ctx.get('message')}"[:300])
        )
        self._loop = loop
        self._stop = asyncio.Event()
        try:
            async with running_server(self.config) as server:
                self._server = server
                self.url = server.url
                owner = await Client.connect(server.url, "owner")
                try:
                    await self._set_up(owner)
                    self._ready.set()
                    await self._stop.wait()
                finally:
                    await owner.close()
        finally:
            for name in _SERVER_LOGGERS:
                logging.getLogger(name).removeHandler(handler)
            structlog.configure(**saved)

    async def _set_up(self, owner: Client) -> None:
        """Tables in every situation, owned by a client that never acts on them again,
        and a team match it made, forming."""
        await owner.register("fuzz owner", "fuzz owner password")
        made = await owner.create_team_match("scopa", boards=1, level="easy")
        self.matches.append(made.match_id)  # join, leave, start … aim at it
        specs: list[tuple[str, dict[str, Any]]] = [
            ("scopa", {"seat": 0}),  # public, waiting for a second player
            ("cicera", {"seat": 0, "private": True}),  # private, waiting
            ("doudizhu", {"seat": 0, "private": True, "ai": [{"seat": 1}, {"seat": 2}]}),
            ("schafkopf", {"seat": 0, "ai": [{"seat": s} for s in (1, 2, 3)]}),
            ("cicera", {"seat": 0, "ai": [{"seat": s} for s in (1, 2, 3)]}),
        ]
        for game, options in specs:
            joined = await owner.create_table(game, options)
            self.tables.append(Known(joined.table.id, joined.invite))
        final = await owner.create_table(
            "scopa", {"seat": 0, "ai": [{"seat": 1}], "game": {"target": 1}}
        )
        self.tables.append(Known(final.table.id, final.invite))
        await play_table(owner, final.table.id, random_chooser(7))


# -- what the fuzzer reads from the server ----------------------------------------------
@dataclass(frozen=True)
class Snapshot:
    """The lobby and every quiescent table, as far as a refused request must leave them."""

    lobby: frozenset[str]
    sessions: int
    tables: dict[str, Any]
    accounts: frozenset[str] = frozenset()
    """The registered names (skeletons)."""
    logged_in: tuple[str, ...] = ()
    """The account of each logged-in session, sorted."""
    relations: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = ()
    """Each session's mutes and blocks (player id, muted, blocked), those that have any."""
    teams: tuple[tuple[str, str, tuple[tuple[str, int, str], ...]], ...] = ()
    """Each team match: its id, status and roster (team, slot, account)."""

    def changed(self, after: Snapshot) -> list[str]:
        """What differs in ``after`` (quiescent tables of ``self`` only)."""
        out = []
        # a table that was not quiescent may end by itself meanwhile (an all-AI game
        # over, a waiting table whose owner left expiring): only a quiet one's end counts
        gone = sorted(t for t in self.lobby - after.lobby if t in self.tables)
        new = sorted(after.lobby - self.lobby)
        if gone or new:
            out.append(f"lobby tables gone {gone}, new {new}")
        if after.sessions != self.sessions:
            out.append(f"sessions {self.sessions} -> {after.sessions}")
        if after.accounts != self.accounts:
            out.append(f"accounts {sorted(self.accounts ^ after.accounts)}")
        if after.logged_in != self.logged_in:
            out.append("logged-in sessions")
        if after.relations != self.relations:
            out.append("mutes or blocks")
        if after.teams != self.teams:
            out.append("team matches")
        for tid, before in self.tables.items():
            now = after.tables.get(tid)
            if now is None:
                if tid not in gone:
                    out.append(f"table {tid} (no longer quiet)")
            elif now != before:
                keys = [k for k in before[0] if now[0].get(k) != before[0][k]]
                out.append(f"table {tid} ({', '.join(keys) or 'view or spectators'})")
        return out


async def snapshot(server: CardaviaServer) -> Snapshot:
    """Read on the server's loop: quiescent tables are those where nothing can happen by
    itself; the team matches from the database."""
    now = server.clock()
    tables: dict[str, Any] = {}
    for tid, actor in server.lobby.tables.items():
        core = actor.core
        quiet = (
            not actor.closed
            and not actor.queue
            and actor.pending_joins == 0
            and not core.ai_due(now)
            and core.next_wakeup(-math.inf) is None  # nothing scheduled, due or not
        )
        if quiet:
            info = core.info(now).model_dump(exclude={"turn_timer"})
            view = None if core.state is None else to_plain(core.game.view(core.state, None))
            tables[tid] = (info, sorted(core.spectators), view)
    logged_in = tuple(sorted(p.account.account_id for p in server.sessions if p.account))
    relations = tuple(
        sorted(
            (p.player_id, tuple(sorted(p.relations.muted)), tuple(sorted(p.relations.blocked)))
            for p in server.sessions
            if p.relations.muted or p.relations.blocked
        )
    )
    lobby = frozenset(server.lobby.tables)
    sessions = len(server.sessions)
    async with server.accounts.db.session() as session:
        matches = (await session.execute(select(TeamMatchRow.match_id, TeamMatchRow.status))).all()
        members = (await session.scalars(select(TeamMemberRow))).all()
    teams = tuple(
        sorted(
            (
                mid,
                status,
                tuple(sorted((m.team, m.slot, m.account_id) for m in members if m.match_id == mid)),
            )
            for mid, status in matches
        )
    )
    return Snapshot(
        lobby, sessions, tables, server.accounts.registered(), logged_in, relations, teams
    )


@dataclass(frozen=True)
class Facts:
    """What a fuzzer needs to aim an action: the table's game, version and legal moves."""

    game: str
    version: int
    legal: dict[int, list[Any]]


def table_facts(server: CardaviaServer, table_id: str) -> Facts | None:
    """The facts of ``table_id`` (``None``: no such table)."""
    actor = server.lobby.tables.get(table_id)
    if actor is None:
        return None
    core = actor.core
    legal: dict[int, list[Any]] = {}
    if core.state is not None and not core.game.is_over(core.state):
        for seat in core.game.to_act(core.state):
            legal[seat] = [to_plain(a) for a in core.game.legal_actions(core.state, seat)]
    return Facts(core.game.id, core.version, legal)


def dead_tasks(server: CardaviaServer) -> list[str]:
    """Table actors or background loops (the session sweeper …) that stopped
    although nobody stopped them."""
    out = []
    for tid, actor in server.lobby.tables.items():
        task = actor._task  # the audit looks inside on purpose
        if not actor.closed and task is not None and task.done():
            out.append(f"table {tid} actor died: {task.exception()!r}")
    out.extend(f"the {name} loop died" for name in server._passes.died())
    return out
