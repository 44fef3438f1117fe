"""The store knows the game (docs/protocol.md §7.3, §7.5; docs/new-game.md).

- ``game``: the id of the game (``weimaque.games.registry``) on ``rooms``, ``matches``,
  ``hand_seats``, ``match_seats`` and ``clubs`` (a club's default game, of its ``rules``).
  Every row an older database holds is of 偎麻雀: ``'maque'``.
- ``variant``: the preset of the hand's (or match's) room on ``hand_seats`` and ``match_seats``,
  filled from the ``rules`` of its match (a room's ``matches`` row carries its preset already,
  a club its ``rules``).
- Indices for the per-game reads: a player's matches of one game (keyset, newest first), a
  player's hands of one game (totals), a club's hands of one game (the leaderboard).

Revision ID: 0008
Revises: 0007
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

#: The game of every row written before the store knew games.
OLD_GAME = "maque"
TABLES = ("rooms", "matches", "hand_seats", "match_seats", "clubs")
INDICES = (
    ("match_seats_player_game", "match_seats", ["player_id", "game", "last", "room_id", "match"]),
    ("hand_seats_player_game", "hand_seats", ["player_id", "game", "finished"]),
    ("hand_seats_club_game", "hand_seats", ["club_id", "game", "finished"]),
)


def upgrade() -> None:
    for table in TABLES:
        op.add_column(
            table,
            sa.Column("game", sa.Text, nullable=False, server_default=sa.text(f"'{OLD_GAME}'")),
        )
    for name, table, columns in INDICES:
        op.create_index(name, table, columns)
    for table in ("hand_seats", "match_seats"):
        op.add_column(table, sa.Column("variant", sa.Text))
        op.execute(
            f"UPDATE {table} SET variant = "
            f"(SELECT rules FROM matches WHERE matches.room_id = {table}.room_id)"
        )


def downgrade() -> None:
    for name, table, _ in INDICES:
        op.drop_index(name, table_name=table)
    for table in TABLES:
        with op.batch_alter_table(table) as batch:
            batch.drop_column("game")
            if table in ("hand_seats", "match_seats"):
                batch.drop_column("variant")
