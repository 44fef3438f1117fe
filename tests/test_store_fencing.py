"""Fencing in the store, on both engines (docs/scale.md): every write of a room names the epoch
its owner took the room at, and the store refuses, inside the write's own transaction, a write
whose room a newer owner has taken. Nothing of a refused write is made, and nothing deletes
the actions of a hand another owner may hold."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

import psycopg

from weimaque.server.store.engines import is_postgresql
from weimaque.server.store.store import FIRST_EPOCH, Fenced, Store, open_store

SEATS: dict[str, Any] = {"seats": [{"kind": "human"}] * 3}


def made_room(store: Store, room_id: str = "r") -> None:
    """A room of the first owner's, a hand dealt, two actions acknowledged."""
    store.create_room(room_id, {}, SEATS, "anxiang", {}, 7, epoch=FIRST_EPOCH).result(10)
    store.start_hand(room_id, 1, "anxiang", {}, 7, 0, epoch=FIRST_EPOCH).result(10)
    for seq, action in enumerate(["出三", "过"]):
        store.append_action(room_id, 1, seq, seq, action, epoch=FIRST_EPOCH).result(10)


def rows(store: Store, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    return [tuple(r) for r in store.read(lambda db: db.execute(sql, args).fetchall())]


def refused(done: Future[None]) -> bool:
    try:
        done.result(10)
    except Fenced:
        return True
    return False


def test_a_write_under_an_older_epoch_is_refused_and_makes_nothing(store_target: str) -> None:
    store = open_store(store_target)
    try:
        made_room(store)
        assert store.epoch("r") == FIRST_EPOCH
        # Another process takes the room: everything written before is what it reads back.
        taken = store.take_room("r")
        assert taken == FIRST_EPOCH + 1 and store.epoch("r") == taken
        before = store.load("r")
        assert before is not None and before.current is not None
        assert before.current["actions"] == [[0, "出三"], [1, "过"]]
        stale = FIRST_EPOCH
        writes = {
            "action": store.append_action("r", 1, 2, 2, "过", epoch=stale),
            "seats": store.save_seats("r", {"seats": []}, epoch=stale),
            "deal": store.save_deal("r", 2, "c", "s", epoch=stale),
            "hand": store.start_hand("r", 2, "anxiang", {}, 8, 1, epoch=stale),
            "end": store.finish_hand("r", 1, {"actions": []}, {}, True, epoch=stale),
            "dissolve": store.end_match("r", {"x": 1}, True, 1, epoch=stale),
            "rematch": store.new_match("r", 2, 9, {"seats": []}, epoch=stale),
            "keys": store.save_keys("r", "a", "b", epoch=stale),
        }
        assert {name: refused(done) for name, done in writes.items()} == dict.fromkeys(writes, True)
        assert store.fence.refused == len(writes) and store.fence.taken == 1
        # Nothing of them was made: the new owner's room is the one it read back.
        after = store.load("r")
        assert after == before
        assert rows(store, "SELECT number, seq FROM actions ORDER BY seq") == [(1, 0), (1, 1)]
        assert rows(store, "SELECT count(*) FROM room_keys") == [(0,)]
        assert rows(store, "SELECT count(*) FROM deals") == [(0,)]
        # The new owner writes on.
        store.append_action("r", 1, 2, 2, "过", epoch=taken).result(10)
        again = store.load("r")
        assert again is not None and again.current is not None
        assert again.current["actions"][-1] == [2, "过"]
        # A write without an epoch (a process alone) is not checked.
        store.save_seats("r", SEATS).result(10)
    finally:
        store.close()


def test_one_rooms_refused_write_leaves_the_others_of_its_transaction(store_target: str) -> None:
    store = open_store(store_target)
    try:
        made_room(store, "a")
        made_room(store, "b")
        taken = store.take_room("b")
        assert taken is not None
        # Queued together, so that the writer commits them in one transaction.
        with store._cv:
            kept = store.append_action("a", 1, 2, 2, "过", epoch=FIRST_EPOCH)
            lost = store.append_action("b", 1, 2, 2, "过", epoch=FIRST_EPOCH)
            new = store.append_action("b", 1, 2, 0, "出四", epoch=taken)
        kept.result(10)
        new.result(10)
        assert refused(lost)
        assert rows(
            store, "SELECT room_id, seat, action FROM actions WHERE seq = 2 ORDER BY 1"
        ) == [
            ("a", 2, "过"),
            ("b", 0, "出四"),
        ]
    finally:
        store.close()


def begin_take(target: str, room_id: str) -> tuple[Any, Callable[[], None]]:
    """Another process taking the room, its transaction open (its bump not yet committed):
    the connection, and what commits it."""
    if is_postgresql(target):
        pg = psycopg.connect(target, autocommit=True)
        pg.execute("BEGIN")
        pg.execute("UPDATE rooms SET epoch = epoch + 1 WHERE id = %s", (room_id,))
        return pg, lambda: pg.execute("COMMIT")
    lite = sqlite3.connect(target, isolation_level=None, timeout=10)
    lite.execute("BEGIN IMMEDIATE")
    lite.execute("UPDATE rooms SET epoch = epoch + 1 WHERE id = ?", (room_id,))
    return lite, lambda: lite.execute("COMMIT")


def waiting_on_a_lock(target: str) -> bool:
    """Whether some connection of the PostgreSQL database waits for a lock."""
    with psycopg.connect(target, autocommit=True) as pg:
        row = pg.execute(
            "SELECT count(*) FROM pg_stat_activity "
            "WHERE datname = current_database() AND wait_event_type = 'Lock'"
        ).fetchone()
    return row is not None and row[0] > 0


def test_the_epoch_is_checked_inside_the_writes_transaction(store_target: str) -> None:
    """A write whose check would pass before another owner's take commits, but which commits
    after it, is refused: the check holds the room's row (or the file) until its own commit."""
    store = open_store(store_target)
    try:
        made_room(store)
        other, commit = begin_take(store_target, "r")
        try:
            stale = store.append_action("r", 1, 2, 2, "过", epoch=FIRST_EPOCH)
            if is_postgresql(store_target):
                deadline = time.monotonic() + 10
                while not waiting_on_a_lock(store_target):  # the writer waits on the row
                    assert time.monotonic() < deadline, "the writer never waited on the row"
                    time.sleep(0.01)
            else:
                while not stale.running() and not stale.done():
                    time.sleep(0.01)
                time.sleep(0.1)  # in BEGIN IMMEDIATE, behind the other's write lock
            assert not stale.done()
            commit()
        finally:
            other.close()
        assert refused(stale)
        assert store.epoch("r") == FIRST_EPOCH + 1
        assert rows(store, "SELECT seq FROM actions ORDER BY seq") == [(0,), (1,)]
    finally:
        store.close()


def test_taking_a_room_waits_for_a_write_in_flight_and_then_reads_it(store_target: str) -> None:
    """The other way round: a write of the old owner begun before the take is read back by
    the new owner (its take waits for the write's commit)."""
    store = open_store(store_target)
    other = open_store(store_target)  # the new owner's process
    try:
        made_room(store)
        gate = threading.Event()
        entered = threading.Event()

        def slow(db: Any) -> None:  # the old owner's transaction, held open a moment
            entered.set()
            gate.wait(10)

        with store._cv:
            store.append_action("r", 1, 2, 2, "过", epoch=FIRST_EPOCH)
            held = store._submit(slow, fence=("r", FIRST_EPOCH))
        assert entered.wait(10)
        taking: list[int | None] = []
        taker = threading.Thread(target=lambda: taking.append(other.take_room("r")))
        taker.start()
        time.sleep(0.2)  # the take is behind the old owner's lock (or file lock)
        assert taking == []
        gate.set()
        held.result(10)
        taker.join(20)
        assert taking == [FIRST_EPOCH + 1]
        loaded = other.load("r")
        assert loaded is not None and loaded.current is not None
        assert loaded.current["actions"][-1] == [2, "过"]
    finally:
        other.close()
        store.close()


def test_a_dissolution_keeps_the_hands_actions_until_its_number_is_dealt_again(
    store_target: str,
) -> None:
    store = open_store(store_target)
    try:
        made_room(store)
        store.end_match("r", {"x": 1}, True, 1, epoch=FIRST_EPOCH).result(10)
        assert rows(store, "SELECT number, seq FROM actions ORDER BY seq") == [(1, 0), (1, 1)]
        data = store.load("r")
        assert data is not None and data.current is None and data.dissolved
        # 再来一局: the dropped hand's number is dealt again, its old rows go with the deal.
        store.new_match("r", 2, 9, SEATS, epoch=FIRST_EPOCH).result(10)
        store.start_hand("r", 1, "anxiang", {}, 9, 0, epoch=FIRST_EPOCH).result(10)
        assert rows(store, "SELECT count(*) FROM actions") == [(0,)]
        # A finished hand's rows go with its record (in the same transaction), no other's.
        store.append_action("r", 1, 0, 0, "出五", epoch=FIRST_EPOCH).result(10)
        store.finish_hand("r", 1, {"actions": [[0, "出五"]]}, {}, False, 2, epoch=FIRST_EPOCH)
        store.start_hand("r", 2, "anxiang", {}, 9, 1, epoch=FIRST_EPOCH)
        store.append_action("r", 2, 0, 1, "出六", epoch=FIRST_EPOCH).result(10)
        assert rows(store, "SELECT number, seq FROM actions") == [(2, 0)]
    finally:
        store.close()


def test_an_unknown_room_is_not_taken(store_target: str) -> None:
    store = open_store(store_target)
    try:
        assert store.take_room("nope") is None and store.fence.taken == 0
        assert refused(store.save_seats("nope", SEATS, epoch=FIRST_EPOCH))
    finally:
        store.close()


def test_in_one_transaction_a_write_meets_the_epoch_of_its_place_in_the_queue(
    store_target: str,
) -> None:
    """The writer commits many writes at once: one queued before a take of its room is made
    (it came first), one queued after it under the old epoch is refused."""
    store = open_store(store_target)
    try:
        made_room(store)

        def bump(db: Any) -> None:  # what ``take_room`` runs
            db.execute("UPDATE rooms SET epoch = epoch + 1 WHERE id = ?", ("r",))

        with store._cv:  # queued together: one transaction
            before = store.append_action("r", 1, 2, 2, "过", epoch=FIRST_EPOCH)
            take = store._submit(bump, must=False, takes="r")
            after = store.append_action("r", 1, 3, 0, "出九", epoch=FIRST_EPOCH)
            new = store.append_action("r", 1, 3, 0, "出十", epoch=FIRST_EPOCH + 1)
        before.result(10)
        take.result(10)
        new.result(10)
        assert refused(after)
        assert rows(store, "SELECT seq, action FROM actions WHERE seq >= 2 ORDER BY seq") == [
            (2, "过"),
            (3, "出十"),
        ]
    finally:
        store.close()
