"""A real PostgreSQL (Debian's ``postgresql``) on a free port in a temporary directory,
and the ``database`` fixture: every account test runs on SQLite and on PostgreSQL.

One PostgreSQL server per test session (per xdist worker), a fresh database per
test.  As root (CI), the server runs as the ``postgres`` user Debian's package
creates (PostgreSQL refuses to run as root).  No fake: without the binaries the
PostgreSQL half of the tests fails, naming the package to install
(``scripts/test.sh`` installs it when it can).
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from itertools import count
from pathlib import Path

import pytest

from server.persist.db.engine import Database, sqlite_url
from tests.server.redis_fixture import free_port

MISSING = (
    "PostgreSQL is not installed: the database tests need Debian's `postgresql` package "
    "(apt-get install -y postgresql; scripts/test.sh installs it when it can)"
)
BACKENDS = ("sqlite", "postgresql")


def postgres_bin() -> Path | None:
    """The folder of Debian's PostgreSQL binaries (the newest version), if installed."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))
    if found:
        return Path(found[-1]).parent
    on_path = shutil.which("pg_ctl")
    return Path(on_path).parent if on_path else None


class PostgresServer:
    """One PostgreSQL cluster: initdb, start on a free port (Unix socket in the same
    folder), ``create_database`` per test, stop."""

    def __init__(self, directory: Path) -> None:
        bindir = postgres_bin()
        if bindir is None:
            pytest.fail(MISSING, pytrace=False)
        self.bin = bindir
        self.dir = directory
        self.data = directory / "data"
        self.port = free_port()
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
        """initdb (trust on the loopback: a throwaway test cluster), then start and wait."""
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
        name = f"test_{os.getpid()}_{next(self._names)}_{int(time.time() * 1000) % 100000}"
        self._run(
            str(self.bin / "psql"), "-h", "127.0.0.1", "-p", str(self.port), "-U", self.role,
            "-d", "postgres", "-q", "-c", f'CREATE DATABASE "{name}"',
        )  # fmt: skip
        return self.url(name)


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """One started PostgreSQL for the test session (this xdist worker)."""
    directory = Path(tempfile.mkdtemp(prefix="cardavia-pg-"))
    server = PostgresServer(directory)
    server.start()
    try:
        yield server
    finally:
        server.stop()
        shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture(params=BACKENDS)
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The URL of a fresh, empty database: an SQLite file, or a PostgreSQL database."""
    if request.param == "sqlite":
        return sqlite_url(tmp_path / "data" / "cardavia.db")
    server: PostgresServer = request.getfixturevalue("postgres_server")
    return server.create_database()


@pytest.fixture
async def database(database_url: str) -> AsyncIterator[Database]:
    """An opened (migrated) database on each backend."""
    db = Database(database_url)
    await db.open()
    try:
        yield db
    finally:
        await db.close()
