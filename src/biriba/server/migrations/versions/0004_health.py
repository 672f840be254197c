"""A row that ``/healthz`` writes, to know that the store can still commit a write (not only answer a read).

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    health = op.create_table(
        "health",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("checked", sa.Float, nullable=False),
    )
    op.bulk_insert(health, [{"id": 1, "checked": 0.0}])


def downgrade() -> None:
    op.drop_table("health")
