"""Passkeys a player controls, and ceremonies every process of a cluster shares.

``passkeys`` gains a ``name`` (the player's, or the browser's label at registration) and
``last_used`` (the last sign-in with it); ``ceremonies`` holds a WebAuthn ceremony's challenge
under its ticket until it is answered once or expires, so that whichever process answers each
step of a sign-in finds it (docs/protocol.md §7.1, docs/scale.md).

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("passkeys", sa.Column("name", sa.Text, nullable=False, server_default=""))
    op.add_column("passkeys", sa.Column("last_used", sa.Float, nullable=True))
    op.create_table(
        "ceremonies",
        sa.Column("ticket", sa.Text, primary_key=True),
        sa.Column("challenge", sa.LargeBinary, nullable=False),
        sa.Column("player_id", sa.Text, nullable=True),
        sa.Column("expires", sa.Float, nullable=False),
    )
    op.create_index("ceremonies_expires", "ceremonies", ["expires"])


def downgrade() -> None:
    op.drop_table("ceremonies")
    op.drop_column("passkeys", "last_used")
    op.drop_column("passkeys", "name")
