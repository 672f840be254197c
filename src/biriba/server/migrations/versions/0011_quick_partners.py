"""Quick play in partnerships (issue 52): the friend a waiting player queues with.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("quick_queue", sa.Column("partner", sa.String(24)))


def downgrade() -> None:
    op.drop_column("quick_queue", "partner")
