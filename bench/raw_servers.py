"""The yardsticks of :mod:`bench.load`: raw websockets servers with no game behind them.

``python -m bench.raw_servers --mode echo|fanout [--loop auto|asyncio|uvloop]``
listens on 127.0.0.1 (a free port) and prints ``port N`` on stdout once ready.

* ``echo`` sends every frame back to its sender (``hello`` gets a small
  ``welcome``): the cost of a WebSocket round trip and nothing else.
* ``fanout`` groups connections by the ``table`` of their ``hello``; an ``act``
  makes it send one small ``update`` (the next version and the seat to act)
  to every connection of that table: the game server's fan-out without the
  game.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
from collections.abc import Sequence
from typing import Any

import msgpack  # type: ignore[import-untyped]
import ormsgpack
from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed

from bench.procstat import raise_fd_limit, run_loop


def _welcome(msg: dict[str, Any]) -> bytes:
    return ormsgpack.packb({"type": "welcome", "ref": msg.get("id"), "player_id": "raw"})


async def _echo(ws: ServerConnection) -> None:
    try:
        async for frame in ws:
            msg = msgpack.unpackb(frame, raw=False)
            await ws.send(_welcome(msg) if msg.get("type") == "hello" else frame)
    except ConnectionClosed:
        pass


class FanOut:
    """Connections by table; an ``act`` sends an ``update`` to each of them."""

    def __init__(self) -> None:
        self.tables: dict[str, list[ServerConnection]] = {}

    async def handler(self, ws: ServerConnection) -> None:
        """Serve one connection until it closes."""
        table: str | None = None
        try:
            async for frame in ws:
                msg: dict[str, Any] = msgpack.unpackb(frame, raw=False)
                kind = msg.get("type")
                if kind == "hello":
                    table = str(msg["table"])
                    self.tables.setdefault(table, []).append(ws)
                    await ws.send(_welcome(msg))
                elif kind == "act" and table is not None:
                    members = self.tables.get(table, [])
                    update = {
                        "type": "update",
                        "table": table,
                        "version": int(msg["version"]) + 1,
                        "actor": msg["seat"],
                        "to_act": (int(msg["seat"]) + 1) % max(1, int(msg["seats"])),
                    }
                    data = ormsgpack.packb(update)
                    for member in members:
                        with contextlib.suppress(ConnectionClosed):
                            await member.send(data)
        except ConnectionClosed:
            pass
        finally:
            if table is not None and ws in self.tables.get(table, []):
                self.tables[table].remove(ws)


async def _serve(mode: str) -> None:
    handler = _echo if mode == "echo" else FanOut().handler
    async with serve(handler, "127.0.0.1", 0, compression=None, max_size=65536) as server:
        port = next(iter(server.sockets)).getsockname()[1]
        print(f"port {port}", flush=True)
        await asyncio.Future()


def main(argv: Sequence[str] | None = None) -> int:
    """Run a yardstick server until killed."""
    parser = argparse.ArgumentParser(prog="python -m bench.raw_servers")
    parser.add_argument("--mode", choices=("echo", "fanout"), required=True)
    parser.add_argument("--loop", choices=("auto", "asyncio", "uvloop"), default="auto")
    args = parser.parse_args(argv)
    raise_fd_limit()
    with contextlib.suppress(KeyboardInterrupt):
        run_loop(_serve(args.mode), args.loop)
    return 0


if __name__ == "__main__":
    sys.exit(main())
