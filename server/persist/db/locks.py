"""Row locks that hold on both databases."""

from __future__ import annotations

from typing import Any

from sqlalchemy import update
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession
from sqlalchemy.orm import InstrumentedAttribute


async def lock_row(
    db: AsyncSession | AsyncConnection, key: InstrumentedAttribute[Any], value: object
) -> None:
    """Hold the row whose ``key`` is ``value`` for the rest of the transaction, before it
    is read: a no-op UPDATE takes that row's lock on PostgreSQL and the database's write
    lock at once on SQLite, where ``SELECT … FOR UPDATE`` locks nothing and two
    transactions that both read first cannot both write (one fails: database is locked)."""
    await db.execute(update(key.class_).where(key == value).values({key: key}))
