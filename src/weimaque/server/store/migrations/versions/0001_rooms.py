"""Rooms, matches, hands, deals and the action log of the hand in progress.

The schema as it stood before migrations: a database written then has these tables (some
perhaps without the columns added later) and no version; this revision makes what is missing
and leaves what is there, so it is where every older file starts.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import json
import logging

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

log = logging.getLogger("weimaque.server")


def _tables() -> list[sa.Table]:
    meta = sa.MetaData()

    def room_id() -> sa.Column[str]:
        return sa.Column("room_id", sa.Text, sa.ForeignKey("rooms.id"), nullable=False)

    return [
        sa.Table(
            "rooms",
            meta,
            sa.Column("id", sa.Text, primary_key=True),
            sa.Column("created", sa.Float, nullable=False),
            sa.Column("config", sa.Text, nullable=False),
            sa.Column("seats", sa.Text, nullable=False),
            sa.Column("status", sa.Text, nullable=False),
        ),
        sa.Table(
            "matches",
            meta,
            sa.Column("room_id", sa.Text, sa.ForeignKey("rooms.id"), primary_key=True),
            sa.Column("rules", sa.Text, nullable=False),
            sa.Column("overrides", sa.Text, nullable=False),
            sa.Column("seed", sa.BigInteger, nullable=False),
            sa.Column("ledger", sa.Text, nullable=False),
            sa.Column("over", sa.Integer, nullable=False, server_default="0"),
            sa.Column("number", sa.Integer, nullable=False, server_default="1"),
            sa.Column("dissolved", sa.Integer, nullable=False, server_default="0"),
        ),
        sa.Table(
            "hands",
            meta,
            room_id(),
            sa.Column("number", sa.Integer, nullable=False),
            sa.Column("record", sa.Text, nullable=False),
            sa.Column("finished", sa.Float, nullable=False),
            sa.Column("match", sa.Integer, nullable=False, server_default="1"),
            sa.PrimaryKeyConstraint("room_id", "number"),
        ),
        sa.Table(
            "room_keys",
            meta,
            sa.Column("room_id", sa.Text, sa.ForeignKey("rooms.id"), primary_key=True),
            sa.Column("creator", sa.Text),
            sa.Column("invite", sa.Text),
        ),
        sa.Table(
            "deals",
            meta,
            room_id(),
            sa.Column("number", sa.Integer, nullable=False),
            sa.Column("commitment", sa.Text, nullable=False),
            sa.Column("secret", sa.Text, nullable=False),
            sa.PrimaryKeyConstraint("room_id", "number"),
        ),
        sa.Table(
            "current",
            meta,
            sa.Column("room_id", sa.Text, sa.ForeignKey("rooms.id"), primary_key=True),
            sa.Column("number", sa.Integer, nullable=False),
            sa.Column("rules", sa.Text, nullable=False),
            sa.Column("overrides", sa.Text, nullable=False),
            sa.Column("seed", sa.BigInteger, nullable=False),
            sa.Column("dealer", sa.Integer, nullable=False),
            sa.Column("actions", sa.Text, nullable=False),
        ),
        sa.Table(
            "actions",
            meta,
            room_id(),
            sa.Column("number", sa.Integer, nullable=False),
            sa.Column("seq", sa.Integer, nullable=False),
            sa.Column("seat", sa.Integer, nullable=False),
            sa.Column("action", sa.Text, nullable=False),
            sa.PrimaryKeyConstraint("room_id", "number", "seq"),
            sqlite_with_rowid=False,
        ),
        sa.Table(
            "meta",
            meta,
            sa.Column("key", sa.Text, primary_key=True),
            sa.Column("value", sa.Text, nullable=False),
        ),
    ]


def upgrade() -> None:
    bind = op.get_bind()
    have = set(sa.inspect(bind).get_table_names())
    for table in _tables():
        if table.name not in have:
            table.create(bind)
            continue
        # A table of an older file: the columns added since, with the values of a first match.
        columns = {c["name"] for c in sa.inspect(bind).get_columns(table.name)}
        for column in table.columns:
            if column.name not in columns:
                default = column.server_default
                added = sa.Column(
                    column.name,
                    column.type,
                    nullable=column.nullable,
                    server_default=getattr(default, "arg", None),
                )
                op.add_column(table.name, added)
                log.info("database: added %s.%s", table.name, column.name)
    # A hand in progress stored as one list, before the action log: moved into it.
    rows = bind.execute(
        sa.text("SELECT room_id, number, actions FROM current WHERE actions != '[]'")
    ).all()
    for room_id, number, actions in rows:
        for seq, (seat, text) in enumerate(json.loads(actions)):
            bind.execute(
                sa.text(
                    "INSERT INTO actions (room_id, number, seq, seat, action) "
                    "VALUES (:r, :n, :q, :s, :a) ON CONFLICT (room_id, number, seq) "
                    "DO UPDATE SET seat = excluded.seat, action = excluded.action"
                ),
                {"r": room_id, "n": number, "q": seq, "s": int(seat), "a": str(text)},
            )
        emptied = sa.text("UPDATE current SET actions = '[]' WHERE room_id = :r")
        bind.execute(emptied, {"r": room_id})
    if rows:
        log.info("database: %d hands in progress moved to the action log", len(rows))


def downgrade() -> None:
    raise NotImplementedError("the first schema is not undone")
