"""``cardavia-server``: run the server until SIGTERM or Ctrl-C.

Flags and ``CARDAVIA_*`` environment variables configure it
(:mod:`server.config`); it logs JSON lines on stderr.
"""

from __future__ import annotations

import asyncio
import errno
import signal
import sys
from collections.abc import Sequence

from server.app import CardaviaServer
from server.config import ServerConfig, load_config
from server.logs import configure, get_logger


async def serve_until_stopped(config: ServerConfig) -> None:
    """Run the server; SIGTERM or SIGINT stop it gracefully (clients get 1001)."""
    server = CardaviaServer(config)
    await server.start()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    try:
        await stop.wait()
    finally:
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
    except ValueError as exc:
        print(f"cardavia-server: {exc}", file=sys.stderr)
        return 2
    configure(config.log_level)
    try:
        asyncio.run(serve_until_stopped(config))
    except OSError as exc:
        get_logger().error("cannot_listen", error=str(exc))
        print(f"cardavia-server: cannot listen on {listen_reason(config, exc)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
