"""The tables, declared once for SQLite and PostgreSQL (SQLAlchemy 2 typed mappings).

Migrations (``migrations/versions``) create exactly these; a test compares the two.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, DateTime, ForeignKey, Integer, MetaData, String
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

NAMING = {
    "ix": "ix_%(table_name)s_%(column_0_name)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s",
    "pk": "pk_%(table_name)s",
}
"""Constraint names fixed here, not left to each database (migrations refer to them)."""


class Base(DeclarativeBase):
    """The declarative base of every table."""

    metadata = MetaData(naming_convention=NAMING)


class AccountRow(Base):
    """A registered player or bot.

    ``skeleton`` is what the name looks like (:func:`server.players.names.skeleton`):
    unique, so no second account can take ``Ann`` as ``ANN``, ``Аnn`` or ``Ａｎｎ``.
    A bot has no password (``password_hash`` is null): it signs in with API tokens.
    """

    __tablename__ = "accounts"

    account_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    name: Mapped[str] = mapped_column(String(64))
    skeleton: Mapped[str] = mapped_column(String(256), unique=True)
    password_hash: Mapped[str | None] = mapped_column(String(256), nullable=True)
    bot: Mapped[bool] = mapped_column(Boolean, default=False)
    owner_id: Mapped[str | None] = mapped_column(
        String(32), ForeignKey("accounts.account_id", ondelete="CASCADE"), nullable=True
    )
    """For a bot: the human account that made it (and may make and revoke its tokens)."""
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    password_changed_at: Mapped[datetime | None] = mapped_column(
        DateTime(timezone=True), nullable=True
    )


class ApiTokenRow(Base):
    """An API token of a bot account; only its SHA-256 is kept (the token is shown once)."""

    __tablename__ = "api_tokens"

    token_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    account_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("accounts.account_id", ondelete="CASCADE"), index=True
    )
    digest: Mapped[str] = mapped_column(String(64), unique=True)
    label: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    uses: Mapped[int] = mapped_column(Integer, default=0)
