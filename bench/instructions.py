"""Instructions a move of a whole ``cardavia-server``, counted by callgrind: a
measure of the server's CPU that a busy or shared machine does not blur.

``python -m bench.instructions --game scopa [--tables 4] [--moves 1500] [--against DIR]``

Starts ``cardavia-server`` under valgrind's callgrind (Debian's ``valgrind``
package) with counting off, connects every seat of ``--tables`` tables as a
human client over real sockets on 127.0.0.1, asking for the optional protocol
features as the client library does (with ``view_changes`` it merges each
update's changed fields into the view), and plays random legal moves
(rematching after each game).  After ``--warm`` moves every seat waits;
counting is switched on, ``--moves`` more moves are played, and the counts
are dumped.  It reports the userspace instructions of the server process a
move (the kernel's share, the writes and reads, is not counted): the same
code gives the same figure to within about 1%, whatever else the machine
does, while its time a move drifts by tens of percent within minutes here.

``--against DIR`` measures another checkout (its ``server.main``) the same way
in the same run, and reports ``ratio`` (ours / theirs: below 1 is fewer).

``--functions N --python PY`` also lists where the instructions go: the N
Python functions of our server with the most instructions a move, each with
everything it calls (``functions``).  ``PY`` is a Python 3.12 or newer with
the project installed (its own virtual environment): run with
``PYTHONPERFSUPPORT=1``, it gives each Python function a small trampoline
that ``/tmp/perf-PID.map`` names, and callgrind's inclusive count of each
trampoline is that function's.  (The counts of 3.12 with trampolines run
higher than 3.11's: compare functions with each other, not with a 3.11 run.)
Progress goes to stderr; the last line of stdout is one JSON object.
A run takes about a minute (the server runs some 50 times slower under
valgrind).
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import contextlib
import glob
import json
import os
import random
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from typing import Any

import msgpack  # type: ignore[import-untyped]
from websockets.asyncio.client import ClientConnection, connect

from bench.procstat import cardavia_argv
from engine.registry import GAMES
from protocol.base import FEATURES, PROTOCOL_VERSION


class _Gate:
    """Counts the moves sent; holds every seat at the warm-up's end and at the last move."""

    def __init__(self, warm: int, moves: int) -> None:
        self.warm = warm
        self.last = warm + moves
        self.sent = 0
        self.go = asyncio.Event()

    async def pass_(self) -> None:
        """Wait until this seat's next move may be sent, and count it."""
        if self.sent >= self.last:
            await asyncio.Future()  # the measured moves are all sent: no more
        if self.sent >= self.warm and not self.go.is_set():
            await self.go.wait()
        self.sent += 1


async def _request(ws: ClientConnection, message: dict[str, Any]) -> dict[str, Any]:
    await ws.send(msgpack.packb(message))
    while True:
        reply: dict[str, Any] = msgpack.unpackb(await ws.recv())
        if reply.get("ref") == message["id"]:
            if reply.get("type") == "error":
                raise RuntimeError(f"{message['type']} refused: {reply}")
            return reply


async def _table(
    port: int, game: str, seats: int, t: int, gate: _Gate, rng: random.Random
) -> list[asyncio.Task[None]]:
    """Seat a client at every seat of a new table; a reader task per seat plays its moves."""
    url = f"ws://127.0.0.1:{port}"
    wss = [
        await connect(url, compression=None, max_size=2**22, open_timeout=300) for _ in range(seats)
    ]
    for i, ws in enumerate(wss):
        hello = {"type": "hello", "id": 1, "version": PROTOCOL_VERSION, "name": f"t{t}s{i}"}
        await _request(ws, {**hello, "features": list(FEATURES)})  # as the client library
    made = await _request(
        wss[0], {"type": "create_table", "id": 2, "game": game, "options": {"seat": 0}}
    )
    table = made["table"]["id"]
    for i, ws in enumerate(wss[1:], 1):
        await _request(ws, {"type": "join_table", "id": 2, "table": table, "seat": i})

    async def play(seat: int, ws: ClientConnection) -> None:
        view: dict[str, Any] = {}
        game_no, acted = None, None
        with contextlib.suppress(Exception):  # the connection closes at the end
            async for frame in ws:
                msg = msgpack.unpackb(frame)
                if msg["type"] != "update":
                    if msg["type"] == "game_over":
                        await ws.send(msgpack.packb({"type": "rematch", "id": 4, "table": table}))
                    continue
                if msg["game_no"] == game_no:  # only what changed (view_changes): merged
                    view.update(msg["view"])
                else:
                    view, game_no = dict(msg["view"]), msg["game_no"]
                if view.get("legal") and (game_no, msg["version"]) != acted:
                    acted = (game_no, msg["version"])
                    await gate.pass_()
                    act = {"type": "act", "id": 3, "table": table, "seat": seat}
                    act.update(version=msg["version"], action=rng.choice(view["legal"]))
                    await ws.send(msgpack.packb(act))

    return [asyncio.create_task(play(i, ws)) for i, ws in enumerate(wss)]


def measure(
    checkout: str,
    game: str,
    tables: int,
    warm: int,
    moves: int,
    seed: int,
    *,
    python: str = sys.executable,
    functions: int = 0,
) -> tuple[float, list[tuple[str, int]]]:
    """Userspace instructions a move of the server of ``checkout`` run by ``python``, and
    the ``functions`` Python functions with the most (see the module docstring)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    work = tempfile.mkdtemp(prefix="cardavia-callgrind-")
    argv = [
        "valgrind",
        "--tool=callgrind",
        "--instr-atstart=no",
        f"--callgrind-out-file={work}/out.%p",
        python,
        *cardavia_argv(tables, None, ["--port", str(port)])[1:],
    ]
    env = {**os.environ, "PYTHONPERFSUPPORT": "1"} if functions else None
    server = subprocess.Popen(
        argv, cwd=checkout, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )

    def control(*args: str) -> None:
        subprocess.run(
            ["callgrind_control", *args, str(server.pid)], capture_output=True, check=False
        )

    async def drive() -> None:
        deadline = time.monotonic() + 300
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise RuntimeError("the server did not start under valgrind") from None
                await asyncio.sleep(0.25)
        gate = _Gate(warm, moves)
        rng = random.Random(seed)
        seats = GAMES[game].num_seats(GAMES[game].options())
        tasks = [
            task for t in range(tables) for task in await _table(port, game, seats, t, gate, rng)
        ]
        while gate.sent < warm:
            await asyncio.sleep(0.1)
        await asyncio.sleep(2.0)  # every seat now waits at the gate: the server is idle
        control("--instr=on")
        gate.go.set()
        shown = 0
        while gate.sent < gate.last:
            await asyncio.sleep(0.1)
            done = 10 * (gate.sent - warm) // moves  # progress by tenths
            if done > shown:
                shown = done
                print(f"  {gate.sent - warm}/{moves} moves", file=sys.stderr)
        await asyncio.sleep(3.0)  # the last moves are handled and answered
        control("--dump")
        await asyncio.sleep(1.0)
        for task in tasks:
            task.cancel()

    try:
        asyncio.run(drive())
    finally:
        server.terminate()
        server.wait(timeout=60)
    total, dump = 0, ""
    for path in glob.glob(os.path.join(work, "out.*")):
        with open(path) as f:
            for line in f:
                if line.startswith(("summary:", "totals:")) and int(line.split()[1]) > total:
                    total, dump = int(line.split()[1]), path  # the dump, not the exit's
    perf_map = f"/tmp/perf-{server.pid}.map"
    try:
        if not total:
            raise RuntimeError("callgrind wrote no counts")
        top = _by_function(dump, perf_map, moves, functions) if functions else []
    finally:
        shutil.rmtree(work, ignore_errors=True)
        if functions:
            with contextlib.suppress(OSError):
                os.unlink(perf_map)
    return total / moves, top


def _by_function(dump: str, perf_map: str, moves: int, top: int) -> list[tuple[str, int]]:
    """The ``top`` Python functions by inclusive instructions a move: callgrind's
    unnamed functions (``???:0x...``) looked up in the perf map's trampolines."""
    if not os.path.exists(perf_map):
        raise SystemExit(f"no {perf_map}: --functions needs --python of version 3.12 or newer")
    starts: list[int] = []
    names: list[tuple[int, str]] = []
    with open(perf_map) as f:
        for line in sorted(f, key=lambda row: int(row.split(" ", 1)[0], 16)):
            start, size, name = line.rstrip("\n").split(" ", 2)
            starts.append(int(start, 16))
            names.append((int(size, 16), name.removeprefix("py::")))
    annotated = subprocess.run(
        ["callgrind_annotate", "--inclusive=yes", "--threshold=100", dump],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    found: dict[str, int] = {}
    for row in re.finditer(r"^\s*([\d,]+) \([\s\d.]+%\)\s+\?\?\?:0x([0-9a-f]+)", annotated, re.M):
        address = int(row.group(2), 16)
        i = bisect.bisect_right(starts, address) - 1
        if i >= 0 and address < starts[i] + names[i][0]:
            name = names[i][1]
            found[name] = max(found.get(name, 0), int(row.group(1).replace(",", "")))
    ranked = sorted(found.items(), key=lambda item: -item[1])[:top]
    return [(name, round(count / moves)) for name, count in ranked]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark; print the JSON report last."""
    parser = argparse.ArgumentParser(prog="python -m bench.instructions", description=__doc__)
    parser.add_argument("--game", default="scopa", choices=sorted(GAMES))
    parser.add_argument("--tables", type=int, default=4)
    parser.add_argument("--warm", type=int, default=300, help="moves before counting")
    parser.add_argument("--moves", type=int, default=1500, help="moves counted")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--against", default=None, help="another checkout to measure too")
    parser.add_argument(
        "--functions", type=int, default=0, help="list this many Python functions (see --python)"
    )
    parser.add_argument(
        "--python",
        default=sys.executable,
        help="the Python that runs the server (3.12+ for --functions)",
    )
    args = parser.parse_args(argv)
    if shutil.which("valgrind") is None:
        raise SystemExit("bench.instructions needs valgrind (Debian's valgrind package)")
    if not (1 <= args.tables <= 50 and 1 <= args.moves <= 100_000 and 0 <= args.warm <= 100_000):
        raise SystemExit("--tables must be 1 to 50, --moves 1 to 100000, --warm 0 to 100000")
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    runs = [("ours", here)] + ([("theirs", os.path.abspath(args.against))] if args.against else [])
    report: dict[str, Any] = {"game": args.game, "tables": args.tables, "moves": args.moves}
    for name, checkout in runs:
        print(f"{name}: {checkout}", file=sys.stderr)
        per_move, top = measure(
            checkout,
            args.game,
            args.tables,
            args.warm,
            args.moves,
            args.seed,
            python=args.python,
            functions=args.functions if name == "ours" else 0,
        )
        if top:
            report["functions"] = top
            for function, count in top:
                print(f"{count:12,}  {function}", file=sys.stderr)
        print(f"{name}: {per_move:,.0f} instructions a move", file=sys.stderr)
        report[f"{name}_instructions_per_move" if name == "theirs" else "instructions_per_move"] = (
            round(per_move)
        )
    if args.against:
        report["ratio"] = round(
            report["instructions_per_move"] / report["theirs_instructions_per_move"], 3
        )
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
