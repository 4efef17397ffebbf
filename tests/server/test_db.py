"""The SQL database layer on SQLite and on a real PostgreSQL: migrations at open,
data kept across restarts, the schema the models declare, constraints enforced."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import Connection, func, select
from sqlalchemy.exc import IntegrityError

from server.persist.db.engine import Database, DatabaseError, sqlite_url
from server.persist.db.migrations.versions.v0004_ratings import SYSTEM_ACCOUNTS
from server.persist.db.models import AccountRow, ApiTokenRow, Base
from server.players.names import skeleton
from server.ratings.levels import AI_ACCOUNTS, RATED_LEVELS, ai_account, ai_name

NOW = datetime(2026, 1, 1, tzinfo=UTC)


def account(account_id: str, skeleton: str) -> AccountRow:
    return AccountRow(
        account_id=account_id,
        name=skeleton.title(),
        skeleton=skeleton,
        password_hash="$argon2id$x",
        bot=False,
        created_at=NOW,
    )


async def test_open_migrates_to_the_models_schema(database: Database) -> None:
    def differences(conn: Connection) -> list[object]:
        return list(compare_metadata(MigrationContext.configure(conn), Base.metadata))

    async with database.engine.connect() as conn:
        assert await conn.run_sync(differences) == []
        version = await conn.exec_driver_sql("SELECT version_num FROM alembic_version")
        assert version.scalar_one() == "0008"
    assert await database.ping()


async def test_the_ai_levels_are_bot_accounts_nobody_signs_in_as(database: Database) -> None:
    async with database.session() as session:
        rows = (
            await session.scalars(select(AccountRow).where(AccountRow.account_id.in_(AI_ACCOUNTS)))
        ).all()
    assert {(r.account_id, r.name, r.skeleton) for r in rows} == {
        (ai_account(level), ai_name(level), skeleton(ai_name(level))) for level in RATED_LEVELS
    }
    assert all(r.bot and r.password_hash is None and r.owner_id is None for r in rows)
    assert len(SYSTEM_ACCOUNTS) == len(RATED_LEVELS)


async def test_open_twice_keeps_the_data(database_url: str) -> None:
    first = Database(database_url)
    await first.open()
    async with first.session() as session:
        session.add(account("a_1", "ann"))
    await first.close()
    again = Database(database_url)  # a restart: the migrations find the schema current
    await again.open()
    async with again.session() as session:
        people = select(AccountRow.skeleton).where(AccountRow.account_id.not_in(AI_ACCOUNTS))
        names = (await session.execute(people)).scalars().all()
    await again.close()
    assert names == ["ann"]


async def test_skeletons_are_unique(database: Database) -> None:
    async with database.session() as session:
        session.add(account("a_1", "ann"))
    with pytest.raises(IntegrityError):
        async with database.session() as session:
            session.add(account("a_2", "ann"))
    async with database.session() as session:
        total = await session.scalar(
            select(func.count()).select_from(AccountRow).where(AccountRow.skeleton == "ann")
        )
    assert total == 1  # the refused insert changed nothing


async def test_deleting_an_account_deletes_its_tokens(database: Database) -> None:
    async with database.session() as session:
        session.add(account("a_1", "bot"))
        await session.flush()
        session.add(
            ApiTokenRow(
                token_id="t_1", account_id="a_1", digest="d" * 64, label="x", created_at=NOW, uses=0
            )
        )
    async with database.session() as session:
        await session.delete(await session.get_one(AccountRow, "a_1"))
    async with database.session() as session:
        assert await session.scalar(select(func.count()).select_from(ApiTokenRow)) == 0


async def test_the_sqlite_file_and_its_folder_are_created(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "er" / "cardavia.db"
    db = Database(sqlite_url(path))
    await db.open()
    await db.close()
    assert path.is_file()


async def test_an_unreachable_database_says_so(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    db = Database(sqlite_url(blocker / "sub" / "cardavia.db"))  # a folder under a file
    with pytest.raises(DatabaseError, match="cannot be opened"):
        await db.open()
    await db.close()
    pg = Database("postgresql+asyncpg://nobody:secret@127.0.0.1:1/none")
    with pytest.raises(DatabaseError) as caught:
        await pg.open()
    assert "secret" not in str(caught.value)  # the password is never shown
    await pg.close()
