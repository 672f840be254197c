"""Quick play's waiting list (issue 52): the players waiting for a table, on any process.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "quick_queue",
        sa.Column("account", sa.String(24), sa.ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("name", sa.String(120), nullable=False),
        sa.Column("family", sa.String(32), nullable=False),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("bots", sa.Integer, nullable=False),
        sa.Column("wait", sa.Float, nullable=False),
        sa.Column("since", sa.Float, nullable=False),
        sa.Column("table_id", sa.String(24)),
        sa.Column("seat", sa.Integer),
    )


def downgrade() -> None:
    op.drop_table("quick_queue")
