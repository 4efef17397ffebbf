"""Moderation: mutes and blocks between accounts, reports, bans.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create ``relations``, ``reports`` and ``bans`` (as :mod:`server.persist.db.models`)."""
    op.create_table(
        "relations",
        sa.Column("account_id", sa.String(32), nullable=False),
        sa.Column("other_id", sa.String(32), nullable=False),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["accounts.account_id"],
            name="fk_relations_account_id",
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["other_id"],
            ["accounts.account_id"],
            name="fk_relations_other_id",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("account_id", "other_id", "kind", name="pk_relations"),
    )
    op.create_table(
        "reports",
        sa.Column("report_id", sa.String(32), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("reporter_player", sa.String(32), nullable=False),
        sa.Column("reporter_account", sa.String(32), nullable=True),
        sa.Column("reporter_name", sa.String(64), nullable=False),
        sa.Column("target_player", sa.String(32), nullable=False),
        sa.Column("target_account", sa.String(32), nullable=True),
        sa.Column("target_name", sa.String(64), nullable=False),
        sa.Column("table_id", sa.String(64), nullable=True),
        sa.Column("game_no", sa.Integer(), nullable=True),
        sa.Column("reason", sa.String(500), nullable=False),
        sa.Column("chat", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("report_id", name="pk_reports"),
    )
    op.create_index("ix_reports_created_at", "reports", ["created_at"])
    op.create_table(
        "bans",
        sa.Column("ban_id", sa.String(32), nullable=False),
        sa.Column("account_id", sa.String(32), nullable=True),
        sa.Column("account_name", sa.String(64), nullable=True),
        sa.Column("address", sa.String(64), nullable=True),
        sa.Column("until", sa.DateTime(timezone=True), nullable=False),
        sa.Column("reason", sa.String(500), nullable=False),
        sa.Column("banned_by", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("lifted_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("lifted_by", sa.String(64), nullable=True),
        sa.PrimaryKeyConstraint("ban_id", name="pk_bans"),
    )
    op.create_index("ix_bans_account_id", "bans", ["account_id"])


def downgrade() -> None:
    """Drop the three tables."""
    op.drop_index("ix_bans_account_id", table_name="bans")
    op.drop_table("bans")
    op.drop_index("ix_reports_created_at", table_name="reports")
    op.drop_table("reports")
    op.drop_table("relations")
