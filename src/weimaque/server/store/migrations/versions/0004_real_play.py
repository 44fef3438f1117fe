"""Hands that count, and six-digit room numbers (docs/protocol.md §7.4, §7.5, §1).

``hand_seats`` says of each finished hand whether a person played it (``played``: at least one
person's seat was not under 托管 from its deal to its end; a hand nobody played enters no 战绩
and no board) and whether it counts on a 亲友圈's leaderboard (``ranked``: played by at least two
people, at a table without a chosen seed). The hands of an older file are marked from their rows
and their room's options: a practice room (a chosen seed), or fewer than two seats held by
people, ranks nothing. ``room_numbers`` gives each room a six-digit number to read out; a
number whose room is over is given again.

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import json

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("hand_seats") as batch:
        batch.add_column(sa.Column("played", sa.Integer, nullable=False, server_default="1"))
        batch.add_column(sa.Column("ranked", sa.Integer, nullable=False, server_default="1"))
    op.create_table(
        "room_numbers",
        sa.Column("number", sa.Text, primary_key=True),
        sa.Column("room_id", sa.Text, nullable=False, unique=True),
    )
    bind = op.get_bind()
    # Fewer than two people at the hand's table: a player against bots ranks nothing.
    bind.execute(
        sa.text(
            "UPDATE hand_seats SET ranked = 0 WHERE (SELECT COUNT(*) FROM hand_seats h "
            "WHERE h.room_id = hand_seats.room_id AND h.number = hand_seats.number "
            "AND h.bot IS NULL) < 2"
        )
    )
    for room_id, config in bind.execute(sa.text("SELECT id, config FROM rooms")).all():
        try:
            seed = json.loads(config).get("seed")
        except (ValueError, AttributeError):
            seed = None
        if seed is not None:  # a practice room
            bind.execute(
                sa.text("UPDATE hand_seats SET ranked = 0 WHERE room_id = :room"), {"room": room_id}
            )


def downgrade() -> None:
    op.drop_table("room_numbers")
    with op.batch_alter_table("hand_seats") as batch:
        batch.drop_column("ranked")
        batch.drop_column("played")
