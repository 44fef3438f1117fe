"""The figures know their table (docs/protocol.md §7.3, §7.5).

- ``persons``: how many persons the table of the hand (or match) had, on ``hand_seats`` and
  ``match_seats``: 2 at a table of two (RULES §2.5), 3 at the table of three, 4 where four
  persons take turns at its three seats (RULES §2.1.1). With ``variant`` (the preset) it is
  the contest a hand counts in: 全名堂 at a table of two and 安乡 at a table of three are not
  summed into one figure unless every variant is asked for.
  A hand has one row of ``hand_seats`` per person at its table, so an older database's rows
  are filled with their hand's count of rows, a match's with the most of its hands'.

Revision ID: 0009
Revises: 0008
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    for table in ("hand_seats", "match_seats"):
        op.add_column(table, sa.Column("persons", sa.Integer))
    op.execute(
        "UPDATE hand_seats SET persons = (SELECT COUNT(*) FROM hand_seats x "
        "WHERE x.room_id = hand_seats.room_id AND x.number = hand_seats.number)"
    )
    op.execute(
        "UPDATE match_seats SET persons = (SELECT MAX(h.persons) FROM hand_seats h "
        "WHERE h.room_id = match_seats.room_id AND h.match = match_seats.match)"
    )


def downgrade() -> None:
    for table in ("hand_seats", "match_seats"):
        with op.batch_alter_table(table) as batch:
            batch.drop_column("persons")
