"""Bounds on what one player or address can make the store keep, and an index under every scan.

- ``club_invites`` gains a public ``id`` (an admin lists and revokes invitations by it), when
  it was made and by whom, and its uses: ``max_uses`` (1 by default) and ``uses``. The
  invitations of an older file were good for any number of joins: they keep ``max_uses`` 100
  and are dated 0, older than any removal.
- ``club_removed``: who was removed from a club and when; an invitation made before that
  brings them back no more (docs/protocol.md §7.5).
- ``match_seats``: one row per seat and holder of every match, summed from the played hands of
  ``hand_seats`` (hands, points, first and last hand, whether all ranked): 战绩 is one indexed
  query over it (§7.3). Filled from the hands already finished.
- Indices for the scans of the writer and the readers: expired invitations, transfer codes
  and devices (by ``expires`` / ``last_seen``), a club's invitations and tables, a player's
  transfer codes, ceremonies and devices by use, the rooms not over.

Revision ID: 0007
Revises: 0006
"""

from __future__ import annotations

import secrets

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

#: An older invitation's uses: it was good for any number of joins (the most one can have now).
OLD_INVITE_USES = 100


def upgrade() -> None:
    op.add_column("club_invites", sa.Column("id", sa.Text))
    op.add_column(
        "club_invites", sa.Column("created", sa.Float, nullable=False, server_default="0")
    )
    op.add_column("club_invites", sa.Column("created_by", sa.Text))
    op.add_column(
        "club_invites",
        sa.Column("max_uses", sa.Integer, nullable=False, server_default=str(OLD_INVITE_USES)),
    )
    op.add_column("club_invites", sa.Column("uses", sa.Integer, nullable=False, server_default="0"))
    bind = op.get_bind()
    for (hash_,) in bind.execute(sa.text("SELECT hash FROM club_invites")).all():
        bind.execute(
            sa.text("UPDATE club_invites SET id = :id WHERE hash = :hash"),
            {"id": secrets.token_urlsafe(9), "hash": hash_},
        )
    op.create_index("club_invites_id", "club_invites", ["id"], unique=True)
    op.create_index("club_invites_club", "club_invites", ["club_id", "expires"])
    op.create_index("club_invites_expires", "club_invites", ["expires"])
    op.create_table(
        "club_removed",
        sa.Column("club_id", sa.Text, sa.ForeignKey("clubs.id"), nullable=False),
        sa.Column("player_id", sa.Text, sa.ForeignKey("players.id"), nullable=False),
        sa.Column("removed", sa.Float, nullable=False),
        sa.PrimaryKeyConstraint("club_id", "player_id"),
    )
    op.create_index("transfers_player", "transfers", ["player_id"])
    op.create_index("transfers_expires", "transfers", ["expires"])
    op.create_index("player_keys_seen", "player_keys", ["player_id", "last_seen", "id"])
    op.create_index("player_keys_last_seen", "player_keys", ["last_seen"])
    op.create_index("ceremonies_player", "ceremonies", ["player_id"])
    op.create_index("rooms_club", "rooms", ["club_id"])
    op.create_index(
        "rooms_live",
        "rooms",
        ["created"],
        sqlite_where=sa.text("status != 'over'"),
        postgresql_where=sa.text("status != 'over'"),
    )
    op.create_table(
        "match_seats",
        sa.Column("room_id", sa.Text, sa.ForeignKey("rooms.id"), nullable=False),
        sa.Column("match", sa.Integer, nullable=False),
        sa.Column("seat", sa.Integer, nullable=False),
        # The seat's player, or '' for a guest or a bot (a key column cannot be NULL).
        sa.Column("holder", sa.Text, nullable=False),
        sa.Column("player_id", sa.Text, sa.ForeignKey("players.id")),
        sa.Column("name", sa.Text),
        sa.Column("bot", sa.Text),
        sa.Column("club_id", sa.Text),
        sa.Column("started", sa.Float, nullable=False),
        sa.Column("last", sa.Float, nullable=False),
        sa.Column("hands", sa.Integer, nullable=False),
        sa.Column("total", sa.Integer, nullable=False),
        sa.Column("ranked", sa.Integer, nullable=False),
        sa.PrimaryKeyConstraint("room_id", "match", "seat", "holder"),
    )
    op.create_index("match_seats_player", "match_seats", ["player_id", "last", "room_id", "match"])
    bind.execute(
        sa.text(
            "INSERT INTO match_seats (room_id, match, seat, holder, player_id, name, bot, "
            "club_id, started, last, hands, total, ranked) SELECT room_id, match, seat, "
            "COALESCE(player_id, ''), MAX(player_id), MAX(name), MAX(bot), MAX(club_id), "
            "MIN(finished), MAX(finished), COUNT(*), SUM(points), MIN(ranked) FROM hand_seats "
            "WHERE played = 1 GROUP BY room_id, match, seat, COALESCE(player_id, '')"
        )
    )


def downgrade() -> None:
    op.drop_table("match_seats")
    for index, table in (
        ("rooms_live", "rooms"),
        ("rooms_club", "rooms"),
        ("ceremonies_player", "ceremonies"),
        ("player_keys_last_seen", "player_keys"),
        ("player_keys_seen", "player_keys"),
        ("transfers_expires", "transfers"),
        ("transfers_player", "transfers"),
    ):
        op.drop_index(index, table_name=table)
    op.drop_table("club_removed")
    op.drop_index("club_invites_expires", table_name="club_invites")
    op.drop_index("club_invites_club", table_name="club_invites")
    op.drop_index("club_invites_id", table_name="club_invites")
    with op.batch_alter_table("club_invites") as batch:
        for column in ("uses", "max_uses", "created_by", "created", "id"):
            batch.drop_column(column)
