"""Seats bound to accounts (issue 52): which account holds which seat, to find a player's tables and matches.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "players",
        sa.Column("table_id", sa.String(24), sa.ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("account", sa.String(24), sa.ForeignKey("accounts.id", ondelete="CASCADE"), nullable=False),
    )
    op.create_index("players_by_account", "players", ["account"])


def downgrade() -> None:
    op.drop_table("players")
