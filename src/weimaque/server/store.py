"""SQLite persistence of rooms, matches and hands (stdlib ``sqlite3``, zero set-up).

A room row holds its options, the hashes of its seat tokens and its bot kinds; ``matches`` the
room's current match (its number in the room, seed, ledger, whether it is over and whether it
was dissolved); ``room_keys`` the hashes of the creator's token and of the 守醒 invitation;
``deals`` each hand's commitment and its secret (docs/fairness.md), revealed only once the hand
is over; ``hands`` holds every finished hand's record (with its settlement and revealed
commitment) and the number of its match; ``current`` holds the hand in progress as (rules, seed,
dealer, actions), enough to restore it by replaying (the hand is fully described by them, RULES
§2.2). Hand numbers count the hands of the room, across its matches.

A database written before a column existed is brought up to date when it is opened
(``_MIGRATIONS``): what it lacks takes the value of a room's first match.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import sqlite3
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import orjson

DEFAULT_DB: Final = "weimaque.db"
#: How often the background thread folds the write-ahead log into the database file.
CHECKPOINT_SECONDS: Final = 2.0

log = logging.getLogger("weimaque.server")

_SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS rooms (
    id TEXT PRIMARY KEY,
    created REAL NOT NULL,
    config TEXT NOT NULL,
    seats TEXT NOT NULL,
    status TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS matches (
    room_id TEXT PRIMARY KEY REFERENCES rooms(id),
    rules TEXT NOT NULL,
    overrides TEXT NOT NULL,
    seed INTEGER NOT NULL,
    ledger TEXT NOT NULL,
    over INTEGER NOT NULL DEFAULT 0,
    number INTEGER NOT NULL DEFAULT 1,
    dissolved INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS hands (
    room_id TEXT NOT NULL REFERENCES rooms(id),
    number INTEGER NOT NULL,
    record TEXT NOT NULL,
    finished REAL NOT NULL,
    match INTEGER NOT NULL DEFAULT 1,
    PRIMARY KEY (room_id, number)
);
CREATE TABLE IF NOT EXISTS room_keys (
    room_id TEXT PRIMARY KEY REFERENCES rooms(id),
    creator TEXT,
    invite TEXT
);
CREATE TABLE IF NOT EXISTS deals (
    room_id TEXT NOT NULL REFERENCES rooms(id),
    number INTEGER NOT NULL,
    commitment TEXT NOT NULL,
    secret TEXT NOT NULL,
    PRIMARY KEY (room_id, number)
);
CREATE TABLE IF NOT EXISTS current (
    room_id TEXT PRIMARY KEY REFERENCES rooms(id),
    number INTEGER NOT NULL,
    rules TEXT NOT NULL,
    overrides TEXT NOT NULL,
    seed INTEGER NOT NULL,
    dealer INTEGER NOT NULL,
    actions TEXT NOT NULL
);
"""


#: Columns added since the first schema: (table, column, definition), added where missing.
_MIGRATIONS: Final = (
    ("matches", "number", "INTEGER NOT NULL DEFAULT 1"),
    ("matches", "dissolved", "INTEGER NOT NULL DEFAULT 0"),
    ("hands", "match", "INTEGER NOT NULL DEFAULT 1"),
)


def default_path() -> str:
    """``$WMQ_DB`` or ``./weimaque.db``."""
    return os.environ.get("WMQ_DB") or DEFAULT_DB


@dataclass(frozen=True, slots=True)
class StoredRoom:
    """Everything stored about one room."""

    room_id: str
    created: float
    config: dict[str, Any]
    seats: dict[str, Any]
    status: str
    seed: int
    #: The finished hands of the current match, in order.
    hands: list[dict[str, Any]]
    current: dict[str, Any] | None
    #: The current match's number in the room (1 for the first).
    match_number: int = 1
    dissolved: bool = False
    #: (match number, record) of every finished hand of the earlier matches, in order.
    archive: list[tuple[int, dict[str, Any]]] = field(default_factory=list)


def _dump(value: Any) -> str:
    # The same compact UTF-8 JSON as json.dumps(ensure_ascii=False), a few times faster.
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()


class Store:
    """One SQLite file; every write is committed at once (a crash loses no finished action)."""

    def __init__(
        self, path: str | Path | None = None, checkpoint_seconds: float = CHECKPOINT_SECONDS
    ) -> None:
        """Open (and create if needed) the database at ``path`` (``:memory:`` works)."""
        self.checkpoint_seconds = checkpoint_seconds
        self.path = str(path if path is not None else default_path())
        self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self._stop = threading.Event()
        self._checkpointer: threading.Thread | None = None
        if self.path != ":memory:":
            self.db.execute("PRAGMA journal_mode=WAL")
            # A checkpoint copies the log into the database and syncs it to disk; run where a
            # commit lands it would stall every table on the event loop for tens of ms
            # (bench/server.py's whole tail). A thread of its own does it instead.
            self.db.execute("PRAGMA wal_autocheckpoint=0")
            self._checkpointer = threading.Thread(
                target=self._checkpoint_loop, name="wmq-checkpoint", daemon=True
            )
            self._checkpointer.start()
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.executescript(_SCHEMA)
        self._migrate()

    def _migrate(self) -> None:
        """Add the columns an older database lacks (their defaults describe its rooms)."""
        for table, column, definition in _MIGRATIONS:
            have = {row[1] for row in self.db.execute(f"PRAGMA table_info({table})")}
            if column not in have:
                self.db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {definition}")
                log.info("database %s: added %s.%s", self.path, table, column)

    def _checkpoint_loop(self) -> None:
        """Every ``checkpoint_seconds``, a passive checkpoint on a connection of its own."""
        conn = sqlite3.connect(self.path, isolation_level=None)
        try:
            while not self._stop.wait(self.checkpoint_seconds):
                try:
                    conn.execute("PRAGMA wal_checkpoint(PASSIVE)")
                except sqlite3.Error as exc:  # busy or gone: the next round tries again
                    log.warning("checkpoint of %s failed: %s", self.path, exc)
        finally:
            conn.close()

    def close(self) -> None:
        """Close the database (its log folded into the file)."""
        self._stop.set()
        if self._checkpointer is not None:
            self._checkpointer.join(timeout=5)
            with contextlib.suppress(sqlite3.Error):
                self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        self.db.close()

    def create_room(
        self,
        room_id: str,
        config: dict[str, Any],
        seats: dict[str, Any],
        rules: str,
        overrides: dict[str, Any],
        seed: int,
    ) -> None:
        """Store a new room and its (empty) match."""
        with self.db:
            self.db.execute("BEGIN")
            self.db.execute(
                "INSERT INTO rooms (id, created, config, seats, status) VALUES (?, ?, ?, ?, ?)",
                (room_id, time.time(), _dump(config), _dump(seats), "waiting"),
            )
            self.db.execute(
                "INSERT INTO matches (room_id, rules, overrides, seed, ledger) VALUES (?,?,?,?,?)",
                (room_id, rules, _dump(overrides), seed, _dump(None)),
            )

    def save_seats(self, room_id: str, seats: dict[str, Any]) -> None:
        """Store the seats (tokens, names, bot kinds) of a room."""
        self.db.execute("UPDATE rooms SET seats = ? WHERE id = ?", (_dump(seats), room_id))

    def save_status(self, room_id: str, status: str) -> None:
        """Store a room's status."""
        self.db.execute("UPDATE rooms SET status = ? WHERE id = ?", (status, room_id))

    def start_hand(
        self,
        room_id: str,
        number: int,
        rules: str,
        overrides: dict[str, Any],
        seed: int,
        dealer: int,
    ) -> None:
        """Store a newly dealt hand (no actions yet)."""
        with self.db:
            self.db.execute("BEGIN")
            self.db.execute(
                "INSERT OR REPLACE INTO current "
                "(room_id, number, rules, overrides, seed, dealer, actions) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (room_id, number, rules, _dump(overrides), seed, dealer, "[]"),
            )
            self.db.execute("UPDATE rooms SET status = 'playing' WHERE id = ?", (room_id,))

    def save_actions(self, room_id: str, actions: list[list[Any]]) -> None:
        """Store the action list of the hand in progress."""
        self.db.execute(
            "UPDATE current SET actions = ? WHERE room_id = ?", (_dump(actions), room_id)
        )

    def save_actions_many(self, items: list[tuple[str, list[list[Any]]]]) -> None:
        """Store the action lists of several rooms' hands in progress, in one transaction."""
        with self.db:
            self.db.execute("BEGIN")
            self.db.executemany(
                "UPDATE current SET actions = ? WHERE room_id = ?",
                [(_dump(actions), room_id) for room_id, actions in items],
            )

    def finish_hand(
        self,
        room_id: str,
        number: int,
        record: dict[str, Any],
        ledger: dict[str, Any],
        over: bool,
        match: int = 1,
    ) -> None:
        """Store a finished hand's record (hand ``number`` of the room, in match ``match``) and
        the match ledger; drop the hand in progress."""
        with self.db:
            self.db.execute("BEGIN")
            self.db.execute(
                "INSERT OR REPLACE INTO hands (room_id, number, record, finished, match) "
                "VALUES (?,?,?,?,?)",
                (room_id, number, _dump(record), time.time(), match),
            )
            self.db.execute("DELETE FROM current WHERE room_id = ?", (room_id,))
            self.db.execute(
                "UPDATE matches SET ledger = ?, over = ? WHERE room_id = ?",
                (_dump(ledger), int(over), room_id),
            )
            self.db.execute(
                "UPDATE rooms SET status = ? WHERE id = ?",
                ("over" if over else "between_hands", room_id),
            )

    def end_match(
        self, room_id: str, ledger: dict[str, Any], dissolved: bool, abandoned: int | None
    ) -> None:
        """The match ended before its end (解散): its ledger, the hand in progress dropped.

        ``abandoned`` is the number of the hand dropped unplayed, whose deal row goes with it
        (its number is the next hand's).
        """
        with self.db:
            self.db.execute("BEGIN")
            self.db.execute("DELETE FROM current WHERE room_id = ?", (room_id,))
            if abandoned is not None:
                self.db.execute(
                    "DELETE FROM deals WHERE room_id = ? AND number = ?", (room_id, abandoned)
                )
            self.db.execute(
                "UPDATE matches SET ledger = ?, over = 1, dissolved = ? WHERE room_id = ?",
                (_dump(ledger), int(dissolved), room_id),
            )
            self.db.execute("UPDATE rooms SET status = 'over' WHERE id = ?", (room_id,))

    def new_match(self, room_id: str, number: int, seed: int, seats: dict[str, Any]) -> None:
        """The room starts match ``number`` (再来一局) with ``seed`` and these seats."""
        with self.db:
            self.db.execute("BEGIN")
            self.db.execute(
                "UPDATE matches SET number = ?, seed = ?, ledger = ?, over = 0, dissolved = 0 "
                "WHERE room_id = ?",
                (number, seed, _dump(None), room_id),
            )
            self.db.execute(
                "UPDATE rooms SET status = 'waiting', seats = ? WHERE id = ?",
                (_dump(seats), room_id),
            )

    def hand(self, room_id: str, number: int) -> dict[str, Any] | None:
        """A finished hand's record, or None."""
        row = self.db.execute(
            "SELECT record FROM hands WHERE room_id = ? AND number = ?", (room_id, number)
        ).fetchone()
        return None if row is None else dict(json.loads(row[0]))

    def load(self, room_id: str) -> StoredRoom | None:
        """Everything stored about a room, or None."""
        row = self.db.execute(
            "SELECT r.id, r.created, r.config, r.seats, r.status, m.seed, m.number, m.dissolved "
            "FROM rooms r JOIN matches m ON m.room_id = r.id WHERE r.id = ?",
            (room_id,),
        ).fetchone()
        if row is None:
            return None
        current_match = int(row[6])
        hands: list[dict[str, Any]] = []
        archive: list[tuple[int, dict[str, Any]]] = []
        for record, match in self.db.execute(
            "SELECT record, match FROM hands WHERE room_id = ? ORDER BY number", (room_id,)
        ):
            if match == current_match:
                hands.append(json.loads(record))
            else:
                archive.append((int(match), json.loads(record)))
        cur = self.db.execute(
            "SELECT number, rules, overrides, seed, dealer, actions FROM current WHERE room_id = ?",
            (room_id,),
        ).fetchone()
        current = (
            None
            if cur is None
            else {
                "number": cur[0],
                "rules": cur[1],
                "overrides": json.loads(cur[2]),
                "seed": cur[3],
                "dealer": cur[4],
                "actions": json.loads(cur[5]),
            }
        )
        return StoredRoom(
            room_id=row[0],
            created=row[1],
            config=json.loads(row[2]),
            seats=json.loads(row[3]),
            status=row[4],
            seed=row[5],
            hands=hands,
            current=current,
            match_number=current_match,
            dissolved=bool(row[7]),
            archive=archive,
        )

    def save_keys(self, room_id: str, creator: str | None, invite: str | None) -> None:
        """Store the hashes of a room's creator token and 守醒 invitation."""
        self.db.execute(
            "INSERT OR REPLACE INTO room_keys (room_id, creator, invite) VALUES (?, ?, ?)",
            (room_id, creator, invite),
        )

    def keys(self, room_id: str) -> tuple[str | None, str | None]:
        """(creator hash, invitation hash) of a room, None where it has none."""
        row = self.db.execute(
            "SELECT creator, invite FROM room_keys WHERE room_id = ?", (room_id,)
        ).fetchone()
        return (None, None) if row is None else (row[0], row[1])

    def save_deal(self, room_id: str, number: int, commitment: str, secret: str) -> None:
        """Store a hand's commitment and its (still secret) secret, before the hand is played."""
        self.db.execute(
            "INSERT OR REPLACE INTO deals (room_id, number, commitment, secret) VALUES (?,?,?,?)",
            (room_id, number, commitment, secret),
        )

    def deal(self, room_id: str, number: int) -> tuple[str, str] | None:
        """(commitment, secret) of a hand, or None."""
        row = self.db.execute(
            "SELECT commitment, secret FROM deals WHERE room_id = ? AND number = ?",
            (room_id, number),
        ).fetchone()
        return None if row is None else (row[0], row[1])

    def room_ids(self, include_over: bool = False) -> list[str]:
        """Ids of stored rooms (oldest first), by default only those not over."""
        query = "SELECT id FROM rooms" + ("" if include_over else " WHERE status != 'over'")
        return [r[0] for r in self.db.execute(query + " ORDER BY created")]
