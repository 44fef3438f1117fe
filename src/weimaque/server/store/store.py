"""Persistence of rooms, matches and hands: SQLite (a file, zero set-up) or PostgreSQL (a URL).

A room row holds its options, the hashes of its seat tokens and its bot kinds; ``matches`` the
room's current match (its number in the room, seed, ledger, whether it is over and whether it
was dissolved); ``room_keys`` the hashes of the creator's token and of the 守醒 invitation;
``deals`` each hand's commitment and its secret (docs/fairness.md), revealed only once the hand
is over; ``hands`` holds every finished hand's record (with its settlement and revealed
commitment) and the number of its match; ``current`` holds the hand in progress as (rules, seed,
dealer) and ``actions`` its actions, one row each, appended as they are taken: enough to restore
it by replaying (the hand is fully described by them, RULES §2.2), kept by hand number (a
hand's rows go when its record is written, or when its number is dealt again after a 解散).
Hand numbers count the hands of the room, across its matches.

**Fencing** (docs/scale.md). ``rooms.epoch`` numbers the room's owners: a process of a cluster
that takes a room bumps it (:meth:`Store.take_room`) before it reads the room back, and every
write of the room names the epoch it was made under (``epoch=``). The writer checks it inside
the write's own transaction, the room's row locked until the commit (PostgreSQL: ``FOR SHARE``,
which the bump's ``UPDATE`` waits on; SQLite: the file's write lock): a write under an older
epoch is refused (:class:`Fenced`) and nothing of it is made, so a process that lost a room
can never write over what its new owner has read back and goes on with. A write without an
epoch (a process alone) is not checked.

Every write goes through one writer thread with a connection of its own, never the event loop:
a slow disk, a lock another process holds or a database server far away slows the rooms that
write, not the server. A write is either one a player waits for (an action,
:meth:`Store.append_action`: tried once, and a failure is reported to the caller as
:class:`StoreUnavailable`) or one the rooms' state has already moved past (everything else:
kept, in order, and tried again until it is written). On SQLite the writer also folds the
write-ahead log into the database file and empties it, so the log stays under
:data:`WAL_LIMIT_BYTES` whatever the load; on PostgreSQL it makes its connection again after an
outage (docs/protocol.md §4). What is particular to each engine is in :mod:`.engines`; the SQL
here is common to both.

Its schema is that of the newest migration (:mod:`.migrations`): an older database is
brought up to date in place when it is opened.
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
import os
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, TypeVar

import orjson

from weimaque.server.base import metrics
from weimaque.server.store import accounts
from weimaque.server.store.engines import Engine, engine_for
from weimaque.server.store.sql import Connection

DEFAULT_DB: Final = "weimaque.db"
#: At most this long between two checkpoints of a log that has new frames.
CHECKPOINT_SECONDS: Final = 2.0
#: A log that passes this size is folded into the database file and emptied at once.
WAL_LIMIT_BYTES: Final = 4 * 1024 * 1024
#: How long a write waits for a lock another connection holds on the database.
BUSY_SECONDS: Final = 5.0
#: How long a checkpoint waits for readers (it tries again after the next writes).
CHECKPOINT_BUSY_MS: Final = 100
#: How often the writer looks at the log's size.
SIZE_CHECK_SECONDS: Final = 0.05
#: A write a player waits for that the writer has not started within this many seconds fails.
TRY_SECONDS: Final = 10.0
#: While writes fail: how often they are tried again (or, with none waiting, the file probed).
RETRY_SECONDS: Final = 0.5
#: At most this many writes are committed in one transaction.
MAX_BATCH: Final = 512

log = logging.getLogger("weimaque.server")


def default_path() -> str:
    """``$WMQ_DB`` or ``./weimaque.db``."""
    return os.environ.get("WMQ_DB") or DEFAULT_DB


class StoreUnavailable(Exception):
    """A write the store could not make: a full disk, a lock held elsewhere, an I/O error, a
    database server out of reach."""


class Fenced(StoreUnavailable):
    """A write of a room refused because a newer owner took the room (the write's epoch is
    not the room's): nothing of it was made, and the writer must let the room go."""


#: The epoch of a room as it is created (``rooms.epoch``), before any process takes it.
FIRST_EPOCH: Final = 1


@dataclass(slots=True)
class FenceStats:
    """What the fencing did since the store opened (read by the metrics)."""

    #: Writes refused because a newer owner held their room.
    refused: int = 0
    #: Rooms taken (their epoch bumped) by this process.
    taken: int = 0


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
    #: How a match ended before its end: "vote" (解散), "leave" or "idle" (None: it did not).
    ended_by: str | None = None


#: How a match ended early, as ``matches.dissolved`` keeps it (1 is a vote to 解散).
ENDED_BY: Final = {"vote": 1, "leave": 2, "idle": 3}


def _seats_of(record: dict[str, Any]) -> list[Any]:
    """Each seat's points in a finished hand record's settlement (its seat count)."""
    settlement = record.get("settlement")
    seats = settlement.get("seats") if isinstance(settlement, dict) else None
    return seats if isinstance(seats, list) else []


def _dump(value: Any) -> str:
    # The same compact UTF-8 JSON as json.dumps(ensure_ascii=False), a few times faster.
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()


Op = Callable[[Connection], object]
T = TypeVar("T")
#: Rows of ``actions`` appended by one statement at most.
_ROWS_PER_INSERT: Final = 400


@dataclass(eq=False, slots=True)
class _Job:
    """One write: ``op`` runs inside the writer's transaction, or ``row`` is appended to the
    action log (neither: a barrier, nothing is written)."""

    op: Op | None
    #: Kept and tried again until written (the room's state has moved past it already); else
    #: tried once, its failure reported through ``future``.
    must: bool
    future: Future[None] = field(default_factory=Future)
    deadline: float = math.inf
    started: bool = False
    row: tuple[str, int, int, int, str] | None = None
    #: (room id, epoch): made only while the room's epoch is this one (None: unchecked).
    fence: tuple[str, int] | None = None
    #: The write makes the room (its row does not exist before it, at ``fence``'s epoch).
    creates: bool = False
    #: The write bumps this room's epoch (``Store.take_room``).
    takes: str | None = None


def _upsert(table: str, columns: str, key: str) -> str:
    """An ``INSERT`` of one row that replaces the row of the same ``key`` (the upsert both
    engines run; ``columns`` and ``key`` are comma-separated names)."""
    names = [c.strip() for c in columns.split(",")]
    keys = {c.strip() for c in key.split(",")}
    updates = ", ".join(f"{c} = excluded.{c}" for c in names if c not in keys)
    marks = ", ".join("?" * len(names))
    return (
        f"INSERT INTO {table} ({', '.join(names)}) VALUES ({marks}) "
        f"ON CONFLICT ({key}) DO UPDATE SET {updates}"
    )


_CURRENT: Final = _upsert(
    "current", "room_id, number, rules, overrides, seed, dealer, actions", "room_id"
)
_HAND: Final = _upsert("hands", "room_id, number, record, finished, match", "room_id, number")
_HAND_SEAT: Final = _upsert(
    "hand_seats",
    "room_id, number, seat, match, player_id, name, bot, club_id, finished, points, won, chou, xi, "
    "played, ranked, game, variant, persons",
    "room_id, number, seat",
)
#: A hand's 回放码 is replaced with the hand's record (a hand ended again after a restart).
_REPLAY_CODE: Final = _upsert("replay_codes", "hash, code, room_id, number", "room_id, number")
_ROOM_KEYS: Final = _upsert("room_keys", "room_id, creator, invite", "room_id")
_DEAL: Final = _upsert("deals", "room_id, number, commitment, secret", "room_id, number")


def _fence(room_id: str, epoch: int | None) -> tuple[str, int] | None:
    """The fence of a write of ``room_id`` under ``epoch`` (None: unchecked)."""
    return None if epoch is None else (room_id, epoch)


def _appending(rows: list[tuple[str, int, int, int, str]]) -> Op:
    # A commit whose answer was lost with the connection (PostgreSQL) may have been made: the
    # action, refused to its player, is sent again with the same number, and that one counts.
    sql = (
        "INSERT INTO actions (room_id, number, seq, seat, action) VALUES "
        + ",".join(["(?, ?, ?, ?, ?)"] * len(rows))
        + " ON CONFLICT (room_id, number, seq) DO UPDATE SET seat = excluded.seat, "
        "action = excluded.action"
    )
    params = [value for row in rows for value in row]
    return lambda db: db.execute(sql, params)


def _statements(jobs: list[_Job]) -> tuple[list[Op], bool]:
    """The writes of ``jobs`` in order, each run of appended actions one statement; and whether
    it is all one statement (atomic by itself, without a transaction around it).

    The writer's thread gives up the interpreter lock at every statement and may wait for it
    as long as the event loop's thread keeps it (the switch interval): few statements per
    batch keep a busy server's actions from waiting on it.
    """
    ops: list[Op] = []
    run: list[tuple[str, int, int, int, str]] = []
    plain = True
    for job in jobs:
        if job.row is not None:
            run.append(job.row)
            if len(run) == _ROWS_PER_INSERT:
                ops.append(_appending(run))
                run = []
            continue
        if run:
            ops.append(_appending(run))
            run = []
        if job.op is not None:
            ops.append(job.op)
            plain = False
    if run:
        ops.append(_appending(run))
    return ops, plain and len(ops) == 1


def open_store(
    target: str | os.PathLike[str] | None = None,
    checkpoint_seconds: float = CHECKPOINT_SECONDS,
    *,
    busy_seconds: float = BUSY_SECONDS,
    wal_limit: int = WAL_LIMIT_BYTES,
) -> Store:
    """The store named by ``target``: a ``postgresql://`` URL, or an SQLite file's path
    (default :func:`default_path`)."""
    engine = engine_for(
        target if target is not None else default_path(),
        busy_seconds=busy_seconds,
        wal_limit=wal_limit,
    )
    return Store(engine, checkpoint_seconds, busy_seconds=busy_seconds, wal_limit=wal_limit)


#: Reading connections of one store at most (SQLite in WAL mode and PostgreSQL read in
#: parallel; a read waits only when this many run).
READERS: Final = 4


class _Readers:
    """A small pool of reading connections, made as they are first needed."""

    def __init__(self, engine: Engine, shared: Connection | None) -> None:
        self.engine = engine
        self.shared = shared
        self._idle: list[Connection] = []
        self._made = 0
        self._cv = threading.Condition()
        self._closed = False

    def take(self) -> Connection:
        """An idle connection, a new one while fewer than ``READERS`` exist, else the next
        one given back. One lost by an outage is made again."""
        if self.shared is not None:
            return self.shared
        with self._cv:
            while not self._idle and self._made >= READERS:
                self._cv.wait()
            if self._idle:
                db = self._idle.pop()
                if self.engine.usable(db):
                    return db
                with contextlib.suppress(*self.engine.errors):
                    db.close()
            else:
                self._made += 1
        try:
            return self.engine.connect()
        except BaseException:
            with self._cv:
                self._made -= 1
                self._cv.notify()
            raise

    def put(self, db: Connection) -> None:
        """Give a connection back (closed if the pool is)."""
        if self.shared is not None:
            return
        with self._cv:
            if not self._closed:
                self._idle.append(db)
                self._cv.notify()
                return
            self._made -= 1
        with contextlib.suppress(*self.engine.errors):
            db.close()

    def close(self) -> None:
        """Close the idle connections; those in use close when given back."""
        if self.shared is not None:
            return
        with self._cv:
            self._closed = True
            idle, self._idle = self._idle, []
            self._made -= len(idle)
        for db in idle:
            with contextlib.suppress(*self.engine.errors):
                db.close()


class Store:
    """One database, written by one thread of its own; reads on connections of their own."""

    def __init__(
        self,
        target: str | Path | Engine | None = None,
        checkpoint_seconds: float = CHECKPOINT_SECONDS,
        *,
        busy_seconds: float = BUSY_SECONDS,
        wal_limit: int = WAL_LIMIT_BYTES,
    ) -> None:
        """Open (and create if needed, or bring up to date) the database of ``target``: an
        :class:`~.engines.Engine`, a ``postgresql://`` URL or an SQLite path (``:memory:``
        works; default :func:`default_path`)."""
        self.checkpoint_seconds = checkpoint_seconds
        self.busy_seconds = busy_seconds
        self.wal_limit = wal_limit
        if isinstance(target, Engine):
            self.engine: Engine = target
        else:
            where = target if target is not None else default_path()
            self.engine = engine_for(where, busy_seconds=busy_seconds, wal_limit=wal_limit)
        #: What names the database in the logs (a URL without its password).
        self.path = self.engine.target
        self.memory = self.engine.shared_reader
        #: The writer's connection (used by the writer thread only, once it runs; made again
        #: after an outage where the engine's connections can be lost).
        self.db = self.engine.connect()
        try:
            self.engine.migrate(self.db)
        except BaseException:
            self.db.close()
            raise
        self._write_lock = threading.Lock()
        #: Reads run on a small pool of connections of their own (the writer's, under its
        #: lock, for ``:memory:``): one long read never queues the others behind it.
        self._readers = _Readers(self.engine, self.db if self.engine.shared_reader else None)
        self._readers.put(self._readers.take())  # the first made now: a bad target fails here
        #: The connection of ``lookup`` (made at its first use), with its own lock: a long
        #: read on a thread never holds up the loop's lookups.
        self._looker: Connection | None = None
        self._lookup_lock = threading.Lock()
        #: Why the last write failed; None while writes go through (``/api/health`` says it).
        self.failing: str | None = None
        self._jobs: deque[_Job] = deque()
        self._cv = threading.Condition()
        self._closing = False
        self._close_by = math.inf
        self._dirty = False
        self._last_checkpoint = self._next_size_check = time.monotonic()
        self._warned = 0.0
        #: What the fencing refused and took (docs/scale.md).
        self.fence = FenceStats()
        self._writer = threading.Thread(target=self._write_loop, name="wmq-store", daemon=True)
        self._writer.start()

    # ----------------------------------------------------------------- opening

    # ----------------------------------------------------------------- the writer

    def _submit(
        self,
        op: Op | None,
        must: bool = True,
        row: tuple[str, int, int, int, str] | None = None,
        *,
        fence: tuple[str, int] | None = None,
        creates: bool = False,
        takes: str | None = None,
    ) -> Future[None]:
        """Queue a write for the writer thread; its future is done once it is written (or
        fails with :class:`Fenced` when ``fence`` names an epoch that is not the room's)."""
        deadline = math.inf if must else time.monotonic() + TRY_SECONDS
        job = _Job(op, must, deadline=deadline, row=row, fence=fence, creates=creates, takes=takes)
        with self._cv:
            if self._closing:
                job.future.set_exception(StoreUnavailable("the store is closed"))
                return job.future
            self._jobs.append(job)
            self._cv.notify()
        return job.future

    def barrier(self) -> Future[None]:
        """A future done once every write queued before it has been written (or has failed)."""
        return self._submit(None)

    def flush(self, timeout: float | None = None) -> None:
        """Wait until every write queued so far is written (``TimeoutError`` after ``timeout``)."""
        self.barrier().result(timeout)

    def pending(self) -> int:
        """Writes queued and not yet written."""
        return len(self._jobs)

    def _write_loop(self) -> None:
        left: list[_Job] = []
        while True:
            with self._cv:
                if not self._jobs and not self._closing:
                    self._cv.wait(RETRY_SECONDS if self.failing else self._until_checkpoint())
                if self._closing and (not self._jobs or time.monotonic() > self._close_by):
                    left = list(self._jobs)
                    self._jobs.clear()
                    break
                batch = [self._jobs.popleft() for _ in range(min(len(self._jobs), MAX_BATCH))]
            if batch:
                try:
                    kept = self._write(batch)
                except Exception:  # a bug of the writer itself: nobody waits for ever
                    log.exception("database %s: the writer failed", self.path)
                    for job in batch:
                        self._fail(job, StoreUnavailable("the store's writer failed"))
                    continue
                if kept:  # they go first, in their order, once the file writes again
                    with self._cv:
                        self._jobs.extendleft(reversed(kept))
                        self._cv.wait(RETRY_SECONDS)
                    continue
            elif self.failing is not None:
                self._probe()
            self._checkpoint_if_due()
        if left:
            log.error("database %s: %d writes not made before closing", self.path, len(left))
        for job in left:
            self._fail(job, StoreUnavailable("the server stopped before this was written"))

    def _write(self, batch: list[_Job]) -> list[_Job]:
        """Write a batch in one transaction; the must-writes to try again (if it failed)."""
        now = time.monotonic()
        ready: list[_Job] = []
        for job in batch:
            if not job.started:
                job.started = True
                if not job.future.set_running_or_notify_cancel() and not job.must:
                    continue  # nobody waits for it any more: it is not made
            if now > job.deadline:
                self._fail(job, StoreUnavailable(f"not written within {TRY_SECONDS:g} s"))
                continue
            ready.append(job)
        ops, _ = _statements(ready)
        if not ops:
            self._done(ready, wrote=False)
            return []
        started = time.perf_counter()
        try:
            refused = self._commit(ready)
        except Exception as exc:
            if self.engine.store_wide(exc):
                return self._failed(ready, exc)
            return self._one_by_one(ready)
        metrics.STORE_WRITE.observe(time.perf_counter() - started)
        self._refuse(refused)
        self._done(ready, wrote=True)
        return []

    def _one_by_one(self, ready: list[_Job]) -> list[_Job]:
        """A batch with a bad write (a bug): each write alone, so only that one is lost."""
        kept: list[_Job] = []
        for job in ready:
            if kept:  # behind a must-write that waits for the file: in order, or not at all
                if job.must:
                    kept.append(job)
                else:
                    self._fail(job, StoreUnavailable(self.failing or "the store is failing"))
                continue
            ops, _ = _statements([job])
            refused: list[_Job] = []
            try:
                if ops:
                    refused = self._commit([job])
            except Exception as exc:
                if self.engine.store_wide(exc):
                    kept.extend(self._failed([job], exc))
                    continue
                log.exception("database %s: a write failed and is dropped", self.path)
                self._fail(job, StoreUnavailable(f"the write failed: {exc}"))
                continue
            self._refuse(refused)
            self._done([job], wrote=bool(ops))
        return kept

    def _commit(self, jobs: list[_Job]) -> list[_Job]:
        """Write ``jobs`` in one transaction, but for those whose room has a newer owner (their
        fence), which are returned: checked in the same transaction, the rooms' rows locked
        until its commit, so that no owner takes them in between."""
        if not any(job.fence is not None for job in jobs):
            ops, single = _statements(jobs)
            self._transaction(ops, single)
            return []
        refused: list[_Job] = []

        def fenced(db: Connection) -> None:
            refused.clear()  # the transaction may be made again (``_one_by_one``)
            refused.extend(self._fenced(db, jobs))
            skip = {id(job) for job in refused}
            for op in _statements([job for job in jobs if id(job) not in skip])[0]:
                op(db)

        self._transaction([fenced])
        return refused

    @staticmethod
    def _fenced(db: Connection, jobs: list[_Job]) -> list[_Job]:
        """The fenced jobs whose epoch is not their room's now (in the writer's transaction)."""
        wanted = sorted({job.fence[0] for job in jobs if job.fence is not None})
        marks = ", ".join("?" * len(wanted))
        # In the order of the ids: two writers lock the rows of their rooms in one order.
        found = {
            str(room): int(epoch)
            for room, epoch in db.execute(
                f"SELECT id, epoch FROM rooms WHERE id IN ({marks}) ORDER BY id"
                + db.dialect.lock_rows,
                wanted,
            ).fetchall()
        }
        refused = []
        for job in jobs:  # in their order: the epoch each write meets when it is made
            if job.takes is not None and job.takes in found:
                found[job.takes] += 1
            if job.fence is None:
                continue
            room, epoch = job.fence
            if job.creates:  # made by this very transaction, at the epoch it is made at
                found.setdefault(room, epoch)
            elif found.get(room) != epoch:
                refused.append(job)
        return refused

    def _refuse(self, refused: list[_Job]) -> None:
        """Fail the fenced writes refused (never tried again: the room is another's now)."""
        for job in refused:
            assert job.fence is not None
            room, epoch = job.fence
            self.fence.refused += 1
            log.warning(
                "room %s: a write under epoch %d refused: a newer owner holds the room", room, epoch
            )
            self._fail(job, Fenced(f"room {room} has a newer owner than epoch {epoch}"))

    def _transaction(self, ops: list[Op], single: bool = False) -> None:
        if not ops:
            return
        with self._write_lock:
            db = self._connected()
            if single:  # one statement: a transaction of its own
                ops[0](db)
                return
            db.execute(db.dialect.begin_write)
            try:
                for op in ops:
                    op(db)
                db.execute("COMMIT")
            except BaseException:
                with contextlib.suppress(*self.engine.errors):
                    if db.in_transaction:
                        db.execute("ROLLBACK")
                raise

    def _connected(self) -> Connection:
        """The writer's connection, made again if an outage lost it (raises while the
        database is out of reach: a store-wide failure)."""
        if not self.engine.usable(self.db):
            with contextlib.suppress(*self.engine.errors):
                self.db.close()
            self.db = self.engine.connect()
            log.warning("database %s: connected again", self.path)
        return self.db

    def _failed(self, jobs: list[_Job], exc: BaseException) -> list[_Job]:
        """The database refused a write: the store is failing; what must be written is kept."""
        reason = self.engine.reason(exc)
        if self.failing != reason:
            log.error("database %s: writes fail: %s", self.path, reason)
        self.failing = reason
        kept = []
        for job in jobs:
            if job.must:
                kept.append(job)
            else:
                self._fail(job, StoreUnavailable(reason))
        return kept

    def _done(self, jobs: list[_Job], wrote: bool) -> None:
        if wrote:
            self._dirty = True
            if self.failing is not None:
                log.warning("database %s: writes go through again", self.path)
                self.failing = None
        for job in jobs:
            if not job.future.done():
                job.future.set_result(None)

    @staticmethod
    def _fail(job: _Job, exc: StoreUnavailable) -> None:
        if not job.future.done():
            job.future.set_exception(exc)

    def _probe(self) -> None:
        """While failing with nothing to write: one small write, to learn when it works again."""
        stamp = str(time.time())

        def op(db: Connection) -> None:
            db.execute(
                "INSERT INTO meta (key, value) VALUES ('probe', ?) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (stamp,),
            )

        try:
            self._transaction([op])
        except self.engine.errors as exc:
            self.failing = self.engine.reason(exc)
            return
        self._done([], wrote=True)

    # ----------------------------------------------------------------- the write-ahead log

    def wal_size(self) -> int:
        """Bytes in the write-ahead log file (0 where there is none: PostgreSQL too)."""
        return self.engine.log_size()

    def _until_checkpoint(self) -> float | None:
        if not self.engine.checkpoints or not self._dirty:
            return None
        return max(0.0, self._last_checkpoint + self.checkpoint_seconds - time.monotonic())

    def _checkpoint_if_due(self) -> None:
        """Fold the log into the file and empty it: when it passes ``wal_limit``, or when it has
        new frames ``checkpoint_seconds`` after the last time (SQLite's log only)."""
        if not self.engine.checkpoints or not self._dirty:
            return
        now = time.monotonic()
        if now - self._last_checkpoint < self.checkpoint_seconds:
            # The size is looked at every SIZE_CHECK_SECONDS (a stat gives up the interpreter
            # lock, see ``_statements``): the log passes its limit by that long's writes at most.
            if now < self._next_size_check:
                return
            self._next_size_check = now + SIZE_CHECK_SECONDS
            if self.wal_size() <= self.wal_limit:
                return
        self._last_checkpoint = now
        self._next_size_check = now + RETRY_SECONDS  # if this one cannot complete
        with self._write_lock:
            try:
                # Between the writer's own transactions no other writer runs: the checkpoint
                # completes unless a reader holds the log, and then only a short while is lost.
                done = self.engine.checkpoint(self.db, CHECKPOINT_BUSY_MS, self.busy_seconds)
            except self.engine.errors as exc:
                if now - self._warned >= 60:
                    self._warned = now
                    log.warning("checkpoint of %s failed: %s", self.path, exc)
                return
        if done:
            self._dirty = False
            self._next_size_check = now

    def close(self, timeout: float = 5.0) -> None:
        """Write what is queued (for at most ``timeout`` s) and close, the log folded in."""
        with self._cv:
            if self._closing:
                return
            self._closing = True
            self._close_by = time.monotonic() + timeout
            self._cv.notify_all()
        self._writer.join(timeout + self.busy_seconds + 1)
        with self._write_lock:
            with contextlib.suppress(*self.engine.errors):
                if self.engine.usable(self.db):
                    self.engine.closing(self.db)
            self._readers.close()
            with self._lookup_lock:
                if self._looker is not None:
                    self._looker.close()
                    self._looker = None
            self.db.close()

    # ----------------------------------------------------------------- writes

    def create_room(
        self,
        room_id: str,
        config: dict[str, Any],
        seats: dict[str, Any],
        rules: str,
        overrides: dict[str, Any],
        seed: int,
        *,
        epoch: int | None = None,
    ) -> Future[None]:
        """Store a new room and its (empty) match; ``epoch``: its first owner's, the room's
        writes are fenced from then on (None: :data:`FIRST_EPOCH`, unfenced)."""
        club = config.get("club")
        first = FIRST_EPOCH if epoch is None else epoch
        # The room's game, from its options (docs/protocol.md §7.3); ``rules`` is its variant.
        game = accounts.game_of(config)
        row = (room_id, time.time(), _dump(config), _dump(seats), "waiting", club, first, game)
        match = (room_id, rules, _dump(overrides), seed, _dump(None), game)

        def op(db: Connection) -> None:
            db.execute(
                "INSERT INTO rooms (id, created, config, seats, status, club_id, epoch, game) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                row,
            )
            db.execute(
                "INSERT INTO matches (room_id, rules, overrides, seed, ledger, game) "
                "VALUES (?,?,?,?,?,?)",
                match,
            )

        fence = None if epoch is None else (room_id, epoch)
        return self._submit(op, fence=fence, creates=True)

    def take_room(self, room_id: str) -> int | None:
        """Take the room for this process (docs/scale.md): its epoch bumped, and the new one
        returned (None: no such room), once committed. Every write of an older epoch is refused
        from then on, and every one made before is seen by a read after this. Blocks: called
        from a thread, never the event loop; raises ``StoreUnavailable`` when it cannot write."""
        taken: list[int | None] = []

        def op(db: Connection) -> None:
            row = db.execute(
                "UPDATE rooms SET epoch = epoch + 1 WHERE id = ? RETURNING epoch", (room_id,)
            ).fetchone()
            taken.append(None if row is None else int(row[0]))

        self._submit(op, must=False, takes=room_id).result()
        epoch = taken[-1]  # the committed one, were the transaction made twice (_one_by_one)
        if epoch is not None:
            self.fence.taken += 1
        return epoch

    def epoch(self, room_id: str) -> int | None:
        """The room's epoch as stored (None: no such room)."""
        row = self.read(
            lambda db: db.execute("SELECT epoch FROM rooms WHERE id = ?", (room_id,)).fetchone()
        )
        return None if row is None else int(row[0])

    def save_seats(
        self, room_id: str, seats: dict[str, Any], *, epoch: int | None = None
    ) -> Future[None]:
        """Store the seats (tokens, names, bot kinds) of a room."""
        args = (_dump(seats), room_id)
        return self._submit(
            lambda db: db.execute("UPDATE rooms SET seats = ? WHERE id = ?", args),
            fence=_fence(room_id, epoch),
        )

    def start_hand(
        self,
        room_id: str,
        number: int,
        rules: str,
        overrides: dict[str, Any],
        seed: int,
        dealer: int,
        *,
        epoch: int | None = None,
    ) -> Future[None]:
        """Store a newly dealt hand (no actions yet)."""
        row = (room_id, number, rules, _dump(overrides), seed, dealer, "[]")

        def op(db: Connection) -> None:
            db.execute(_CURRENT, row)
            # Only the rows of this number: those of a hand dropped by a 解散, whose number is
            # dealt again (every other hand's are its own, kept until its record is written).
            db.execute("DELETE FROM actions WHERE room_id = ? AND number = ?", (room_id, number))
            db.execute("UPDATE rooms SET status = 'playing' WHERE id = ?", (room_id,))

        return self._submit(op, fence=_fence(room_id, epoch))

    def append_action(
        self,
        room_id: str,
        number: int,
        seq: int,
        seat: int,
        action: str,
        *,
        epoch: int | None = None,
    ) -> Future[None]:
        """Append action ``seq`` (from 0) of hand ``number`` to the log of the hand in progress.

        Tried once: its future fails with :class:`StoreUnavailable` if the file refuses it (or
        the writer has not reached it within ``TRY_SECONDS``; :class:`Fenced` when a newer owner
        holds the room), and then nothing was written.
        """
        row = (room_id, number, seq, seat, action)
        return self._submit(None, must=False, row=row, fence=_fence(room_id, epoch))

    def finish_hand(
        self,
        room_id: str,
        number: int,
        record: dict[str, Any],
        ledger: dict[str, Any],
        over: bool,
        match: int = 1,
        *,
        players: list[tuple[str | None, str | None, str | None]] | None = None,
        club: str | None = None,
        played: bool = True,
        ranked: bool = True,
        epoch: int | None = None,
    ) -> Future[None]:
        """Store a finished hand's record (hand ``number`` of the room, in match ``match``) and
        the match ledger; drop the hand in progress. ``players``: who held the seats (player
        id, name, bot kind), for 战绩; the record's ``replay_code`` is its 回放码; ``played``
        and ``ranked``: whether the hand counts for 战绩 and for a leaderboard."""
        finished = time.time()
        hand = (room_id, number, _dump(record), finished, match)
        counts = (int(played), int(played and ranked))
        seat_rows = [
            (room_id, number, seat, match, player, name, bot, club, finished, *figures, *counts)
            for seat, player, name, bot, *figures in accounts.seat_rows(
                record, players or [(None, None, None)] * len(_seats_of(record))
            )
        ]
        code = record.get("replay_code")
        totals = (_dump(ledger), int(over), room_id)
        status = ("over" if over else "between_hands", room_id)

        def op(db: Connection) -> None:
            # The hand's seats carry its room's game and variant (its match's preset), for 战绩
            # and leaderboards per game (docs/protocol.md §7.3).
            room = db.execute(
                "SELECT game, rules FROM matches WHERE room_id = ?", (room_id,)
            ).fetchone()
            game, variant = (accounts.DEFAULT_GAME, None) if room is None else room
            db.execute(_HAND, hand)
            db.execute("DELETE FROM current WHERE room_id = ? AND number = ?", (room_id, number))
            # The hand's actions are in its record now, written in this same transaction.
            db.execute("DELETE FROM actions WHERE room_id = ? AND number = ?", (room_id, number))
            db.execute("UPDATE matches SET ledger = ?, over = ? WHERE room_id = ?", totals)
            db.execute("UPDATE rooms SET status = ? WHERE id = ?", status)
            # A row per person at the table: its count is the table's persons (§7.3).
            persons = len(seat_rows)
            db.executemany(_HAND_SEAT, [(*r, game, variant, persons) for r in seat_rows])
            db.execute(accounts.MATCH_SEATS, (room_id, match))
            if isinstance(code, str):
                db.execute(_REPLAY_CODE, (accounts.digest(code), code, room_id, number))

        return self._submit(op, fence=_fence(room_id, epoch))

    def end_match(
        self,
        room_id: str,
        ledger: dict[str, Any],
        dissolved: bool,
        abandoned: int | None,
        how: str = "vote",
        *,
        epoch: int | None = None,
    ) -> Future[None]:
        """The match ended before its end (``how``: 解散 by a vote, a player who left, a room
        nobody came back to): its ledger, the hand in progress dropped.

        ``abandoned`` is the number of the hand dropped unplayed, whose deal row goes with it
        (its number is the next hand's). Its actions stay until that number is dealt again
        (``start_hand``): nothing but a hand's own record or its own deal removes them.
        """
        totals = (_dump(ledger), ENDED_BY[how] if dissolved else 0, room_id)

        def op(db: Connection) -> None:
            db.execute("DELETE FROM current WHERE room_id = ?", (room_id,))
            if abandoned is not None:
                db.execute(
                    "DELETE FROM deals WHERE room_id = ? AND number = ?", (room_id, abandoned)
                )
            db.execute(
                "UPDATE matches SET ledger = ?, over = 1, dissolved = ? WHERE room_id = ?", totals
            )
            db.execute("UPDATE rooms SET status = 'over' WHERE id = ?", (room_id,))

        return self._submit(op, fence=_fence(room_id, epoch))

    def new_match(
        self,
        room_id: str,
        number: int,
        seed: int,
        seats: dict[str, Any],
        *,
        epoch: int | None = None,
    ) -> Future[None]:
        """The room starts match ``number`` (再来一局) with ``seed`` and these seats."""
        match = (number, seed, _dump(None), room_id)
        room = (_dump(seats), room_id)

        def op(db: Connection) -> None:
            db.execute(
                "UPDATE matches SET number = ?, seed = ?, ledger = ?, over = 0, dissolved = 0 "
                "WHERE room_id = ?",
                match,
            )
            db.execute("UPDATE rooms SET status = 'waiting', seats = ? WHERE id = ?", room)

        return self._submit(op, fence=_fence(room_id, epoch))

    def save_keys(
        self, room_id: str, creator: str | None, invite: str | None, *, epoch: int | None = None
    ) -> Future[None]:
        """Store the hashes of a room's creator token and 守醒 invitation."""
        args = (room_id, creator, invite)
        return self._submit(lambda db: db.execute(_ROOM_KEYS, args), fence=_fence(room_id, epoch))

    def save_deal(
        self, room_id: str, number: int, commitment: str, secret: str, *, epoch: int | None = None
    ) -> Future[None]:
        """Store a hand's commitment and its (still secret) secret, before the hand is played."""
        args = (room_id, number, commitment, secret)
        return self._submit(lambda db: db.execute(_DEAL, args), fence=_fence(room_id, epoch))

    def write(self, op: Op) -> Future[None]:
        """A write someone waits for (``op`` runs in the writer's transaction), tried once: its
        future fails with :class:`StoreUnavailable` if the file refuses it."""
        return self._submit(op, must=False)

    def write_later(self, op: Op) -> None:
        """A write nobody waits for (kept and tried again until it is written)."""
        self._submit(op)

    # ----------------------------------------------------------------- reads

    def read(self, query: Callable[[Connection], T]) -> T:
        """``query`` run on a reading connection of the pool (each used by one thread at a
        time; up to ``READERS`` reads at once, a further one waits for a connection).

        A connection an outage lost is made again, and a query it failed is run once more on
        the new one (reads change nothing): the first read after the database came back works.
        """
        if self.engine.shared_reader:
            with self._write_lock:
                return query(self.db)
        db = self._readers.take()
        try:
            try:
                return query(db)
            except self.engine.errors as exc:
                if not self.engine.store_wide(exc) or self.engine.usable(db):
                    raise
            with contextlib.suppress(*self.engine.errors):
                db.close()
            db = self.engine.connect()
            return query(db)
        finally:
            self._readers.put(db)

    @property
    def inline_reads(self) -> bool:
        """Whether ``lookup`` may be called on the event loop (the engine answers a read of a
        row by its key within microseconds on the calling thread)."""
        return self.engine.inline_reads

    def lookup(self, query: Callable[[Connection], T]) -> T:
        """``query``, a read of a row or two by key, on a connection of its own, on the calling
        thread: made on the event loop itself where ``inline_reads`` (a thread's hop would
        cost the interpreter lock twice, a millisecond under load). Like ``read``, a query an
        outage failed is run once more on a new connection. Elsewhere it is ``read``."""
        if not self.engine.inline_reads:
            return self.read(query)
        with self._lookup_lock:
            db = self._looker
            if db is None:
                db = self._looker = self.engine.connect()
            try:
                return query(db)
            except self.engine.errors as exc:
                if not self.engine.store_wide(exc) or self.engine.usable(db):
                    raise
            db = self._looker = self.engine.connect()
            return query(db)

    def hand(self, room_id: str, number: int) -> dict[str, Any] | None:
        """A finished hand's record, or None."""
        row = self.read(
            lambda db: db.execute(
                "SELECT record FROM hands WHERE room_id = ? AND number = ?", (room_id, number)
            ).fetchone()
        )
        return None if row is None else dict(json.loads(row[0]))

    def load(self, room_id: str) -> StoredRoom | None:
        """Everything stored about a room (as written so far), or None."""
        return self.read(lambda db: self._snapshot(db, room_id))

    def _snapshot(self, db: Connection, room_id: str) -> StoredRoom | None:
        db.execute(db.dialect.begin_snapshot)  # one snapshot for all the reads
        try:
            return self._load(db, room_id)
        finally:
            with contextlib.suppress(*self.engine.errors):
                if db.in_transaction:
                    db.execute("COMMIT")

    @staticmethod
    def _load(db: Connection, room_id: str) -> StoredRoom | None:
        row = db.execute(
            "SELECT r.id, r.created, r.config, r.seats, r.status, m.seed, m.number, m.dissolved "
            "FROM rooms r JOIN matches m ON m.room_id = r.id WHERE r.id = ?",
            (room_id,),
        ).fetchone()
        if row is None:
            return None
        current_match = int(row[6])
        hands: list[dict[str, Any]] = []
        archive: list[tuple[int, dict[str, Any]]] = []
        for record, match in db.execute(
            "SELECT record, match FROM hands WHERE room_id = ? ORDER BY number", (room_id,)
        ):
            if match == current_match:
                hands.append(json.loads(record))
            else:
                archive.append((int(match), json.loads(record)))
        cur = db.execute(
            "SELECT number, rules, overrides, seed, dealer, actions FROM current WHERE room_id = ?",
            (room_id,),
        ).fetchone()
        current = None
        if cur is not None:
            logged = db.execute(
                "SELECT seat, action FROM actions WHERE room_id = ? AND number = ? ORDER BY seq",
                (room_id, cur[0]),
            ).fetchall()
            current = {
                "number": cur[0],
                "rules": cur[1],
                "overrides": json.loads(cur[2]),
                "seed": cur[3],
                "dealer": cur[4],
                "actions": [*json.loads(cur[5]), *([s, a] for s, a in logged)],
            }
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
            ended_by=next((k for k, v in ENDED_BY.items() if v == row[7]), None),
        )

    def keys(self, room_id: str) -> tuple[str | None, str | None]:
        """(creator hash, invitation hash) of a room, None where it has none."""
        row = self.read(
            lambda db: db.execute(
                "SELECT creator, invite FROM room_keys WHERE room_id = ?", (room_id,)
            ).fetchone()
        )
        return (None, None) if row is None else (row[0], row[1])

    def deal(self, room_id: str, number: int) -> tuple[str, str] | None:
        """(commitment, secret) of a hand, or None."""
        row = self.read(
            lambda db: db.execute(
                "SELECT commitment, secret FROM deals WHERE room_id = ? AND number = ?",
                (room_id, number),
            ).fetchone()
        )
        return None if row is None else (row[0], row[1])

    def room_ids(self, include_over: bool = False) -> list[str]:
        """Ids of stored rooms (oldest first), by default only those not over."""
        query = "SELECT id FROM rooms" + ("" if include_over else " WHERE status != 'over'")
        rows = self.read(lambda db: db.execute(query + " ORDER BY created").fetchall())
        return [str(r[0]) for r in rows]
