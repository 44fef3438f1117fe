"""The two databases the store runs on: SQLite (a file, the default) and PostgreSQL (a URL).

The store (:mod:`.store`) and the accounts' SQL (:mod:`.accounts`) are written once, in the
SQL both engines run, with qmark (``?``) placeholders, against the small ``Connection``
protocol of :mod:`.sql`. What differs is here, one :class:`Engine` each (docs/protocol.md §4):

- connecting, and the settings of a connection (SQLite's PRAGMAs; PostgreSQL's lock timeout);
- bringing the schema to the newest migration (PostgreSQL: one process at a time, under an
  advisory lock);
- which failures are the whole store's (a full disk, a lock held elsewhere, a lost connection:
  kept and tried again) rather than one write's;
- folding SQLite's write-ahead log into its file (PostgreSQL has no such chore);
- making a lost connection again (PostgreSQL, after an outage);
- the dialect (``Dialect``, :mod:`.sql`): the few statements that cannot be common, and PostgreSQL's
  placeholders (``?`` becomes ``%s``, a literal ``%`` ``%%``).

:func:`engine_for` picks the engine from what names the store: a ``postgresql://`` URL, or a
path (``:memory:`` too).
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import sqlite3
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, Final, Protocol, runtime_checkable
from urllib.parse import urlsplit, urlunsplit

from weimaque.server.store import migrations
from weimaque.server.store.sql import (
    POSTGRESQL_DIALECT,
    SQLITE_DIALECT,
    Connection,
    Dialect,
)

if TYPE_CHECKING:
    import psycopg

#: The schemes of a URL that names a PostgreSQL database.
POSTGRESQL_SCHEMES: Final = ("postgresql", "postgres")
#: How long connecting to PostgreSQL may take before the attempt counts as failed.
CONNECT_SECONDS: Final = 5
#: The key of the advisory lock held while one process migrates a PostgreSQL database.
MIGRATION_LOCK: Final = 0x776D71  # "wmq"


@runtime_checkable
class Engine(Protocol):
    """What is particular to one database engine (see the module's docstring)."""

    @property
    def target(self) -> str:
        """What names the database in logs (a URL without its password)."""
        ...

    @property
    def dialect(self) -> Dialect:
        """The engine's few statements of its own."""
        ...

    @property
    def errors(self) -> tuple[type[Exception], ...]:
        """The base classes of every error of the engine's driver."""
        ...

    @property
    def checkpoints(self) -> bool:
        """Whether the engine has a write-ahead log the writer folds in (``checkpoint``)."""
        ...

    @property
    def shared_reader(self) -> bool:
        """Whether the reading connection is the writer's (SQLite's ``:memory:``)."""
        ...

    @property
    def inline_reads(self) -> bool:
        """Whether a read of a row by its key answers within microseconds on the calling
        thread (a local file), so that the event loop may make it itself (``Store.lookup``)."""
        ...

    def connect(self) -> Connection:
        """A new connection in autocommit mode, set up for the store."""
        ...

    def migrate(self, db: Connection) -> None:
        """Bring the database to the newest revision (:mod:`.migrations`)."""
        ...

    def store_wide(self, exc: BaseException) -> bool:
        """Whether a failure is the whole store's (tried again later), not one write's."""
        ...

    def reason(self, exc: BaseException) -> str:
        """What ``Store.failing`` says of a store-wide failure."""
        ...

    def usable(self, db: Connection) -> bool:
        """Whether a connection can still be used (False: make a new one)."""
        ...

    def log_size(self) -> int:
        """Bytes in the write-ahead log (0 where there is none)."""
        ...

    def checkpoint(self, db: Connection, busy_ms: int, busy_seconds: float) -> bool:
        """Fold the log into the database and empty it; whether that completed."""
        ...

    def closing(self, db: Connection) -> None:
        """The last thing done on the writer's connection before it is closed."""
        ...


def engine_for(target: str | os.PathLike[str], *, busy_seconds: float, wal_limit: int) -> Engine:
    """The engine of a store named by ``target``: a ``postgresql://`` URL, or an SQLite path."""
    text = os.fspath(target)
    if is_postgresql(text):
        return PostgreSQL(text, busy_seconds=busy_seconds)
    return SQLite(text, busy_seconds=busy_seconds, wal_limit=wal_limit)


def is_postgresql(target: str) -> bool:
    """Whether ``target`` is a PostgreSQL URL (``postgresql://…`` or ``postgres://…``)."""
    scheme, sep, _ = target.partition("://")
    return bool(sep) and scheme.lower() in POSTGRESQL_SCHEMES


# ----------------------------------------------------------------- SQLite


class SQLiteConnection(sqlite3.Connection):
    """``sqlite3``'s own connection, which knows its dialect."""

    dialect: Final = SQLITE_DIALECT


class SQLite:
    """One SQLite file (or ``:memory:``), in WAL mode, its log folded in by the writer."""

    dialect: Final = SQLITE_DIALECT
    errors: Final[tuple[type[Exception], ...]] = (sqlite3.Error,)

    def __init__(self, path: str, *, busy_seconds: float, wal_limit: int) -> None:
        self.target = self.path = path
        self.busy_seconds = busy_seconds
        self.wal_limit = wal_limit
        self.memory = path == ":memory:"
        #: ``:memory:`` is one database per connection: the writer's is read too.
        self.shared_reader = self.memory
        self.inline_reads = not self.memory
        self.checkpoints = not self.memory

    def __repr__(self) -> str:
        return f"SQLite({self.path!r})"

    def connect(self) -> SQLiteConnection:
        """A connection in autocommit mode that waits ``busy_seconds`` for the file's locks."""
        db = sqlite3.connect(
            self.path,
            isolation_level=None,
            check_same_thread=False,
            timeout=self.busy_seconds,
            factory=SQLiteConnection,
        )
        if not self.memory:
            db.execute("PRAGMA journal_mode=WAL")
            # The writer checkpoints itself (``Store._checkpoint_if_due``), between its
            # transactions: being the only writer, its checkpoints complete, and the log is
            # emptied.
            db.execute("PRAGMA wal_autocheckpoint=0")
            db.execute(f"PRAGMA journal_size_limit={int(self.wal_limit)}")
        db.execute("PRAGMA synchronous=NORMAL")
        return db

    def migrate(self, db: Connection) -> None:
        """The migrations, on the store's own connection."""
        assert isinstance(db, sqlite3.Connection)
        migrations.upgrade(db)

    def store_wide(self, exc: BaseException) -> bool:
        """The file's failures (full, locked, read-only, I/O), not one write's (a bug)."""
        return isinstance(exc, sqlite3.OperationalError) or type(exc) is sqlite3.DatabaseError

    def reason(self, exc: BaseException) -> str:
        """The driver's own words (``database is locked``, ``disk I/O error``)."""
        return str(exc) or type(exc).__name__

    def usable(self, db: Connection) -> bool:
        """A file's connection outlives its failures."""
        return True

    def log_size(self) -> int:
        """The size of ``PATH-wal``."""
        try:
            return os.stat(self.path + "-wal").st_size
        except OSError:
            return 0

    def checkpoint(self, db: Connection, busy_ms: int, busy_seconds: float) -> bool:
        """``PRAGMA wal_checkpoint(TRUNCATE)``, waiting ``busy_ms`` for readers."""
        db.execute(f"PRAGMA busy_timeout={busy_ms}")
        try:
            row = db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        finally:
            with contextlib.suppress(sqlite3.Error):
                db.execute(f"PRAGMA busy_timeout={int(busy_seconds * 1000)}")
        return row is not None and row[0] == 0

    def closing(self, db: Connection) -> None:
        """The log folded in, so that the file alone holds everything."""
        if not self.memory:
            with contextlib.suppress(sqlite3.Error):
                db.execute("PRAGMA wal_checkpoint(TRUNCATE)")


# ----------------------------------------------------------------- PostgreSQL

#: A quoted literal (left as it is), a placeholder or a percent sign.
_TOKEN = re.compile(r"'(?:[^']|'')*'|\?|%")


@functools.lru_cache(maxsize=1024)
def to_format(sql: str) -> str:
    """qmark SQL in psycopg's format style: ``?`` becomes ``%s``, a literal ``%`` ``%%``.

    >>> to_format("SELECT '?%' || name FROM t WHERE id = ? AND x LIKE 'a%'")
    "SELECT '?%%' || name FROM t WHERE id = %s AND x LIKE 'a%%'"
    """

    def one(match: re.Match[str]) -> str:
        token = match.group()
        if token == "?":
            return "%s"
        return token.replace("%", "%%")

    return _TOKEN.sub(one, sql)


def _matchable(sql: str, parameters: Sequence[Any]) -> tuple[Any, ...]:
    """The parameters of a statement as PostgreSQL takes them.

    Its text cannot hold NUL (U+0000), so no stored value has one: a string with one that a
    read or a delete looks for is sent as NULL, which equals nothing, as the string equals
    nothing stored on SQLite. Written, such a string fails the write (a bad write).
    """
    values = tuple(parameters)
    if not any(isinstance(v, str) and "\x00" in v for v in values):
        return values
    if sql.lstrip()[:6].upper() not in ("SELECT", "DELETE"):
        return values
    return tuple(None if isinstance(v, str) and "\x00" in v else v for v in values)


class PostgreSQLConnection:
    """A psycopg connection that speaks qmark SQL (:func:`to_format`)."""

    dialect: Final = POSTGRESQL_DIALECT

    def __init__(self, raw: psycopg.Connection[Any]) -> None:
        self.raw = raw

    @property
    def in_transaction(self) -> bool:
        """Whether a transaction is open (or failed and not yet rolled back)."""
        from psycopg.pq import TransactionStatus

        return self.raw.info.transaction_status != TransactionStatus.IDLE

    def execute(self, sql: str, parameters: Sequence[Any] = (), /) -> psycopg.Cursor[Any]:
        """Run one statement."""
        return self.raw.execute(to_format(sql), _matchable(sql, parameters))

    def executemany(self, sql: str, parameters: Iterable[Sequence[Any]], /) -> psycopg.Cursor[Any]:
        """Run one statement once for each row of parameters."""
        cursor = self.raw.cursor()
        cursor.executemany(to_format(sql), [tuple(p) for p in parameters])
        return cursor

    def close(self) -> None:
        """Close the connection (a lost one too)."""
        self.raw.close()


def _redacted(url: str) -> str:
    """``url`` without its password."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.rpartition("@")[2]
    user = parts.username or ""
    return urlunsplit(parts._replace(netloc=f"{user}:***@{netloc}"))


class PostgreSQL:
    """A PostgreSQL database named by a URL; its connections are made again after an outage."""

    dialect: Final = POSTGRESQL_DIALECT
    checkpoints: Final = False
    shared_reader: Final = False
    #: A read is a round trip to the server: never made on the event loop.
    inline_reads: Final = False

    def __init__(self, url: str, *, busy_seconds: float) -> None:
        import psycopg

        self.url = url
        self.target = _redacted(url)
        self.busy_seconds = busy_seconds
        self.errors: tuple[type[Exception], ...] = (psycopg.Error,)
        self._store_wide = (psycopg.OperationalError, psycopg.InterfaceError)

    def __repr__(self) -> str:
        return f"PostgreSQL({self.target!r})"

    def connect(self) -> PostgreSQLConnection:
        """A connection in autocommit mode whose writes wait ``busy_seconds`` for a lock."""
        import psycopg

        lock_ms = max(1, int(self.busy_seconds * 1000))
        raw = psycopg.connect(
            self.url,
            autocommit=True,
            connect_timeout=CONNECT_SECONDS,
            options=f"-c lock_timeout={lock_ms}",
            application_name="weimaque",
        )
        return PostgreSQLConnection(raw)

    def migrate(self, db: Connection) -> None:
        """The migrations through SQLAlchemy's ``postgresql+psycopg`` dialect, one process at
        a time: the others wait on an advisory lock, then find the database up to date."""
        if migrations.version(db) == migrations.HEAD:
            return
        import sqlalchemy as sa
        from sqlalchemy.pool import NullPool

        url = sa.make_url(self.url).set(drivername="postgresql+psycopg")
        engine = sa.create_engine(url, poolclass=NullPool)
        try:
            with engine.connect() as connection:
                connection.execute(
                    sa.text("SELECT pg_advisory_lock(:key)"), {"key": MIGRATION_LOCK}
                )
                connection.commit()
                try:
                    migrations.run(connection)
                finally:
                    connection.rollback()
                    connection.execute(
                        sa.text("SELECT pg_advisory_unlock(:key)"), {"key": MIGRATION_LOCK}
                    )
                    connection.commit()
        finally:
            engine.dispose()

    def store_wide(self, exc: BaseException) -> bool:
        """A lost or refused connection, a full disk, a lock held elsewhere, the server
        shutting down (SQLSTATE classes 08, 53, 55, 57: psycopg's ``OperationalError``)."""
        return isinstance(exc, self._store_wide)

    def reason(self, exc: BaseException) -> str:
        """``storage unavailable: …`` with the driver's words on one line."""
        words = " ".join(str(exc).split()) or type(exc).__name__
        return f"storage unavailable: {words}"

    def usable(self, db: Connection) -> bool:
        """Whether the connection is neither closed nor broken (by an outage)."""
        assert isinstance(db, PostgreSQLConnection)
        return not (db.raw.closed or db.raw.broken)

    def log_size(self) -> int:
        """The server keeps its own log."""
        return 0

    def checkpoint(self, db: Connection, busy_ms: int, busy_seconds: float) -> bool:
        """The server checkpoints by itself."""
        return True

    def closing(self, db: Connection) -> None:
        """Nothing: every acknowledged write is committed."""


__all__ = [
    "Engine",
    "PostgreSQL",
    "PostgreSQLConnection",
    "SQLite",
    "SQLiteConnection",
    "engine_for",
    "is_postgresql",
    "to_format",
]
