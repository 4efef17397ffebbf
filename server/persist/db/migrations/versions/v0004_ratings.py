"""Ratings: per account and game, their history, role ratings, rated games, and the AI
levels' system accounts (issue 55).

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

SYSTEM_ACCOUNTS = (
    ("ai-easy", "AI easy", "al easy"),
    ("ai-normal", "AI normal", "al normal"),
    ("ai-hard", "AI hard", "al hard"),
)
"""The rated AI levels' accounts: id, name and name skeleton
(:func:`server.players.names.skeleton` of the name, fixed here as a migration must be)."""


def upgrade() -> None:
    """Create ``ratings``, ``rating_points`` and ``role_ratings`` (as the models), add
    ``game_records.rated``, and the AI levels' bot accounts."""
    with op.batch_alter_table("game_records") as batch:
        batch.add_column(
            sa.Column("rated", sa.Boolean(), server_default=sa.false(), nullable=False)
        )
    op.create_table(
        "ratings",
        sa.Column("account_id", sa.String(32), nullable=False),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("points", sa.Integer(), nullable=False),
        sa.Column("deviation", sa.Integer(), nullable=False),
        sa.Column("provisional", sa.Boolean(), nullable=False),
        sa.Column("bot", sa.Boolean(), nullable=False),
        sa.Column("last_us", sa.BigInteger(), nullable=False),
        sa.Column("change", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["accounts.account_id"],
            name="fk_ratings_account_id",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("account_id", "game", name="pk_ratings"),
    )
    op.create_index(
        "ix_ratings_leaderboard",
        "ratings",
        ["game", "bot", "provisional", "points", "account_id", "last_us"],
    )
    op.create_table(
        "rating_points",
        sa.Column("account_id", sa.String(32), nullable=False),
        sa.Column("game_id", sa.String(80), nullable=False),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("at_us", sa.BigInteger(), nullable=False),
        sa.Column("points", sa.Integer(), nullable=False),
        sa.Column("deviation", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["accounts.account_id"],
            name="fk_rating_points_account_id",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("account_id", "game_id", name="pk_rating_points"),
    )
    op.create_index("ix_rating_points_graph", "rating_points", ["account_id", "game", "at_us"])
    op.create_table(
        "role_ratings",
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("role", sa.String(32), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("game", "role", name="pk_role_ratings"),
    )
    accounts = sa.table(
        "accounts",
        sa.column("account_id", sa.String),
        sa.column("name", sa.String),
        sa.column("skeleton", sa.String),
        sa.column("password_hash", sa.String),
        sa.column("bot", sa.Boolean),
        sa.column("owner_id", sa.String),
        sa.column("created_at", sa.DateTime(timezone=True)),
    )
    now = datetime.now(UTC)
    op.bulk_insert(
        accounts,
        [
            {
                "account_id": account_id,
                "name": name,
                "skeleton": skeleton,
                "password_hash": None,
                "bot": True,
                "owner_id": None,
                "created_at": now,
            }
            for account_id, name, skeleton in SYSTEM_ACCOUNTS
        ],
    )


def downgrade() -> None:
    """Drop the three tables, the column and the system accounts."""
    op.execute(
        sa.text("DELETE FROM accounts WHERE account_id IN ('ai-easy', 'ai-normal', 'ai-hard')")
    )
    op.drop_table("role_ratings")
    op.drop_index("ix_rating_points_graph", table_name="rating_points")
    op.drop_table("rating_points")
    op.drop_index("ix_ratings_leaderboard", table_name="ratings")
    op.drop_table("ratings")
    with op.batch_alter_table("game_records") as batch:
        batch.drop_column("rated")
