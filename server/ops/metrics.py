"""Metrics for operators, served as Prometheus text on ``/metrics`` (prometheus-client).

Each :class:`Metrics` owns its own ``CollectorRegistry`` (never the global
one), so several servers in one process keep separate figures.  Call sites
name a metric and pass labels: ``inc`` bumps a counter, ``observe`` records a
histogram sample or sets a gauge.  The metrics listed in :data:`SPECS` have
fixed help texts, label names and buckets; any other name is created on first
use (a counter for ``inc``, a histogram for ``observe``) with the label names
of that first call, and every later call must use the same label names.

Counters and histograms are kept in plain Python (:class:`_Family`, no
per-sample work beyond an addition and a bisection: :mod:`server.ops.metric_series`) and turned into
Prometheus families at each scrape: the action path records several samples
per move, and prometheus-client's own classes cost a lock and several calls each
(docs/performance.md, A move through the server).  Samples are
recorded on the event loop's thread only (the AI's worker threads hand their
results back to it), so a sample takes no lock; the family's lock guards its
set of series, and a scrape copies each series' counts whole.

Figures that are cheaper to read than to track (connections, sessions, tables
by game and state) come from :meth:`Metrics.read_gauges`: a function called at
each scrape.
"""

from __future__ import annotations

import threading
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Literal, NamedTuple

from prometheus_client import (
    CollectorRegistry,
    Gauge,
    Histogram,
    disable_created_metrics,
    generate_latest,
)
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)
from prometheus_client.exposition import CONTENT_TYPE_PLAIN_0_0_4
from prometheus_client.registry import Collector
from prometheus_client.utils import floatToGoString

from server.ops.metric_series import CounterSeries, HistogramSeries

disable_created_metrics()  # type: ignore[no-untyped-call]  # no ``*_created`` series: they double the output for nothing here

CONTENT_TYPE = CONTENT_TYPE_PLAIN_0_0_4
"""The Content-Type of :meth:`Metrics.render`'s output."""

Kind = Literal["counter", "gauge", "histogram"]

LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
AI_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0)
STORE_BUCKETS = (0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.05, 0.1, 0.5, 1.0, 5.0)
DEPTH_BUCKETS = (0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2000)


@dataclass(frozen=True, slots=True)
class Spec:
    """How one metric is declared: its kind, help text, label names and buckets."""

    kind: Kind
    help: str
    labels: tuple[str, ...] = ()
    buckets: tuple[float, ...] | None = None


SPECS: Mapping[str, Spec] = {
    "cardavia_messages_in_total": Spec("counter", "Client messages received, by type.", ("type",)),
    "cardavia_errors_total": Spec("counter", "Error replies sent, by code.", ("code",)),
    "cardavia_summaries_superseded_total": Spec(
        "counter",
        "Table summaries dropped unsent because a newer one of the same table was queued.",
    ),
    "cardavia_actions_total": Spec(
        "counter", "Actions applied, by game and by who chose them.", ("by", "game")
    ),
    "cardavia_games_started_total": Spec("counter", "Games started, by game.", ("game",)),
    "cardavia_games_finished_total": Spec("counter", "Games finished, by game.", ("game",)),
    "cardavia_ai_decisions_total": Spec(
        "counter", "AI decisions, by game and outcome (ok, deadline, error).", ("game", "outcome")
    ),
    "cardavia_action_latency_seconds": Spec(
        "histogram",
        "A human's action from its command reaching the server to its updates queued for"
        " sending (stored first), by game.",
        ("game",),
        LATENCY_BUCKETS,
    ),
    "cardavia_ai_decision_duration_seconds": Spec(
        "histogram",
        "Wall-clock time of one AI decision (waiting for a worker included), by game and outcome.",
        ("game", "outcome"),
        AI_BUCKETS,
    ),
    "cardavia_store_seconds": Spec(
        "histogram",
        "Latency of the store's writes on the action path, by operation (append, start_game).",
        ("op",),
        STORE_BUCKETS,
    ),
    "cardavia_send_queue_depth": Spec(
        "histogram",
        "Messages already waiting in a connection's send queue when one more is queued.",
        (),
        DEPTH_BUCKETS,
    ),
}
"""The declared metrics (others are created on first use, see the module docstring)."""


class Reading(NamedTuple):
    """One gauge value read at scrape time."""

    name: str
    help: str
    value: float
    labels: Mapping[str, str] = {}


class _Readings(Collector):
    """Turns the readings of a function into gauge families at each scrape."""

    def __init__(self, read: Callable[[], Iterable[Reading]]) -> None:
        self._read = read

    def collect(self) -> Iterator[Metric]:
        families: dict[str, GaugeMetricFamily] = {}
        for r in self._read():
            family = families.get(r.name)
            if family is None:
                family = GaugeMetricFamily(r.name, r.help, labels=sorted(r.labels))
                families[r.name] = family
            family.add_metric([r.labels[k] for k in sorted(r.labels)], r.value)
        yield from families.values()


_Child = CounterSeries | HistogramSeries


class _Family(Collector):
    """A counter or histogram and its labelled series, exposed at each scrape."""

    def __init__(self, name: str, spec: Spec) -> None:
        self.name = name
        self.spec = spec
        self.bounds = tuple(sorted(float(b) for b in spec.buckets or Histogram.DEFAULT_BUCKETS))
        if self.bounds and self.bounds[-1] == float("inf"):
            self.bounds = self.bounds[:-1]
        self._lock = threading.Lock()
        self._children: dict[tuple[str, ...], _Child] = {}
        if not spec.labels:  # an unlabelled series is there (at zero) from the start
            self.labels()

    def labels(self, *values: str) -> _Child:
        """The series of these label values (one per label name, in order)."""
        child = self._children.get(values)
        if child is None:
            with self._lock:
                child = self._children.get(values)
                if child is None:
                    child = (
                        CounterSeries(self._lock)
                        if self.spec.kind == "counter"
                        else HistogramSeries(self._lock, self.bounds)
                    )
                    self._children[values] = child
        return child

    def collect(self) -> Iterator[Metric]:
        with self._lock:
            series = [
                (values, child.value)
                if isinstance(child, CounterSeries)
                else (values, (list(child.counts), child.sum))
                for values, child in self._children.items()
            ]
        names = list(self.spec.labels)
        if self.spec.kind == "counter":
            counter = CounterMetricFamily(self.name, self.spec.help, labels=names)
            for values, total in series:
                counter.add_metric(list(values), total)  # type: ignore[arg-type]
            yield counter
            return
        histogram = HistogramMetricFamily(self.name, self.spec.help, labels=names)
        les = [*map(floatToGoString, self.bounds), "+Inf"]
        for values, (counts, total) in series:  # type: ignore[misc]
            running, buckets = 0, []
            for le, n in zip(les, counts, strict=True):
                running += n
                buckets.append((le, float(running)))
            histogram.add_metric(list(values), buckets, total)
        yield histogram


_Metric = _Family | Gauge


class Metrics:
    """The server's metrics in a registry of their own (see the module docstring)."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self._metrics: dict[str, _Metric] = {}
        self._labels: dict[str, tuple[str, ...]] = {}
        self._children: dict[tuple[str, tuple[tuple[str, str], ...]], _Child | Gauge] = {}
        """Labelled children by (name, labels as passed): the hot path skips prometheus' lock."""

    # -- recording -------------------------------------------------------------
    def inc(self, name: str, value: float = 1.0, **labels: str) -> None:
        """Add ``value`` to counter ``name`` with ``labels``."""
        self.counter(name, **labels).inc(value)

    def counter(self, name: str, **labels: str) -> CounterSeries:
        """Counter ``name``'s series with ``labels``: hot paths keep it and call ``inc``."""
        metric = self._child(name, "counter", labels)
        if not isinstance(metric, CounterSeries):
            raise TypeError(f"metric {name!r} is not a counter")
        return metric

    def histogram(self, name: str, **labels: str) -> HistogramSeries:
        """Histogram ``name``'s series with ``labels``: hot paths keep it and call ``observe``."""
        metric = self._child(name, "histogram", labels)
        if not isinstance(metric, HistogramSeries):
            raise TypeError(f"metric {name!r} is not a histogram")
        return metric

    def observe(self, name: str, value: float, **labels: str) -> None:
        """Record ``value`` in histogram ``name``, or set gauge ``name`` to it."""
        metric = self._child(name, "histogram", labels)
        if isinstance(metric, HistogramSeries):
            metric.observe(value)
        elif isinstance(metric, Gauge):
            metric.set(value)
        else:
            raise TypeError(f"metric {name!r} is a counter: use inc")

    def read_gauges(self, read: Callable[[], Iterable[Reading]]) -> None:
        """Call ``read`` at every scrape and expose what it returns as gauges."""
        self.registry.register(_Readings(read))

    # -- reading -------------------------------------------------------------
    def value(self, name: str, **labels: str) -> float:
        """A counter's or gauge's value, a histogram's sample count (0 if never recorded)."""
        spec = SPECS.get(name)
        sample = f"{name}_count" if spec is not None and spec.kind == "histogram" else name
        found = self.registry.get_sample_value(sample, {k: str(v) for k, v in labels.items()})
        return 0.0 if found is None else found

    def samples(self, name: str) -> dict[tuple[tuple[str, str], ...], float]:
        """Every labelled value of counter or gauge ``name``: sorted label pairs to value."""
        out: dict[tuple[tuple[str, str], ...], float] = defaultdict(float)
        for family in self.registry.collect():
            for s in family.samples:
                if s.name == name:
                    out[tuple(sorted(s.labels.items()))] += s.value
        return dict(out)

    def render(self) -> bytes:
        """The Prometheus text exposition of every metric (Content-Type :data:`CONTENT_TYPE`)."""
        return generate_latest(self.registry)

    # -- internals -----------------------------------------------------------
    def _child(self, name: str, default: Kind, labels: Mapping[str, str]) -> _Child | Gauge:
        key = (name, tuple(labels.items()))
        child = self._children.get(key)
        if child is None:
            child = self._children[key] = self._resolve(name, default, labels)
        return child

    def _resolve(self, name: str, default: Kind, labels: Mapping[str, str]) -> _Child | Gauge:
        metric = self._metrics.get(name)
        if metric is None:
            metric = self._declare(name, default, tuple(sorted(labels)))
        names = self._labels[name]
        if not names:
            if labels:
                raise ValueError(f"metric {name!r} takes no labels, got {sorted(labels)}")
            return metric.labels() if isinstance(metric, _Family) else metric
        if len(labels) != len(names):
            raise ValueError(f"metric {name!r} takes labels {list(names)}, got {sorted(labels)}")
        try:
            return metric.labels(*(str(labels[k]) for k in names))
        except KeyError:
            raise ValueError(
                f"metric {name!r} takes labels {list(names)}, got {sorted(labels)}"
            ) from None

    def _declare(self, name: str, default: Kind, labels: tuple[str, ...]) -> _Metric:
        spec = SPECS.get(name) or Spec(default, name.replace("_", " "), labels)
        metric: _Metric
        if spec.kind == "gauge":
            metric = Gauge(name, spec.help, spec.labels, registry=self.registry)
        else:
            metric = _Family(name, spec)
            self.registry.register(metric)
        self._metrics[name] = metric
        self._labels[name] = spec.labels
        return metric
