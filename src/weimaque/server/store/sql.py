"""The SQL both engines run: the small DB-API protocol it is written against, and the few
statements of each engine that it cannot say alike (docs/protocol.md §4).

The store (:mod:`.store`), the accounts' SQL (:mod:`.accounts`) and the migrations
(:mod:`.migrations`) speak to a :class:`Connection`; each engine of :mod:`.engines` makes one,
which knows its :class:`Dialect`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Final, Protocol


class Cursor(Protocol):
    """The rows of one statement (a DB-API cursor)."""

    @property
    def rowcount(self) -> int: ...

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...

    def __iter__(self) -> Iterator[Any]: ...


@dataclass(frozen=True, slots=True)
class Dialect:
    """The statements of one engine that the common SQL cannot say."""

    name: str
    #: Opens the writer's transaction (SQLite takes the file's write lock at once).
    begin_write: str
    #: Opens a read of several statements that all see one snapshot.
    begin_snapshot: str
    #: A condition on ``rooms r``: one of its seats (``r.seats``, JSON) is held by the player
    #: of the one placeholder.
    player_seated: str
    #: One row if the table of the one placeholder exists.
    has_table: str
    #: Added to a ``SELECT`` in the writer's transaction: the rows read stay as read until
    #: its commit (the fencing of docs/scale.md). SQLite needs nothing: its writer holds the
    #: file's write lock for the whole transaction.
    lock_rows: str = ""


class Connection(Protocol):
    """What the store's SQL needs of a DB-API connection in autocommit mode (qmark ``?``)."""

    @property
    def dialect(self) -> Dialect: ...

    @property
    def in_transaction(self) -> bool: ...

    def execute(self, sql: str, parameters: Sequence[Any] = ..., /) -> Cursor: ...

    def executemany(self, sql: str, parameters: Iterable[Sequence[Any]], /) -> Cursor: ...

    def close(self) -> None: ...


SQLITE_DIALECT: Final = Dialect(
    name="sqlite",
    begin_write="BEGIN IMMEDIATE",
    begin_snapshot="BEGIN",
    player_seated=(
        "EXISTS (SELECT 1 FROM json_each(r.seats, '$.seats') s "
        "WHERE json_extract(s.value, '$.player') = ?)"
    ),
    has_table="SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
)


POSTGRESQL_DIALECT: Final = Dialect(
    name="postgresql",
    begin_write="BEGIN",
    begin_snapshot="BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY",
    player_seated=(
        "r.seats::jsonb @> jsonb_build_object('seats', "
        "jsonb_build_array(jsonb_build_object('player', ?::text)))"
    ),
    has_table="SELECT 1 FROM pg_tables WHERE schemaname = current_schema() AND tablename = ?",
    # A row read FOR SHARE cannot be updated (a room's epoch bumped) by another transaction
    # until this one ends; one updated meanwhile is read as its newest version.
    lock_rows=" FOR SHARE",
)

__all__ = [
    "POSTGRESQL_DIALECT",
    "SQLITE_DIALECT",
    "Connection",
    "Cursor",
    "Dialect",
]
