"""The server process: /healthz, SIGTERM shutdown, configuration, the store, the schema command."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from bench.procstat import stat_fields
from client_cli.client import Client, ServerError
from protocol import server_messages as sm
from server.app import CardaviaServer, running_server
from server.config import ServerConfig, load_config
from server.persist.store import LoggedAction, MemoryStore, TableRecord
from server.players.ratelimit import TokenBucket
from server.players.sessions import NameError_, validate_name
from tests.server.helpers import process_alive

ROOT = Path(__file__).resolve().parents[2]


async def test_healthz_on_the_same_port(server: CardaviaServer) -> None:
    url = f"http://127.0.0.1:{server.port}/healthz"
    body = await asyncio.to_thread(lambda: urllib.request.urlopen(url, timeout=5).read())
    data = json.loads(body)
    assert data["status"] == "ok" and data["protocol"] == 1
    client = await Client.connect(server.url, "x")  # and the WebSocket endpoint still works
    await client.ping()
    await client.close()


async def test_shutdown_notifies_and_closes_1001() -> None:
    async with running_server(ServerConfig(port=0)) as srv:
        client = await Client.connect(srv.url, "x")
        await srv.shutdown()
        msg = await client.wait_for(lambda m: isinstance(m, sm.Shutdown), 5)
        assert msg.reason
        await asyncio.sleep(0.1)
        assert client.closed and client.ws.close_code == 1001


def _live_descendants(root: int) -> set[int]:
    """The processes under ``root`` (by their parent ids in /proc), zombies left out."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = stat_fields(int(entry))
            except OSError:
                continue
            if fields[0] != "Z":
                parents[int(entry)] = int(fields[1])
    found, frontier = set(), {root}
    while frontier:
        frontier = {pid for pid, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc (Linux)")
def test_it_listens_before_its_ai_workers_start_and_they_end_with_it() -> None:
    """The AI workers start after ``listening`` (forked from one forkserver), and none
    outlives a server killed with SIGKILL (no chance to stop them)."""
    env = dict(os.environ, CARDAVIA_PORT="0", CARDAVIA_LOG_LEVEL="info")
    proc = subprocess.Popen(
        [sys.executable, "-m", "server.main", "--host", "127.0.0.1", "--ai-mode", "process",
         "--ai-workers", "2"],
        cwd=ROOT, env=env, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert proc.stderr is not None
        events = []
        while not events or events[-1]["event"] != "ai_ready":
            line = proc.stderr.readline()
            assert line, "the server ended before its AI workers started"
            events.append(json.loads(line))
        names = [e["event"] for e in events]
        assert names.index("listening") < names.index("ai_ready")
        assert events[-1]["workers"] == 2 and events[-1]["mode"] == "process"
        workers = _live_descendants(proc.pid)
        assert len(workers) >= 5  # the forkserver, 2 workers, 2 fallback workers
    finally:
        proc.kill()
        proc.wait(10)
    deadline = time.monotonic() + 10
    while any(map(process_alive, workers)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [pid for pid in workers if process_alive(pid)]


def test_sigterm_stops_the_process_cleanly(tmp_path: Path) -> None:
    env = dict(os.environ, CARDAVIA_PORT="0", CARDAVIA_LOG_LEVEL="info")
    proc = subprocess.Popen(
        [sys.executable, "-m", "server.main", "--host", "127.0.0.1"],
        cwd=ROOT,
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stderr is not None
        line = json.loads(proc.stderr.readline())
        assert line["event"] == "listening" and line["url"].startswith("ws://127.0.0.1:")
        url = line["url"]

        async def connected_then_term() -> int | None:
            client = await Client.connect(url, "x")
            proc.send_signal(signal.SIGTERM)
            await client.wait_for(lambda m: isinstance(m, sm.Shutdown), 5)
            await asyncio.sleep(0.2)
            return client.ws.close_code

        assert asyncio.run(connected_then_term()) == 1001
        assert proc.wait(10) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_config_flags_over_env_over_defaults() -> None:
    env = {"CARDAVIA_PORT": "9000", "CARDAVIA_AI_DELAY": "0.25", "CARDAVIA_HOST": "0.0.0.0"}
    config = load_config(["--port", "9100", "--quick-fill-wait", "3"], env)
    assert config.port == 9100 and config.host == "0.0.0.0"
    assert config.ai_delay == 0.25 and config.quick_fill_wait == 3.0
    assert load_config([], {}) == ServerConfig()
    for bad_env in ({"CARDAVIA_PORT": "x"}, {"CARDAVIA_PORT": "70000"}, {"CARDAVIA_STORE": "?"}):
        with pytest.raises(ValueError):
            load_config([], bad_env)


def test_name_validation() -> None:
    assert validate_name("  Ann  ") == "Ann"
    assert validate_name("Zoë 李") == "Zoë 李"
    for bad in ["", " ", "x" * 25, "a\tb", "\u200bzero", "a\u2028b", "\x00"]:
        with pytest.raises(NameError_):
            validate_name(bad)


def test_token_bucket() -> None:
    bucket = TokenBucket(rate=2.0, burst=3)
    assert [bucket.allow(10.0) for _ in range(4)] == [True, True, True, False]
    assert bucket.allow(10.5) and not bucket.allow(10.5)


async def test_memory_store_keeps_options_seed_and_log() -> None:
    store = MemoryStore()
    await store.create(TableRecord(table_id="t", game="scopa", options={"seat": 0}))
    await store.start_game("t", 1, 42)
    await store.append("t", LoggedAction(seat=0, action={"type": "play"}, by="human"))
    rec = await store.load("t")
    assert rec is not None and rec.seed == 42 and rec.game_no == 1 and len(rec.actions) == 1
    await store.start_game("t", 2, 43)
    rec = await store.load("t")
    assert rec is not None and rec.actions == () and rec.seed == 43
    assert await store.table_ids() == ["t"]
    await store.delete("t")
    assert await store.load("t") is None


def test_schema_command_prints_every_message() -> None:
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            "from client_cli.schema import run; import argparse; "
            "run(argparse.Namespace(direction='both', indent=0))",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    schema = json.loads(out)
    assert "Act" in schema["client"]["$defs"] and "Update" in schema["server"]["$defs"]


async def test_metrics_count_messages_actions_and_errors(server: CardaviaServer) -> None:
    client = await Client.connect(server.url, "m")
    try:
        joined = await client.create_table(
            "scopa", {"seat": None, "ai": [{"seat": 0}, {"seat": 1}]}
        )
        await client.wait_for(lambda m: isinstance(m, sm.GameOver), 30)
        await client.send_raw(b"\xc1")
        await client.wait_for(lambda m: isinstance(m, sm.Error), 5)
        url = f"http://127.0.0.1:{server.port}/metrics"
        text = await asyncio.to_thread(
            lambda: urllib.request.urlopen(url, timeout=5).read().decode()
        )
        assert 'cardavia_messages_in_total{type="create_table"} 1' in text
        assert 'cardavia_errors_total{code="bad_message"} 1' in text
        assert 'cardavia_games_finished_total{game="scopa"} 1' in text
        assert "cardavia_tables 1" in text
        actions = server.metrics.value("cardavia_actions_total", game="scopa", by="ai")
        assert actions == len(server.lobby.tables[joined.table.id].core.log) > 0
        assert server.metrics.value("cardavia_ai_decisions_total", game="scopa", outcome="ok") > 0
    finally:
        await client.close()


async def test_tables_per_player_are_limited() -> None:
    async with running_server(ServerConfig(port=0, max_tables_per_player=2)) as srv:
        client = await Client.connect(srv.url, "greedy")
        try:
            for _ in range(2):
                await client.create_table("scopa", {"seat": 0})
            with pytest.raises(ServerError) as info:
                await client.create_table("scopa", {"seat": 0})
            assert (info.value.code, info.value.detail) == (
                "quota_exceeded",
                "max_tables_per_player",
            )
            with pytest.raises(ServerError):
                await client.quick_play("scopa")
        finally:
            await client.close()
