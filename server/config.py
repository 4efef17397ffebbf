"""Server configuration from command-line flags and CARDAVIA_* environment variables.

Every setting is declared once, as a field of :class:`ServerConfig`: its type,
default, bounds and description.  From that one declaration come its flag
(``--quick-fill-wait 5``), its environment variable
(``CARDAVIA_QUICK_FILL_WAIT=5``, read by pydantic-settings) and its ``--help``
line; a flag wins over the variable, which wins over the default.  A bad value
is refused with one line naming the setting, what it allows and where the
value came from (:class:`ConfigError`).

Building a :class:`ServerConfig` directly (tests, the client's embedded server)
takes the given values and the defaults only: the environment is read by
:func:`load_config`, the ``cardavia-server`` command line, alone.
"""

from __future__ import annotations

import argparse
import ipaddress
import os
import ssl
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import Field, ValidationError, field_validator, model_validator
from pydantic.fields import FieldInfo
from pydantic_core import ErrorDetails
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)

ENV_PREFIX = "CARDAVIA_"

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


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


def default_data_dir() -> str:
    """``$XDG_DATA_HOME/cardavia``, else ``~/.local/share/cardavia`` (the XDG base
    directory convention: where a user's programs keep data that should last)."""
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(
        os.path.expanduser("~"), ".local", "share"
    )
    return os.path.join(base, "cardavia")


def parse_networks(spec: str) -> tuple[Network, ...]:
    """The networks of a comma-separated list of IPs and CIDRs (``trusted_proxies``);
    raise ValueError naming the part that is neither."""
    out: list[Network] = []
    for part in (p.strip() for p in spec.split(",")):
        if part:
            try:
                out.append(ipaddress.ip_network(part, strict=False))
            except ValueError:
                raise ValueError(f"{part!r} is not an IP address or CIDR network") from None
    return tuple(out)


class ServerConfig(BaseSettings):
    """Every knob of the server: type, default, bounds and meaning (the ``--help`` text).

    Immutable (frozen): the server and its components share one instance.
    :meth:`replace` gives a changed, validated copy.
    """

    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX,
        frozen=True,
        extra="forbid",
        allow_inf_nan=False,  # an infinite or NaN timeout is never meant
    )

    host: str = Field(default="127.0.0.1", description="Interface to listen on (0.0.0.0 for all).")
    port: int = Field(default=8765, ge=0, le=65535, description="TCP port (0: any free port).")
    store: Literal["memory", "redis"] = Field(
        default="memory",
        description="Where table records live: memory (the default) or redis (durable, shared).",
    )
    quick_fill_wait: float = Field(
        default=10.0,
        ge=0,
        description="Seconds a quick-play table waits for other humans before the AI fills it"
        " (and the rated queue's wait before the AI level of the closest rating does).",
    )
    ai_delay: float = Field(
        default=0.8,
        ge=0,
        description="Default seconds an AI move waits before it shows (tables may override).",
    )
    ai_think: float = Field(
        default=0.25,
        ge=0,
        description="Time cap (seconds) for one AI decision; search levels may stop sooner.",
    )
    ai_deadline: float = Field(
        default=5.0,
        gt=0,
        description="Hard limit (s) on one AI decision; past it a fast fallback policy moves.",
    )
    ai_workers: int = Field(
        default=DEFAULT_AI_WORKERS,
        ge=1,
        description="Worker processes (or threads) that run AI decisions off the event loop;"
        " the default leaves one CPU to the loop: CPUs - 1, at least 1, at most 8.",
    )
    ai_mode: Literal["process", "thread"] = Field(
        default="process",
        description="process (heavy search never slows the loop) or thread (starts at once).",
    )
    disconnect_grace: float = Field(
        default=15.0,
        ge=0,
        description="Seconds a disconnected human keeps their turns before the AI covers them.",
    )
    session_ttl: float = Field(
        default=300.0,
        gt=0,
        description="Seconds a disconnected session is kept for a reconnect before it is"
        " dropped (longer while it holds a seat in a game in progress: see"
        " playing_session_ttl).",
    )
    max_tables: int = Field(default=1000, ge=1, description="Tables this process holds at most.")
    max_tables_per_player: int = Field(
        default=10, ge=1, description="Tables one player may be at (seated or watching) at once."
    )
    chat_max_len: int = Field(default=300, ge=1, description="Longest chat line, in characters.")
    chat_per_minute: int = Field(
        default=20, ge=1, description="Chat lines one player may send per minute at a table."
    )
    rate_per_s: float = Field(
        default=50.0, gt=0, description="Messages per second a connection may send on average."
    )
    rate_burst: int = Field(
        default=100, ge=1, description="Messages a connection may send in a burst."
    )
    max_frame: int = Field(default=65536, ge=1024, description="Largest incoming frame, in bytes.")
    hello_timeout: float = Field(
        default=30.0,
        gt=0,
        description="Seconds a new connection has to say hello before it is closed.",
    )
    replays_kept: int = Field(
        default=5, ge=1, description="Finished games a table keeps for get_replay."
    )
    log_level: Literal["debug", "info", "warning", "error", "critical"] = Field(
        default="info", description="Minimum level of the JSON log lines on stderr."
    )
    # -- AI pool and fairness --
    ai_queue_limit: int = Field(
        default=200,
        ge=0,
        description="AI decisions waiting for a worker at most (all tables together);"
        " past it the fast fallback policy decides at once.",
    )
    max_ai_tables_per_player: int = Field(
        default=2,
        ge=0,
        description="Tables without a seated human (all-AI) one session may create or watch"
        " at once.",
    )
    ai_table_linger: float = Field(
        default=30.0,
        ge=0,
        description="Seconds an all-AI table stays open after its game ends (it closes sooner"
        " when its last watcher leaves; no rematch there).",
    )
    ai_only_moves_per_s: float = Field(
        default=100.0,
        ge=0,
        description="Moves per second at most over all tables where nobody plays (AI only),"
        " so they never crowd out humans' moves (0: no limit).",
    )
    # -- quotas, liveness, names --
    max_connections_per_address: int = Field(
        default=50, ge=0, description="Open connections from one client address (0: no cap)."
    )
    connect_rate_per_address: float = Field(
        default=2.0,
        ge=0,
        description="New connections per second one client address may open, in bursts up"
        " to max_connections_per_address (0: no cap).",
    )
    max_sessions_per_address: int = Field(
        default=50,
        ge=0,
        description="Live sessions (connected or kept for a reconnect) opened from one client"
        " address (0: no cap).",
    )
    max_created_tables_per_session: int = Field(
        default=5, ge=1, description="Open tables one session has created."
    )
    max_created_tables_per_address: int = Field(
        default=20, ge=0, description="Open tables created from one client address (0: no cap)."
    )
    max_waiting_tables_per_session: int = Field(
        default=3, ge=1, description="Tables one session has created that wait for players."
    )
    max_waiting_tables_per_address: int = Field(
        default=10, ge=0, description="Waiting tables created from one client address (0: no cap)."
    )
    max_watched_tables_per_session: int = Field(
        default=5, ge=1, description="Tables one session watches as a spectator at once."
    )
    max_watched_tables_per_address: int = Field(
        default=20, ge=0, description="Tables watched from one client address (0: no cap)."
    )
    max_spectators_per_table: int = Field(
        default=50, ge=1, description="Spectators one table admits."
    )
    max_listed_tables: int = Field(
        default=200,
        ge=1,
        description="Tables one lobby listing holds at most: the player's own, then those with"
        " a free seat, then the others, newest first (filter by game to see others).",
    )
    trusted_proxies: str = Field(
        default="",
        description="Comma-separated IPs or CIDR networks of load balancers whose"
        " X-Forwarded-For header names the client address (empty: trust nobody's header).",
    )
    waiting_table_grace: float = Field(
        default=30.0,
        ge=0,
        description="Seconds a table that waits for players is kept once no human at it is"
        " connected.",
    )
    playing_session_ttl: float = Field(
        default=3600.0,
        gt=0,
        description="Seconds a disconnected session holding a seat in a game in progress is"
        " kept at most (the AI plays for it meanwhile).",
    )
    rate_strikes: int = Field(
        default=100,
        ge=1,
        description="Rate-limited messages a connection may pile up before it is closed (1008).",
    )
    rate_strike_decay: float = Field(
        default=1.0,
        ge=0,
        description="Rate-limit strikes forgiven per second, as a multiple of rate_per_s"
        " (1: a client averaging under the rate is never closed).",
    )
    ping_interval: float = Field(
        default=10.0,
        ge=0,
        description="Seconds a client may stay silent before the keepalive pings it (0: no pings).",
    )
    ping_timeout: float = Field(
        default=5.0,
        gt=0,
        description="Seconds a pinged client may stay silent before it is dropped (1011), and"
        " a closing handshake may take (a frozen peer is dropped within ping_interval +"
        " ping_timeout + 2 s of its last word).",
    )
    # -- operations: metrics, TLS --
    shutdown_drain: float = Field(
        default=0.0,
        ge=0,
        description="Seconds /readyz answers 503 on shutdown before clients are closed.",
    )
    tls_cert: str = Field(
        default="", description="PEM certificate chain: serve wss:// and https:// (with --tls-key)."
    )
    tls_key: str = Field(default="", description="PEM private key of --tls-cert.")
    # -- hot path --
    loop: Literal["auto", "asyncio", "uvloop"] = Field(
        default="auto", description="Event loop: auto (uvloop when installed), asyncio or uvloop."
    )
    gc_gen0: int = Field(
        default=100000,
        ge=100,
        description="Allocations between young-generation garbage collections (Python's"
        " default 700).",
    )
    gc_freeze_every: float = Field(
        default=0.5,
        ge=0,
        description="Seconds between moving surviving objects out of the collector's sight"
        " (gc.freeze, which costs nothing: no long collections, even while thousands"
        " connect); 0: only once after start-up.",
    )
    gc_thaw_every: float = Field(
        default=300.0,
        gt=0,
        description="Seconds between looks at the frozen objects: once they are twice as many"
        " as at the first look or the last full collection, they are handed back to the"
        " collector and collected once (freeing reference cycles among them).",
    )
    # -- persistence and scaling --
    redis_url: str = Field(
        default="redis://127.0.0.1:6379/0",
        description="Redis URL of the redis store (redis://host:port/db, rediss:// for TLS).",
    )
    redis_prefix: str = Field(
        default="cardavia",
        description="Prefix of every Redis key (several services may share one Redis).",
    )
    lease_ttl: float = Field(
        default=5.0,
        ge=0.5,
        description="Seconds a table's lease lasts unrenewed; a dead owner's tables move after it.",
    )
    takeover_interval: float = Field(
        default=1.0,
        gt=0,
        description="Seconds between scans for tables whose owner died (redis store).",
    )
    replay_ttl: float = Field(
        default=7 * 86400.0,
        gt=0,
        description="Seconds a finished game is kept in Redis for its replay.",
    )
    store_timeout: float = Field(
        default=2.0,
        gt=0,
        description="Seconds a Redis command may take before the store counts as unavailable.",
    )
    redis_connections: int = Field(
        default=64,
        ge=2,  # the cluster bus holds one
        description="Redis connections this process opens at most; a command finding them"
        " all busy waits for one (up to store_timeout) instead of failing.",
    )

    # -- accounts: the SQL database --
    data_dir: str = Field(
        default="",
        description="Folder of the server's own files: the default SQLite database"
        " (cardavia.db), created on first start (empty: $XDG_DATA_HOME/cardavia, by"
        " default ~/.local/share/cardavia).",
    )
    database_url: str = Field(
        default="",
        description="SQL database of accounts (empty: the SQLite file data_dir/cardavia.db;"
        " postgresql+asyncpg://user:password@host/db for deployments).",
    )
    duplicate_secret: str = Field(
        default="",
        description="Secret the duplicate boards' seeds derive from (16 characters or more;"
        " empty: one made once and kept in the database, shared by every process).",
    )
    login_backoff: float = Field(
        default=1.0,
        gt=0,
        description="Seconds a name or address must wait after a failed login; doubled at each"
        " further failure (see login_backoff_max), forgotten after a success.",
    )
    login_backoff_max: float = Field(
        default=300.0,
        gt=0,
        description="Longest wait, in seconds, that failed logins impose on a name or address.",
    )

    ban_poll: float = Field(
        default=5.0,
        gt=0,
        le=3600,
        description="Seconds between reads of the bans that cardavia-admin writes in the"
        " database: a new ban ends the account's sessions within this time.",
    )
    team_absent_fill: float = Field(
        default=60.0,
        ge=0,
        description="Seconds a started team match's table waits for its members (from the"
        " match's start or the table's last board) before it is made anyway and the AI of"
        " the match's level plays the absent members' seats (they may still take them).",
    )
    max_team_matches_per_account: int = Field(
        default=3,
        ge=0,
        description="Team matches forming or playing that one account may have created"
        " (0: no cap).",
    )

    # -- tournaments (issue 56) --
    max_tournaments_per_account: int = Field(
        default=3,
        ge=0,
        description="Scheduled or running tournaments one account may have created (0: no cap).",
    )
    tournaments_created_per_hour: int = Field(
        default=10,
        ge=0,
        description="Tournaments one account may create in an hour (0: no cap).",
    )

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """Only the given values: the environment is :func:`load_config`'s to read, so an
        embedding program (``cardavia play``) never picks up a shell's ``CARDAVIA_PORT``."""
        return (init_settings,)

    @field_validator("log_level", mode="before")
    @classmethod
    def _lower_case_level(cls, value: object) -> object:
        """``INFO`` means ``info``, as before (log levels are case-blind)."""
        return value.lower() if isinstance(value, str) else value

    @field_validator("trusted_proxies")
    @classmethod
    def _proxies_parse(cls, value: str) -> str:
        parse_networks(value)
        return value

    @field_validator("redis_url")
    @classmethod
    def _redis_scheme(cls, value: str) -> str:
        if not value.startswith(("redis://", "rediss://", "unix://")):
            raise ValueError("must start with redis://, rediss:// or unix://")
        return value

    @field_validator("duplicate_secret")
    @classmethod
    def _duplicate_secret_long(cls, value: str) -> str:
        if value and len(value.encode()) < 16:
            raise ValueError("must be empty or 16 characters or more")
        return value

    @field_validator("database_url")
    @classmethod
    def _database_scheme(cls, value: str) -> str:
        if value and not value.startswith(("sqlite+aiosqlite://", "postgresql+asyncpg://")):
            raise ValueError(
                "must be empty or start with sqlite+aiosqlite:// or postgresql+asyncpg://"
            )
        return value

    @property
    def database(self) -> str:
        """The database's URL: ``database_url``, else the SQLite file in ``data_dir``."""
        if self.database_url:
            return self.database_url
        folder = os.path.expanduser(self.data_dir) if self.data_dir else default_data_dir()
        return f"sqlite+aiosqlite:///{os.path.join(folder, 'cardavia.db')}"

    @field_validator("redis_prefix")
    @classmethod
    def _redis_prefix_plain(cls, value: str) -> str:
        """Braces would make a Redis Cluster hash tag; spaces break key listings."""
        if not value or any(c in value for c in " {}"):
            raise ValueError("must be non-empty, without spaces or braces")
        return value

    @model_validator(mode="after")
    def _settings_agree(self) -> ServerConfig:
        """Checks that span several settings, and the TLS files' contents."""
        if self.playing_session_ttl < self.session_ttl:
            raise ValueError(
                "playing_session_ttl must not be shorter than session_ttl (got"
                f" {self.playing_session_ttl} < {self.session_ttl})"
            )
        if self.takeover_interval >= self.lease_ttl:
            raise ValueError(
                "lease_ttl must be longer than takeover_interval (got"
                f" {self.lease_ttl} <= {self.takeover_interval})"
            )
        if bool(self.tls_cert) != bool(self.tls_key):
            raise ValueError("tls_cert and tls_key go together: give both or neither")
        for name, path in (("tls_cert", self.tls_cert), ("tls_key", self.tls_key)):
            if path and not os.path.isfile(path):
                raise ValueError(f"{name}: no such file {path!r}")
        if self.tls_cert:
            try:
                ssl.create_default_context(ssl.Purpose.CLIENT_AUTH).load_cert_chain(
                    self.tls_cert, self.tls_key
                )
            except ssl.SSLError as exc:
                reason = exc.reason or exc
                raise ValueError(f"tls_cert/tls_key: cannot load them ({reason})") from None
        return self

    def replace(self, **changes: Any) -> ServerConfig:
        """A copy with ``changes``, validated like any other (``dataclasses.replace`` for
        this model; :meth:`model_copy` would skip the checks)."""
        return config_from({**self.model_dump(), **changes})


def flag_name(field: str) -> str:
    """``--quick-fill-wait`` for ``quick_fill_wait``."""
    return "--" + field.replace("_", "-")


def env_name(field: str) -> str:
    """``CARDAVIA_QUICK_FILL_WAIT`` for ``quick_fill_wait``."""
    return ENV_PREFIX + field.upper()


class ConfigError(ValueError):
    """A refused setting, as one line: ``port: must be at most 65535, got '70000' from
    --port``.  ``setting`` is the field at fault (None when several are)."""

    def __init__(self, message: str, setting: str | None) -> None:
        super().__init__(message)
        self.setting = setting


class _Environment(PydanticBaseSettingsSource):
    """The ``CARDAVIA_*`` variables of a given mapping (``os.environ`` by default), by
    their exact upper-case names (``CARDAVIA_PORT``, never ``cardavia_port``), as the
    server always read them.  A settings source of pydantic-settings' documented kind
    (a :class:`PydanticBaseSettingsSource`): the raw strings it finds are validated
    and converted by the model, like any other value."""

    def __init__(self, environ: Mapping[str, str]) -> None:
        super().__init__(ServerConfig)
        self._environ = environ

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        key = env_name(field_name)
        return self._environ.get(key), key, False

    def __call__(self) -> dict[str, Any]:
        found: dict[str, Any] = {}
        for name, field in self.settings_cls.model_fields.items():
            value, _, _ = self.get_field_value(field, name)
            if value is not None:
                found[name] = value
        return found


def build_parser() -> argparse.ArgumentParser:
    """The cardavia-server argument parser: one flag per :class:`ServerConfig` field,
    its help from the field's description.  Flags default to None (not given), so
    the environment and the defaults show through in :func:`load_config`."""
    parser = argparse.ArgumentParser(
        prog="cardavia-server",
        description="Cardavia card-game server (WebSocket, msgpack frames; /healthz over HTTP).",
    )
    for name, field in ServerConfig.model_fields.items():
        doc = (field.description or "").replace("%", "%%")
        parser.add_argument(
            flag_name(name),
            dest=name,
            default=None,
            help=f"{doc} (env {env_name(name)}, default {field.default})".strip(),
        )
    return parser


_ALLOWED = {
    "greater_than_equal": "must be at least {ge}",
    "greater_than": "must be more than {gt}",
    "less_than_equal": "must be at most {le}",
    "int_parsing": "must be a whole number",
    "int_from_float": "must be a whole number",
    "float_parsing": "must be a number",
    "finite_number": "must be a finite number",
    "literal_error": "must be {expected}",
    "extra_forbidden": "is not a setting",
}
"""What a refused value should have been, by pydantic's error type (its own wording,
``Input should be …``, is the fallback)."""


def _explain(error: ErrorDetails, origins: Mapping[str, str]) -> ConfigError:
    """One line for one of pydantic's errors: the setting, what it allows, the value and
    where it came from (the flag or the environment variable)."""
    ctx = error.get("ctx", {})
    if error["type"] == "value_error":
        allowed = str(ctx["error"])
    elif error["type"] in ("greater_than", "greater_than_equal") and ctx.get(
        "gt", ctx.get("ge")
    ) in (0, 0.0):
        allowed = "must be positive" if error["type"] == "greater_than" else "must not be negative"
    elif error["type"] in _ALLOWED:
        allowed = _ALLOWED[error["type"]].format(**ctx)
    else:
        allowed = error["msg"]
    if not error["loc"]:  # a check across settings: its message names them
        return ConfigError(allowed, None)
    setting = str(error["loc"][0])
    origin = origins.get(setting)
    given = f", got {error['input']!r}" + (f" from {origin}" if origin else "")
    return ConfigError(f"{setting}: {allowed}{given}", setting)


def config_from(
    values: Mapping[str, Any], origins: Mapping[str, str] | None = None
) -> ServerConfig:
    """A :class:`ServerConfig` of ``values``, or a :class:`ConfigError` (one line) for the
    first value refused; ``origins`` says where each value came from."""
    try:
        return ServerConfig(**values)
    except ValidationError as exc:
        raise _explain(exc.errors(include_url=False)[0], origins or {}) from None


def load_config(
    argv: Sequence[str] | None = None, env: Mapping[str, str] | None = None
) -> ServerConfig:
    """The configuration from argv flags over env variables (``os.environ`` when None)
    over the defaults; a :class:`ConfigError` for a bad value."""
    args = vars(build_parser().parse_args(argv))
    from_env = _Environment(os.environ if env is None else env)()
    from_flags = {name: value for name, value in args.items() if value is not None}
    origins = {name: env_name(name) for name in from_env}
    origins.update({name: flag_name(name) for name in from_flags})
    return config_from({**from_env, **from_flags}, origins)
