"""Every game's every AI level through the server's runner: worker processes, shared threads.

A decision must come back ``ok`` (not a fallback, not an error) and be
legal, also when the view and the legal actions were pickled into a worker
process (Dou Dizhu once compared moves by identity there) and when many
threads decide at once over the engine's shared memos (a ``KeyError`` once).
"""

from __future__ import annotations

import asyncio
import gc
import random
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from engine.doudizhu.ai import hand as ai_hand
from engine.registry import GAMES, policy_names
from server.ai.pool import AiRunner

Position = tuple[Any, tuple[Any, ...]]


def positions(game_id: str, games: int, every: int) -> list[Position]:
    """Views and legal actions along random games: every ``every``-th decision, all phases."""
    game = GAMES[game_id]
    out: list[Position] = []
    for seed in range(games):
        state = game.new_state(game.options(), 1000 + seed)
        rng = random.Random(seed)
        step = seed  # a different phase of each game is sampled
        while not game.is_over(state):
            seat = game.to_act(state)[0]
            legal = tuple(game.legal_actions(state, seat))
            if step % every == 0:
                out.append((game.view(state, seat), legal))
            step += 1
            state = game.apply(state, seat, legal[rng.randrange(len(legal))]).state
    return out


async def decide_all(
    runner: AiRunner, game_id: str, level: str, spots: list[Position], tables: int
) -> None:
    """Decide every position (spread over ``tables`` tables); each answer must be legal."""

    async def one(i: int, view: Any, legal: tuple[Any, ...]) -> None:
        action = await runner.choose(game_id, level, "random", view, legal, table=f"t{i % tables}")
        assert action in legal, (game_id, level, action)

    await asyncio.gather(*(one(i, v, lg) for i, (v, lg) in enumerate(spots)))


def outcomes(runner: AiRunner, game_id: str) -> dict[str, float]:
    """The runner's decisions of ``game_id`` by outcome (those that happened)."""
    found = {
        kind: runner.metrics.value("cardavia_ai_decisions_total", game=game_id, outcome=kind)
        for kind in ("ok", "deadline", "error", "shed", "last_resort")
    }
    return {kind: n for kind, n in found.items() if n}


async def test_every_level_of_every_game_in_worker_processes() -> None:
    runner = AiRunner(workers=2, think=0.005, deadline=30.0, mode="process", queue_limit=10_000)
    try:
        await runner.warm()
        for game_id in GAMES:
            spots = positions(game_id, games=3, every=7)
            assert len(spots) >= 12, game_id
            for level in policy_names(game_id):
                await decide_all(runner, game_id, level, spots, tables=4)
            expected = len(spots) * len(policy_names(game_id))
            assert outcomes(runner, game_id) == {"ok": expected}, game_id
        # the workers ran their decisions with the collector held off, then froze
        # what was left (engine.collector); between decisions it is on again
        loop = asyncio.get_running_loop()
        assert await loop.run_in_executor(runner._executor, gc.isenabled)
        assert await loop.run_in_executor(runner._executor, gc.get_freeze_count) > 0
    finally:
        runner.shutdown()


async def test_threads_leave_the_servers_collector_alone() -> None:
    """In thread mode the policies run in the server's own process: its collector
    (the event loop's too) is never held off nor its heap frozen by a decision."""
    # from nothing frozen: what an earlier test of this worker froze may die meanwhile
    gc.unfreeze()
    runner = AiRunner(workers=2, think=0.005, deadline=30.0, mode="thread", queue_limit=10_000)
    try:
        await decide_all(runner, "doudizhu", "hard", positions("doudizhu", games=1, every=5), 2)
        assert gc.isenabled()
        assert gc.get_freeze_count() == 0
    finally:
        runner.shutdown()


@pytest.fixture
def eager_thread_switches() -> Iterator[None]:
    """Switch threads every 10 µs (not 5 ms), so races between threads show at once."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    yield
    sys.setswitchinterval(before)


@pytest.mark.parametrize("game_id", sorted(GAMES))
async def test_many_threads_deciding_at_once(
    game_id: str, monkeypatch: pytest.MonkeyPatch, eager_thread_switches: None
) -> None:
    """Eight worker threads over shared memos kept small, so they are trimmed all the time."""
    monkeypatch.setattr(ai_hand, "_MEMO_LIMIT", 64)
    monkeypatch.setattr(ai_hand, "_PLAN_LIMIT", 64)
    runner = AiRunner(workers=8, think=0.002, deadline=30.0, mode="thread", queue_limit=10_000)
    try:
        spots = positions(game_id, games=3, every=2)
        for level in policy_names(game_id)[-2:]:  # normal and hard: the memo users
            await decide_all(runner, game_id, level, spots, tables=8)
        assert set(outcomes(runner, game_id)) == {"ok"}, outcomes(runner, game_id)
    finally:
        runner.shutdown()
