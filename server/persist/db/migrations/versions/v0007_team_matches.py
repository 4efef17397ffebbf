"""Team duplicate matches: the matches, their rosters, their boards' tables and the
results per board and table (issue 56).

Revision ID: 0007
Revises: 0006
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create ``team_matches``, ``team_match_members``, ``team_match_tables`` and
    ``team_match_results`` (as the models)."""
    op.create_table(
        "team_matches",
        sa.Column("match_id", sa.String(40), nullable=False),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("level", sa.String(16), nullable=False),
        sa.Column("boards", sa.Integer(), nullable=False),
        sa.Column("private", sa.Boolean(), nullable=False),
        sa.Column("auto_start", sa.Boolean(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("creator", sa.String(32), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("imps_a", sa.Integer(), nullable=False),
        sa.Column("imps_b", sa.Integer(), nullable=False),
        sa.Column("boards_done", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["creator"],
            ["accounts.account_id"],
            name="fk_team_matches_creator",
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("match_id", name="pk_team_matches"),
    )
    op.create_index("ix_team_matches_status", "team_matches", ["status"])
    op.create_table(
        "team_match_members",
        sa.Column("match_id", sa.String(40), nullable=False),
        sa.Column("team", sa.String(1), nullable=False),
        sa.Column("slot", sa.Integer(), nullable=False),
        sa.Column("account_id", sa.String(32), nullable=False),
        sa.ForeignKeyConstraint(
            ["match_id"],
            ["team_matches.match_id"],
            name="fk_team_match_members_match_id",
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["accounts.account_id"],
            name="fk_team_match_members_account_id",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("match_id", "team", "slot", name="pk_team_match_members"),
        sa.UniqueConstraint("match_id", "account_id", name="uq_team_match_members_account"),
    )
    op.create_table(
        "team_match_tables",
        sa.Column("match_id", sa.String(40), nullable=False),
        sa.Column("board", sa.Integer(), nullable=False),
        sa.Column("table_no", sa.Integer(), nullable=False),
        sa.Column("table_id", sa.String(64), nullable=False),
        sa.Column("claimed_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["match_id"],
            ["team_matches.match_id"],
            name="fk_team_match_tables_match_id",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("match_id", "board", "table_no", name="pk_team_match_tables"),
    )
    op.create_table(
        "team_match_results",
        sa.Column("match_id", sa.String(40), nullable=False),
        sa.Column("board", sa.Integer(), nullable=False),
        sa.Column("table_no", sa.Integer(), nullable=False),
        sa.Column("scores", sa.JSON(), nullable=False),
        sa.Column("record_id", sa.String(80), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["match_id"],
            ["team_matches.match_id"],
            name="fk_team_match_results_match_id",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("match_id", "board", "table_no", name="pk_team_match_results"),
    )


def downgrade() -> None:
    """Drop the four tables."""
    op.drop_table("team_match_results")
    op.drop_table("team_match_tables")
    op.drop_table("team_match_members")
    op.drop_index("ix_team_matches_status", table_name="team_matches")
    op.drop_table("team_matches")
