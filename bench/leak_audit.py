"""Leak audit: full games with human clients, AI seats and spectators; every frame checked.

    python -m bench.leak_audit --games 8 [--seed 1] [--short]

For each game (Scopa, Cicera, Dou Dizhu, Schafkopf in turn) a real server
(in-process, 127.0.0.1) hosts a table with one or more headless human
clients, which play random legal moves chosen from the view they receive,
AI seats at mixed levels, a spectator from the start and one who arrives
mid-game (a snapshot).  Every WebSocket frame each client receives is kept
as raw msgpack.

When the game is over, the truth is rebuilt from the table's durable record
(``server.persist.store``: options, seed, action log; the final state checked against
:func:`server.tables.replay.rebuild`), and every frame is checked:

* an ``update`` or ``snapshot`` carries exactly ``game.view(state, seat)`` of
  the state at its version (``view_mismatches``): as the client has it, the
  fields an update carries merged into the last view (every client asks for
  the ``view_changes`` feature but the first spectator, which gets whole views);
* no frame of any type holds a card the recipient may not know at that point:
  one shown in its views so far or in the events the engine addressed to it
  (``hidden_cards``: another hand, the stock, hidden bottom cards …).

Team matches (issue 56, :func:`audit_team`, ``--team-matches``): a Scopa match's table 1
plays both boards while the members of table 2, who have played neither, ask for
everything the protocol offers of them (the match, each board's results and
replays, to watch or sit at table 1, its stored games); nothing that reaches them
may name a card or a board's seed before their own table has played the board
(``team_checks``, ``team_leaks``).

Duplicate sets (issue 56, :func:`audit_duplicate`): for each game audited, one
player plays a set's boards while another, who has played none, asks for all the
protocol offers of them; nothing that reaches the second may name a card or a
board's seed before she has played that board (``duplicate_checks``,
``duplicate_leaks``).

The last line of stdout is ``{"games", "frames", "leaks", ...}`` with
``leaks`` = view mismatches + hidden cards + stored-game and duplicate leaks;
progress goes to stderr.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import time
from collections.abc import AsyncIterator, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgpack  # type: ignore[import-untyped]
import structlog
from websockets.asyncio.client import ClientConnection

from bench.loopback import NO_ADDRESS_CAPS
from client_cli.client import Client, ServerError, play_table, random_chooser
from client_cli.team_play import play_match
from client_cli.tournament import bot_player
from engine.codec import to_plain
from engine.game import Event, Game
from engine.registry import GAMES
from protocol import client_messages as cm
from protocol import server_messages as sm
from protocol.base import FEATURES
from server.app import CardaviaServer, running_server
from server.config import ServerConfig
from server.duplicate.team_store import table_id
from server.persist.store import LoggedAction
from server.tables.replay import rebuild

GAME_IDS = ("scopa", "cicera", "doudizhu", "schafkopf")

CONFIG = ServerConfig(
    port=0,
    ai_mode="thread",
    ai_delay=0.0,
    ai_think=0.01,
    ai_workers=2,
    rate_per_s=10_000.0,
    rate_burst=10_000,
    database_url="sqlite+aiosqlite://",  # accounts and stored games, in memory
    login_backoff=0.01,
    **NO_ADDRESS_CAPS,
)

SHORT_OPTIONS: dict[str, dict[str, Any]] = {"scopa": {"target": 1}, "schafkopf": {"deals": 1}}
"""Game options for ``--short``: one deal where a game has a knob for it."""


# -- recording every frame ------------------------------------------------------
class _Recording:
    """Wraps a client's WebSocket: every frame it reads is also kept (as plain data)."""

    def __init__(self, ws: ClientConnection, frames: list[dict[str, Any]]) -> None:
        self._ws = ws
        self._frames = frames

    def __getattr__(self, name: str) -> Any:
        return getattr(self._ws, name)

    async def __aiter__(self) -> AsyncIterator[bytes | str]:
        async for frame in self._ws:
            if isinstance(frame, bytes):
                self._frames.append(msgpack.unpackb(frame, raw=False))
            yield frame


class TappedClient(Client):
    """A :class:`Client` that keeps every frame it receives in :attr:`frames`."""

    def __init__(self, ws: ClientConnection) -> None:
        self.frames: list[dict[str, Any]] = []
        super().__init__(_Recording(ws, self.frames))  # type: ignore[arg-type]


# -- the truth ---------------------------------------------------------------------
def card_codes(game: Game[Any, Any, Any, Any]) -> frozenset[str]:
    """Every card of the game's deck in its wire notation."""
    return frozenset(c.rank + c.suit for c in game.deck.cards)


def cards_in(value: Any, codes: frozenset[str]) -> set[str]:
    """Every card named anywhere in plain ``value`` (strings and map keys)."""
    found: set[str] = set()
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if item in codes:
                found.add(item)
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return found


def visible(event: Event, seat: int | None) -> bool:
    """The audience rule, restated so that a server bug cannot hide behind it."""
    return event.audience is None or (seat is not None and seat in event.audience)


@dataclass
class Truth:
    """A game rebuilt from its record: states by step, and what each seat may know by then."""

    game: Game[Any, Any, Any, Any]
    states: list[Any]
    events: list[tuple[Event, ...]]
    first_version: int
    codes: frozenset[str]
    _known: dict[int | None, list[frozenset[str]]] = field(default_factory=dict)

    @classmethod
    def rebuild(
        cls,
        game: Game[Any, Any, Any, Any],
        options: Any,
        seed: int,
        log: Sequence[LoggedAction],
        final_version: int,
    ) -> Truth:
        """Replay ``log`` from ``seed``; the last state must be what the server rebuilds.

        (:mod:`server.tables.replay`)
        """
        state = game.new_state(options, seed)
        states, events = [state], [game.start_events(state)]
        for step in log:
            transition = game.apply(state, step.seat, game.decode_action(step.action))
            state = transition.state
            states.append(state)
            events.append(transition.events)
        final = rebuild(game, options, seed, log)
        if to_plain(game.view(final, None)) != to_plain(game.view(state, None)):
            raise AssertionError(
                "server.tables.replay.rebuild disagrees with the step-by-step replay"
            )
        first = final_version - len(log)
        return cls(game, states, events, first, card_codes(game))

    def view(self, step: int, seat: int | None) -> Any:
        """The plain view of ``seat`` at ``step`` (0: the deal)."""
        return to_plain(self.game.view(self.states[step], seat))

    def known(self, seat: int | None, step: int) -> frozenset[str]:
        """The cards ``seat`` may know after ``step``: in its views or its events so far."""
        if seat not in self._known:
            acc: set[str] = set()
            out = []
            for i in range(len(self.states)):
                acc |= cards_in(self.view(i, seat), self.codes)
                for event in self.events[i]:
                    if visible(event, seat):
                        acc |= cards_in(to_plain(dict(event.data)), self.codes)
                out.append(frozenset(acc))
            self._known[seat] = out
        return self._known[seat][step] if step >= 0 else frozenset()


@dataclass
class Findings:
    """What the audit found, with a few examples."""

    frames: int = 0
    resumed: int = 0
    view_mismatches: int = 0
    hidden_cards: int = 0
    records: int = 0
    """Stored-game checks made (history, profile, game records: before and after the end)."""
    record_leaks: int = 0
    """A stored game (its seed, its log) shown before its end, or not the game played."""
    notes: list[str] = field(default_factory=list)

    def note(self, text: str) -> None:
        if len(self.notes) < 10:
            self.notes.append(text)
            print(f"leak_audit: {text}", file=sys.stderr)


def check_frames(
    truth: Truth,
    table: str,
    game_no: int,
    seat: int | None,
    frames: Iterable[dict[str, Any]],
    findings: Findings,
    who: str = "",
) -> None:
    """Check one client's frames, in the order received, against ``truth``."""
    step = -1  # before the game's first update: nothing is known
    whole: dict[str, Any] | None = None  # the view as the client has it, merged
    for frame in frames:
        findings.frames += 1
        kind = frame.get("type")
        if kind in ("update", "snapshot") and frame.get("table") == table:
            if frame.get("game_no") != game_no:
                continue
            step = frame.get("version", -1) - truth.first_version
            if not 0 <= step < len(truth.states):
                findings.view_mismatches += 1
                findings.note(f"{who}: {kind} at version {frame.get('version')} outside the game")
                continue
            view = frame.get("view")
            if kind == "update" and whole is not None and isinstance(view, dict):
                view = {**whole, **view}  # view_changes: only what changed came
            whole = view if isinstance(view, dict) else None
            if frame.get("seat") != seat or view != truth.view(step, seat):
                findings.view_mismatches += 1
                findings.note(f"{who}: {kind} at step {step} is not the view of seat {seat}")
        if kind == "game_record":
            # a stored game is served only once it is over (_records_mid_game holds the
            # server to that against the table's status), and then it shows the whole
            # deal: a frame's step says nothing of it (a deal thrown in ends without
            # showing the hands, and its record still holds them)
            continue
        extra = cards_in(frame, truth.codes) - truth.known(seat, step)
        if extra:
            findings.hidden_cards += 1
            findings.note(f"{who}: a {kind} frame at step {step} shows {sorted(extra)}")


# -- one game -------------------------------------------------------------------------
WHOLE_VIEWS = tuple(f for f in FEATURES if f != "view_changes")
"""The features of a client that gets whole views in its updates."""


async def _connect(
    url: str, name: str, token: str | None = None, features: tuple[str, ...] = FEATURES
) -> TappedClient:
    client = await TappedClient.connect(url, name, token=token, features=features)
    assert isinstance(client, TappedClient)
    return client


async def _watch(client: Client, table: str) -> None:
    """Read a spectator's messages until the game is over."""
    while True:
        state = client.tables.get(table)
        if state is not None and state.result is not None and state.game_no > 0:
            return
        await client.receive()


class _Drop(Exception):
    """Raised from a chooser to drop the connection in the middle of the game."""


async def _play_and_resume(
    url: str, client: TappedClient, table: str, seed: int, moves: int
) -> list[TappedClient]:
    """Play ``moves`` moves, drop the connection, resume the session (a snapshot), play on.

    Returns the client's connections in order (their frames are the seat's frames).
    """
    choose = random_chooser(seed)
    made = 0

    def counted(view: dict[str, Any]) -> Any:
        nonlocal made
        made += 1
        if made > moves:
            raise _Drop
        return choose(view)

    try:
        await play_table(client, table, counted)
        return [client]  # the game ended first
    except _Drop:
        await client.close()
    again = await _connect(url, client.name, client.token)
    await play_table(again, table, choose)
    return [client, again]


async def _late_watch(client: Client, table: str, delay: float) -> None:
    await asyncio.sleep(delay)
    await client.spectate(table)
    await _watch(client, table)


PASSWORD = "leak audit password"


async def _records_mid_game(
    server: CardaviaServer,
    device: TappedClient,
    stranger: Client,
    table: str,
    findings: Findings,
) -> None:
    """While the game is on: its stored record, the player's history and profile must
    not show it (no seed, no log before the end); their frames are checked for cards.
    An answer that came after the game ended (a short game) proves nothing either way."""
    gid = f"{table}.1"

    def on() -> bool:
        actor = server.lobby.tables.get(table)
        return actor is not None and actor.core.status != "finished"

    for who, client in (("the player", device), ("a spectator", stranger)):
        try:
            await client.game_record(gid)
        except ServerError as exc:
            if exc.code != "not_found":
                findings.record_leaks += 1
                findings.note(f"{table}: game_record mid-game to {who}: {exc.code}")
            findings.records += 1
        else:
            if on():
                findings.record_leaks += 1
                findings.note(f"{table}: {who} got the stored game (and seed) before its end")
    page = await device.history()
    profile = await device.profile()
    if on():
        findings.records += 2
        if any(g.game_id == gid for g in page.games) or profile.games:
            findings.record_leaks += 1
            findings.note(f"{table}: history or profile shows the game before its end")


async def _records_after(
    server: CardaviaServer, device: TappedClient, table: str, seed: int, findings: Findings
) -> None:
    """Once over, the game is stored: the player's history lists it, its record carries
    the seed the table dealt from."""
    await asyncio.wait_for(server.record_writer.drain(), 30)
    gid = f"{table}.1"
    page = await device.history()
    try:
        stored: int | None = (await device.game_record(gid)).seed
    except ServerError:
        stored = None
    findings.records += 2
    if not page.games or page.games[0].game_id != gid or stored != seed:
        findings.record_leaks += 1
        findings.note(f"{table}: the stored game is not the game played")


def _ints_in(value: Any) -> set[int]:
    """Every integer anywhere in plain ``value`` (a seed would be one)."""
    found: set[int] = set()
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, bool):
            continue
        if isinstance(item, int):
            found.add(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return found


async def _refused(request: Any) -> bool:
    try:
        await request
    except ServerError:
        return True
    return False


async def audit_duplicate(server: CardaviaServer, game_id: str, seed: int) -> Findings:
    """A duplicate set of ``game_id`` (issue 56, docs/duplicate.md): Ann plays its two
    boards while Bea, who has played none, asks for everything the protocol offers of
    them (the set list, standings, each board's results, Ann's stored game, to watch
    Ann's table).  Nothing Bea receives before she has played a board may name a card
    or a board's seed; every request for a board's results must be refused.  After Bea
    has played board 1 she gets its results with Ann's replay, and still nothing of
    board 2.  ``findings.records`` counts the checks, ``record_leaks`` what failed."""
    findings = Findings()
    game = GAMES[game_id]
    codes = card_codes(game)
    tag = f"d{seed}{game_id[:3]}"
    ann = await _connect(server.url, "Ann")
    bea = await _connect(server.url, "Bea")
    try:
        await ann.register(f"Ann {tag}", "correct horse battery")
        await bea.register(f"Bea {tag}", "correct horse battery")
        made = await ann.create_duplicate_set(game_id, "easy", boards=2, minutes=30)
        sid = made.set_id
        key = await server.duplicate.key()
        seeds = {key.board_seed(sid, b) for b in (1, 2)}

        def clean(frames: list[dict[str, Any]], what: str) -> None:
            for frame in frames:
                findings.records += 1
                if cards_in(frame, codes) or _ints_in(frame) & seeds:
                    findings.record_leaks += 1
                    findings.note(f"duplicate {game_id}: {what}: {frame.get('type')} leaks")

        async def probe(table: str | None) -> None:
            await bea.duplicate_sets()
            await bea.duplicate_standings(sid)
            for board in (1, 2):
                findings.records += 1
                if not await _refused(bea.duplicate_board(sid, board)):
                    findings.record_leaks += 1
                    findings.note(f"duplicate {game_id}: board {board} shown unplayed")
            if table is not None:
                findings.records += 2
                if not await _refused(bea.spectate(table)):
                    findings.record_leaks += 1
                    findings.note(f"duplicate {game_id}: a board's table watched")
                if not await _refused(bea.game_record(f"{table}.1")):
                    findings.record_leaks += 1
                    findings.note(f"duplicate {game_id}: a board's record shown")

        first = ""
        for board in (1, 2):
            joined = await ann.play_duplicate(sid)
            table = joined.table.id
            first = first or table
            mark = len(bea.frames)
            await asyncio.gather(play_table(ann, table, random_chooser(seed + board)), probe(table))
            await asyncio.wait_for(server.record_writer.drain(), 30)
            await probe(table)
            clean(bea.frames[mark:], f"while Ann played board {board}")
        mark = len(bea.frames)
        joined = await bea.play_duplicate(sid)
        await play_table(bea, joined.table.id, random_chooser(seed + 7))
        await asyncio.wait_for(server.record_writer.drain(), 30)
        report = await bea.duplicate_board(sid, 1)
        findings.records += 1
        if [r.table for r in report.replays] != [first]:
            findings.record_leaks += 1
            findings.note(f"duplicate {game_id}: board 1's results lack Ann's replay")
        mark = len(bea.frames)
        findings.records += 1
        if not await _refused(bea.duplicate_board(sid, 2)):
            findings.record_leaks += 1
            findings.note(f"duplicate {game_id}: board 2 shown unplayed")
        await bea.duplicate_standings(sid)
        clean(bea.frames[mark:], "after Bea played board 1")
        findings.frames = len(bea.frames)
    finally:
        await ann.close()
        await bea.close()
    return findings


async def audit_team(server: CardaviaServer, index: int, seed: int) -> Findings:
    """A Scopa team match of two boards (module docstring): ``records`` counts the
    checks, ``record_leaks`` what failed."""
    findings = Findings()
    codes = card_codes(GAMES["scopa"])
    people = []
    for name in ("Ann", "Bob", "Cat", "Dan"):
        client = await _connect(server.url, name)
        await client.register(f"{name} t{index}s{seed}", PASSWORD)
        people.append(client)
    ann, bob, cat, dan = people
    try:
        mid = (await ann.create_team_match("scopa", boards=2, level="easy")).match_id
        await bob.join_team_match(mid, "a")  # table 2, with Dan
        await cat.join_team_match(mid, "b", 0)  # table 1, with Ann
        await dan.join_team_match(mid, "b")
        key = await server.duplicate.key()
        seeds = {key.board_seed(mid, b) for b in (1, 2)}
        idle = (bob, dan)
        marks = [len(c.frames) for c in idle]

        def fail(what: str) -> None:
            findings.record_leaks += 1
            findings.note(f"team match #{index}: {what}")

        async def probe(client: Client) -> None:
            await client.team_match(mid)
            await client.team_matches("scopa")
            for board in (1, 2):
                findings.records += 1
                if not await _refused(client.team_match_board(mid, board)):
                    fail(f"board {board} shown to a member who has not played it")
                other = table_id(mid, board, 0)
                for request in (
                    client.spectate(other),
                    client.join(other, seat=0),
                    client.game_record(f"{other}.1"),
                ):
                    findings.records += 1
                    if not await _refused(request):
                        fail(f"{other} reached by a member of the other table")

        rng = random.Random(seed * 131 + index)
        runs = [
            asyncio.create_task(play_match(c, mid, bot_player(random_chooser(rng.randrange(99)))))
            for c in (ann, cat)
        ]
        deadline = time.monotonic() + 120
        while len(await server.team.store.results(mid)) < 2:
            if time.monotonic() > deadline:
                raise RuntimeError(f"team match {mid}: table 1 did not play its boards")
            await asyncio.gather(*(probe(c) for c in idle))
            await asyncio.sleep(0.1)
        await asyncio.gather(*(probe(c) for c in idle))
        for client, mark in zip(idle, marks, strict=True):
            for frame in client.frames[mark:]:
                findings.records += 1
                if cards_in(frame, codes) or _ints_in(frame) & seeds:
                    fail(f"a {frame.get('type')} frame shows table 1's boards to table 2")
        runs += [
            asyncio.create_task(play_match(c, mid, bot_player(random_chooser(rng.randrange(99)))))
            for c in idle
        ]
        ends = await asyncio.wait_for(asyncio.gather(*runs), 300)
        findings.records += 1
        if {e.status for e in ends} != {"finished"} or len(ends[0].results) != 2:
            fail("the match did not finish with both boards")
        replays = await bob.team_match_board(mid, 1)
        findings.records += 1
        if [r.table for r in replays.replays] != [table_id(mid, 1, 0)]:
            fail("board 1's results lack table 1's replay once both tables played it")
        findings.frames = sum(len(c.frames) for c in people)
    finally:
        for client in people:
            await client.close()
    return findings


async def audit_game(
    server: CardaviaServer, game_id: str, index: int, seed: int, short: bool
) -> Findings:
    """Play one game with humans, AI and two spectators; check every frame."""
    game = GAMES[game_id]
    options = SHORT_OPTIONS.get(game_id, {}) if short else {}
    n = game.num_seats(game.options(options))
    rng = random.Random(seed * 7919 + index)
    humans = 1 + index % (n - 1)  # at least one human and one AI seat
    ai = [{"seat": s, "level": "random" if s % 2 else None} for s in range(humans, n)]
    people = [await _connect(server.url, f"human{i}") for i in range(humans)]
    early = await _connect(server.url, "early-watcher", features=WHOLE_VIEWS)
    late = await _connect(server.url, "late-watcher")
    clients: list[Client] = [*people, early, late]
    account = f"{game_id}{index}s{seed}"  # the first human plays as an account: records
    await people[0].register(account, PASSWORD)
    device = await TappedClient.connect(server.url, login=(account, PASSWORD))
    assert isinstance(device, TappedClient)
    clients.append(device)
    findings = Findings()
    try:
        joined = await people[0].create_table(game_id, {"seat": 0, "ai": ai, "game": options})
        table = joined.table.id
        await early.spectate(table)
        for i in range(1, humans):
            await people[i].join(table, seat=i)
        # the first human drops and resumes mid-game (a snapshot); the others just play
        resumed = asyncio.create_task(
            _play_and_resume(
                server.url, people[0], table, rng.randrange(1 << 30), rng.randrange(1, 6)
            )
        )
        plays = [play_table(c, table, random_chooser(rng.randrange(1 << 30))) for c in people[1:]]
        await asyncio.wait_for(
            asyncio.gather(
                resumed,
                *plays,
                _watch(early, table),
                _late_watch(late, table, rng.uniform(0, 0.05)),
                _records_mid_game(server, device, early, table, findings),
            ),
            300,
        )
        connections = resumed.result()
        clients.extend(connections[1:])
        await asyncio.sleep(0.05)  # frames still in flight after game_over
        actor = server.lobby.tables[table]
        record = await server.store.load(table)
        if record is None or record.seed is None:
            raise RuntimeError(f"table {table} has no record")
        game_options = game.options(record.options.get("game") or {})
        truth = Truth.rebuild(game, game_options, record.seed, record.actions, actor.core.version)
        mid_game = list(device.frames)  # what the player's second device got while it played
        await _records_after(server, device, table, record.seed, findings)
        watched: list[tuple[list[dict[str, Any]], int | None]] = [
            (c.frames, i) for i, c in enumerate(people[1:], start=1)
        ]
        watched += [(early.frames, None), (late.frames, None)]
        watched.append(([f for c in connections for f in c.frames], 0))
        watched.append((mid_game, 0))  # history and profile: only seat 0's own cards
        for frames, seat in watched:
            who = f"{game_id} #{index} seat {seat}"
            check_frames(truth, table, record.game_no, seat, frames, findings, who)
        findings.resumed += len(connections) - 1
        return findings
    finally:
        for client in clients:
            await client.close()


TOURNAMENT_PLAYERS = 6
"""A Duplicate Swiss round of Dou Dizhu: two tables dealing the same cards."""


async def audit_tournament(server: CardaviaServer, index: int, seed: int) -> Findings:
    """One Duplicate Swiss round (two Dou Dizhu tables, the same deal): before playing,
    each player tries to watch the other table and fetch its stored game (both must be
    refused); every frame each player gets is checked against their own table."""
    findings = Findings()
    clients: list[TappedClient] = []
    try:
        for i in range(TOURNAMENT_PLAYERS):
            client = await _connect(server.url, f"dup{index}p{i}s{seed}")
            await client.register(f"dup{index}p{i}s{seed}", PASSWORD)
            clients.append(client)
        made = await clients[0].create_tournament(
            cm.CreateTournament(
                name="Leak audit",
                game="doudizhu",
                kind="duplicate-swiss",
                starts_at=time.time() + 3600,
                rounds=1,
            )
        )
        for client in clients:
            await client.register_tournament(made.id)
        # started once all are in: a director's pass in the middle of the registrations
        # would pair the round without the last ones, who would then wait for ever
        await server.tournaments.store.start(made.id)
        seated: list[sm.TournamentTable] = await asyncio.wait_for(
            asyncio.gather(
                *(c.wait_for(lambda m: isinstance(m, sm.TournamentTable), None) for c in clients)
            ),
            60,
        )
        tables = sorted({s.table for s in seated if s.table is not None})
        for client, mine in zip(clients, seated, strict=True):
            other = next(t for t in tables if t != mine.table)
            for probe in (client.spectate(other), client.game_record(f"{other}.1")):
                findings.records += 1
                try:
                    await probe
                except ServerError as exc:
                    if exc.code not in ("forbidden", "not_found"):
                        findings.record_leaks += 1
                        findings.note(f"{other}: a player of the round got {exc.code}")
                else:
                    findings.record_leaks += 1
                    findings.note(f"{other}: a player of the round saw the other table")
        rng = random.Random(seed * 31 + index)
        await asyncio.wait_for(
            asyncio.gather(
                *(
                    play_table(c, s.table or "", random_chooser(rng.randrange(1 << 30)))
                    for c, s in zip(clients, seated, strict=True)
                )
            ),
            300,
        )
        await asyncio.sleep(0.05)  # frames still in flight after game_over
        game = GAMES["doudizhu"]
        truths = {}
        for table in tables:
            record = await server.store.load(table)
            if record is None or record.seed is None:
                raise RuntimeError(f"table {table} has no record")
            options = game.options(record.options.get("game") or {})
            version = server.lobby.tables[table].core.version
            truths[table] = (
                Truth.rebuild(game, options, record.seed, record.actions, version),
                record.game_no,
            )
        for i, (client, mine) in enumerate(zip(clients, seated, strict=True)):
            truth, game_no = truths[mine.table or ""]
            who = f"duplicate-swiss #{index} player {i}"
            check_frames(truth, mine.table or "", game_no, mine.seat, client.frames, findings, who)
        return findings
    finally:
        for client in clients:
            await client.close()


async def audit(
    games: int,
    seed: int = 1,
    short: bool = False,
    parallel: int = 4,
    tournaments: int = 0,
    team_matches: int = 0,
) -> dict[str, Any]:
    """Audit ``games`` games (every game in turn, ``parallel`` at a time); the counts."""
    started = time.monotonic()
    total = Findings()
    by_game: dict[str, int] = {}
    done = 0
    duplicate_checks = duplicate_leaks = team_checks = team_leaks = 0
    saved = structlog.get_config()
    async with running_server(CONFIG, log_level="warning") as server:
        for first in range(0, games, parallel):
            batch = range(first, min(games, first + parallel))
            results = await asyncio.gather(
                *(audit_game(server, GAME_IDS[i % 4], i // 4, seed, short) for i in batch)
            )
            for i, found in zip(batch, results, strict=True):
                total.frames += found.frames
                total.view_mismatches += found.view_mismatches
                total.hidden_cards += found.hidden_cards
                total.records += found.records
                total.record_leaks += found.record_leaks
                total.resumed += found.resumed
                for text in found.notes:
                    total.note(text)
                by_game[GAME_IDS[i % 4]] = by_game.get(GAME_IDS[i % 4], 0) + 1
                done += 1
            print(
                f"leak_audit: {done}/{games} games, {total.frames} frames, "
                f"{total.view_mismatches + total.hidden_cards} leaks",
                file=sys.stderr,
            )
        for game_id in GAME_IDS[: min(games, len(GAME_IDS))]:
            found = await audit_duplicate(server, game_id, seed)
            duplicate_checks += found.records
            duplicate_leaks += found.record_leaks
            total.frames += found.frames
        for index in range(team_matches):
            found = await audit_team(server, index, seed)
            team_checks += found.records
            team_leaks += found.record_leaks
            total.frames += found.frames
        server.tournaments.period = 0.1
        for index in range(tournaments):
            found = await audit_tournament(server, index, seed)
            total.frames += found.frames
            total.view_mismatches += found.view_mismatches
            total.hidden_cards += found.hidden_cards
            total.records += found.records
            total.record_leaks += found.record_leaks
            for text in found.notes:
                total.note(text)
    structlog.configure(**saved)
    return {
        "games": done,
        "frames": total.frames,
        "leaks": total.view_mismatches
        + total.hidden_cards
        + total.record_leaks
        + duplicate_leaks
        + team_leaks,
        "view_mismatches": total.view_mismatches,
        "hidden_cards": total.hidden_cards,
        "record_checks": total.records,
        "record_leaks": total.record_leaks,
        "duplicate_checks": duplicate_checks,
        "duplicate_leaks": duplicate_leaks,
        "resumed": total.resumed,
        "by_game": by_game,
        "tournament_rounds": tournaments,
        "team_checks": team_checks,
        "team_leaks": team_leaks,
        "seconds": round(time.monotonic() - started, 1),
        "notes": total.notes[:5],
    }


def main(argv: list[str] | None = None) -> int:
    """``python -m bench.leak_audit``: exit status 1 when anything leaked."""
    doc = (__doc__ or "").split("\n")[0]
    parser = argparse.ArgumentParser(prog="python -m bench.leak_audit", description=doc)
    parser.add_argument("--games", type=int, default=8, help="games to audit (every game in turn)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the human clients' moves")
    parser.add_argument(
        "--short", action="store_true", help="one deal per game where it has a knob for it"
    )
    parser.add_argument(
        "--tournaments",
        type=int,
        default=1,
        help="Duplicate Swiss rounds to audit (two tables dealing the same cards)",
    )
    parser.add_argument(
        "--team-matches",
        type=int,
        default=1,
        help="Scopa team matches to audit (a member of one table probing the other)",
    )
    args = parser.parse_args(argv)
    result = asyncio.run(
        audit(
            args.games,
            args.seed,
            args.short,
            tournaments=args.tournaments,
            team_matches=args.team_matches,
        )
    )
    print(json.dumps(result))
    return 1 if result["leaks"] else 0


if __name__ == "__main__":
    sys.exit(main())
