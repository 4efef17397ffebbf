"""The server's settings: one declaration each (server/config.py), reachable by the flag
and the CARDAVIA_* variable they always had, flag over variable over default, bad values
refused in one line, ``--help`` written from the declarations."""

from __future__ import annotations

import subprocess
import sys
import typing
from pathlib import Path

import pytest
import trustme
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from server.config import (
    ENV_PREFIX,
    ConfigError,
    ServerConfig,
    build_parser,
    env_name,
    flag_name,
    load_config,
)
from server.main import main

ROOT = Path(__file__).resolve().parents[2]

OLD_FLAGS = (
    # cardavia-server's flags before the settings moved to pydantic-settings (f62fe63):
    # each of them stays, spelt the same, and no other appears unnoticed
    "--host",
    "--port",
    "--store",
    "--quick-fill-wait",
    "--ai-delay",
    "--ai-think",
    "--ai-deadline",
    "--ai-workers",
    "--ai-mode",
    "--disconnect-grace",
    "--session-ttl",
    "--max-tables",
    "--max-tables-per-player",
    "--chat-max-len",
    "--chat-per-minute",
    "--rate-per-s",
    "--rate-burst",
    "--max-frame",
    "--hello-timeout",
    "--replays-kept",
    "--log-level",
    "--ai-queue-limit",
    "--max-ai-tables-per-player",
    "--ai-table-linger",
    "--ai-only-moves-per-s",
    "--max-connections-per-address",
    "--connect-rate-per-address",
    "--max-sessions-per-address",
    "--max-created-tables-per-session",
    "--max-created-tables-per-address",
    "--max-waiting-tables-per-session",
    "--max-waiting-tables-per-address",
    "--max-watched-tables-per-session",
    "--max-watched-tables-per-address",
    "--max-spectators-per-table",
    "--max-listed-tables",
    "--trusted-proxies",
    "--waiting-table-grace",
    "--playing-session-ttl",
    "--rate-strikes",
    "--rate-strike-decay",
    "--ping-interval",
    "--ping-timeout",
    "--shutdown-drain",
    "--tls-cert",
    "--tls-key",
    "--loop",
    "--gc-gen0",
    "--gc-freeze-every",
    "--gc-thaw-every",
    "--redis-url",
    "--redis-prefix",
    "--lease-ttl",
    "--takeover-interval",
    "--replay-ttl",
    "--store-timeout",
    "--redis-connections",
    "--data-dir",
    "--database-url",
    "--duplicate-secret",  # duplicate play (issue 56): the boards' seed key
    "--login-backoff",
    "--login-backoff-max",
    "--ban-poll",  # moderation (issue 54): how often the bans are read
    "--team-absent-fill",  # team matches (issue 56): how long a table waits for members
    "--max-team-matches-per-account",
    "--max-tournaments-per-account",  # tournaments (issue 56): quotas on creating them
    "--tournaments-created-per-hour",
)

FIELDS = ServerConfig.model_fields
OTHER_TEXT = {
    "host": "0.0.0.0",
    "trusted_proxies": "10.0.0.0/8, 2001:db8::/32",
    "redis_url": "rediss://db:6380/2",
    "redis_prefix": "other",
    "data_dir": "/srv/cardavia",
    "database_url": "postgresql+asyncpg://cardavia@db/cardavia",
    "duplicate_secret": "a-long-enough-secret",
}
"""A valid value other than the default, for the settings that are free text."""


@pytest.fixture(scope="module")
def pems(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    """A certificate and its key, as PEM files (what tls_cert and tls_key name)."""
    where = tmp_path_factory.mktemp("config_tls")
    issued = trustme.CA().issue_cert("127.0.0.1")
    issued.private_key_pem.write_to_path(str(where / "key.pem"))
    issued.cert_chain_pems[0].write_to_path(str(where / "cert.pem"))
    return str(where / "cert.pem"), str(where / "key.pem")


def changed(name: str, pems: tuple[str, str]) -> dict[str, str]:
    """Raw text (as a flag or variable holds it) for ``name`` other than its default, with
    the setting it goes together with (tls_cert and tls_key)."""
    if name in ("tls_cert", "tls_key"):
        return {"tls_cert": pems[0], "tls_key": pems[1]}
    field = FIELDS[name]
    choices = typing.get_args(field.annotation)
    if choices:
        return {name: next(c for c in choices if c != field.default)}
    if field.annotation is int:
        return {name: str(field.default + 1)}
    if field.annotation is float:
        return {name: str(field.default + 0.5)}
    return {name: OTHER_TEXT[name]}


def typed(name: str, raw: str) -> object:
    """What the config holds for the raw text ``raw`` of setting ``name``."""
    kind = FIELDS[name].annotation
    return kind(raw) if kind in (int, float) else raw


def as_flags(values: dict[str, str]) -> list[str]:
    return [part for name, raw in values.items() for part in (flag_name(name), raw)]


def as_env(values: dict[str, str]) -> dict[str, str]:
    return {env_name(name): raw for name, raw in values.items()}


def test_every_setting_keeps_its_flag_and_variable() -> None:
    assert tuple(flag_name(name) for name in FIELDS) == OLD_FLAGS
    parsed = [a.option_strings for a in build_parser()._actions if a.dest != "help"]
    assert parsed == [[flag] for flag in OLD_FLAGS]
    for name in FIELDS:
        assert env_name(name) == ENV_PREFIX + flag_name(name)[2:].replace("-", "_").upper()
        assert FIELDS[name].description, f"{name} has no description for --help"


@pytest.mark.parametrize("name", list(FIELDS))
def test_each_setting_by_flag_by_variable_and_flag_over_variable(
    name: str, pems: tuple[str, str]
) -> None:
    values = changed(name, pems)
    defaults = {key: str(FIELDS[key].default) for key in values}
    by_flag = load_config(as_flags(values), env={})
    by_env = load_config([], env=as_env(values))
    for key, raw in values.items():
        assert (
            getattr(by_flag, key) == getattr(by_env, key) == typed(key, raw) != FIELDS[key].default
        )
    assert by_flag == by_env == ServerConfig().replace(**values)
    # a flag wins over the variable even when it names the default
    both = load_config(as_flags(defaults), env=as_env(values))
    assert both == ServerConfig()
    # the variable wins over the default
    assert load_config([], env={**as_env(values), "UNRELATED": "x"}) == by_env


def test_only_exact_variable_names_count_and_building_one_reads_no_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("CARDAVIA_PORT", "9001")
    monkeypatch.setenv("cardavia_host", "0.0.0.0")
    monkeypatch.setenv("CARDAVIA_LANG", "it")  # the client's: not a server setting
    assert load_config([]).port == 9001  # os.environ when no mapping is given
    assert load_config([]).host == "127.0.0.1"
    assert ServerConfig().port == 8765  # the embedded server never sees a shell's port
    assert load_config(["--port", "9002"]).port == 9002


def _bounds(name: str) -> tuple[str, float] | None:
    for item in FIELDS[name].metadata:
        for kind in ("gt", "ge", "le"):
            if getattr(item, kind, None) is not None:
                return kind, getattr(item, kind)
    return None


BOUNDED = [name for name in FIELDS if _bounds(name) is not None]


@st.composite
def past_a_bound(draw: st.DrawFn) -> tuple[str, str]:
    """A bounded setting and raw text just past (or well past) its bound."""
    name = draw(st.sampled_from(BOUNDED))
    kind, bound = _bounds(name) or ("ge", 0)
    step = draw(st.integers(min_value=0, max_value=10**6))
    integral = FIELDS[name].annotation is int
    if kind == "le":
        value: float = bound + 1 + step
    elif kind == "ge":
        value = bound - (1 if integral else 0.001) - step
    else:
        value = bound - step
    return name, str(int(value) if integral else value)


def _one_line(error: ConfigError) -> str:
    text = str(error)
    assert "\n" not in text and text
    return text


@given(past_a_bound(), st.booleans())
def test_a_value_past_its_bound_is_refused_in_one_line(case: tuple[str, str], flag: bool) -> None:
    name, raw = case
    with pytest.raises(ConfigError) as caught:
        if flag:
            load_config([flag_name(name), raw], env={})
        else:
            load_config([], env={env_name(name): raw})
    text = _one_line(caught.value)
    assert caught.value.setting == name
    assert text.startswith(f"{name}: must ")
    assert text.endswith(f"got {raw!r} from {flag_name(name) if flag else env_name(name)}")


@pytest.mark.parametrize(
    ("argv", "env", "setting", "says"),
    [
        (["--port", "x"], {}, "port", "port: must be a whole number, got 'x' from --port"),
        ([], {"CARDAVIA_PORT": "70000"}, "port", "must be at most 65535"),
        ([], {"CARDAVIA_AI_DELAY": "soon"}, "ai_delay", "ai_delay: must be a number"),
        (["--ai-think", "nan"], {}, "ai_think", "must be a finite number"),
        (["--max-frame", "2048.5"], {}, "max_frame", "must be a whole number"),
        (["--store", "postgres"], {}, "store", "store: must be 'memory' or 'redis'"),
        (["--loop", "trio"], {}, "loop", "'auto', 'asyncio' or 'uvloop'"),
        (["--log-level", "loud"], {}, "log_level", "'debug', 'info', 'warning'"),
        (["--session-ttl", "0"], {}, "session_ttl", "session_ttl: must be positive"),
        (["--shutdown-drain", "-1"], {}, "shutdown_drain", "must not be negative"),
        (["--redis-url", "http://db"], {}, "redis_url", "must start with redis://"),
        (["--redis-prefix", "a{b}"], {}, "redis_prefix", "without spaces or braces"),
        (["--trusted-proxies", "10.0.0.0/8,x.y"], {}, "trusted_proxies", "'x.y' is not an IP"),
        (["--playing-session-ttl", "10"], {}, None, "must not be shorter than session_ttl"),
        (["--lease-ttl", "1", "--takeover-interval", "2"], {}, None, "longer than takeover"),
        (["--tls-cert", "/nonexistent.pem"], {}, None, "give both or neither"),
        (["--tls-cert", "/no/cert", "--tls-key", "/no/key"], {}, None, "no such file"),
    ],
)
def test_bad_values_are_refused_in_one_line_naming_the_setting(
    argv: list[str], env: dict[str, str], setting: str | None, says: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        load_config(argv, env=env)
    assert says in _one_line(caught.value)
    assert caught.value.setting == setting


def test_the_command_refuses_a_bad_value_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--port", "70000"]) == 2
    err = capsys.readouterr().err
    assert err == "cardavia-server: port: must be at most 65535, got '70000' from --port\n"


def test_help_is_written_from_the_declarations(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["--help"])
    assert done.value.code == 0
    shown = " ".join(capsys.readouterr().out.split())  # argparse wraps lines
    for name, field in FIELDS.items():
        description = " ".join((field.description or "").split())
        assert f"{description} (env {env_name(name)}, default {field.default})" in shown


def test_the_config_is_immutable_and_replace_validates() -> None:
    config = ServerConfig()
    with pytest.raises(ValidationError):
        config.port = 1
    assert config.replace(port=0).port == 0 and config.port == 8765
    assert config.replace(port=0) == ServerConfig(port=0)
    assert hash(config.replace(port=0)) == hash(ServerConfig(port=0))
    with pytest.raises(ConfigError, match="prot: is not a setting"):
        config.replace(prot=0)
    with pytest.raises(ConfigError, match=r"port: must be at most 65535, got 70000$"):
        config.replace(port=70000)
    with pytest.raises(ValidationError):
        ServerConfig(max_frame=10)
    levels = (
        load_config(["--log-level", "WARNING"], env={}),
        load_config([], {"CARDAVIA_LOG_LEVEL": "Error"}),
    )
    assert [c.log_level for c in levels] == ["warning", "error"]  # levels are case-blind


def test_the_config_module_imports_no_other_server_module() -> None:
    """config ↔ quotas no longer import each other (issue 52: parse_networks lives with
    the setting it parses)."""
    code = (
        "import sys, server.config;"
        " print(sorted(m for m in sys.modules if m.startswith('server.')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "['server.config']"


def test_the_defaults_are_valid_and_what_an_empty_command_line_gives() -> None:
    assert load_config([], env={}) == ServerConfig()
    assert dict(ServerConfig()) == {name: field.default for name, field in FIELDS.items()}
