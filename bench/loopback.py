"""Servers for benchmarks and audits, whose clients all connect from 127.0.0.1.

The per-address caps (docs/running.md, "Limits against abuse") would count every
client as one address, so these servers turn them off; the per-session caps
stay as they are.
"""

from __future__ import annotations

from typing import Any

NO_ADDRESS_CAPS: dict[str, Any] = {
    "max_connections_per_address": 0,
    "connect_rate_per_address": 0.0,
    "max_sessions_per_address": 0,
    "max_created_tables_per_address": 0,
    "max_waiting_tables_per_address": 0,
    "max_watched_tables_per_address": 0,
}
"""``ServerConfig`` fields: every per-address cap off (0)."""


def no_address_cap_flags() -> list[str]:
    """The same as ``cardavia-server`` flags."""
    flags: list[str] = []
    for name in NO_ADDRESS_CAPS:
        flags += ["--" + name.replace("_", "-"), "0"]
    return flags
