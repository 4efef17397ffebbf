"""Server configuration from command-line flags and CARDAVIA_* environment variables.

Every setting has a flag (--quick-fill-wait 5) and an environment
variable (CARDAVIA_QUICK_FILL_WAIT=5); a flag wins over the variable,
which wins over the default.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import ssl
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

ENV_PREFIX = "CARDAVIA_"


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity where the OS tells it)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        return os.cpu_count() or 1


AI_WORKERS_MAX_DEFAULT = 8
DEFAULT_AI_WORKERS = max(1, min(AI_WORKERS_MAX_DEFAULT, usable_cpus() - 1))
"""One AI worker per CPU but one, which is left to the event loop (AI searches
competing with the loop for every core make humans wait), at most 8."""


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
    ai_workers: int = DEFAULT_AI_WORKERS
    ai_mode: str = "process"
    disconnect_grace: float = 15.0
    session_ttl: float = 300.0
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
    ai_queue_limit: int = 200
    max_ai_tables_per_player: int = 2
    ai_table_linger: float = 30.0
    ai_only_moves_per_s: float = 100.0
    # -- quotas, liveness, names --
    max_connections_per_address: int = 50
    connect_rate_per_address: float = 2.0
    max_sessions_per_address: int = 50
    max_created_tables_per_session: int = 5
    max_created_tables_per_address: int = 20
    max_waiting_tables_per_session: int = 3
    max_waiting_tables_per_address: int = 10
    max_watched_tables_per_session: int = 5
    max_watched_tables_per_address: int = 20
    max_spectators_per_table: int = 50
    max_listed_tables: int = 200
    trusted_proxies: str = ""
    waiting_table_grace: float = 30.0
    playing_session_ttl: float = 3600.0
    rate_strikes: int = 100
    rate_strike_decay: float = 1.0
    ping_interval: float = 10.0
    ping_timeout: float = 5.0
    # -- operations: metrics, TLS --
    shutdown_drain: float = 0.0
    tls_cert: str = ""
    tls_key: str = ""
    # -- hot path --
    loop: str = "auto"
    gc_gen0: int = 100000
    gc_freeze_every: float = 0.5
    gc_thaw_every: float = 300.0
    # -- persistence and scaling --
    redis_url: str = "redis://127.0.0.1:6379/0"
    redis_prefix: str = "cardavia"
    lease_ttl: float = 5.0
    takeover_interval: float = 1.0
    replay_ttl: float = 7 * 86400.0
    store_timeout: float = 2.0
    redis_connections: int = 64


HELP: dict[str, str] = {
    "host": "Interface to listen on (0.0.0.0 for all).",
    "port": "TCP port (0: any free port).",
    "store": "Where table records live: memory (the default) or redis (durable, shared).",
    "quick_fill_wait": "Seconds a quick-play table waits for other humans before the AI fills it.",
    "ai_delay": "Default seconds an AI move waits before it shows (tables may override).",
    "ai_think": "Time cap (seconds) for one AI decision; search levels may stop sooner.",
    "ai_deadline": "Hard limit (s) on one AI decision; past it a fast fallback policy moves.",
    "ai_workers": "Worker processes (or threads) that run AI decisions off the event loop;"
    " the default leaves one CPU to the loop: CPUs - 1, at least 1, at most 8.",
    "ai_mode": "process (heavy search never slows the loop) or thread (starts at once).",
    "disconnect_grace": "Seconds a disconnected human keeps their turns before the AI covers them.",
    "session_ttl": "Seconds a disconnected session is kept for a reconnect before it is dropped"
    " (longer while it holds a seat in a game in progress: see playing_session_ttl).",
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
    "ai_queue_limit": "AI decisions waiting for a worker at most (all tables together); "
    "past it the fast fallback policy decides at once.",
    "max_ai_tables_per_player": "Tables without a seated human (all-AI) one session may "
    "create or watch at once.",
    "ai_table_linger": "Seconds an all-AI table stays open after its game ends (it closes "
    "sooner when its last watcher leaves; no rematch there).",
    "ai_only_moves_per_s": "Moves per second at most over all tables where nobody plays "
    "(AI only), so they never crowd out humans' moves (0: no limit).",
    # -- quotas, liveness, names --
    "max_connections_per_address": "Open connections from one client address (0: no cap).",
    "connect_rate_per_address": "New connections per second one client address may open,"
    " in bursts up to max_connections_per_address (0: no cap).",
    "max_sessions_per_address": "Live sessions (connected or kept for a reconnect) opened from"
    " one client address (0: no cap).",
    "max_created_tables_per_session": "Open tables one session has created.",
    "max_created_tables_per_address": "Open tables created from one client address (0: no cap).",
    "max_waiting_tables_per_session": "Tables one session has created that wait for players.",
    "max_waiting_tables_per_address": "Waiting tables created from one client address (0: no cap).",
    "max_watched_tables_per_session": "Tables one session watches as a spectator at once.",
    "max_watched_tables_per_address": "Tables watched from one client address (0: no cap).",
    "max_spectators_per_table": "Spectators one table admits.",
    "max_listed_tables": "Tables one lobby listing holds at most: the player's own, then those "
    "with a free seat, then the others, newest first (filter by game to see others).",
    "trusted_proxies": "Comma-separated IPs or CIDR networks of load balancers whose"
    " X-Forwarded-For header names the client address (empty: trust nobody's header).",
    "waiting_table_grace": "Seconds a table that waits for players is kept once no human at it"
    " is connected.",
    "playing_session_ttl": "Seconds a disconnected session holding a seat in a game in progress"
    " is kept at most (the AI plays for it meanwhile).",
    "rate_strikes": "Rate-limited messages a connection may pile up before it is closed (1008).",
    "rate_strike_decay": "Rate-limit strikes forgiven per second, as a multiple of rate_per_s"
    " (1: a client averaging under the rate is never closed).",
    "ping_interval": "Seconds a client may stay silent before the keepalive pings it"
    " (0: no pings).",
    "ping_timeout": "Seconds a pinged client may stay silent before it is dropped (1011), and"
    " a closing handshake may take (a frozen peer is dropped within ping_interval +"
    " ping_timeout + 2 s of its last word).",
    # -- operations: metrics, TLS --
    "shutdown_drain": "Seconds /readyz answers 503 on shutdown before clients are closed.",
    "tls_cert": "PEM certificate chain: serve wss:// and https:// (with --tls-key).",
    "tls_key": "PEM private key of --tls-cert.",
    # -- hot path --
    "loop": "Event loop: auto (uvloop when installed), asyncio or uvloop.",
    "gc_gen0": "Allocations between young-generation garbage collections (Python's default 700).",
    "gc_freeze_every": "Seconds between moving surviving objects out of the collector's sight "
    "(gc.freeze, which costs nothing: no long collections, even while thousands connect); "
    "0: only once after start-up.",
    "gc_thaw_every": "Seconds between looks at the frozen objects: once they are twice as "
    "many as at the first look or the last full collection, they are handed back to the "
    "collector and collected once (freeing reference cycles among them).",
    # -- persistence and scaling --
    "redis_url": "Redis URL of the redis store (redis://host:port/db, rediss:// for TLS).",
    "redis_prefix": "Prefix of every Redis key (several services may share one Redis).",
    "lease_ttl": "Seconds a table's lease lasts unrenewed; a dead owner's tables move after it.",
    "takeover_interval": "Seconds between scans for tables whose owner died (redis store).",
    "replay_ttl": "Seconds a finished game is kept in Redis for its replay.",
    "store_timeout": "Seconds a Redis command may take before the store counts as unavailable.",
    "redis_connections": "Redis connections this process opens at most; a command finding "
    "them all busy waits for one (up to store_timeout) instead of failing.",
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
    if config.ai_queue_limit < 0:
        raise ValueError("ai_queue_limit must not be negative")
    if config.max_ai_tables_per_player < 0:
        raise ValueError("max_ai_tables_per_player must not be negative")
    if config.ai_table_linger < 0:
        raise ValueError("ai_table_linger must not be negative")
    if config.ai_only_moves_per_s < 0:
        raise ValueError("ai_only_moves_per_s must not be negative")
    # -- quotas, liveness, names --
    for name in (
        "max_connections_per_address",
        "connect_rate_per_address",
        "max_sessions_per_address",
        "max_created_tables_per_address",
        "max_waiting_tables_per_address",
        "max_watched_tables_per_address",
        "ping_interval",
        "waiting_table_grace",
        "rate_strike_decay",
    ):
        if getattr(config, name) < 0:
            raise ValueError(f"{name} must not be negative")
    for name in (
        "max_created_tables_per_session",
        "max_waiting_tables_per_session",
        "max_watched_tables_per_session",
        "max_spectators_per_table",
        "max_listed_tables",
        "rate_strikes",
    ):
        if getattr(config, name) < 1:
            raise ValueError(f"{name} must be at least 1")
    if config.ping_timeout <= 0:
        raise ValueError("ping_timeout must be positive")
    if config.playing_session_ttl < config.session_ttl:
        raise ValueError("playing_session_ttl must not be shorter than session_ttl")
    from server.players.quotas import parse_networks  # here: quotas imports this module

    parse_networks(config.trusted_proxies)
    # -- operations: metrics, TLS --
    if config.shutdown_drain < 0:
        raise ValueError("shutdown_drain must not be negative")
    if bool(config.tls_cert) != bool(config.tls_key):
        raise ValueError("tls_cert and tls_key go together: give both or neither")
    for name in ("tls_cert", "tls_key"):
        path = getattr(config, name)
        if path and not os.path.isfile(path):
            raise ValueError(f"{name}: no such file {path!r}")
    if config.tls_cert:
        try:
            ssl.create_default_context(ssl.Purpose.CLIENT_AUTH).load_cert_chain(
                config.tls_cert, config.tls_key
            )
        except ssl.SSLError as exc:
            raise ValueError(f"tls_cert/tls_key: cannot load them ({exc.reason or exc})") from None
    # -- hot path --
    if config.loop not in ("auto", "asyncio", "uvloop"):
        raise ValueError(f"unknown loop {config.loop!r} (auto, asyncio or uvloop)")
    if config.gc_gen0 < 100:
        raise ValueError("gc_gen0 must be at least 100")
    if config.gc_freeze_every < 0 or config.gc_thaw_every <= 0:
        raise ValueError("gc_freeze_every must not be negative and gc_thaw_every must be positive")
    # -- persistence and scaling --
    if config.store not in ("memory", "redis"):
        raise ValueError(f"unknown store {config.store!r} (memory or redis)")
    if not config.redis_url.startswith(("redis://", "rediss://", "unix://")):
        raise ValueError("redis_url must start with redis://, rediss:// or unix://")
    if not config.redis_prefix or any(c in config.redis_prefix for c in " {}"):
        raise ValueError("redis_prefix must be non-empty, without spaces or braces")
    for name in ("lease_ttl", "takeover_interval", "replay_ttl", "store_timeout"):
        if getattr(config, name) <= 0:
            raise ValueError(f"{name} must be positive")
    if config.redis_connections < 2:
        raise ValueError("redis_connections must be at least 2 (the cluster bus holds one)")
    if config.takeover_interval >= config.lease_ttl or config.lease_ttl < 0.5:
        raise ValueError("lease_ttl must be at least 0.5 s and longer than takeover_interval")
