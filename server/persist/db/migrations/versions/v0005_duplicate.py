"""Duplicate sets and their results per board and account, and the shared server
secrets their seeds derive from (issue 56).

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create ``server_secrets``, ``duplicate_sets`` and ``duplicate_results`` (as the
    models)."""
    op.create_table(
        "server_secrets",
        sa.Column("name", sa.String(32), nullable=False),
        sa.Column("value", sa.String(128), nullable=False),
        sa.PrimaryKeyConstraint("name", name="pk_server_secrets"),
    )
    op.create_table(
        "duplicate_sets",
        sa.Column("set_id", sa.String(40), nullable=False),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("level", sa.String(16), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("boards", sa.Integer(), nullable=False),
        sa.Column("opens_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("closes_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("creator", sa.String(32), nullable=True),
        sa.ForeignKeyConstraint(
            ["creator"],
            ["accounts.account_id"],
            name="fk_duplicate_sets_creator",
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("set_id", name="pk_duplicate_sets"),
    )
    op.create_index("ix_duplicate_sets_closes_at", "duplicate_sets", ["closes_at"])
    op.create_table(
        "duplicate_results",
        sa.Column("set_id", sa.String(40), nullable=False),
        sa.Column("board", sa.Integer(), nullable=False),
        sa.Column("account_id", sa.String(32), nullable=False),
        sa.Column("score", sa.Integer(), nullable=False),
        sa.Column("record_id", sa.String(80), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["set_id"],
            ["duplicate_sets.set_id"],
            name="fk_duplicate_results_set_id",
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["accounts.account_id"],
            name="fk_duplicate_results_account_id",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("set_id", "board", "account_id", name="pk_duplicate_results"),
    )


def downgrade() -> None:
    """Drop both tables."""
    op.drop_table("duplicate_results")
    op.drop_index("ix_duplicate_sets_closes_at", table_name="duplicate_sets")
    op.drop_table("duplicate_sets")
    op.drop_table("server_secrets")
