"""``cardavia-server``: run the server until SIGTERM or Ctrl-C.

Flags and ``CARDAVIA_*`` environment variables configure it
(:mod:`server.config`); it logs JSON lines on stderr.
"""

from __future__ import annotations

import asyncio
import gc
import signal
import sys
from collections.abc import Sequence

from server.app import CardaviaServer
from server.config import ServerConfig, load_config
from server.logs import configure, get_logger
from server.loops import run_with_loop


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


async def serve_until_stopped(config: ServerConfig) -> None:
    """Run the server; SIGTERM or SIGINT stop it gracefully (clients get 1001)."""
    server = CardaviaServer(config)
    await server.start()
    tune_gc(config.gc_gen0)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    try:
        await stop.wait()
    finally:
        await server.shutdown()


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``cardavia-server`` console script."""
    try:
        config = load_config(argv)
    except ValueError as exc:
        print(f"cardavia-server: {exc}", file=sys.stderr)
        return 2
    configure(config.log_level)
    try:
        run_with_loop(serve_until_stopped(config), config.loop)
    except ImportError:
        print("cardavia-server: --loop uvloop needs the uvloop package", file=sys.stderr)
        return 2
    except OSError as exc:
        get_logger().error("cannot_listen", error=str(exc))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
