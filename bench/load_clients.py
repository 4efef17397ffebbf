"""The client side of :mod:`bench.load`: one worker process runs many asyncio clients.

A worker gets a range of tables and a target (the Cardavia server, or a
yardstick of :mod:`bench.raw_servers`), sets its tables up, reports ``ready``,
waits for ``go``, plays for the measured window, and reports what it saw:
moves, delivered messages and the action→update latencies of its moves.

Every seat of a table lives in the same worker, so the yardstick ``echo``
can pass the turn on locally (an echoed move is the next seat's cue), while
``fanout`` and the game pass it through the server, as a game does.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing.synchronize import Event as MpEvent
from typing import Any, cast

import ormsgpack
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidState

from bench.procstat import raise_fd_limit, run_loop
from protocol.base import FEATURES, PROTOCOL_VERSION

HUMAN_PACE = (2.0, 5.0)
"""Seconds a human seat thinks before each move at ``--pace human``."""
_DUMMY_ACTION = {"type": "play", "card": "7D", "capture": ["3S", "4C"]}
"""A move as big as a typical game move (for the yardsticks)."""


def pack(message: dict[str, Any]) -> bytes:
    """A msgpack frame.

    The clients pack and unpack with ``ormsgpack`` (what the server packs with):
    unpacking a whole view with ``msgpack`` took twice as long, and the clients
    share the machine's CPUs with the server they measure.
    """
    return ormsgpack.packb(message)


def send_now(ws: ClientConnection, data: bytes) -> None:
    """Write one binary frame at once, without a task or an await.

    ``await ws.send(...)`` costs a task per move here and a lock inside
    websockets; the clients would then limit what the yardsticks measure.
    Every sender (game and yardsticks alike) sends this way, so the
    comparison stays fair.  A connection that is closing just drops it.
    """
    try:
        ws.protocol.send_binary(data)
        ws.send_data()
    except (InvalidState, OSError):
        pass


STORE_RETRY_S = 0.5
"""Seconds a seat waits before sending again a move refused with ``store_unavailable``."""


@dataclass(frozen=True)
class Job:
    """What one worker does: tables ``first .. first + count - 1`` against ``url``."""

    target: str
    """``game``, ``echo``, ``fanout`` or ``idle``."""
    url: str
    game: str
    seats: int
    first: int
    count: int
    pace: str
    seconds: float
    seed: int
    worker: int
    others: tuple[str, ...] = ()
    """More processes of one service (``--servers``): seat *i* of table *t* connects
    to ``(url, *others)[(t + i) % n]``, so a table's seats sit at different processes."""
    features: tuple[str, ...] = FEATURES
    """The optional protocol features the game's clients ask for in ``hello``."""

    def url_of(self, table: int, seat: int) -> str:
        """Where seat ``seat`` of table ``table`` connects."""
        urls = (self.url, *self.others)
        return urls[(table + seat) % len(urls)]


@dataclass
class Tally:
    """What a worker measured inside the window."""

    moves: int = 0
    received_bytes: int = 0
    by_type: dict[str, int] = field(default_factory=dict)
    """Delivered messages by their ``type``."""
    errors: int = 0
    latencies: list[float] = field(default_factory=list)
    measuring: bool = False
    go_at: float = 0.0
    stop_at: float = float("inf")

    def report(self) -> dict[str, Any]:
        """The tally as plain data for the parent process."""
        return {
            "moves": self.moves,
            "delivered": sum(self.by_type.values()),
            "received_bytes": self.received_bytes,
            "by_type": self.by_type,
            "errors": self.errors,
            "latencies": self.latencies,
        }


class Seat:
    """One client connection, seated at one table."""

    def __init__(self, ws: ClientConnection, job: Job, tally: Tally, index: int, table: int):
        self.ws = ws
        self.job = job
        self.tally = tally
        self.index = index
        self.table = table
        self.table_id = ""
        self.version = 0
        self.legal: list[Any] = []
        self.view: dict[str, Any] = {}
        """The seat's whole view (updates may hold only what changed: ``view_changes``)."""
        self.game_no = -1
        self.sent_at: float | None = None
        self.sent_version = -1
        self.rng = random.Random(job.seed * 7919 + table * 31 + index)
        self.go = False
        self._next_id = 10

    def rid(self) -> int:
        """A fresh request id."""
        self._next_id += 1
        return self._next_id

    async def request(self, message: dict[str, Any]) -> dict[str, Any]:
        """Send a request and wait for its reply (setup only; pushed frames are skipped)."""
        rid = self.rid()
        await self.ws.send(pack({**message, "id": rid}))
        while True:
            reply: dict[str, Any] = ormsgpack.unpackb(cast(bytes, await self.ws.recv()))
            self.note(reply)
            if reply.get("ref") == rid:
                if reply.get("type") == "error":
                    raise RuntimeError(f"{message['type']} refused: {reply}")
                return reply

    def note(self, msg: dict[str, Any]) -> None:
        """Remember the latest update (its version and the seat's legal moves)."""
        if msg.get("type") in ("update", "snapshot") and msg.get("version", -1) >= self.version:
            self.version = msg["version"]
            if msg["game_no"] == self.game_no:  # a client merges what changed
                self.view.update(msg["view"])
            else:
                self.view, self.game_no = dict(msg["view"]), msg["game_no"]
            self.legal = self.view.get("legal") or []

    # -- playing --------------------------------------------------------------
    def due(self) -> bool:
        """Whether this seat should move now (the game tells by a non-empty ``legal``)."""
        return bool(self.legal) and self.sent_version < self.version

    def think(self) -> float:
        """Seconds to wait before moving."""
        return self.rng.uniform(*HUMAN_PACE) if self.job.pace == "human" else 0.0

    def move(self) -> None:
        """Play a random legal move (for the game) or the dummy move (yardsticks)."""
        now = time.perf_counter()
        if not self.tally.measuring or now >= self.tally.stop_at:
            return
        self.sent_at = now
        self.sent_version = self.version
        if self.job.target == "game":
            action = self.rng.choice(self.legal)
            frame = {
                "type": "act",
                "id": self.rid(),
                "table": self.table_id,
                "seat": self.index,
                "version": self.version,
                "action": action,
            }
        else:
            frame = {
                "type": "act",
                "id": self.rid(),
                "table": self.table_id,
                "seat": self.index,
                "seats": self.job.seats,
                "version": self.version,
                "action": _DUMMY_ACTION,
            }
        send_now(self.ws, pack(frame))

    def arrived(self, now: float) -> None:
        """The update answering this seat's move came: count the move and its latency."""
        if self.sent_at is not None:
            if self.tally.go_at <= self.sent_at and now <= self.tally.stop_at:
                self.tally.moves += 1
                self.tally.latencies.append(now - self.sent_at)
            self.sent_at = None


class TableRun:
    """The seats of one table and the reader loop of each."""

    def __init__(self, job: Job, tally: Tally, table: int, schedule: Callable[..., None]):
        self.job = job
        self.tally = tally
        self.table = table
        self.seats: list[Seat] = []
        self.schedule = schedule

    async def setup(self) -> None:
        """Connect every seat, say hello, create and fill the table."""
        job = self.job
        for i in range(job.seats):
            url = job.url_of(self.table, i)
            ws = await connect(url, compression=None, max_size=2**22, open_timeout=60)
            self.seats.append(Seat(ws, job, self.tally, i, self.table))
        key = f"w{job.worker}t{self.table}"
        for seat in self.seats:
            hello: dict[str, Any] = {
                "type": "hello",
                "version": PROTOCOL_VERSION,
                "name": f"b{seat.index}",
            }
            if job.target != "game":
                hello["table"] = key
            elif job.features:
                hello["features"] = list(job.features)
            await seat.request(hello)
        if job.target != "game":
            for seat in self.seats:
                seat.table_id = key
            self.seats[0].legal = [_DUMMY_ACTION]
            return
        joined = await self.seats[0].request(
            {"type": "create_table", "game": job.game, "options": {"seat": 0}}
        )
        table_id = joined["table"]["id"]
        for seat in self.seats:
            seat.table_id = table_id
        for seat in self.seats[1:]:
            await seat.request({"type": "join_table", "table": table_id, "seat": seat.index})

    def start(self) -> list[asyncio.Task[None]]:
        """One reader task per seat; the seats due to move move."""
        tasks = [asyncio.create_task(self.read(seat)) for seat in self.seats]
        for seat in self.seats:
            if seat.due():
                self.schedule(seat)
        return tasks

    async def read(self, seat: Seat) -> None:
        """Handle every frame the seat receives until its connection closes."""
        tally = self.tally
        try:
            async for frame in seat.ws:
                now = time.perf_counter()
                msg: dict[str, Any] = ormsgpack.unpackb(cast(bytes, frame))  # binary frames
                kind: str = msg.get("type", "")
                if tally.measuring and now <= tally.stop_at:
                    tally.received_bytes += len(frame)
                    by_type = tally.by_type
                    by_type[kind] = by_type.get(kind, 0) + 1
                if self.job.target == "echo":
                    if kind == "act":
                        self.echoed(seat, now)
                elif kind == "update":
                    self.updated(seat, msg, now)
                elif kind == "game_over":
                    await seat.ws.send(
                        pack({"type": "rematch", "id": seat.rid(), "table": seat.table_id})
                    )
                elif kind == "error":
                    self.refused(seat, msg)
        except ConnectionClosed:
            pass

    def updated(self, seat: Seat, msg: dict[str, Any], now: float) -> None:
        if self.job.target == "fanout":
            seat.version = msg["version"]
            seat.legal = [_DUMMY_ACTION] if msg["to_act"] == seat.index else []
            if msg["actor"] == seat.index:
                seat.arrived(now)
        else:
            seat.note(msg)
            if msg.get("actor") == seat.index:
                seat.arrived(now)
        if seat.due():
            self.schedule(seat)

    def echoed(self, seat: Seat, now: float) -> None:
        seat.arrived(now)
        nxt = self.seats[(seat.index + 1) % len(self.seats)]
        for s in self.seats:
            s.version += 1
            s.legal = []
        nxt.legal = [_DUMMY_ACTION]
        self.schedule(nxt)

    def refused(self, seat: Seat, msg: dict[str, Any]) -> None:
        if self.tally.measuring:
            self.tally.errors += 1
        code = msg.get("code")
        if code in ("stale_version", "not_your_turn", "illegal_action", "store_unavailable"):
            seat.sent_at = None
            seat.sent_version = -1
            if code == "store_unavailable":  # nothing changed: try again soon, as a client would
                asyncio.get_running_loop().call_later(STORE_RETRY_S, self.retry, seat)
            elif seat.due():
                self.schedule(seat)

    def retry(self, seat: Seat) -> None:
        """Move again after a pause, unless an update meanwhile made it moot."""
        if seat.due():
            self.schedule(seat)


async def _play(job: Job, ready: Any, go: MpEvent) -> dict[str, Any]:
    tally = Tally()
    loop = asyncio.get_running_loop()

    def schedule(seat: Seat) -> None:
        delay = seat.think()
        seat.sent_version = seat.version  # one move per version, even while thinking
        if delay <= 0:
            seat.move()
        else:
            loop.call_later(delay, seat.move)

    runs = [TableRun(job, tally, job.first + i, schedule) for i in range(job.count)]
    sem = asyncio.Semaphore(50)

    async def setup(run: TableRun) -> None:
        async with sem:
            await run.setup()

    await asyncio.gather(*(setup(r) for r in runs))
    # the clients' own collector pauses would count as server latency: keep them rare
    gc.collect()
    gc.freeze()
    gc.set_threshold(100_000, 50, 100)
    ready.put(("ready", job.worker, None))
    while not go.is_set():
        await asyncio.sleep(0.005)
    tally.go_at = time.perf_counter()
    tally.stop_at = tally.go_at + job.seconds
    tally.measuring = True
    readers = [t for r in runs for t in r.start()]
    await asyncio.sleep(job.seconds + 0.2)
    tally.measuring = False
    await _close_all([s.ws for r in runs for s in r.seats])
    for t in readers:
        t.cancel()
    return tally.report()


async def _close_all(conns: list[ClientConnection]) -> None:
    async def close(ws: ClientConnection) -> None:
        with contextlib.suppress(TimeoutError, ConnectionClosed, OSError):
            await asyncio.wait_for(ws.close(), 2.0)

    await asyncio.gather(*(close(ws) for ws in conns))


async def _idle(job: Job, ready: Any, go: MpEvent) -> dict[str, Any]:
    """Open ``count`` connections, each logged in (hello → welcome), and hold them."""
    ready.put(("ready", job.worker, None))
    while not go.is_set():
        await asyncio.sleep(0.005)
    sem = asyncio.Semaphore(64)
    conns: list[ClientConnection] = []
    failed = 0

    async def open_one(i: int) -> None:
        nonlocal failed
        async with sem:
            try:
                ws = await connect(job.url, compression=None, open_timeout=60)
                hello: dict[str, Any] = {
                    "type": "hello",
                    "id": 1,
                    "version": PROTOCOL_VERSION,
                    "name": f"idle{i}",
                    "table": f"w{job.worker}i{i}",
                }
                await ws.send(pack(hello))
                await ws.recv()
                conns.append(ws)
            except (OSError, ConnectionClosed, TimeoutError):
                failed += 1

    started = time.perf_counter()
    await asyncio.gather(*(open_one(job.first + i) for i in range(job.count)))
    elapsed = time.perf_counter() - started
    ready.put(("open", job.worker, {"opened": len(conns), "failed": failed, "seconds": elapsed}))
    while go.is_set():  # the parent clears ``go`` once it has measured
        await asyncio.sleep(0.02)
    await _close_all(conns)
    return {"opened": len(conns), "failed": failed, "seconds": elapsed}


def worker_main(job: Job, ready: Any, go: MpEvent, loop: str) -> None:
    """Entry point of a worker process: run the job, put its report on ``ready``."""
    raise_fd_limit()
    try:
        coro = _idle(job, ready, go) if job.target == "idle" else _play(job, ready, go)
        report = run_loop(coro, loop)
        ready.put(("done", job.worker, report))
    except BaseException as exc:  # report any failure to the parent instead of hanging it
        ready.put(("failed", job.worker, repr(exc)))
