"""Tournaments: the tournaments, their entries and their rounds' tables (issue 56).

Revision ID: 0006
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create ``tournaments``, ``tournament_entries`` and ``tournament_tables`` (as the models)."""
    op.create_table(
        "tournaments",
        sa.Column("tournament_id", sa.String(32), nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("starts_us", sa.BigInteger(), nullable=False),
        sa.Column("rounds", sa.Integer(), nullable=True),
        sa.Column("duration_s", sa.Integer(), nullable=True),
        sa.Column("turn_timer", sa.Float(), nullable=True),
        sa.Column("level", sa.String(16), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("secret", sa.String(64), nullable=False),
        sa.Column("created_by", sa.String(32), nullable=True),
        sa.Column("created_us", sa.BigInteger(), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("finished_us", sa.BigInteger(), nullable=True),
        sa.ForeignKeyConstraint(
            ["created_by"],
            ["accounts.account_id"],
            name="fk_tournaments_created_by",
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("tournament_id", name="pk_tournaments"),
    )
    op.create_index("ix_tournaments_status", "tournaments", ["status"])
    op.create_table(
        "tournament_entries",
        sa.Column("tournament_id", sa.String(32), nullable=False),
        sa.Column("account_id", sa.String(32), nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("entry_no", sa.Integer(), nullable=False),
        sa.Column("withdrawn", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["tournaments.tournament_id"],
            name="fk_tournament_entries_tournament_id",
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["accounts.account_id"],
            name="fk_tournament_entries_account_id",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("tournament_id", "account_id", name="pk_tournament_entries"),
    )
    op.create_table(
        "tournament_tables",
        sa.Column("tournament_id", sa.String(32), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("table_id", sa.String(64), nullable=False),
        sa.Column("seats", sa.JSON(), nullable=False),
        sa.Column("created_us", sa.BigInteger(), nullable=False),
        sa.Column("results", sa.JSON(), nullable=True),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["tournaments.tournament_id"],
            name="fk_tournament_tables_tournament_id",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("tournament_id", "round", "number", name="pk_tournament_tables"),
        sa.UniqueConstraint("table_id", name="uq_tournament_tables_table_id"),
    )


def downgrade() -> None:
    """Drop the three tables."""
    op.drop_table("tournament_tables")
    op.drop_table("tournament_entries")
    op.drop_index("ix_tournaments_status", table_name="tournaments")
    op.drop_table("tournaments")
