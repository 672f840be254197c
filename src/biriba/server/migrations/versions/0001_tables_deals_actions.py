"""The store's first schema: tables, their deals and their actions.

Revision ID: 0001
Revises:
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "tables",
        sa.Column("id", sa.String(24), primary_key=True),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("rules", sa.Text, nullable=False),
        sa.Column("settings", sa.Text, nullable=False),
        sa.Column("seats", sa.Text, nullable=False),
        sa.Column("seed", sa.String(64), nullable=False),
        sa.Column("status", sa.String(8), nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
    )
    op.create_index("tables_status_created", "tables", ["status", "created"])
    op.create_table(
        "deals",
        sa.Column("table_id", sa.String(24), sa.ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("number", sa.Integer, primary_key=True),
        sa.Column("dealer", sa.Integer, nullable=False),
        sa.Column("deck", sa.Text, nullable=False),
    )
    op.create_table(
        "actions",
        sa.Column("table_id", sa.String(24), sa.ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("seq", sa.Integer, primary_key=True),
        sa.Column("deal", sa.Integer, nullable=False),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("action", sa.Text, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("actions")
    op.drop_table("deals")
    op.drop_index("tables_status_created", "tables")
    op.drop_table("tables")
