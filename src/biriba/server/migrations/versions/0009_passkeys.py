"""Passkeys (issue 52): an account's WebAuthn credentials, and the challenges given and not yet answered.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "passkeys",
        sa.Column("id", sa.String(1400), primary_key=True),
        sa.Column("account", sa.String(24), sa.ForeignKey("accounts.id", ondelete="CASCADE"), nullable=False),
        sa.Column("public_key", sa.LargeBinary, nullable=False),
        sa.Column("sign_count", sa.Integer, nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("used", sa.Float),
    )
    op.create_index("passkeys_by_account", "passkeys", ["account"])
    op.create_table(
        "passkey_challenges",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("challenge", sa.String(100), nullable=False),
        sa.Column("account", sa.String(24), sa.ForeignKey("accounts.id", ondelete="CASCADE")),
        sa.Column("expires", sa.Float, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("passkey_challenges")
    op.drop_index("passkeys_by_account", "passkeys")
    op.drop_table("passkeys")
