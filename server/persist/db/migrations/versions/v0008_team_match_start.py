"""When a team match started (issue 56): its absent members' wait counts from it on
every process, also one that started after the match did.

Revision ID: 0008
Revises: 0007
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add ``team_matches.started_at`` (null: forming, or started before this revision)."""
    op.add_column(
        "team_matches", sa.Column("started_at", sa.DateTime(timezone=True), nullable=True)
    )


def downgrade() -> None:
    """Drop ``team_matches.started_at``."""
    op.drop_column("team_matches", "started_at")
