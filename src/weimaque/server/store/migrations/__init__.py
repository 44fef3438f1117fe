"""The store's schema, grown by Alembic migrations (docs/protocol.md §4).

Every database the store opens is brought to the newest revision, in place and in one
transaction per migration: a file written by an older server (one made before these
migrations existed included: the first migration recognises its tables) loses nothing. The
migrations speak SQLAlchemy's portable operations and SQL both engines run: SQLite's run on the
store's own connection (:func:`upgrade`), PostgreSQL's through SQLAlchemy's ``postgresql+psycopg``
dialect (:class:`weimaque.server.store.engines.PostgreSQL`), both by :func:`run`.
A new migration is a new file in ``versions/`` (the last one's shape: ``revision``, the
``down_revision`` it follows, ``upgrade``), and :data:`HEAD` names it.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from weimaque.server.store.sql import SQLITE_DIALECT, Connection

if TYPE_CHECKING:
    from alembic.config import Config
    from sqlalchemy.engine import Connection as SAConnection


HERE: Final = Path(__file__).resolve().parent
#: The newest revision (a test holds it to the scripts' head): a database already there is
#: opened without loading Alembic at all.
HEAD: Final = "0009"


class _Lent:
    """The store's own connection lent to SQLAlchemy, which must not close it."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    def __getattr__(self, name: str) -> Any:
        return getattr(self._db, name)

    def close(self) -> None:
        """The store closes its connection itself."""


def config() -> Config:
    """Alembic's configuration of these migrations (no ini file needed)."""
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(HERE))
    return cfg


def run(connection: SAConnection, revision: str = "head") -> None:
    """Bring the database of a SQLAlchemy connection to ``revision``."""
    from alembic import command

    cfg = config()
    cfg.attributes["connection"] = connection
    command.upgrade(cfg, revision)


def upgrade(db: sqlite3.Connection, revision: str = "head") -> None:
    """Bring the SQLite database of ``db`` (autocommit, as the store opens it) to ``revision``."""
    if revision in ("head", HEAD) and version(db) == HEAD:
        return
    from sqlalchemy import create_engine, event
    from sqlalchemy.pool import StaticPool

    engine = create_engine("sqlite://", creator=lambda: _Lent(db), poolclass=StaticPool)

    # The sqlite3 module in autocommit mode opens no transaction: each migration opens one.
    @event.listens_for(engine, "begin")
    def _begin(conn: Any) -> None:
        conn.exec_driver_sql("BEGIN")

    with engine.connect() as connection:
        run(connection, revision)


def version(db: Connection | sqlite3.Connection) -> str | None:
    """The revision of the database of ``db`` (None: none, an empty or older database)."""
    dialect = getattr(db, "dialect", SQLITE_DIALECT)
    if db.execute(dialect.has_table, ("alembic_version",)).fetchone() is None:
        return None
    row = db.execute("SELECT version_num FROM alembic_version").fetchone()
    return None if row is None else str(row[0])


def head() -> str:
    """The newest revision."""
    from alembic.script import ScriptDirectory

    found = ScriptDirectory.from_config(config()).get_current_head()
    assert found is not None
    return found


__all__ = ["HEAD", "config", "head", "run", "upgrade", "version"]
