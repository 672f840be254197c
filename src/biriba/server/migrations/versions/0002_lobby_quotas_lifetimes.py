"""What the lobby, the quotas and the tables' lifetimes read without loading a table.

``creator`` (a hash of the address that made the table: open tables per
address), ``claimed`` (a person has sat: unclaimed tables expire),
``touched`` (the last activity: the lobby's order and idle expiry), and
the match's ``deals`` and ``totals``; an action's ``by`` says who played a
person's turn for them (the turn clock, or the stand-in of an absent
player).

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("tables") as batch:
        batch.add_column(sa.Column("creator", sa.String(64), nullable=True))
        batch.add_column(sa.Column("claimed", sa.Integer, nullable=False, server_default="0"))
        batch.add_column(sa.Column("touched", sa.Float, nullable=False, server_default="0"))
        batch.add_column(sa.Column("deals", sa.Integer, nullable=False, server_default="0"))
        batch.add_column(sa.Column("totals", sa.Text, nullable=False, server_default="[]"))
    op.execute("UPDATE tables SET touched = created")
    op.execute("""UPDATE tables SET claimed = 1 WHERE seats LIKE '%"token_hash": "%'""")
    op.create_index("tables_status_touched", "tables", ["status", "touched"])
    op.create_index("tables_creator_status", "tables", ["creator", "status"])
    with op.batch_alter_table("actions") as batch:
        batch.add_column(sa.Column("by", sa.String(8), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("actions") as batch:
        batch.drop_column("by")
    op.drop_index("tables_creator_status", "tables")
    op.drop_index("tables_status_touched", "tables")
    with op.batch_alter_table("tables") as batch:
        for column in ("totals", "deals", "touched", "claimed", "creator"):
            batch.drop_column(column)
