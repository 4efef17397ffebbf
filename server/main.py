"""``cardavia-server``: run the server until SIGTERM or Ctrl-C.

Flags and ``CARDAVIA_*`` environment variables configure it (:mod:`server.config`:
every setting is declared there once; ``--help`` lists them); it logs JSON lines on
stderr.
"""

from __future__ import annotations

import asyncio
import errno
import gc
import signal
import sys
import time
from collections.abc import Sequence

from compiled.runtime import ROOT, stale
from server.app import CardaviaServer
from server.config import ConfigError, ServerConfig, load_config
from server.ops.logs import configure, get_logger
from server.ops.loops import run_with_loop
from server.persist.db.engine import DatabaseError
from server.persist.store import StoreUnavailable


def tune_gc(gen0: int) -> None:
    """Fewer, cheaper collections for a long-running server.

    Everything allocated during start-up (modules, the game registry, the
    server) is moved out of the collector's sight with :func:`gc.freeze`, and
    young collections run every ``gen0`` allocations instead of 700: the hot
    path allocates many short-lived containers and no reference cycles.
    """
    gc.collect()
    gc.freeze()
    _, gen1, gen2 = gc.get_threshold()
    gc.set_threshold(gen0, gen1, gen2)
    if _GC_WATCH.callback not in gc.callbacks:
        gc.callbacks.append(_GC_WATCH.callback)


THAW_GROWTH = 2.0
"""The frozen heap is thawed and collected once it is this many times its size after
the last full collection (:func:`keep_heap_frozen`)."""


async def keep_heap_frozen(every: float, thaw_every: float, growth: float = THAW_GROWTH) -> None:
    """Freeze what survived every ``every`` seconds; every ``thaw_every`` seconds, if the
    frozen heap has grown ``growth``-fold since the last full collection, thaw it and
    collect once.

    A full collection walks every tracked object: with thousands of
    connections and tables that stalls the loop for hundreds of milliseconds.
    Objects that have lived ``every`` seconds (connections, sessions, tables)
    mostly live on, so they are frozen (:func:`gc.freeze`, a constant-time
    move of the generations' lists) and collections only walk what is newer.
    While thousands of clients connect, what survives piles up fast: frozen
    every few seconds, the middle generation's collections grew long; frozen
    more often, they stay short (docs/performance.md, The server process).

    Frozen objects still die by reference counting; only reference cycles
    among them would stay, and the server's objects make none (a closed
    connection, its session, its tables and their games are freed at once:
    ``tests/server/test_hot_path.py``).  So the frozen heap is handed back to
    the collector (:func:`gc.unfreeze`) only when it has outgrown its size
    after the last full collection (what leaked would show there), not on a
    clock: thawed on a clock, the full collection of a thousand busy tables
    stalled the loop each time and freed nothing.  Looking costs a walk of
    the frozen list (:func:`gc.get_freeze_count`), so it is done only every
    so often (figures: docs/performance.md, The server process).  The first
    look only takes the measure: a server that has just started grows with
    its connections and tables, not with garbage.
    """
    baseline: int | None = None
    since_look = 0.0
    while True:
        await asyncio.sleep(every)
        since_look += every
        if since_look >= thaw_every:
            since_look = 0.0
            frozen = gc.get_freeze_count()
            if baseline is None:
                baseline = frozen
            elif frozen >= growth * max(baseline, 1):
                gc.unfreeze()
                began = time.perf_counter()
                collected = gc.collect()  # rare: the heap has doubled since the last one
                gc.freeze()
                baseline = gc.get_freeze_count()
                get_logger(component="gc").info(
                    "heap_collected",
                    frozen_before=frozen,
                    frozen_after=baseline,
                    collected=collected,
                    ms=round((time.perf_counter() - began) * 1000, 1),
                )
                continue
        gc.freeze()


class _GcWatch:
    """Logs garbage collections that stall the event loop for long (``gc_pause``)."""

    SLOW = 0.05

    def __init__(self) -> None:
        self.started = 0.0

    def callback(self, phase: str, info: dict[str, int]) -> None:
        """A ``gc.callbacks`` hook: time each collection, log the slow ones."""
        if phase == "start":
            self.started = time.perf_counter()
            return
        took = time.perf_counter() - self.started
        if took >= self.SLOW:
            get_logger(component="gc").warning(  # looked up now: after configure()
                "gc_pause",
                generation=info["generation"],
                ms=round(took * 1000, 1),
                collected=info["collected"],
            )


_GC_WATCH = _GcWatch()


async def serve_until_stopped(config: ServerConfig) -> None:
    """Run the server; SIGTERM or SIGINT stop it gracefully (clients get 1001)."""
    server = CardaviaServer(config)
    await server.start()
    tune_gc(config.gc_gen0)
    keeper = None
    if config.gc_freeze_every > 0:
        keeper = asyncio.create_task(keep_heap_frozen(config.gc_freeze_every, config.gc_thaw_every))
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    try:
        await stop.wait()
    finally:
        if keeper is not None:
            keeper.cancel()
        await server.shutdown()


def listen_reason(config: ServerConfig, exc: OSError) -> str:
    """``127.0.0.1:8765: the port is in use …``: why the server could not start, for people."""
    where = f"{config.host}:{config.port}"
    if exc.errno == errno.EADDRINUSE:
        return f"{where}: the port is in use (another server?); choose another with --port"
    if exc.errno == errno.EACCES:
        return f"{where}: permission denied (ports below 1024 need privileges)"
    if exc.errno == errno.EADDRNOTAVAIL:
        return f"{where}: no such address on this machine (--host)"
    return f"{where}: {exc.strerror or exc}"


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``cardavia-server`` console script."""
    try:
        config = load_config(argv)
    except ConfigError as exc:  # one line: the setting, what it allows, where it came from
        print(f"cardavia-server: {exc}", file=sys.stderr)
        return 2
    changed = stale()
    if changed:
        print(
            "cardavia-server: compiled modules are older than their sources "
            f"({', '.join(changed)}): compile again with `python -m compiled.build "
            f"--root {ROOT}`, or add --clean to run them as plain Python",
            file=sys.stderr,
        )
        return 2
    configure(config.log_level)
    try:
        run_with_loop(serve_until_stopped(config), config.loop)
    except (StoreUnavailable, DatabaseError) as exc:  # Redis, or the accounts' database
        print(f"cardavia-server: {exc}", file=sys.stderr)
        return 1
    except ImportError:
        print("cardavia-server: --loop uvloop needs the uvloop package", file=sys.stderr)
        return 2
    except OSError as exc:
        get_logger().error("cannot_listen", error=str(exc))
        print(f"cardavia-server: cannot listen on {listen_reason(config, exc)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
