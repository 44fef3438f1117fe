"""Alembic's entry point: the migrations run on the connection the store lends them."""

from __future__ import annotations

import logging

from alembic import context

connection = context.config.attributes.get("connection")
if connection is None:  # pragma: no cover - the alembic command line has no connection to lend
    raise SystemExit("run migrations through weimaque.server.store.migrations.upgrade")

# Migrations say what they do at INFO under weimaque.server, as the store does.
logging.getLogger("alembic").setLevel(logging.WARNING)
context.configure(connection=connection, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
