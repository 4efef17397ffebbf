"""A real PostgreSQL (Debian's ``postgresql``, :mod:`bench.postgres`) and the ``database``
fixture: every account test runs on SQLite and on PostgreSQL.

One PostgreSQL server per test session (per xdist worker), a fresh database per
test.  No fake: without the binaries the PostgreSQL half of the tests fails,
naming the package to install (``scripts/test.sh`` installs it when it can).
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from bench.postgres import PostgresMissing, PostgresProcess
from server.persist.db.engine import Database, sqlite_url

BACKENDS = ("sqlite", "postgresql")


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresProcess]:
    """One started PostgreSQL for the test session (this xdist worker)."""
    directory = Path(tempfile.mkdtemp(prefix="cardavia-pg-"))
    try:
        server = PostgresProcess(directory)
    except PostgresMissing as exc:
        shutil.rmtree(directory, ignore_errors=True)
        pytest.fail(str(exc), pytrace=False)
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
    server: PostgresProcess = request.getfixturevalue("postgres_server")
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
