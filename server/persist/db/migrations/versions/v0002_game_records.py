"""Game records: finished games, their seats, and the per-account counts of profiles.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create ``game_records``, ``game_seats`` and ``profile_counts`` (as the models)."""
    op.create_table(
        "game_records",
        sa.Column("game_id", sa.String(80), nullable=False),
        sa.Column("table_id", sa.String(64), nullable=False),
        sa.Column("game_no", sa.Integer(), nullable=False),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("private", sa.Boolean(), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("log", sa.JSON(), nullable=False),
        sa.Column("result", sa.JSON(), nullable=False),
        sa.Column("finished_us", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("game_id", name="pk_game_records"),
    )
    op.create_table(
        "game_seats",
        sa.Column("game_id", sa.String(80), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("account_id", sa.String(32), nullable=True),
        sa.Column("name", sa.String(64), nullable=True),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("level", sa.String(32), nullable=True),
        sa.Column("left", sa.Boolean(), nullable=False),
        sa.Column("score", sa.BigInteger(), nullable=False),
        sa.Column("won", sa.Boolean(), nullable=False),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("finished_us", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"],
            ["game_records.game_id"],
            name="fk_game_seats_game_id",
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["accounts.account_id"],
            name="fk_game_seats_account_id",
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("game_id", "seat", name="pk_game_seats"),
    )
    op.create_index(
        "ix_game_seats_history", "game_seats", ["account_id", "finished_us", "game_id", "seat"]
    )
    op.create_index(
        "ix_game_seats_history_game",
        "game_seats",
        ["account_id", "game", "finished_us", "game_id", "seat"],
    )
    op.create_table(
        "profile_counts",
        sa.Column("account_id", sa.String(32), nullable=False),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("played", sa.Integer(), nullable=False),
        sa.Column("won", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["accounts.account_id"],
            name="fk_profile_counts_account_id",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("account_id", "game", name="pk_profile_counts"),
    )


def downgrade() -> None:
    """Drop the three tables."""
    op.drop_table("profile_counts")
    op.drop_index("ix_game_seats_history_game", table_name="game_seats")
    op.drop_index("ix_game_seats_history", table_name="game_seats")
    op.drop_table("game_seats")
    op.drop_table("game_records")
