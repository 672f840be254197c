"""Which server process drives each table, until when, and its fencing epoch.

``owner`` names the process (its node id) that holds the table's lease,
``lease_until`` is when the lease runs out unless renewed (seconds since the
epoch), and ``epoch`` counts the takeovers: each write of a table's moves
names the epoch its writer holds, and the store refuses a write whose epoch
is not the table's (docs/deploy.md, "Ownership and fencing").

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("tables") as batch:
        batch.add_column(sa.Column("owner", sa.String(40), nullable=True))
        batch.add_column(sa.Column("lease_until", sa.Float, nullable=False, server_default="0"))
        batch.add_column(sa.Column("epoch", sa.Integer, nullable=False, server_default="0"))
    op.create_index("tables_owner", "tables", ["owner"])


def downgrade() -> None:
    op.drop_index("tables_owner", "tables")
    with op.batch_alter_table("tables") as batch:
        for column in ("epoch", "lease_until", "owner"):
            batch.drop_column(column)
