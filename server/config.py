"""Server configuration from command-line flags and CARDAVIA_* environment variables.

Every setting has a flag (--quick-fill-wait 5) and an environment
variable (CARDAVIA_QUICK_FILL_WAIT=5); a flag wins over the variable,
which wins over the default.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

ENV_PREFIX = "CARDAVIA_"


@dataclass(frozen=True)
class ServerConfig:
    """Every knob of the server, with its default."""

    host: str = "127.0.0.1"
    port: int = 8765
    store: str = "memory"
    quick_fill_wait: float = 10.0
    ai_delay: float = 0.8
    ai_think: float = 0.25
    ai_deadline: float = 5.0
    ai_workers: int = 4
    ai_mode: str = "thread"
    disconnect_grace: float = 15.0
    session_ttl: float = 3600.0
    max_tables: int = 1000
    max_tables_per_player: int = 10
    chat_max_len: int = 300
    chat_per_minute: int = 20
    rate_per_s: float = 50.0
    rate_burst: int = 100
    max_frame: int = 65536
    hello_timeout: float = 30.0
    replays_kept: int = 5
    log_level: str = "info"
    # -- AI pool and fairness --
    # -- quotas, liveness, names --
    # -- operations: metrics, TLS --
    # -- hot path --
    # -- persistence and scaling --


HELP: dict[str, str] = {
    "host": "Interface to listen on (0.0.0.0 for all).",
    "port": "TCP port (0: any free port).",
    "store": "Where table records live: memory (the default, nothing to install).",
    "quick_fill_wait": "Seconds a quick-play table waits for other humans before the AI fills it.",
    "ai_delay": "Default seconds an AI move waits before it shows (tables may override).",
    "ai_think": "Time cap (seconds) for one AI decision; search levels may stop sooner.",
    "ai_deadline": "Hard limit (s) on one AI decision; past it a fast fallback policy moves.",
    "ai_workers": "Worker threads (or processes) that run AI decisions off the event loop.",
    "ai_mode": "thread (starts at once) or process (heavy search never slows the loop).",
    "disconnect_grace": "Seconds a disconnected human keeps their turns before the AI covers them.",
    "session_ttl": "Seconds a disconnected session is kept for a reconnect before it is dropped.",
    "max_tables": "Tables this process holds at most.",
    "max_tables_per_player": "Tables one player may be at (seated or watching) at once.",
    "chat_max_len": "Longest chat line, in characters.",
    "chat_per_minute": "Chat lines one player may send per minute at a table.",
    "rate_per_s": "Messages per second a connection may send on average.",
    "rate_burst": "Messages a connection may send in a burst.",
    "max_frame": "Largest incoming frame, in bytes.",
    "hello_timeout": "Seconds a new connection has to say hello before it is closed.",
    "replays_kept": "Finished games a table keeps for get_replay.",
    "log_level": "Minimum level of the JSON log lines on stderr.",
    # -- AI pool and fairness --
    # -- quotas, liveness, names --
    # -- operations: metrics, TLS --
    # -- hot path --
    # -- persistence and scaling --
}
"""What each setting means (the --help text)."""


def _env_name(field: str) -> str:
    return ENV_PREFIX + field.upper()


def _convert(kind: Any, raw: str, name: str) -> Any:
    try:
        if kind in (int, "int"):
            return int(raw)
        if kind in (float, "float"):
            return float(raw)
    except ValueError:
        raise ValueError(f"{name}: {raw!r} is not a number") from None
    return raw


def build_parser() -> argparse.ArgumentParser:
    """The cardavia-server argument parser (defaults come from the environment)."""
    parser = argparse.ArgumentParser(
        prog="cardavia-server",
        description="Cardavia card-game server (WebSocket, msgpack frames; /healthz over HTTP).",
    )
    for field in dataclasses.fields(ServerConfig):
        flag = "--" + field.name.replace("_", "-")
        kind = (
            int if field.type in (int, "int") else float if field.type in (float, "float") else str
        )
        doc = HELP.get(field.name, "")
        parser.add_argument(
            flag,
            dest=field.name,
            type=kind,
            default=None,
            help=f"{doc} (env {_env_name(field.name)}, default {field.default})".strip(),
        )
    return parser


def load_config(
    argv: Sequence[str] | None = None, env: Mapping[str, str] | None = None
) -> ServerConfig:
    """The configuration from argv flags over env variables over the defaults."""
    env = os.environ if env is None else env
    args = build_parser().parse_args(argv)
    values: dict[str, Any] = {}
    for field in dataclasses.fields(ServerConfig):
        given = getattr(args, field.name)
        if given is not None:
            values[field.name] = given
        elif _env_name(field.name) in env:
            values[field.name] = _convert(
                field.type, env[_env_name(field.name)], _env_name(field.name)
            )
    config = ServerConfig(**values)
    validate(config)
    return config


def validate(config: ServerConfig) -> None:
    """Raise ValueError for settings that make no sense."""
    if not 0 <= config.port <= 65535:
        raise ValueError("port must be between 0 and 65535")
    if config.ai_mode not in ("thread", "process"):
        raise ValueError(f"unknown ai_mode {config.ai_mode!r} (thread or process)")
    if config.store != "memory":
        raise ValueError(f"unknown store {config.store!r} (this build has: memory)")
    for name in ("quick_fill_wait", "ai_delay", "disconnect_grace", "ai_think"):
        if getattr(config, name) < 0:
            raise ValueError(f"{name} must not be negative")
    for name in ("ai_deadline", "rate_per_s", "session_ttl", "hello_timeout"):
        if getattr(config, name) <= 0:
            raise ValueError(f"{name} must be positive")
    for name in (
        "ai_workers",
        "max_tables",
        "max_tables_per_player",
        "chat_max_len",
        "chat_per_minute",
        "rate_burst",
    ):
        if getattr(config, name) < 1:
            raise ValueError(f"{name} must be at least 1")
    if config.max_frame < 1024:
        raise ValueError("max_frame must be at least 1024 bytes")
    if config.log_level.lower() not in ("debug", "info", "warning", "error", "critical"):
        raise ValueError(
            f"unknown log_level {config.log_level!r} (debug, info, warning, error or critical)"
        )
    # -- AI pool and fairness --
    # -- quotas, liveness, names --
    # -- operations: metrics, TLS --
    # -- hot path --
    # -- persistence and scaling --
