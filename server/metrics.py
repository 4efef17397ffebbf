"""Counters for operators, served as Prometheus text on ``/metrics`` (no dependency)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping

Labels = tuple[tuple[str, str], ...]

HELP: dict[str, str] = {
    "cardavia_messages_in_total": "Client messages received, by type.",
    "cardavia_errors_total": "Error replies sent, by code.",
    "cardavia_actions_total": "Actions applied, by game and by who chose them.",
    "cardavia_games_started_total": "Games started, by game.",
    "cardavia_games_finished_total": "Games finished, by game.",
    "cardavia_ai_decisions_total": "AI decisions, by game and outcome (ok, deadline, error).",
    "cardavia_ai_decision_seconds_total": "Seconds spent in AI decisions, by game.",
}


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


class Metrics:
    """Monotonic counters with labels; cheap enough to bump on every message."""

    def __init__(self) -> None:
        self._counters: dict[str, dict[Labels, float]] = defaultdict(lambda: defaultdict(float))

    def inc(self, name: str, value: float = 1.0, **labels: str) -> None:
        """Add ``value`` to counter ``name`` with ``labels``."""
        self._counters[name][tuple(sorted(labels.items()))] += value

    def value(self, name: str, **labels: str) -> float:
        """The current value of one counter (0 if never bumped)."""
        return self._counters.get(name, {}).get(tuple(sorted(labels.items())), 0.0)

    def render(self, gauges: Mapping[str, float]) -> str:
        """The Prometheus text exposition of every counter and the given gauges."""
        lines: list[str] = []
        for name, value in sorted(gauges.items()):
            lines += [f"# TYPE {name} gauge", f"{name} {value:g}"]
        for name in sorted(self._counters):
            if name in HELP:
                lines.append(f"# HELP {name} {HELP[name]}")
            lines.append(f"# TYPE {name} counter")
            for labels, value in sorted(self._counters[name].items()):
                text = ",".join(f'{k}="{_escape(v)}"' for k, v in labels)
                lines.append(f"{name}{{{text}}} {value:g}" if text else f"{name} {value:g}")
        return "\n".join(lines) + "\n"
