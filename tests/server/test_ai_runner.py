"""AI decisions off the loop: deadline fallback, failures, worker processes."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Sequence
from typing import Any

import pytest

import server.ai as ai_module
from client_cli.client import Client
from engine.game import Budget
from engine.registry import GAMES, get_policy
from protocol import server_messages as sm
from server.ai import AiRunner
from server.app import running_server
from server.config import ServerConfig


class Slow:
    name = "slow"

    def choose(
        self, view: Any, legal: Sequence[Any], rng: random.Random, budget: Budget | None = None
    ) -> Any:
        time.sleep(0.5)
        return legal[-1]


class Broken:
    name = "broken"

    def choose(
        self, view: Any, legal: Sequence[Any], rng: random.Random, budget: Budget | None = None
    ) -> Any:
        raise RuntimeError("bug")


def _position() -> tuple[Any, tuple[Any, ...]]:
    game = GAMES["scopa"]
    state = game.new_state(game.options(), 3)
    seat = game.to_act(state)[0]
    return game.view(state, seat), game.legal_actions(state, seat)


@pytest.fixture
def fake_policies(monkeypatch: pytest.MonkeyPatch) -> None:
    def fake(game_id: str, name: str) -> Any:
        return {"slow": Slow, "broken": Broken}.get(name, lambda: get_policy(game_id, name))()

    monkeypatch.setattr(ai_module, "get_policy", fake)


async def test_deadline_miss_falls_back_without_blocking(fake_policies: None) -> None:
    runner = AiRunner(workers=1, think=0.1, deadline=0.05)
    view, legal = _position()
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.005)
            ticks += 1

    task = asyncio.create_task(ticker())
    start = time.perf_counter()
    action = await runner.choose("scopa", "slow", "random", view, legal)
    elapsed = time.perf_counter() - start
    task.cancel()
    assert action in legal and elapsed < 0.4
    assert ticks >= 3  # the loop kept running while the policy thought
    assert runner.metrics.value("cardavia_ai_decisions_total", game="scopa", outcome="deadline")
    runner.shutdown()


async def test_a_failing_policy_still_moves(fake_policies: None) -> None:
    runner = AiRunner(workers=1, think=0.1, deadline=1.0)
    view, legal = _position()
    assert await runner.choose("scopa", "broken", "random", view, legal) in legal
    assert await runner.choose("scopa", "broken", "broken", view, legal) in legal
    assert runner.metrics.value("cardavia_ai_decisions_total", game="scopa", outcome="error") == 2
    runner.shutdown()


async def test_process_workers_play_a_game() -> None:
    config = ServerConfig(port=0, ai_delay=0.0, ai_mode="process", ai_workers=1, ai_think=0.01)
    async with running_server(config) as srv:
        client = await Client.connect(srv.url, "w")
        try:
            ai = [{"seat": 0, "level": "random"}, {"seat": 1}]
            await client.create_table("scopa", {"seat": None, "ai": ai})
            over = await client.wait_for(lambda m: isinstance(m, sm.GameOver), 60)
            assert over.result["winners"]
        finally:
            await client.close()
