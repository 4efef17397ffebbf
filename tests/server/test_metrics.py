"""server/ops/metrics.py and /metrics: prometheus-client registries, histograms, gauges."""

from __future__ import annotations

import asyncio
import urllib.request

import pytest
from prometheus_client.parser import text_string_to_metric_families

from client_cli.client import Client, play_table, random_chooser
from protocol import server_messages as sm
from server.app import CardaviaServer, running_server
from server.ops.metrics import Metrics, Reading
from tests.server.helpers import FAST


def _fetch(url: str) -> tuple[str, str]:
    with urllib.request.urlopen(url, timeout=5) as reply:
        return reply.headers["Content-Type"], reply.read().decode()


def _samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    out = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


def test_each_metrics_has_its_own_registry() -> None:
    a, b = Metrics(), Metrics()
    a.inc("cardavia_messages_in_total", type="ping")
    a.inc("cardavia_messages_in_total", 2, type="ping")
    b.inc("cardavia_messages_in_total", type="hello")
    assert a.value("cardavia_messages_in_total", type="ping") == 3
    assert a.value("cardavia_messages_in_total", type="hello") == 0
    assert b.value("cardavia_messages_in_total", type="hello") == 1
    assert b"cardavia_messages_in_total" in a.render()
    assert b"_created" not in a.render()


def test_histograms_gauges_and_undeclared_names() -> None:
    m = Metrics()
    for v in (0.002, 0.004, 3.0):
        m.observe("cardavia_store_seconds", v, op="append")
    m.inc("cardavia_something_new_total", kind="x")
    m.observe("cardavia_new_histogram_seconds", 0.3)
    samples = _samples(m.render().decode())
    assert samples[("cardavia_store_seconds_count", (("op", "append"),))] == 3
    assert samples[("cardavia_store_seconds_bucket", (("le", "0.005"), ("op", "append")))] == 2
    assert samples[("cardavia_store_seconds_sum", (("op", "append"),))] == pytest.approx(3.006)
    assert samples[("cardavia_something_new_total", (("kind", "x"),))] == 1
    assert samples[("cardavia_new_histogram_seconds_count", ())] == 1
    assert m.value("cardavia_store_seconds", op="append") == 3


def test_label_names_are_checked() -> None:
    m = Metrics()
    with pytest.raises(ValueError, match="takes labels"):
        m.inc("cardavia_errors_total", kind="x")
    with pytest.raises(ValueError, match="takes labels"):
        m.inc("cardavia_errors_total")
    with pytest.raises(ValueError, match="takes no labels"):
        m.observe("cardavia_send_queue_depth", 3, conn="x")
    with pytest.raises(TypeError, match="use inc"):
        m.observe("cardavia_errors_total", 1, code="x")


def test_readings_become_gauges_at_each_scrape() -> None:
    m = Metrics()
    n = [1]
    m.read_gauges(
        lambda: [
            Reading("cardavia_widgets", "Widgets.", n[0]),
            Reading("cardavia_parts", "Parts.", 2, {"kind": "a", "size": "s"}),
            Reading("cardavia_parts", "Parts.", 3, {"kind": "b", "size": "s"}),
        ]
    )
    assert m.value("cardavia_widgets") == 1
    n[0] = 7
    samples = _samples(m.render().decode())
    assert samples[("cardavia_widgets", ())] == 7
    assert samples[("cardavia_parts", (("kind", "b"), ("size", "s")))] == 3


async def test_two_servers_in_one_process_keep_separate_figures(server: CardaviaServer) -> None:
    async with running_server(FAST) as other:
        client = await Client.connect(other.url, "x")
        await client.ping()
        await client.close()
        assert other.metrics.value("cardavia_messages_in_total", type="ping") == 1
        assert server.metrics.value("cardavia_messages_in_total", type="ping") == 0


async def test_metrics_endpoint_has_histograms_and_gauges(server: CardaviaServer) -> None:
    alice = await Client.connect(server.url, "alice")
    try:
        joined = await alice.create_table("scopa", {"seat": 0, "ai": [{"seat": 1}]})
        await alice.create_table("doudizhu", {"seat": 0})  # waits for people
        await play_table(alice, joined.table.id, random_chooser(3))
        await alice.wait_for(lambda m: isinstance(m, sm.GameOver), 10)
        url = f"http://127.0.0.1:{server.port}/metrics"
        content_type, text = await asyncio.to_thread(_fetch, url)
    finally:
        await alice.close()
    assert content_type.startswith("text/plain; version=0.0.4")
    samples = _samples(text)
    moves = server.metrics.value("cardavia_actions_total", game="scopa", by="human")
    assert moves > 0
    assert samples[("cardavia_action_latency_seconds_count", (("game", "scopa"),))] == moves
    latency_inf = (("game", "scopa"), ("le", "+Inf"))
    assert samples[("cardavia_action_latency_seconds_bucket", latency_inf)] == moves
    assert samples[("cardavia_store_seconds_count", (("op", "append"),))] >= 2 * moves
    assert samples[("cardavia_store_seconds_count", (("op", "start_game"),))] == 1
    ai = (("game", "scopa"), ("outcome", "ok"))
    assert samples[("cardavia_ai_decision_duration_seconds_count", ai)] > 0
    assert samples[("cardavia_send_queue_depth_count", ())] > 0
    assert samples[("cardavia_connections", ())] == 1
    assert samples[("cardavia_sessions", ())] == 1
    assert samples[("cardavia_tables", ())] == 2
    assert samples[("cardavia_tables_by_state", (("game", "scopa"), ("state", "finished")))] == 1
    assert samples[("cardavia_tables_by_state", (("game", "doudizhu"), ("state", "waiting")))] == 1
    assert samples[("cardavia_games_finished_total", (("game", "scopa"),))] == 1


def test_kept_series_record_into_the_same_figures() -> None:
    m = Metrics()
    latency = m.histogram("cardavia_action_latency_seconds", game="scopa")
    assert latency is m.histogram("cardavia_action_latency_seconds", game="scopa")
    for v in (0.0005, 0.001, 0.02, 99.0):  # a bound itself falls in its own bucket
        latency.observe(v)
    m.observe("cardavia_action_latency_seconds", 0.003, game="scopa")
    moves = m.counter("cardavia_actions_total", game="scopa", by="human")
    moves.inc()
    m.inc("cardavia_actions_total", 2, game="scopa", by="human")
    samples = _samples(m.render().decode())
    game = ("game", "scopa")
    bucket = "cardavia_action_latency_seconds_bucket"
    assert samples[(bucket, (game, ("le", "0.001")))] == 2
    assert samples[(bucket, (game, ("le", "0.005")))] == 3
    assert samples[(bucket, (game, ("le", "0.025")))] == 4
    assert samples[(bucket, (game, ("le", "10.0")))] == 4
    assert samples[(bucket, (game, ("le", "+Inf")))] == 5
    assert samples[("cardavia_action_latency_seconds_sum", (game,))] == pytest.approx(99.0245)
    assert samples[("cardavia_actions_total", (("by", "human"), game))] == 3
    assert m.value("cardavia_action_latency_seconds", game="scopa") == 5
    # an unlabelled histogram is exposed (at zero) from its first use; kinds are checked
    assert m.histogram("cardavia_send_queue_depth") is m.histogram("cardavia_send_queue_depth")
    assert _samples(m.render().decode())[("cardavia_send_queue_depth_count", ())] == 0
    with pytest.raises(TypeError, match="not a histogram"):
        m.histogram("cardavia_actions_total", game="scopa", by="ai")
    with pytest.raises(TypeError, match="not a counter"):
        m.counter("cardavia_action_latency_seconds", game="scopa")
    with pytest.raises(ValueError, match="only go up"):
        moves.inc(-1)
