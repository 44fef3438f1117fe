"""Players, their devices, 亲友圈, the seats of every finished hand and 回放码.

``hand_seats`` holds one row per seat of every finished hand (who sat there: a player, a name,
a bot's kind; the points, a win, a 臭, the 息 of a win): 战绩 and leaderboards are sums over it.
The hands of an older file get their rows from their records, the names and bots from the
room's seats (their players are guests).

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import hashlib
import json
import secrets
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def _pk(*names: str) -> sa.PrimaryKeyConstraint:
    return sa.PrimaryKeyConstraint(*names)


def upgrade() -> None:
    op.create_table(
        "players",
        sa.Column("id", sa.Text, primary_key=True),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("created", sa.Float, nullable=False),
    )
    op.create_table(
        "player_keys",
        sa.Column("id", sa.Text, primary_key=True),
        sa.Column("player_id", sa.Text, sa.ForeignKey("players.id"), nullable=False),
        sa.Column("hash", sa.Text, nullable=False, unique=True),
        sa.Column("label", sa.Text, nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("last_seen", sa.Float, nullable=False),
    )
    op.create_index("player_keys_player", "player_keys", ["player_id"])
    op.create_table(
        "transfers",
        sa.Column("hash", sa.Text, primary_key=True),
        sa.Column("player_id", sa.Text, sa.ForeignKey("players.id"), nullable=False),
        sa.Column("expires", sa.Float, nullable=False),
    )
    op.create_table(
        "clubs",
        sa.Column("id", sa.Text, primary_key=True),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("owner", sa.Text, sa.ForeignKey("players.id"), nullable=False),
        sa.Column("approval", sa.Integer, nullable=False, server_default="0"),
        sa.Column("rules", sa.Text, nullable=False),
        sa.Column("created", sa.Float, nullable=False),
    )
    op.create_table(
        "club_members",
        sa.Column("club_id", sa.Text, sa.ForeignKey("clubs.id"), nullable=False),
        sa.Column("player_id", sa.Text, sa.ForeignKey("players.id"), nullable=False),
        sa.Column("role", sa.Text, nullable=False),
        sa.Column("joined", sa.Float, nullable=False),
        _pk("club_id", "player_id"),
    )
    op.create_index("club_members_player", "club_members", ["player_id"])
    op.create_table(
        "club_invites",
        sa.Column("hash", sa.Text, primary_key=True),
        sa.Column("club_id", sa.Text, sa.ForeignKey("clubs.id"), nullable=False),
        sa.Column("expires", sa.Float, nullable=False),
    )
    op.create_table(
        "replay_codes",
        sa.Column("hash", sa.Text, primary_key=True),
        sa.Column("code", sa.Text, nullable=False),
        sa.Column("room_id", sa.Text, sa.ForeignKey("rooms.id"), nullable=False),
        sa.Column("number", sa.Integer, nullable=False),
        sa.UniqueConstraint("room_id", "number"),
    )
    op.create_table(
        "hand_seats",
        sa.Column("room_id", sa.Text, sa.ForeignKey("rooms.id"), nullable=False),
        sa.Column("number", sa.Integer, nullable=False),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("match", sa.Integer, nullable=False),
        sa.Column("player_id", sa.Text, sa.ForeignKey("players.id")),
        sa.Column("name", sa.Text),
        sa.Column("bot", sa.Text),
        sa.Column("club_id", sa.Text),
        sa.Column("finished", sa.Float, nullable=False),
        sa.Column("points", sa.Integer, nullable=False),
        sa.Column("won", sa.Integer, nullable=False),
        sa.Column("chou", sa.Integer, nullable=False),
        sa.Column("xi", sa.Integer, nullable=False),
        _pk("room_id", "number", "seat"),
    )
    op.create_index("hand_seats_player", "hand_seats", ["player_id", "finished"])
    op.create_index("hand_seats_club", "hand_seats", ["club_id", "finished"])
    op.add_column("rooms", sa.Column("club_id", sa.Text))
    _fill_hand_seats()


#: The 回放码 alphabet (no 0/O, 1/I/L) and length, as the server makes them.
_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"


def _fill_hand_seats() -> None:
    """The rows of the hands finished before players existed (every seat a guest's), and a
    回放码 for each of those hands."""
    bind = op.get_bind()
    names: dict[str, list[tuple[Any, Any]]] = {}
    for room_id, seats in bind.execute(sa.text("SELECT id, seats FROM rooms")).all():
        listed = [s if isinstance(s, dict) else {} for s in json.loads(seats).get("seats", [])]
        names[room_id] = [
            (s.get("name"), s.get("bot") if s.get("kind") == "bot" else None) for s in listed
        ]
    hands = bind.execute(sa.text("SELECT room_id, number, match, finished, record FROM hands"))
    for room_id, number, match, finished, text in hands.all():
        record = json.loads(text)
        code = "".join(secrets.choice(_ALPHABET) for _ in range(8))
        record["replay_code"] = code
        bind.execute(
            sa.text("UPDATE hands SET record = :record WHERE room_id = :room AND number = :n"),
            {"record": json.dumps(record, ensure_ascii=False), "room": room_id, "n": number},
        )
        bind.execute(
            sa.text(
                "INSERT INTO replay_codes (hash, code, room_id, number) "
                "VALUES (:hash, :code, :room, :n)"
            ),
            {
                "hash": hashlib.sha256(code.encode()).hexdigest(),
                "code": code,
                "room": room_id,
                "n": number,
            },
        )
        for row in _seat_rows(room_id, number, match, finished, record):
            seat = int(row["seat"])
            known = names.get(room_id, [])
            row["name"], row["bot"] = known[seat] if seat < len(known) else (None, None)
            bind.execute(
                sa.text(
                    "INSERT INTO hand_seats (room_id, number, seat, match, player_id, name, bot, "
                    "club_id, finished, points, won, chou, xi) VALUES (:room_id, :number, "
                    ":seat, :match, NULL, :name, :bot, NULL, :finished, :points, :won, :chou, "
                    ":xi)"
                ),
                row,
            )


def _seat_rows(
    room_id: str, number: int, match: int, finished: float, record: dict[str, Any]
) -> list[dict[str, Any]]:
    """The three seats' figures of one finished hand record (frozen here: the store has its
    own, which may change)."""
    result = record.get("result") or {}
    winner = result.get("winner")
    points = (record.get("settlement") or {}).get("seats") or [0, 0, 0]
    return [
        {
            "room_id": room_id,
            "number": number,
            "seat": seat,
            "match": match,
            "finished": finished,
            "points": int(points[seat]),
            "won": int(winner == seat),
            "chou": int(winner is None),
            "xi": int(result.get("total") or 0) if winner == seat else 0,
        }
        for seat in range(3)
    ]


def downgrade() -> None:
    with op.batch_alter_table("rooms") as batch:
        batch.drop_column("club_id")
    for table in (
        "hand_seats",
        "replay_codes",
        "club_invites",
        "club_members",
        "clubs",
        "transfers",
        "player_keys",
        "players",
    ):
        op.drop_table(table)
