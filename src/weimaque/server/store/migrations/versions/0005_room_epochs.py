"""Fencing: each room's epoch, the number of the process that owns it now (docs/scale.md).

A process of a cluster that takes a room's lease bumps ``rooms.epoch`` before it restores the
room, and every write of the room names the epoch it was made under: the store refuses, in the
write's own transaction, a write whose epoch is not the room's (a newer owner exists).

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("rooms", sa.Column("epoch", sa.BigInteger, nullable=False, server_default="1"))


def downgrade() -> None:
    with op.batch_alter_table("rooms") as batch:
        batch.drop_column("epoch")
