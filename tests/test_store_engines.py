"""The store's API on both engines (docs/protocol.md §4): an SQLite file and a PostgreSQL
database (``store_target``, tests/pg.py) store and load the same things, the same way."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

import pytest

from weimaque.server.store import accounts
from weimaque.server.store.engines import PostgreSQL, SQLite, to_format
from weimaque.server.store.store import READERS, Store, StoreUnavailable, open_store

SEED = 2**63 - 25  # seeds are 63-bit: a BIGINT on PostgreSQL

RECORD: dict[str, Any] = {
    "actions": [[0, "出三"], [1, "过"]],
    "result": {"winner": 1, "total": 12},
    "settlement": {"seats": [-6, 12, -6]},
    "replay_code": "ABCD2345",
}


@pytest.fixture
def store(store_target: str) -> Iterator[Store]:
    opened = open_store(store_target)
    try:
        yield opened
    finally:
        opened.close()


def a_room(store: Store, room_id: str = "r", player: str | None = None) -> None:
    seats = {"seats": [{"name": "阿明", "player": player}, None, {"kind": "bot"}]}
    store.create_room(room_id, {"options": {"match_hands": 8}}, seats, "anxiang", {}, SEED)


def test_a_room_is_stored_and_loaded_as_it_was_written(store: Store) -> None:
    a_room(store)
    store.save_keys("r", "creator-hash", "invite-hash")
    store.save_keys("r", "creator-hash", None)  # written again: replaced
    store.save_deal("r", 1, "commitment", "secret")
    store.start_hand("r", 1, "anxiang", {"x": 1}, SEED - 1, 2)
    for seq, (seat, action) in enumerate(RECORD["actions"]):
        store.append_action("r", 1, seq, seat, action).result(10)
    store.flush(10)
    loaded = store.load("r")
    assert loaded is not None and loaded.current is not None
    assert (loaded.seed, loaded.status, loaded.match_number) == (SEED, "playing", 1)
    assert loaded.current == {
        "number": 1,
        "rules": "anxiang",
        "overrides": {"x": 1},
        "seed": SEED - 1,
        "dealer": 2,
        "actions": RECORD["actions"],
    }
    assert store.keys("r") == ("creator-hash", None)
    assert store.deal("r", 1) == ("commitment", "secret")
    assert store.room_ids() == ["r"]

    ledger = {"seats": [-6, 12, -6]}
    store.finish_hand("r", 1, RECORD, ledger, over=False)
    store.finish_hand("r", 1, RECORD, ledger, over=True)  # ended again (a restart): replaced
    store.flush(10)
    assert store.failing is None
    finished = store.load("r")
    assert finished is not None
    assert (finished.current, finished.hands, finished.status) == (None, [RECORD], "over")
    assert store.hand("r", 1) == RECORD and store.hand("r", 2) is None
    assert store.room_ids() == [] and store.room_ids(include_over=True) == ["r"]
    code = store.read(lambda db: accounts.replay_of(db, accounts.digest("ABCD2345")))
    assert code == ("r", 1, 1, RECORD)
    seats, number = store.read(lambda db: accounts.hand_seats(db, "r", 1))
    assert number == 1 and [s["name"] for s in seats] == [None, None, None]


def test_the_two_engines_load_the_same_room(store_target: str, tmp_path: Any) -> None:
    def written(target: str) -> Any:
        with_store = open_store(target)
        try:
            a_room(with_store)
            with_store.start_hand("r", 1, "anxiang", {}, SEED, 0)
            with_store.append_action("r", 1, 0, 0, "出三").result(10)
            with_store.flush(10)
            loaded = with_store.load("r")
        finally:
            with_store.close()
        return dataclasses.replace(loaded, created=0.0)

    assert written(store_target) == written(str(tmp_path / "other.db"))


def test_a_bad_write_is_dropped_alone(store: Store) -> None:
    a_room(store)
    store.flush(10)
    # Held: the writes below are queued, then made in one batch.
    with store._write_lock:
        before = store.save_seats("r", {"seats": [], "name": "before"})
        bad = store.write(lambda db: db.execute("INSERT INTO rooms (id) VALUES ('r')"))
        after = store.save_deal("r", 1, "c", "s")
    with pytest.raises(StoreUnavailable, match="the write failed"):
        bad.result(10)
    before.result(10)
    after.result(10)
    assert store.failing is None
    loaded = store.load("r")
    assert loaded is not None and loaded.seats["name"] == "before"
    assert store.deal("r", 1) == ("c", "s")


def test_reads_do_not_wait_for_the_writer(store: Store) -> None:
    a_room(store)
    store.flush(10)
    if isinstance(store.engine, SQLite) and store.engine.memory:
        pytest.skip(":memory: reads on the writer's connection")
    with store._write_lock:  # the writer is busy
        assert store.room_ids() == ["r"]
        assert store.read(lambda db: db.execute("SELECT COUNT(*) FROM rooms").fetchone()[0]) == 1


def test_a_lookup_is_made_on_the_loop_only_where_the_engine_answers_at_once(
    store: Store,
) -> None:
    """A key's player is looked up on the event loop from a local file (no thread's hop), and
    never behind a long read holding the reading connection (docs/protocol.md §4)."""
    a_room(store)
    store.flush(10)
    local = isinstance(store.engine, SQLite) and not store.engine.memory
    assert store.inline_reads is local
    count = "SELECT COUNT(*) FROM rooms"
    if local:
        held = [store._readers.take() for _ in range(READERS)]  # long reads on threads
        try:
            assert store.lookup(lambda db: db.execute(count).fetchone()[0]) == 1
        finally:
            for db in held:
                store._readers.put(db)
    else:  # a read like any other, on the reading connection
        assert store.lookup(lambda db: db.execute(count).fetchone()[0]) == 1
    a_room(store, "s")
    store.flush(10)
    assert store.lookup(lambda db: db.execute(count).fetchone()[0]) == 2  # what was written since


def test_the_rooms_a_player_sits_in_are_found_on_both_engines(store: Store) -> None:
    a_room(store, "mine", player="p1")
    a_room(store, "theirs", player="p2")
    store.flush(10)
    found = {p: store.read(lambda db, p=p: accounts.open_rooms(db, player=p)) for p in ("p1", "p2")}
    assert found == {"p1": ["mine"], "p2": ["theirs"]}
    assert store.read(lambda db: accounts.open_rooms(db, player="p3")) == []
    # A string no database holds (PostgreSQL's text has no NUL) is found nowhere, on both.
    assert store.read(lambda db: accounts.open_rooms(db, player="p1\x00")) == []
    assert store.read(lambda db: accounts.role_of(db, "club\x00", "p1")) is None


@pytest.mark.parametrize(
    ("target", "engine"),
    [
        pytest.param("weimaque.db", SQLite, id="path"),
        pytest.param(":memory:", SQLite, id="memory"),
        pytest.param("postgresql://u:secret@db.example:5432/wmq", PostgreSQL, id="postgresql"),
        pytest.param("postgres://u@db.example/wmq", PostgreSQL, id="postgres"),
    ],
)
def test_a_target_names_its_engine(target: str, engine: type) -> None:
    from weimaque.server.store.engines import engine_for

    picked = engine_for(target, busy_seconds=1.0, wal_limit=1)
    assert isinstance(picked, engine)
    assert "secret" not in picked.target  # what the logs show


@pytest.mark.parametrize(
    ("qmark", "format_"),
    [
        pytest.param("SELECT a FROM t WHERE b = ?", "SELECT a FROM t WHERE b = %s", id="one"),
        pytest.param("VALUES (?, ?)", "VALUES (%s, %s)", id="two"),
        pytest.param("WHERE x LIKE 'a%' AND y = ?", "WHERE x LIKE 'a%%' AND y = %s", id="percent"),
        pytest.param("SELECT '?', ?", "SELECT '?', %s", id="quoted-mark"),
        pytest.param("SELECT 'it''s ?', ?", "SELECT 'it''s ?', %s", id="quoted-quote"),
        pytest.param("SELECT 5 % 2", "SELECT 5 %% 2", id="modulo"),
    ],
)
def test_qmark_sql_is_sent_to_postgresql_in_format_style(qmark: str, format_: str) -> None:
    assert to_format(qmark) == format_
