"""A throw-away PostgreSQL (Debian's ``postgresql``) on a free port in a temporary folder,
for the benchmarks and the tests (tests/server/postgres_fixture.py).

As root (CI, containers) the server runs as the ``postgres`` user Debian's package
creates: PostgreSQL refuses to run as root.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from itertools import count
from pathlib import Path
from typing import Any


class PostgresMissing(RuntimeError):
    """Debian's ``postgresql`` package is not installed."""


def postgres_bin() -> Path | None:
    """The folder of Debian's PostgreSQL binaries (the newest version), if installed."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))
    if found:
        return Path(found[-1]).parent
    on_path = shutil.which("pg_ctl")
    return Path(on_path).parent if on_path else None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class PostgresProcess:
    """One PostgreSQL cluster: initdb, start on a free port (its Unix socket in the same
    folder), :meth:`create_database`, stop."""

    def __init__(self, directory: Path) -> None:
        bindir = postgres_bin()
        if bindir is None:
            raise PostgresMissing(
                "PostgreSQL is not installed: Debian's `postgresql` package is needed"
                " (apt-get install -y postgresql; scripts/test.sh installs it when it can)"
            )
        self.bin = bindir
        self.dir = directory
        self.data = directory / "data"
        self.port = _free_port()
        self._user: list[str] = []
        if os.geteuid() == 0:  # postgres refuses root: run it as Debian's postgres user
            user = pwd.getpwnam("postgres")
            os.chown(directory, user.pw_uid, user.pw_gid)
            self._user = ["runuser", "-u", "postgres", "--"]
            self.role = "postgres"
        else:
            self.role = pwd.getpwuid(os.geteuid()).pw_name
        self._names = count()

    def _run(self, *args: str) -> None:
        subprocess.run(
            [*self._user, *args], check=True, capture_output=True, timeout=60, cwd=self.dir
        )

    def start(self) -> None:
        """initdb (trust on the loopback: a throw-away cluster), then start and wait."""
        self._run(str(self.bin / "initdb"), "-D", str(self.data), "-A", "trust", "-U", self.role)
        options = f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off"
        self._run(
            str(self.bin / "pg_ctl"), "-D", str(self.data), "-o", options, "-w", "-t", "30",
            "-l", str(self.dir / "log"), "start",
        )  # fmt: skip

    def stop(self) -> None:
        """Stop at once (the data is thrown away)."""
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop")

    def url(self, database: str = "postgres") -> str:
        """The asyncpg URL of ``database`` on this server."""
        return f"postgresql+asyncpg://{self.role}@127.0.0.1:{self.port}/{database}"

    def create_database(self) -> str:
        """A new, empty database; its URL."""
        name = f"db_{os.getpid()}_{next(self._names)}_{int(time.time() * 1000) % 100000}"
        self._run(
            str(self.bin / "psql"), "-h", "127.0.0.1", "-p", str(self.port), "-U", self.role,
            "-d", "postgres", "-q", "-c", f'CREATE DATABASE "{name}"',
        )  # fmt: skip
        return self.url(name)


def on_each_database(
    measure: Callable[[str], dict[str, Any]], label: str, only: str | None = None
) -> dict[str, dict[str, Any]]:
    """``measure(database_url)`` on a fresh SQLite file and on a throw-away PostgreSQL
    (``only``: ``sqlite`` or ``postgres`` alone); the figures by database, for a
    benchmark's last line.  Progress goes to stderr, prefixed with ``label``."""
    out: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix=f"cardavia-bench-{label}-") as folder:
        if only != "postgres":
            print(f"{label}: sqlite", file=sys.stderr)
            out["sqlite"] = measure(f"sqlite+aiosqlite:///{Path(folder) / 'cardavia.db'}")
            print(f"{label}: sqlite {out['sqlite']}", file=sys.stderr)
    if only == "sqlite":
        return out
    # a folder of its own: under root, the postgres user must be able to reach it
    pg_dir = Path(tempfile.mkdtemp(prefix="cardavia-bench-pg-"))
    server = PostgresProcess(pg_dir)
    server.start()
    try:
        print(f"{label}: postgres", file=sys.stderr)
        out["postgres"] = measure(server.create_database())
    finally:
        server.stop()
        shutil.rmtree(pg_dir, ignore_errors=True)
    return out
