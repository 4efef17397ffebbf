"""What a loopback TCP write costs the writer when its reader sleeps, against when it is busy.

``python -m bench.wakeup --writes 20000 --rounds 3``

A child process reads one TCP connection over 127.0.0.1, either sleeping
in ``epoll`` between reads (``sleeping``: as an idle client waits for its
next update) or polling the socket without sleeping (``busy``: as a client
that is still handling other frames).  The parent writes ``--size``-byte
messages with a pause after each, long enough for a sleeping reader to go
back to sleep, and times each ``send`` (wall clock and CPU).  Rounds
alternate between the two readers; ``busy`` is the yardstick of the same
run, and ``ratio`` is sleeping ÷ busy.

The difference is the writer's share of waking the reader.  It is why the
server writes every connection a turn of its event loop wrote to one after
the other, once that turn's reads are handled (``server.net.flusher``): the
first write wakes a client's process, and the next ones find it awake.
Progress goes to stderr; the last line of stdout is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import select
import socket
import statistics
import sys
import time
from collections.abc import Sequence
from typing import Any

PAUSE_S = 100e-6
"""The writer's pause after each write: the reader handles the message and sleeps again."""


def _read(conn: socket.socket, busy: bool) -> None:
    """Read ``conn`` until EOF, sleeping in ``epoll`` between reads unless ``busy``."""
    if busy:
        conn.setblocking(False)
        while True:
            try:
                if not conn.recv(65536):
                    return
            except BlockingIOError:
                continue
    poller = select.epoll()
    poller.register(conn, select.EPOLLIN)
    while True:
        poller.poll()
        if not conn.recv(65536):
            return


def measure(busy: bool, writes: int, size: int) -> dict[str, float]:
    """Microseconds of wall clock and of the writer's CPU per ``send`` to a reader that
    is ``busy`` or sleeps (in a forked child process)."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    pid = os.fork()
    if pid == 0:  # the reader
        try:
            conn = socket.create_connection(listener.getsockname())
            _read(conn, busy)
        finally:
            os._exit(0)
    writer, _ = listener.accept()
    listener.close()
    writer.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    message = b"x" * size
    wall = cpu = 0.0
    try:
        for _ in range(writes):
            began, began_cpu = time.perf_counter(), time.thread_time()
            writer.sendall(message)
            wall += time.perf_counter() - began
            cpu += time.thread_time() - began_cpu
            until = time.perf_counter() + PAUSE_S
            while time.perf_counter() < until:
                pass
    finally:
        writer.close()
        os.waitpid(pid, 0)
    return {"wall_us": 1e6 * wall / writes, "cpu_us": 1e6 * cpu / writes}


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark; print the JSON report last."""
    parser = argparse.ArgumentParser(prog="python -m bench.wakeup", description=__doc__)
    parser.add_argument("--writes", type=int, default=20000, help="writes per round and reader")
    parser.add_argument("--size", type=int, default=400, help="bytes per write")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    if not 1 <= args.writes <= 1_000_000 or not 1 <= args.size <= 65536 or args.rounds < 1:
        raise SystemExit("--writes must be 1 to 1000000, --size 1 to 65536, --rounds at least 1")
    runs: dict[str, list[dict[str, float]]] = {"sleeping": [], "busy": []}
    for i in range(args.rounds):
        for name in ("sleeping", "busy"):
            runs[name].append(measure(name == "busy", args.writes, args.size))
            last = runs[name][-1]
            print(
                f"round {i + 1}/{args.rounds}: {name} reader, {last['wall_us']:.1f} us a "
                f"write ({last['cpu_us']:.1f} us CPU)",
                file=sys.stderr,
            )
    report: dict[str, Any] = {"writes": args.writes, "size": args.size, "rounds": args.rounds}
    for name, figures in runs.items():
        for key in ("wall_us", "cpu_us"):
            report[f"{name}_{key}"] = round(statistics.median(f[key] for f in figures), 1)
    report["ratio"] = round(report["sleeping_wall_us"] / report["busy_wall_us"], 2)
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
