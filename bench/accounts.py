"""Logins beside play: do Argon2id logins slow the moves of tables at human pace?

    python -m bench.accounts [--tables 100] [--logins-per-s 20] [--seconds 20]

For each database (SQLite, the default, and a throw-away PostgreSQL,
:mod:`bench.postgres`) a ``cardavia-server`` runs as a subprocess with its real
password hashing; ``--tables`` two-seat Scopa tables play at human pace (each
seat thinks 2–5 s before each move) for ``--seconds`` without logins, then as
long again while accounts log in at ``--logins-per-s`` (each on a new
connection: a guest ``hello``, then ``login``).  Reported per database:

* ``login_p50_ms``, ``login_p99_ms``: the ``login`` request's round trip
  (hashing included: it runs in the server's worker threads);
* ``play_p99_ms`` and ``play_p99_during_logins_ms``: a move's round trip
  (``act`` → its answer) without and with the logins, and
  ``play_p99_ratio``, the second over the first (the issue asks for at most 2);
* ``moves``, ``logins``: how many of each were measured.

Progress goes to stderr; the last line of stdout is one JSON object,
``{"sqlite": {...}, "postgres": {...}}``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.postgres import PostgresProcess
from bench.procstat import ServerProcess, cardavia_argv
from client_cli.client import Client, ServerError

PASSWORD = "bench password 1"
ACCOUNTS = 20
"""Accounts registered first (``--accounts``); the logins cycle through them."""
THINK = (2.0, 5.0)
"""Seconds a seat thinks before each move (human pace)."""


def p(samples: Sequence[float], q: float) -> float:
    """The ``q`` quantile of ``samples`` in milliseconds (0 without samples)."""
    if not samples:
        return 0.0
    ordered = sorted(samples)
    return round(1000 * ordered[min(len(ordered) - 1, int(q * len(ordered)))], 2)


class Play:
    """Tables at human pace; the round trip of every move, by phase."""

    def __init__(self, url: str, tables: int, seed: int) -> None:
        self.url = url
        self.tables = tables
        self.rng = random.Random(seed)
        self.samples: list[float] = []
        self.clients: list[Client] = []
        self._tasks: list[asyncio.Task[None]] = []

    async def start(self) -> None:
        """Open the tables (two humans each: the game starts when the second sits)."""
        for i in range(self.tables):
            owner = await Client.connect(self.url, f"host {i}")
            guest = await Client.connect(self.url, f"guest {i}")
            joined = await owner.create_table("scopa", {"seat": 0})
            await guest.join(joined.table.id)
            for client in (owner, guest):
                self.clients.append(client)
                self._tasks.append(asyncio.create_task(self._seat(client, joined.table.id)))

    async def _seat(self, client: Client, table: str) -> None:
        rng = random.Random(self.rng.random())
        while True:
            state = client.tables.get(table)
            if state is not None and state.result is not None:
                return
            if state is None or not state.my_turn or not state.legal:
                with contextlib.suppress(TimeoutError):
                    await client.receive(0.5)  # updates keep client.tables current
                continue
            await asyncio.sleep(rng.uniform(*THINK))
            state = client.tables[table]
            if not state.my_turn or not state.legal:
                continue
            began = time.perf_counter()
            try:
                await client.act(table, rng.choice(state.legal))
            except ServerError:  # a stale view: the next update tells
                continue
            self.samples.append(time.perf_counter() - began)

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        await asyncio.gather(*(c.close() for c in self.clients), return_exceptions=True)


async def _login(url: str, name: str, samples: list[float]) -> None:
    client = await Client.connect(url, f"g {random.randrange(10**8)}")
    try:
        began = time.perf_counter()
        await client.login(name, PASSWORD)
        samples.append(time.perf_counter() - began)
    finally:
        await client.close()


async def measure(url: str, args: argparse.Namespace) -> dict[str, Any]:
    """One server: register the accounts, then play without and with logins."""
    names = [f"bench user {i}" for i in range(args.accounts)]
    for name in names:
        async with await Client.connect(url, f"r {name}") as client:
            await client.register(name, PASSWORD)
    play = Play(url, args.tables, args.seed)
    await play.start()
    print(f"accounts: {args.tables} tables playing; warming up", file=sys.stderr)
    await asyncio.sleep(args.warmup)
    play.samples.clear()
    await asyncio.sleep(args.seconds)
    quiet = list(play.samples)
    play.samples.clear()
    print(f"accounts: {len(quiet)} moves alone; now with logins", file=sys.stderr)
    logins: list[float] = []
    pending: list[asyncio.Task[None]] = []
    began = time.monotonic()
    n = 0
    while time.monotonic() - began < args.seconds:
        pending.append(asyncio.create_task(_login(url, names[n % len(names)], logins)))
        n += 1
        await asyncio.sleep(max(0.0, began + n / args.logins_per_s - time.monotonic()))
    busy = list(play.samples)
    errors: dict[str, int] = {}
    for r in await asyncio.gather(*pending, return_exceptions=True):
        if r is not None:
            kind = str(getattr(r, "code", None) or type(r).__name__)
            errors[kind] = errors.get(kind, 0) + 1
    await play.stop()
    quiet_p99, busy_p99 = p(quiet, 0.99), p(busy, 0.99)
    return {
        "login_p50_ms": p(logins, 0.50),
        "login_p99_ms": p(logins, 0.99),
        "logins": len(logins),
        "logins_failed": errors,
        "play_p50_ms": p(quiet, 0.50),
        "play_p99_ms": quiet_p99,
        "play_p99_during_logins_ms": busy_p99,
        "play_p99_ratio": round(busy_p99 / quiet_p99, 2) if quiet_p99 else None,
        "moves": len(quiet),
        "moves_during_logins": len(busy),
        "mean_move_ms": round(1000 * statistics.fmean(quiet), 2) if quiet else 0.0,
    }


def run_one(database_url: str, args: argparse.Namespace) -> dict[str, Any]:
    """Start a server on ``database_url`` and measure it."""
    extra = ["--database-url", database_url]
    server = ServerProcess(
        cardavia_argv(args.tables * 2, None, extra), ready_path="/readyz", timeout=60
    )
    try:
        return asyncio.run(measure(f"ws://127.0.0.1:{server.port}", args))
    finally:
        server.stop()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.accounts", description=__doc__)
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--logins-per-s", type=float, default=20.0)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--accounts", type=int, default=ACCOUNTS)
    parser.add_argument(
        "--warmup", type=float, default=THINK[1], help="seconds of play before measuring"
    )
    parser.add_argument("--only", choices=("sqlite", "postgres"), help="measure one database only")
    args = parser.parse_args(argv)
    out: dict[str, Any] = {}
    folder = Path(tempfile.mkdtemp(prefix="cardavia-bench-accounts-"))
    try:
        if args.only != "postgres":
            print("accounts: sqlite", file=sys.stderr)
            out["sqlite"] = run_one(f"sqlite+aiosqlite:///{folder / 'cardavia.db'}", args)
            print(f"accounts: sqlite {out['sqlite']}", file=sys.stderr)
        if args.only == "sqlite":
            print(json.dumps(out))
            return 0
        # a folder of its own: under root, the postgres user must be able to reach it
        pg_dir = Path(tempfile.mkdtemp(prefix="cardavia-bench-pg-"))
        postgres = PostgresProcess(pg_dir)
        postgres.start()
        try:
            print("accounts: postgres", file=sys.stderr)
            out["postgres"] = run_one(postgres.create_database(), args)
        finally:
            postgres.stop()
            shutil.rmtree(pg_dir, ignore_errors=True)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
