"""A real Cardavia server on 127.0.0.1 (ephemeral port) in a background thread.

The ``cardavia`` sub-commands run their own ``asyncio.run``, so tests call
them from the test thread (or a subprocess) while the server runs on its own
loop here.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from server.app import CardaviaServer, running_server
from server.config import ServerConfig
from tests.server.helpers import FAST as SERVER_FAST

T = TypeVar("T")

FAST = SERVER_FAST.replace(host="127.0.0.1", log_level="error")


class LiveServer:
    """The server's URL, and a way to run coroutines (clients) on its loop's side."""

    def __init__(self, server: CardaviaServer, loop: asyncio.AbstractEventLoop) -> None:
        self.server = server
        self.url = server.url
        self.loop = loop

    def run(self, coro: Awaitable[T], timeout: float = 30.0) -> T:
        """Run ``coro`` on the server's loop (clients made there stay connected)."""
        return asyncio.run_coroutine_threadsafe(_wrap(coro), self.loop).result(timeout)

    def call(self, fn: Callable[[str], Awaitable[T]], timeout: float = 30.0) -> T:
        """Run ``fn(url)`` on a fresh loop in this thread (a client of the server)."""

        async def go() -> T:
            return await asyncio.wait_for(fn(self.url), timeout)

        return asyncio.run(go())


async def _wrap(coro: Awaitable[T]) -> T:
    return await coro


@contextmanager
def live_server(config: ServerConfig = FAST) -> Iterator[LiveServer]:
    """Start the server in a thread; stop it (cleanly) at the end of the block."""
    from server.ops.logs import configure

    configure("error")
    ready = threading.Event()
    box: dict[str, Any] = {}

    async def serve() -> None:
        stop = asyncio.Event()
        box["stop"] = stop
        box["loop"] = asyncio.get_running_loop()
        async with running_server(config) as server:
            box["server"] = server
            ready.set()
            await stop.wait()

    def target() -> None:
        try:
            asyncio.run(serve())
        except BaseException as exc:  # pragma: no cover - reported to the test below
            box["error"] = exc
            ready.set()

    thread = threading.Thread(target=target, name="cardavia-test-server", daemon=True)
    thread.start()
    if not ready.wait(15) or "error" in box:
        raise RuntimeError(f"the test server did not start: {box.get('error')}")
    try:
        yield LiveServer(box["server"], box["loop"])
    finally:
        box["loop"].call_soon_threadsafe(box["stop"].set)
        thread.join(15)
