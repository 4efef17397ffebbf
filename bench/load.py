"""Load benchmark: many tables of headless clients against a real ``cardavia-server``.

``python -m bench.load --game scopa --tables 10 --seconds 10 [--pace human]``

starts ``cardavia-server`` as a subprocess on 127.0.0.1 (``ai_delay 0``, every
seat a human client, so it measures the server and not the AI), drives
``--tables`` tables from ``--procs`` client processes (each running many
asyncio clients) at full speed or at human pace (each seat thinks 2–5 s before
each of its moves), and then repeats the very same run — same connections, same message
pattern — against two yardsticks (:mod:`bench.raw_servers`): a raw websockets
echo server and a raw fan-out server (a move in, a small update out to each
connection of the table).  It reports moves/s, delivered messages/s (and a
move: messages, bytes, messages by type),
p50/p90/p99 action→update latency, the server's CPU (from ``/proc``) and RSS,
and the ratios against each yardstick; ``compiled`` is how many modules the
server runs compiled (``python -m compiled.build``: compiled, a Schafkopf move at 500
tables costs the server about a third less CPU).

``--servers N`` runs the game on N ``cardavia-server`` processes sharing a
throw-away ``redis-server`` (the deployment's shape): seat *i* of table *t*
connects to process ``(t + i) % N``, so every table has seats at several
processes; CPU and RSS are summed over them (the yardsticks stay one process).
``--store redis`` runs one process (or ``--servers``) on a throw-away
``redis-server``: the deployment's store, each move appended to Redis before
its updates go out.  ``--redis-outage S`` (on the Redis store, with one
process unless ``--servers`` says more) stops the ``redis-server`` for S
seconds in the middle of the run and starts it again: moves refused meanwhile count as ``errors``.

``--rounds N`` runs the game and the yardsticks N times in turn and reports the
median of each figure, and each ratio as the median of the rounds' own ratios
(``ratio_fanout_rounds`` lists them): a shared machine's speed drifts by tens
of percent within minutes, less within one round.

``--idle N`` instead holds N idle logged-in connections (hello → welcome) and
reports the server's RSS per connection and its accept rate against a raw
websockets server holding the same number in the same run.

Progress goes to stderr; the last line of stdout is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import statistics
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from bench.load_clients import Job, worker_main
from bench.procstat import (
    ServerProcess,
    cardavia_argv,
    cpu_seconds,
    raise_fd_limit,
    raw_argv,
    rss_bytes,
)
from bench.report import log, percentile
from compiled.runtime import ROOT, built
from engine.registry import GAMES
from protocol.base import FEATURES
from server.config import usable_cpus

MAX_TABLES = 2000
MAX_IDLE = 20000
MAX_SECONDS = 300.0
MAX_SERVERS = 8
MAX_ROUNDS = 20
SATURATED_PCT = 90.0
"""A yardstick at full speed using less of a core than this was held back by its
clients (``{name}_saturated`` false): its moves/s understate it."""


def _split(total: int, parts: int) -> list[tuple[int, int]]:
    """``total`` items in ``parts`` contiguous ranges ``(first, count)`` (none empty)."""
    parts = max(1, min(parts, total))
    base, extra = divmod(total, parts)
    ranges, first = [], 0
    for i in range(parts):
        count = base + (1 if i < extra else 0)
        ranges.append((first, count))
        first += count
    return ranges


@contextmanager
def _workers(jobs: list[Job], loop: str) -> Iterator[tuple[Any, Any, list[int]]]:
    """A client worker process per job, started; ``(ready, go, pids)``: the queue they
    report on, the event that starts their work and their process ids.  Joined on
    leaving (killed if stuck)."""
    ctx = mp.get_context("spawn")
    ready = ctx.Queue()
    go = ctx.Event()
    procs = [ctx.Process(target=worker_main, args=(j, ready, go, loop)) for j in jobs]
    for p in procs:
        p.start()
    try:
        yield ready, go, [p.pid for p in procs if p.pid is not None]
    finally:
        for p in procs:
            p.join(timeout=30)
            if p.is_alive():
                p.kill()


def _report(ready: Any, timeout: float) -> tuple[str, int, Any]:
    """The next ``(kind, worker, data)`` a worker reports; a failed worker is an error."""
    kind, worker, data = ready.get(timeout=timeout)
    if kind == "failed":
        raise RuntimeError(f"client worker {worker} failed: {data}")
    return kind, worker, data


def _drive(
    jobs: list[Job],
    loop: str,
    pids: Sequence[int],
    on_ready: Callable[[], None] | None = None,
    window: float | None = None,
) -> tuple[list[dict[str, Any]], dict[str, float]]:
    """Start a worker per job, wait until all are ready, open the window, collect reports.

    Returns the workers' reports and the figures over the window: the server's
    CPU seconds and RSS at the end (summed over its processes ``pids``), and the
    CPU seconds of the client workers.
    """
    reports: dict[int, Any] = {}
    with _workers(jobs, loop) as (ready, go, clients):
        waiting = {j.worker for j in jobs}
        deadline = time.monotonic() + 180
        while waiting:
            _, worker, _ = _report(ready, max(1.0, deadline - time.monotonic()))
            waiting.discard(worker)
        if on_ready is not None:
            on_ready()
        cpu0, t0 = sum(map(cpu_seconds, pids)), time.perf_counter()
        clients0 = sum(map(cpu_seconds, clients))
        go.set()
        seconds = window if window is not None else jobs[0].seconds
        time.sleep(seconds)
        cpu1, t1 = sum(map(cpu_seconds, pids)), time.perf_counter()
        clients1 = sum(map(cpu_seconds, clients))
        rss = sum(map(rss_bytes, pids))
        waiting = {j.worker for j in jobs}
        while waiting:
            kind, worker, data = _report(ready, 120)
            if kind == "done":
                reports[worker] = data
                waiting.discard(worker)
    figures = {
        "cpu_s": cpu1 - cpu0,
        "wall_s": t1 - t0,
        "rss": float(rss),
        "clients_cpu_s": clients1 - clients0,
    }
    return [reports[j.worker] for j in jobs], figures


def _figures(
    reports: list[dict[str, Any]], window: dict[str, float], seconds: float
) -> dict[str, Any]:
    moves = sum(r["moves"] for r in reports)
    delivered = sum(r["delivered"] for r in reports)
    by_type: dict[str, int] = {}
    for r in reports:
        for kind, n in r["by_type"].items():
            by_type[str(kind)] = by_type.get(str(kind), 0) + n
    lat = sorted(x for r in reports for x in r["latencies"])
    return {
        "moves_per_s": round(moves / seconds, 1),
        "delivered_per_s": round(delivered / seconds, 1),
        "delivered_per_move": round(delivered / max(moves, 1), 3),
        "bytes_per_move": round(sum(r["received_bytes"] for r in reports) / max(moves, 1), 1),
        "delivered_by_type": {
            kind: round(n / max(moves, 1), 3) for kind, n in sorted(by_type.items())
        },
        "p50_ms": round(percentile(lat, 0.50) * 1000, 2),
        "p90_ms": round(percentile(lat, 0.90) * 1000, 2),
        "p99_ms": round(percentile(lat, 0.99) * 1000, 2),
        "max_ms": round((lat[-1] if lat else 0.0) * 1000, 2),
        "errors": sum(r["errors"] for r in reports),
        "cpu_pct": round(100 * window["cpu_s"] / window["wall_s"], 1),
        "moves_per_cpu_s": round(moves / max(window["cpu_s"], 1e-3), 1),
        "cpu_us_per_move": round(1e6 * window["cpu_s"] / max(moves, 1), 1),
        "clients_cpu_pct": round(100 * window["clients_cpu_s"] / window["wall_s"], 1),
        "clients_cpu_us_per_move": round(1e6 * window["clients_cpu_s"] / max(moves, 1), 1),
        "rss_mb": round(window["rss"] / 2**20, 1),
    }


def _median_figures(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The figures of several rounds against one target: the median of each number
    (``--rounds``; one round's figures as they are)."""
    if len(runs) == 1:
        return runs[0]
    out: dict[str, Any] = {}
    for key, first in runs[0].items():
        values = [run[key] for run in runs]
        numeric = all(isinstance(v, int | float) and not isinstance(v, bool) for v in values)
        out[key] = round(statistics.median(values), 2) if numeric else first
    return out


def _ratio(ours: dict[str, Any], theirs: dict[str, Any], key: str) -> float:
    """``ours[key] / theirs[key]`` to three places (0 when either is missing or zero)."""
    mine, other = ours.get(key, 0.0), theirs.get(key, 0.0)
    return round(mine / other, 3) if other else 0.0


def _server_loop(args: argparse.Namespace) -> str | None:
    """The ``--loop`` to pass to the server (none to another checkout, which may predate it)."""
    return None if args.server_dir else args.loop


def _on_redis(args: argparse.Namespace) -> bool:
    """Whether the game runs on the Redis store (``--store redis``, implied by
    ``--servers`` above 1 and by ``--redis-outage``)."""
    return bool(args.servers > 1 or args.redis_outage or args.store == "redis")


def _process(argv: list[str], args: argparse.Namespace, target: str) -> ServerProcess:
    """The server of ``target`` started: a yardstick once it listens, ``cardavia-server``
    once ``/readyz`` says ready (its AI workers started: they would skew the window)."""
    if target == "game":
        return ServerProcess(argv, cwd=args.server_dir, ready_path="/readyz")
    return ServerProcess(argv)


def run_target(target: str, args: argparse.Namespace, seats: int) -> dict[str, Any]:
    """One measured run against ``target`` (game, echo or fanout)."""
    if target == "game" and _on_redis(args):
        return _run_cluster(args, seats)
    if target == "game":
        argv = cardavia_argv(args.tables, _server_loop(args), args.server_arg)
    else:
        argv = raw_argv(target, args.loop)
    server = _process(argv, args, target)
    try:
        return _measure(target, args, seats, [f"ws://127.0.0.1:{server.port}"], [server.pid])
    finally:
        if args.server_log and target == "game":
            with open(args.server_log, "w", encoding="utf-8") as f:
                f.write(server.output())
        server.stop()


def _measure(
    target: str,
    args: argparse.Namespace,
    seats: int,
    urls: list[str],
    pids: list[int],
    on_ready: Callable[[], None] | None = None,
) -> dict[str, Any]:
    """Drive the tables against the service at ``urls`` (its processes ``pids``);
    ``on_ready`` runs as the measured window opens."""
    jobs = [
        Job(target, urls[0], args.game, seats, first, count, args.pace, args.seconds, args.seed, w,
            tuple(urls[1:]), args.features)
        for w, (first, count) in enumerate(_split(args.tables, args.procs))
    ]  # fmt: skip
    where = f" on {len(urls)} processes" if len(urls) > 1 else ""
    log(f"{target}: {args.tables} tables x {seats} seats{where} from {len(jobs)} processes ...")
    reports, figures = _drive(jobs, args.loop, pids, on_ready)
    result = _figures(reports, figures, args.seconds)
    log(f"{target}: {json.dumps(result)}")
    return result


def _run_cluster(args: argparse.Namespace, seats: int) -> dict[str, Any]:
    """``--servers N``: N cardavia-server processes sharing a throw-away redis-server
    (the deployment's shape); each table's seats connect to different processes.
    ``--redis-outage S``: the redis-server stopped for S seconds mid-window."""
    from bench.store import redis_process  # here: it imports the whole server

    with redis_process() as redis:
        extra = [*args.server_arg, "--store", "redis", "--redis-url", redis.url]
        servers: list[ServerProcess] = []
        outage: threading.Timer | None = None
        try:
            for _ in range(args.servers):
                argv = cardavia_argv(args.tables, _server_loop(args), extra)
                servers.append(_process(argv, args, "game"))
            urls = [f"ws://127.0.0.1:{s.port}" for s in servers]
            on_ready = None
            if args.redis_outage:
                # in the middle of the window: Redis stopped, then started again
                def restart() -> None:
                    log(f"redis-server stopped for {args.redis_outage} s")
                    redis.stop()
                    time.sleep(args.redis_outage)
                    redis.start()
                    log("redis-server started again")

                outage = threading.Timer(max(0.0, (args.seconds - args.redis_outage) / 2), restart)
                on_ready = outage.start
            result = _measure("game", args, seats, urls, [s.pid for s in servers], on_ready)
            if args.redis_outage:
                result["redis_outage_s"] = args.redis_outage
            return result
        finally:
            if args.server_log:
                with open(args.server_log, "w", encoding="utf-8") as f:
                    for i, server in enumerate(servers):
                        f.write(f"# process {i} (port {server.port})\n{server.output()}")
            if outage is not None:
                outage.join()
            for server in servers:
                server.stop()


def run_idle(args: argparse.Namespace) -> dict[str, Any]:
    """Hold ``--idle`` connections on the server, then on a raw websockets server."""
    out: dict[str, Any] = {"idle": args.idle}
    for target in ("game", "echo"):
        argv = (
            cardavia_argv(0, _server_loop(args), args.server_arg)
            if target == "game"
            else raw_argv("echo", args.loop)
        )
        server = _process(argv, args, target)
        try:
            url = f"ws://127.0.0.1:{server.port}"
            jobs = [
                Job("idle", url, "", 0, first, count, "full", 0.0, args.seed, w)
                for w, (first, count) in enumerate(_split(args.idle, args.procs))
            ]
            log(f"idle {target}: opening {args.idle} connections ...")
            figures = _hold(jobs, args.loop, server.pid)
            name = "server" if target == "game" else "raw"
            for key, value in figures.items():
                out[f"{name}_{key}"] = value
            log(f"idle {target}: {json.dumps(figures)}")
        finally:
            server.stop()
    out["rss_ratio"] = round(out["server_kb_per_conn"] / max(out["raw_kb_per_conn"], 1e-9), 2)
    out["accept_ratio"] = round(out["server_accept_per_s"] / max(out["raw_accept_per_s"], 1e-9), 2)
    return out


def _hold(jobs: list[Job], loop: str, pid: int) -> dict[str, Any]:
    with _workers(jobs, loop) as (ready, go, _):
        for _ in jobs:
            _report(ready, 120)
        time.sleep(0.5)
        rss0 = rss_bytes(pid)
        go.set()
        opened = failed = 0
        slowest = 0.0
        for _ in jobs:
            _, _, data = _report(ready, MAX_SECONDS)
            opened += data["opened"]
            failed += data["failed"]
            slowest = max(slowest, data["seconds"])
        time.sleep(1.0)
        rss1 = rss_bytes(pid)
        go.clear()
        for _ in jobs:
            ready.get(timeout=120)
    return {
        "opened": opened,
        "failed": failed,
        "accept_per_s": round(opened / max(slowest, 1e-9), 1),
        "kb_per_conn": round((rss1 - rss0) / max(opened, 1) / 1024, 2),
        "rss_mb": round(rss1 / 2**20, 1),
    }


def build_parser() -> argparse.ArgumentParser:
    """The command-line options."""
    parser = argparse.ArgumentParser(prog="python -m bench.load", description=__doc__)
    parser.add_argument("--game", default="scopa", choices=sorted(GAMES))
    parser.add_argument("--tables", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--pace", choices=("full", "human"), default="full")
    parser.add_argument("--procs", type=int, default=max(1, min(4, (os.cpu_count() or 2))))
    parser.add_argument("--idle", type=int, default=0, help="hold N idle connections instead")
    parser.add_argument("--loop", choices=("auto", "asyncio", "uvloop"), default="auto")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="run the game and the yardsticks this many times in turn; figures are the"
        " medians and each ratio the median of the rounds' own (less drift on a shared"
        " machine)",
    )
    parser.add_argument(
        "--only", choices=("game", "echo", "fanout"), action="append", help="run only these"
    )
    parser.add_argument(
        "--server-arg",
        action="append",
        default=[],
        help="extra cardavia-server flag (repeat; e.g. --server-arg=--gc-gen0=700)",
    )
    parser.add_argument(
        "--servers",
        type=int,
        default=1,
        help="run the game on N server processes sharing a redis-server (Debian's package);"
        " each table's seats connect to different processes (default 1: one process,"
        " memory store)",
    )
    parser.add_argument(
        "--store",
        choices=("memory", "redis"),
        default="memory",
        help="the game's store with one process: memory (default) or redis (a throw-away"
        " redis-server, Debian's package); --servers and --redis-outage imply redis",
    )
    parser.add_argument(
        "--redis-outage",
        type=float,
        default=0.0,
        help="on the Redis store (--servers, one process if not given): stop the redis-server"
        " for this many seconds in the middle of the run, then start it again",
    )
    parser.add_argument(
        "--features",
        type=lambda text: tuple(f for f in text.split(",") if f),
        default=FEATURES,
        help="the optional protocol features the game's clients ask for, comma-separated "
        f"(default: {','.join(FEATURES)}; '' for none, as against a server without them)",
    )
    parser.add_argument("--server-log", default=None, help="save the server's log to this file")
    parser.add_argument(
        "--server-dir",
        default=None,
        help="run cardavia-server from this checkout (to compare two versions)",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark; print the JSON report last."""
    args = build_parser().parse_args(argv)
    if not 1 <= args.tables <= MAX_TABLES:
        raise SystemExit(f"--tables must be 1 to {MAX_TABLES}")
    if not 0 < args.seconds <= MAX_SECONDS:
        raise SystemExit(f"--seconds must be above 0 and at most {MAX_SECONDS}")
    if not 1 <= args.rounds <= MAX_ROUNDS:
        raise SystemExit(f"--rounds must be 1 to {MAX_ROUNDS}")
    if args.rounds > 1 and args.idle:
        raise SystemExit("--rounds applies to games, not --idle")
    if not 0 <= args.idle <= MAX_IDLE:
        raise SystemExit(f"--idle must be 0 to {MAX_IDLE}")
    if not 1 <= args.servers <= MAX_SERVERS:
        raise SystemExit(f"--servers must be 1 to {MAX_SERVERS}")
    if _on_redis(args) and args.idle:
        raise SystemExit("--servers, --store redis and --redis-outage apply to games, not --idle")
    if not 0 <= args.redis_outage < args.seconds:
        raise SystemExit("--redis-outage must be at least 0 and shorter than --seconds")
    raise_fd_limit()
    if args.idle:
        print(json.dumps(run_idle(args)))
        return 0
    game = GAMES[args.game]
    seats = game.num_seats(game.options())
    report: dict[str, Any] = {
        "game": args.game,
        "tables": args.tables,
        "connections": args.tables * seats,
        "pace": args.pace,
        "seconds": args.seconds,
        "store": "redis" if _on_redis(args) else "memory",
        "servers": args.servers,
        "cpus": usable_cpus(),
        # modules the server runs compiled (python -m compiled.build): a compiled one is faster
        "compiled": len(built(Path(args.server_dir) if args.server_dir else ROOT)),
    }
    targets = args.only or ("game", "echo", "fanout")
    rounds: list[dict[str, dict[str, Any]]] = []
    for number in range(1, args.rounds + 1):
        if args.rounds > 1:
            log(f"round {number} of {args.rounds}")
        rounds.append({t: run_target(t, args, seats) for t in targets})
    report["rounds"] = args.rounds
    results = {t: _median_figures([r[t] for r in rounds]) for t in targets}
    game_figs = results.get("game", {})
    report.update(game_figs)
    for name in ("echo", "fanout"):
        figs = results.get(name)
        if figs is None:
            report[f"ratio_{name}"] = None
            continue
        for key in (
            "moves_per_s",
            "p99_ms",
            "cpu_pct",
            "moves_per_cpu_s",
            "cpu_us_per_move",
            "clients_cpu_pct",
            "clients_cpu_us_per_move",
            "delivered_by_type",
            "bytes_per_move",
        ):
            report[f"{name}_{key}"] = figs[key]
        report[f"{name}_saturated"] = figs["cpu_pct"] >= SATURATED_PCT
        if args.pace == "full" and not report[f"{name}_saturated"]:
            log(
                f"{name}: the yardstick server used {figs['cpu_pct']}% of a core, so its "
                f"clients set its pace: ratio_{name} overstates ours; see cpu_ratio_{name}"
            )
        # each round's game against the yardstick run just after it, then the median:
        # the machine's speed drifts less within a round than across the whole run
        for prefix, key in (("ratio", "moves_per_s"), ("cpu_ratio", "moves_per_cpu_s")):
            # cpu_ratio: per CPU-second of the server, steadier on a shared machine
            per_round = [_ratio(r.get("game", {}), r[name], key) for r in rounds]
            report[f"{prefix}_{name}"] = round(statistics.median(per_round), 3)
            if args.rounds > 1:
                report[f"{prefix}_{name}_rounds"] = per_round

    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
