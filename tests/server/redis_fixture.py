"""A real ``redis-server`` (Debian's package) on a free port with a temporary directory.

No fake: the Redis tests need the binary; if it is missing they fail with a
message naming the package to install (``scripts/test.sh`` installs it when it can).
"""

from __future__ import annotations

import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bench.procstat import answers_ok
from bench.store import RedisMissing, RedisProcess
from server.config import ServerConfig
from tests.server.helpers import FAST

MISSING = (
    "redis-server is not installed: the Redis store tests need Debian's `redis-server` "
    "package (apt-get install -y redis-server; scripts/test.sh installs it when it can)"
)


def free_port() -> int:
    """A TCP port nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class RedisServer(RedisProcess):
    """One redis-server process: start, stop (SIGTERM: it saves) and start again
    (:class:`bench.store.RedisProcess`; without the binary the test fails, saying
    which package to install)."""

    def __init__(self, directory: Path, port: int | None = None) -> None:
        try:
            super().__init__(directory, port)
        except RedisMissing:
            pytest.fail(MISSING, pytrace=False)


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[RedisServer]:
    """A started redis-server for one test."""
    server = RedisServer(tmp_path)
    server.start()
    try:
        yield server
    finally:
        server.stop()


def fast_redis_config(url: str, **changes: Any) -> ServerConfig:
    """The tests' fast server settings on the Redis at ``url``: short leases and scans,
    a long disconnect grace; ``changes`` on top."""
    return FAST.replace(
        store="redis",
        redis_url=url,
        lease_ttl=1.0,
        takeover_interval=0.25,
        disconnect_grace=60.0,
        **changes,
    )


SERVER_FLAGS = (
    "--store",
    "redis",
    "--lease-ttl",
    "1.0",
    "--takeover-interval",
    "0.25",
    "--ai-delay",
    "0",
    "--ai-think",
    "0.02",
    "--ai-workers",
    "1",
    "--ai-mode",
    "thread",
    "--disconnect-grace",
    "60",
    "--store-timeout",
    "0.5",
    "--log-level",
    "warning",
)
"""A server process for the Redis tests: short lease, fast AI, humans' seats wait for them."""


class ServerProcess:
    """A ``cardavia-server`` process (``python -m server.main``) on a free port."""

    def __init__(self, redis_url: str, *extra: str, port: int | None = None) -> None:
        self.redis_url = redis_url
        self.extra = extra
        self.chosen = port is None
        """Its port was picked free here (and may be picked again: see :meth:`start`)."""
        self.port = port or free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = tempfile.TemporaryFile()  # noqa: SIM115 (lives as long as the process)

    @property
    def url(self) -> str:
        """The WebSocket URL of this process."""
        return f"ws://127.0.0.1:{self.port}"

    def start(self, wait: bool = True) -> None:
        """Start it; with ``wait``, until /healthz answers.  A port picked free can be
        taken by another test's server before this one binds it: then it starts again
        on another (with ``wait``)."""
        for attempt in range(3):
            logged = len(self.output())
            self._spawn()
            if not wait:
                return
            try:
                self.wait_ready()
                return
            except RuntimeError:
                taken = "the port is in use" in self.output()[logged:]
                if not (self.chosen and taken) or attempt == 2:
                    raise
                self.port = free_port()

    def _spawn(self) -> None:
        import sys

        self.log.seek(0, 2)  # after what earlier runs logged
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "server.main",
                "--port",
                str(self.port),
                "--redis-url",
                self.redis_url,
                *SERVER_FLAGS,
                *self.extra,
            ],
            stdout=subprocess.DEVNULL,
            stderr=self.log,
        )

    def wait_ready(self, timeout: float = 20.0) -> None:
        """Wait until /healthz answers (raise with its stderr if it exits)."""
        assert self.proc is not None
        deadline = time.monotonic() + timeout
        if answers_ok(f"http://127.0.0.1:{self.port}/healthz", deadline, self.proc):
            return
        if self.proc.poll() is not None:
            raise RuntimeError(f"server exited {self.proc.returncode}: {self.output()}")
        raise RuntimeError("server did not answer /healthz")

    def health(self) -> dict[str, object] | None:
        """The /healthz JSON, or None when it does not answer."""
        import json
        import urllib.request

        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/healthz", timeout=1) as r:
                return dict(json.loads(r.read()))
        except OSError:
            return None

    def signal(self, sig: int) -> None:
        """Send ``sig`` (SIGKILL, SIGSTOP, SIGCONT …)."""
        assert self.proc is not None
        self.proc.send_signal(sig)

    def stop(self, sig: int = 15) -> int:
        """Stop it with ``sig`` (SIGTERM: gracefully) and return its exit code."""
        if self.proc is None:
            return 0
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        code = self.proc.wait(15)
        self.proc = None
        return code

    def output(self) -> str:
        """What it logged on stderr so far."""
        self.log.seek(0)
        return self.log.read().decode(errors="replace")


def _show_log(proc: ServerProcess, limit: int = 20_000) -> None:
    """Write the tail of ``proc``'s log to stderr: pytest shows it when the test failed."""
    import sys

    text = proc.output()
    if text:
        sys.stderr.write(f"--- server :{proc.port} log (last {limit} chars) ---\n{text[-limit:]}\n")


def started_pair(
    redis_url: str, servers: list[ServerProcess], tmp_path: Path, secret: str
) -> tuple[ServerProcess, ServerProcess, str]:
    """Two processes on one Redis sharing a SQLite database in ``tmp_path`` (its URL is
    returned) and the duplicate ``secret``, started and left to ``servers`` to stop."""
    from server.persist.db.engine import sqlite_url

    db_url = sqlite_url(tmp_path / "shared.db")
    extra = ("--database-url", db_url, "--duplicate-secret", secret)
    a, b = ServerProcess(redis_url, *extra), ServerProcess(redis_url, *extra)
    servers += [a, b]
    a.start()
    b.start()
    return a, b, db_url


@pytest.fixture
def servers(redis_server: RedisServer) -> Iterator[list[ServerProcess]]:
    """A list to put server processes in; every one still running is killed at the end."""
    started: list[ServerProcess] = []
    try:
        yield started
    finally:
        for proc in started:
            if proc.proc is not None:
                proc.signal(18)  # SIGCONT, in case a test left it stopped
                proc.stop(9)
            _show_log(proc)
