"""GET /readyz: ready while listening with its AI workers started and a reachable store;
503 while they start, when draining or unhealthy."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import urllib.error
import urllib.request

from server.app import CardaviaServer
from server.persist.store import MemoryStore
from tests.server.helpers import FAST


def _get(url: str) -> tuple[int, dict[str, object]]:
    try:
        with urllib.request.urlopen(url, timeout=5) as reply:
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


async def _probe(server: CardaviaServer, path: str) -> tuple[int, dict[str, object]]:
    return await asyncio.to_thread(_get, f"http://127.0.0.1:{server.port}{path}")


class FlakyStore(MemoryStore):
    """A memory store whose health check can be made to fail, hang or raise."""

    def __init__(self) -> None:
        super().__init__()
        self.health: str = "ok"

    async def ping(self) -> bool:
        if self.health == "raise":
            raise ConnectionError("no route to the store")
        if self.health == "hang":
            await asyncio.sleep(60)
        return self.health == "ok"


async def test_ready_when_listening(server: CardaviaServer) -> None:
    assert await _probe(server, "/readyz") == (200, {"status": "ready"})
    assert await server.not_ready() is None


async def test_not_ready_while_the_store_is_unreachable() -> None:
    store = FlakyStore()
    server = CardaviaServer(FAST, store=store)
    await server.start()
    await server.warmed()
    try:
        store.health = "down"
        assert await _probe(server, "/readyz") == (
            503,
            {"status": "not_ready", "reason": "store unreachable"},
        )
        store.health = "raise"
        status, body = await _probe(server, "/readyz")
        assert (status, body["reason"]) == (503, "store unreachable (ConnectionError)")
        status, body = await _probe(server, "/healthz")
        assert status == 200 and body["status"] == "ok"  # alive, just not ready
        store.health = "ok"
        assert (await _probe(server, "/readyz"))[0] == 200
    finally:
        await server.shutdown()


async def test_a_hanging_store_is_not_ready_after_the_timeout(monkeypatch) -> None:
    monkeypatch.setattr("server.app.READY_STORE_TIMEOUT", 0.2)
    store = FlakyStore()
    store.health = "hang"
    server = CardaviaServer(FAST, store=store)
    await server.start()
    await server.warmed()
    try:
        status, body = await _probe(server, "/readyz")
        assert (status, body["reason"]) == (503, "store unreachable (TimeoutError)")
    finally:
        await server.shutdown()


async def test_503_while_shutting_down_then_closed() -> None:
    server = CardaviaServer(dataclasses.replace(FAST, shutdown_drain=1.0))
    await server.start()
    await server.warmed()
    assert (await _probe(server, "/readyz"))[0] == 200
    stopping = asyncio.create_task(server.shutdown())
    await asyncio.sleep(0.05)
    assert await _probe(server, "/readyz") == (
        503,
        {"status": "not_ready", "reason": "shutting down"},
    )
    assert (await _probe(server, "/healthz"))[0] == 200  # still serving while it drains
    await stopping
    assert await server.not_ready() == "shutting down"


async def test_not_ready_until_the_ai_workers_have_started() -> None:
    """The server listens at once; /readyz waits for the AI workers (they start meanwhile)."""
    server = CardaviaServer(FAST)
    started = asyncio.Event()

    async def slow_warm() -> None:
        await started.wait()

    server.ai.warm = slow_warm  # type: ignore[method-assign]
    await server.start()
    try:
        assert (await _probe(server, "/healthz"))[0] == 200  # listening already
        assert await _probe(server, "/readyz") == (
            503,
            {"status": "not_ready", "reason": "starting the AI workers"},
        )
        started.set()
        await server.warmed()
        assert await _probe(server, "/readyz") == (200, {"status": "ready"})
    finally:
        await server.shutdown()


async def test_ai_workers_that_cannot_start_keep_it_not_ready() -> None:
    server = CardaviaServer(FAST)

    async def broken_warm() -> None:
        raise OSError("cannot fork")

    server.ai.warm = broken_warm  # type: ignore[method-assign]
    await server.start()
    try:
        await server.warmed()
        reason = "the AI workers did not start (OSError: cannot fork)"
        assert await _probe(server, "/readyz") == (503, {"status": "not_ready", "reason": reason})
    finally:
        await server.shutdown()
