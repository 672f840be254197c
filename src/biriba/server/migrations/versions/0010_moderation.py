"""Blocks, reports and bans (issue 52): a player's blocks and reports, and an operator's ban of an account.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # ALTER TABLE ... ADD COLUMN on both stores: never SQLite's batch copy, whose DROP of the old table would
    # cascade to every session, seat and rating of the accounts
    op.add_column("accounts", sa.Column("banned", sa.Float))
    op.add_column("accounts", sa.Column("ban_reason", sa.String(500)))
    op.create_table(
        "blocks",
        sa.Column("account", sa.String(24), sa.ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("blocked", sa.String(24), sa.ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("since", sa.Float, nullable=False),
    )
    op.create_table(
        "reports",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("reporter", sa.String(24), sa.ForeignKey("accounts.id", ondelete="SET NULL")),
        sa.Column("reported", sa.String(24), sa.ForeignKey("accounts.id", ondelete="CASCADE"), nullable=False),
        sa.Column("table_id", sa.String(24)),
        sa.Column("reason", sa.String(500), nullable=False),
        sa.Column("made", sa.Float, nullable=False),
        sa.Column("handled", sa.Float),
    )


def downgrade() -> None:
    op.drop_table("reports")
    op.drop_table("blocks")
    op.drop_column("accounts", "ban_reason")  # ALTER TABLE ... DROP COLUMN: SQLite 3.35 or later
    op.drop_column("accounts", "banned")
