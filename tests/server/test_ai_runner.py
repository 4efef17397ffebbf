"""AI decisions off the loop: deadline fallback, failures, fairness, the global budget."""

from __future__ import annotations

import asyncio
import json
import multiprocessing as mp
import random
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

import pytest

import server.ai.pool as ai_module
from client_cli.client import Client
from engine.game import Budget
from engine.policy import Peers
from engine.registry import GAMES, get_policy
from protocol import server_messages as sm
from server.ai.pool import AiRunner
from server.app import running_server
from server.config import ServerConfig
from tests.server.helpers import process_alive

pytestmark = pytest.mark.heavy  # tens of seconds: run first (tests/conftest.py)

ROOT = Path(__file__).resolve().parents[2]


class Slow:
    name = "slow"

    def choose(
        self, view: Any, legal: Sequence[Any], rng: random.Random, budget: Budget | None = None
    ) -> Any:
        time.sleep(0.5)
        return legal[-1]


class Thinking(Slow):
    """Slow, and says while it thinks (a flag, not a clock: the test machine may be loaded)."""

    name = "thinking"
    now = False

    def choose(
        self, view: Any, legal: Sequence[Any], rng: random.Random, budget: Budget | None = None
    ) -> Any:
        Thinking.now = True
        try:
            time.sleep(1.0)
        finally:
            Thinking.now = False
        return legal[-1]


class Broken:
    name = "broken"

    def choose(
        self, view: Any, legal: Sequence[Any], rng: random.Random, budget: Budget | None = None
    ) -> Any:
        raise RuntimeError("bug")


class Quick:
    name = "quick"

    def choose(
        self, view: Any, legal: Sequence[Any], rng: random.Random, budget: Budget | None = None
    ) -> Any:
        time.sleep(0.02)
        return legal[0]


class Gated:
    """Thinks until the test opens :attr:`gate` (a decision known to be running)."""

    gate = threading.Event()
    name = "gated"

    def choose(
        self, view: Any, legal: Sequence[Any], rng: random.Random, budget: Budget | None = None
    ) -> Any:
        Gated.gate.wait(10)
        return legal[0]


class OffLoop:
    """Records the thread it ran in (a fallback must never run on the loop's)."""

    threads: ClassVar[list[int]] = []

    name = "offloop"

    def choose(
        self, view: Any, legal: Sequence[Any], rng: random.Random, budget: Budget | None = None
    ) -> Any:
        OffLoop.threads.append(threading.get_ident())
        return legal[0]


def _position() -> tuple[Any, tuple[Any, ...]]:
    game = GAMES["scopa"]
    state = game.new_state(game.options(), 3)
    seat = game.to_act(state)[0]
    return game.view(state, seat), game.legal_actions(state, seat)


asked_for: list[tuple[str, Peers]] = []
"""What the fake registry was asked for: each policy's name and the table's seats."""


@pytest.fixture
def fake_policies(monkeypatch: pytest.MonkeyPatch) -> None:
    def fake(game_id: str, name: str, peers: Peers = ()) -> Any:
        asked_for.append((name, peers))
        fakes: dict[str, Any] = {
            "slow": Slow,
            "thinking": Thinking,
            "broken": Broken,
            "quick": Quick,
            "offloop": OffLoop,
            "gated": Gated,
        }
        return fakes.get(name, lambda: get_policy(game_id, name, peers))()

    asked_for.clear()
    monkeypatch.setattr(ai_module, "get_policy", fake)


async def test_the_policy_and_its_fallback_are_told_the_tables_seats(fake_policies: None) -> None:
    runner = AiRunner(workers=1, think=0.1, deadline=1.0, mode="thread")
    await runner.warm()
    asked_for.clear()  # the warm-up asked for every game's policies
    view, legal = _position()
    peers = ("hard", None)
    assert await runner.choose("scopa", "quick", "random", view, legal, peers=peers) in legal
    assert await runner.choose("scopa", "broken", "quick", view, legal, peers=peers) in legal
    assert asked_for == [("quick", peers), ("broken", peers), ("quick", peers)]
    runner.shutdown()


async def test_deadline_miss_falls_back_without_blocking(fake_policies: None) -> None:
    runner = AiRunner(workers=1, think=0.1, deadline=0.1, mode="thread")
    view, legal = _position()
    ticks_while_thinking = 0

    async def ticker() -> None:
        nonlocal ticks_while_thinking
        while True:
            await asyncio.sleep(0.005)
            ticks_while_thinking += Thinking.now

    task = asyncio.create_task(ticker())
    action = await runner.choose("scopa", "thinking", "random", view, legal)
    still_thinking = Thinking.now  # the fallback's move came while the policy thought on
    task.cancel()
    assert action in legal and still_thinking
    assert ticks_while_thinking >= 1  # the loop kept running while the policy thought
    assert runner.metrics.value("cardavia_ai_decisions_total", game="scopa", outcome="deadline")
    runner.shutdown()


async def test_a_failing_policy_still_moves(fake_policies: None) -> None:
    runner = AiRunner(workers=1, think=0.1, deadline=1.0, mode="thread")
    view, legal = _position()
    assert await runner.choose("scopa", "broken", "random", view, legal) in legal
    assert await runner.choose("scopa", "broken", "broken", view, legal) in legal
    assert runner.metrics.value("cardavia_ai_decisions_total", game="scopa", outcome="error") == 2
    # the broken fallback left only the last resort: a random legal move
    metric = runner.metrics.value
    assert metric("cardavia_ai_decisions_total", game="scopa", outcome="last_resort") == 1
    runner.shutdown()


async def test_the_fallback_runs_off_the_loop(fake_policies: None) -> None:
    runner = AiRunner(workers=1, think=0.1, deadline=1.0, mode="thread")
    view, legal = _position()
    OffLoop.threads.clear()
    assert await runner.choose("scopa", "broken", "offloop", view, legal) == legal[0]
    assert OffLoop.threads and threading.get_ident() not in OffLoop.threads
    runner.shutdown()


async def test_tables_are_served_round_robin(fake_policies: None) -> None:
    """A table with many queued decisions does not make another table wait for all of them."""
    runner = AiRunner(workers=1, think=0.0, deadline=30.0, mode="thread")
    view, legal = _position()
    done: list[str] = []

    async def one(table: str) -> None:
        await runner.choose("scopa", "quick", "random", view, legal, table=table)
        done.append(table)

    busy = [asyncio.create_task(one("busy")) for _ in range(12)]
    await asyncio.sleep(0)
    other = [asyncio.create_task(one(name)) for name in ("a", "b")]
    await asyncio.gather(*busy, *other)
    # one worker, one decision per table at a time: "a" and "b" come within the first few
    assert max(done.index("a"), done.index("b")) <= 3, done
    assert runner.metrics.value("cardavia_ai_decisions_total", game="scopa", outcome="ok") == 14
    assert runner.queued == 0 and runner.running == 0
    runner.shutdown()


async def test_one_decision_per_table_at_a_time(fake_policies: None) -> None:
    runner = AiRunner(workers=4, think=0.0, deadline=30.0, mode="thread")
    view, legal = _position()
    Gated.gate.clear()
    jobs = [
        asyncio.create_task(runner.choose("scopa", "gated", "random", view, legal, table="t"))
        for _ in range(3)
    ]
    while runner.running == 0:  # the first is handed to a worker; it thinks until the gate opens
        await asyncio.sleep(0.001)
    await asyncio.sleep(0.02)  # time the idle workers would take the others
    assert runner.running == 1 and runner.queued == 2
    Gated.gate.set()
    await asyncio.wait_for(asyncio.gather(*jobs), 10)
    runner.shutdown()


async def test_past_the_global_budget_the_fallback_decides(fake_policies: None) -> None:
    runner = AiRunner(workers=1, think=0.0, deadline=30.0, mode="thread", queue_limit=2)
    await runner.warm()
    view, legal = _position()
    jobs = [
        runner.choose("scopa", "quick", "offloop", view, legal, table=f"t{i}") for i in range(6)
    ]
    actions = await asyncio.gather(*jobs)
    assert all(a in legal for a in actions)
    metric = runner.metrics.value
    # one decision runs, two wait: the other three are shed to the fallback at once
    assert metric("cardavia_ai_decisions_total", game="scopa", outcome="ok") == 3
    assert metric("cardavia_ai_decisions_total", game="scopa", outcome="shed") == 3
    runner.shutdown()


async def test_a_decision_that_waited_past_its_deadline_leaves_the_queue(
    fake_policies: None,
) -> None:
    runner = AiRunner(workers=1, think=0.0, deadline=0.1, mode="thread")
    view, legal = _position()
    first = asyncio.create_task(runner.choose("scopa", "slow", "random", view, legal, table="a"))
    await asyncio.sleep(0)
    assert await runner.choose("scopa", "quick", "random", view, legal, table="b") in legal
    assert runner.queued == 0  # "b" gave up while queued and was dropped
    assert await first in legal
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


async def test_a_dead_worker_process_is_replaced() -> None:
    runner = AiRunner(workers=1, think=0.0, deadline=10.0, mode="process")
    view, legal = _position()
    try:
        await runner.warm()
        executor: Any = runner._executor
        for process in list(executor._processes.values()):
            process.kill()
            process.join(5)
        # the first decision meets the broken pool (the fallback moves), which is replaced
        for _ in range(3):
            assert await runner.choose("scopa", "greedy", "random", view, legal) in legal
        metric = runner.metrics.value
        assert runner._executor is not executor
        assert metric("cardavia_ai_pool_restarts_total") == 1
        assert metric("cardavia_ai_decisions_total", game="scopa", outcome="error") == 1
        assert metric("cardavia_ai_decisions_total", game="scopa", outcome="ok") == 2
    finally:
        runner.shutdown()


_PROBE_THE_LOOP = """
import asyncio, json, os, signal, sys, time
from multiprocessing import forkserver
from engine.registry import GAMES
from server.ai.pool import AiRunner

async def main(case):
    runner = AiRunner(workers=2, think=0.0, deadline=10.0, mode="process")
    game = GAMES["scopa"]
    state = game.new_state(game.options(), 3)
    seat = game.to_act(state)[0]
    view, legal = game.view(state, seat), game.legal_actions(state, seat)
    if case == "replace":  # the forkserver dies, then a worker: the pool is replaced
        await runner.warm()
        os.kill(forkserver._forkserver._forkserver_pid, signal.SIGKILL)
        for process in list(runner._executor._processes.values()):
            process.kill()
            process.join(5)
    lags = []
    async def probe():
        while True:
            began = time.perf_counter()
            await asyncio.sleep(0.005)
            lags.append(time.perf_counter() - began - 0.005)
    probing = asyncio.create_task(probe())
    await asyncio.sleep(0.05)  # the probe runs
    began = time.perf_counter()
    if case == "warm":
        await runner.warm()
    else:  # "first": decisions asked for before any worker started
        for _ in range(3):
            assert await runner.choose("scopa", "greedy", "random", view, legal) in legal
    took = time.perf_counter() - began
    probing.cancel()
    runner.shutdown()
    print(json.dumps({"took": took, "lag": max(lags)}))

if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
"""


@pytest.mark.parametrize("case", ["warm", "first", "replace"])
def test_workers_start_without_holding_up_the_event_loop(tmp_path: Path, case: str) -> None:
    """In a fresh process (no forkserver yet, or after it died): the loop goes on while
    the forkserver imports the server and the workers start (the first start waits for
    it), whether the server warms the pool, asks for decisions first, or replaces a pool
    whose forkserver died."""
    script = tmp_path / "probe.py"
    script.write_text(_PROBE_THE_LOOP)
    done = subprocess.run(
        [sys.executable, str(script), case], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout.splitlines()[-1])
    assert figures["lag"] < figures["took"] / 2, figures  # held up, it lagged the whole start


@pytest.mark.parametrize("method", ["forkserver", "spawn"])
async def test_workers_end_once_the_servers_end_of_their_lifeline_closes(
    method: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """However the server ends (SIGKILL included), its end of the workers' lifeline
    closes: every worker process, of both pools, then exits by itself."""
    if method == "spawn":  # where there is no forkserver
        monkeypatch.setattr(ai_module, "_process_context", lambda: mp.get_context("spawn"))
    runner = AiRunner(workers=1, think=0.0, deadline=10.0, mode="process")
    try:
        await runner.warm()
        pools: list[Any] = [runner._executor, runner._fallback]
        pids = {process.pid for pool in pools for process in pool._processes.values()}
        assert len(pids) == 1 + ai_module.FALLBACK_WORKERS
        assert runner._lifeline is not None
        runner._lifeline[1].close()  # as the server's death closes it; nothing is terminated
        deadline = time.monotonic() + 10
        while any(map(process_alive, pids)) and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        assert not [pid for pid in pids if process_alive(pid)]
    finally:
        runner.shutdown()


async def test_a_tables_ai_is_told_each_seats_level(fake_policies: None) -> None:
    config = ServerConfig(port=0, ai_delay=0.0, ai_mode="thread", ai_workers=1, ai_think=0.01)
    async with running_server(config) as srv:
        asked_for.clear()  # the workers' warm-up asked for every game's policies
        client = await Client.connect(srv.url, "w")
        try:
            ai = [{"seat": 0, "level": "random"}, {"seat": 1, "level": "easy"}]
            await client.create_table("scopa", {"seat": None, "ai": ai})
            await client.wait_for(lambda m: isinstance(m, sm.GameOver), 60)
        finally:
            await client.close()
    assert {peers for _, peers in asked_for} == {("random", "easy")}
    assert {name for name, _ in asked_for} >= {"random", "easy"}
