"""Analyses of finished matches (issue 53): one a match, kept once made.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-08
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "analyses",
        sa.Column("table_id", sa.String(24), sa.ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("status", sa.String(8), nullable=False),
        sa.Column("done", sa.Integer, nullable=False),
        sa.Column("total", sa.Integer, nullable=False),
        sa.Column("touched", sa.Float, nullable=False),
        sa.Column("body", sa.Text),
        sa.Column("maker", sa.String(16), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("analyses")
