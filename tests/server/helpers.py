"""Helpers for server tests: drive headless clients, check what they saw against the engine."""

from __future__ import annotations

import asyncio
import copy
import itertools
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import msgpack  # type: ignore[import-untyped]

from bench.procstat import stat_fields
from client_cli.client import Client, play_table, random_chooser
from engine.codec import to_plain
from engine.game import Game
from engine.registry import GAMES
from protocol import server_messages as sm
from protocol.codec import Frame
from protocol.models import TableOptions
from server.app import CardaviaServer, running_server
from server.config import ServerConfig
from server.persist.db.engine import Database, sqlite_url
from server.tables.core import FIXED_FIELDS, KEPT_FIELDS, TableCore
from server.tables.options import check_options
from server.tables.updates import plain_event


async def next_message(ws: Any, timeout: float = 10.0) -> dict[str, Any]:
    """The next frame a raw websockets client receives, unpacked (msgpack)."""
    msg: dict[str, Any] = msgpack.unpackb(await asyncio.wait_for(ws.recv(), timeout))
    return msg


def messages(outs: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
    """A core's outs, each frame (an update, encoded as it was made) as its message."""
    return [(pid, m.message if isinstance(m, Frame) else m) for pid, m in outs]


def make_core(
    game_id: str = "scopa", options: TableOptions | None = None, *, seed: int = 11, **kw: Any
) -> TableCore:
    """A table core ``t1`` of ``game_id`` without sockets, its seeds counting up from
    ``seed``; ``kw`` overrides its other settings (no owner, no AI delay …)."""
    setup = check_options(GAMES[game_id], options or TableOptions())
    seeds = itertools.count(seed)
    settings: dict[str, Any] = dict(
        owner=None, quick=False, invite=None, ai_delay=0.0, disconnect_grace=5.0
    )
    settings.update(kw)
    return TableCore("t1", setup, seed_source=lambda: next(seeds), **settings)


def core_fields(core: TableCore) -> tuple[dict[str, int], dict[str, Any]]:
    """What undoing a command must leave as it was: the core's fixed fields (the very
    same objects) and every other field but the kept ones (equal values, copied)."""
    fixed = {name: id(value) for name, value in vars(core).items() if name in FIXED_FIELDS}
    rest = {
        name: copy.deepcopy(value)
        for name, value in vars(core).items()
        if name not in FIXED_FIELDS and name not in KEPT_FIELDS
    }
    return fixed, rest


@dataclass
class Recorder:
    """Every pushed message a client received, in order."""

    messages: list[Any] = field(default_factory=list)

    def __call__(self, msg: Any) -> None:
        self.messages.append(msg)


async def drain(client: Client, recorder: Recorder, timeout: float = 0.05) -> None:
    """Record what is still queued for ``client``."""
    while True:
        try:
            recorder(await client.receive(timeout))
        except TimeoutError:
            return


async def play_random(client: Client, table: str, seed: int, recorder: Recorder) -> dict[str, Any]:
    """Play the client's seat with random legal moves to the end; the result."""
    return await play_table(client, table, random_chooser(seed), on_message=recorder)


async def watch(client: Client, table: str, recorder: Recorder) -> dict[str, Any]:
    """Read a spectator's messages until the game ends; the result."""
    while True:
        state = client.tables.get(table)
        if state is not None and state.result is not None:
            return state.result
        recorder(await client.receive())


# a real server with fast AI, short waits and timers, for tests
FAST = ServerConfig(
    port=0,
    ai_delay=0.0,
    ai_think=0.02,
    ai_deadline=5.0,
    ai_workers=2,
    quick_fill_wait=0.3,
    disconnect_grace=0.3,
    rate_per_s=10_000.0,
    rate_burst=10_000,
    ai_mode="thread",  # starts at once (process mode: tests/server/test_ai_*.py)
    ai_only_moves_per_s=0.0,  # AI-only games at full speed (paced: test_ai_tables.py)
    database_url="sqlite+aiosqlite://",  # accounts in memory (files, PostgreSQL: test_accounts.py)
)


def may_see(audience: frozenset[int] | None, seat: int | None) -> bool:
    """The audience rule, restated here so a server bug cannot hide behind it."""
    if audience is None:
        return True
    return seat is not None and seat in audience


def replay_states(game_id: str, replay: sm.Replay, seed: int) -> tuple[list[Any], list[list[Any]]]:
    """Every state of a replayed game (``seed`` from the server's store) and its events."""
    game: Game[Any, Any, Any, Any] = GAMES[game_id]
    options = game.options(replay.options)
    state = game.new_state(options, seed)
    states = [state]
    events = [list(game.start_events(state))]
    for step in replay.steps:
        tr = game.apply(state, step.seat, game.decode_action(step.action))
        state = tr.state
        states.append(state)
        events.append(list(tr.events))
    return states, events


def check_seen(
    game_id: str,
    replay: sm.Replay,
    seed: int,
    seat: int | None,
    messages: list[Any],
    first_version: int,
) -> int:
    """Assert each update/snapshot equals the engine's view and visible events for ``seat``.

    ``first_version`` is the table version at the start of the game.  Returns
    how many game messages were checked.  Updates must arrive for every
    version, in order, without gaps.
    """
    game = GAMES[game_id]
    states, events = replay_states(game_id, replay, seed)
    checked = 0
    versions = []
    for msg in messages:
        if not isinstance(msg, sm.Update | sm.Snapshot) or msg.game_no != replay.game_no:
            continue
        assert msg.seat == seat
        i = msg.version - first_version
        assert 0 <= i < len(states), (msg.version, first_version, len(states))
        assert msg.view == to_plain(game.view(states[i], seat)), f"view at step {i} for {seat}"
        if isinstance(msg, sm.Update):
            versions.append(msg.version)
            expected = [plain_event(e) for e in events[i] if may_see(e.audience, seat)]
            assert list(msg.events) == expected, f"events at step {i} for {seat}"
            if i > 0:
                assert msg.actor == replay.steps[i - 1].seat
                assert msg.by == replay.steps[i - 1].by
        checked += 1
    assert versions == list(range(first_version, first_version + len(states)))
    return checked


def process_alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie, ended but not yet reaped, does not)."""
    try:
        return stat_fields(pid)[0] != "Z"
    except OSError:
        return False


class HoldsDatabase(Protocol):
    """What uses the SQL database: the accounts, the game records."""

    db: Database


@asynccontextmanager
async def database_away(holder: HoldsDatabase) -> AsyncIterator[None]:
    """Within the block ``holder`` talks to a database nobody answers at; then its own again."""
    working = holder.db
    holder.db = Database("postgresql+asyncpg://nobody:x@127.0.0.1:1/none")
    try:
        yield
    finally:
        await holder.db.close()
        holder.db = working


async def finished_ai_table(url: str, name: str = "ann") -> tuple[Client, str]:
    """A watcher and the id of a table where two random AIs have just played Scopa to 1."""
    watcher = await Client.connect(url, name)
    ai = [{"seat": 0, "level": "random"}, {"seat": 1, "level": "random"}]
    options = {"seat": None, "ai": ai, "game": {"target": 1}}
    table = (await watcher.create_table("scopa", options)).table.id
    await watcher.wait_for(lambda m: isinstance(m, sm.GameOver), 20)
    return watcher, table


@asynccontextmanager
async def duplicate_server(tmp_path: Path, **changes: Any) -> AsyncIterator[CardaviaServer]:
    """A started server with the fast test settings, its own SQLite database, a fixed
    duplicate secret and fast password hashing (duplicate sets, team matches);
    ``changes`` on top of the settings."""
    from tests.server.test_accounts import fast_hasher  # it imports this module

    config = FAST.replace(
        database_url=sqlite_url(tmp_path / "cardavia.db"), duplicate_secret="t" * 32, **changes
    )
    async with running_server(config) as server:
        server.accounts.hasher = fast_hasher()
        yield server
