"""The database handle: engine, session factory, and the migrations run at start.

``Database(url)`` takes an SQLAlchemy async URL: ``sqlite+aiosqlite:///path``
(the default, a file in ``data_dir``), ``sqlite+aiosqlite://`` (in memory, one
connection shared: tests), or ``postgresql+asyncpg://…``.  :meth:`Database.open`
creates the SQLite file's folder and brings the schema to the newest migration
(``alembic upgrade head``, programmatically: the scripts ship in the package),
so that a first start needs nothing installed and a new version upgrades in place.
"""

from __future__ import annotations

import asyncio
import fcntl
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from sqlalchemy import Connection, event
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import (
    AsyncConnection,
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)
from sqlalchemy.pool import StaticPool

SQLITE_CACHE_KIB = 65_536
"""The page cache of each SQLite connection, in KiB."""

MIGRATIONS = Path(__file__).with_name("migrations")
"""The Alembic scripts (env.py, versions/), shipped as package data."""


class DatabaseError(RuntimeError):
    """The database cannot be opened or migrated; the message says what to fix."""


def sqlite_url(path: Path) -> str:
    """The async URL of the SQLite file at ``path``."""
    return f"sqlite+aiosqlite:///{path}"


def _foreign_keys_on(dbapi_connection: Any, _record: Any) -> None:
    """SQLite enforces foreign keys (deleting an account deletes its tokens) only when asked.

    A file database also runs in WAL mode with ``synchronous=NORMAL`` (SQLite's
    advice for WAL): readers (history, profiles) never wait for the writer of a
    finished game, and a commit appends to the log instead of syncing twice; a
    power cut may lose the last commits, never corrupt the file.  Each
    connection caches :data:`SQLITE_CACHE_KIB` of pages (SQLite's default, 2 MiB,
    holds little of the indexes of many stored games).
    """
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA journal_mode")
    if cursor.fetchone()[0] != "memory":
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute(f"PRAGMA cache_size=-{SQLITE_CACHE_KIB}")
    cursor.close()


def alembic_config(connection: Connection | None = None) -> Config:
    """Alembic's settings for our scripts, on ``connection`` (env.py reads it)."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = connection
    return config


class Database:
    """One database: the engine and its session factory (:meth:`session`)."""

    def __init__(self, url: str) -> None:
        self.url = make_url(url)
        self.sqlite = self.url.get_backend_name() == "sqlite"
        self.file: Path | None = None
        options: dict[str, Any] = {}
        self._one_at_a_time: asyncio.Lock | None = None
        """In memory, every transaction runs on the one shared connection: one at a time
        (two interleaved would be one transaction, or refused)."""
        if self.sqlite:
            database = self.url.database
            if database and database != ":memory:":
                self.file = Path(database).expanduser()
                self.url = self.url.set(database=str(self.file))
            else:  # one in-memory database, shared by every session of this handle
                options = {"poolclass": StaticPool, "connect_args": {"check_same_thread": False}}
                self._one_at_a_time = asyncio.Lock()
        else:
            options = {"pool_pre_ping": True}
        self.engine: AsyncEngine = create_async_engine(self.url, **options)
        if self.sqlite:
            event.listen(self.engine.sync_engine, "connect", _foreign_keys_on)
        self._sessions = async_sessionmaker(self.engine, expire_on_commit=False)

    @property
    def backend(self) -> str:
        """``sqlite`` or ``postgresql``."""
        return self.url.get_backend_name()

    async def open(self) -> None:
        """Create the SQLite file's folder, then migrate to the newest schema.

        Several processes starting on one SQLite file migrate one at a time
        (a lock file beside it); PostgreSQL's transactional DDL does the same there.
        """
        try:
            if self.file is None:
                await self._migrate()
                return
            self.file.parent.mkdir(parents=True, exist_ok=True)
            lock = self.file.with_name(self.file.name + ".lock")
            with lock.open("a") as held:
                await asyncio.to_thread(fcntl.flock, held, fcntl.LOCK_EX)
                try:
                    await self._migrate()
                finally:
                    fcntl.flock(held, fcntl.LOCK_UN)
        except DatabaseError:
            raise
        except (OSError, Exception) as exc:
            where = self.url.render_as_string(hide_password=True)
            raise DatabaseError(
                f"the database {where} cannot be opened or migrated: {type(exc).__name__}: {exc}"
            ) from exc

    async def _migrate(self) -> None:
        async with self.engine.begin() as conn:
            await conn.run_sync(lambda sync: command.upgrade(alembic_config(sync), "head"))

    @asynccontextmanager
    async def session(self) -> AsyncIterator[AsyncSession]:
        """A session in one transaction: committed when the block ends, rolled back on error."""
        async with self._turn(), self._sessions() as session, session.begin():
            yield session

    @asynccontextmanager
    async def begin(self) -> AsyncIterator[AsyncConnection]:
        """A connection in one transaction, without the ORM (statements made once and
        bound each time): committed when the block ends, rolled back on error."""
        async with self._turn(), self.engine.begin() as conn:
            yield conn

    @asynccontextmanager
    async def _turn(self) -> AsyncIterator[None]:
        if self._one_at_a_time is None:
            yield
            return
        async with self._one_at_a_time:
            yield

    async def ping(self) -> bool:
        """Whether the database answers a trivial query."""
        async with self.engine.connect() as conn:
            await conn.exec_driver_sql("SELECT 1")
        return True

    async def close(self) -> None:
        """Close every pooled connection."""
        await self.engine.dispose()
