"""The store on a real PostgreSQL (docs/protocol.md §4): an outage while rooms write, two
processes opening one new database at once, and a room restored from it as from SQLite."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path
from typing import Any

import psycopg
import pytest

from weimaque.deploy.postgres import LocalPostgres
from weimaque.server.cluster.manager import RoomManager
from weimaque.server.store import migrations
from weimaque.server.store.store import Store, StoreUnavailable, open_store
from weimaque.server.table.options import RoomOptions
from weimaque.server.table.rooms import Room


def until(predicate: Any, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "not within the time"
        time.sleep(0.02)


def test_an_outage_acknowledges_nothing_and_the_store_comes_back_by_itself(
    own_postgres: LocalPostgres,
) -> None:
    store = open_store(own_postgres.url, busy_seconds=1.0)
    try:
        store.create_room("r", {}, {"seats": []}, "anxiang", {}, 7)
        store.start_hand("r", 1, "anxiang", {}, 7, 0)
        store.append_action("r", 1, 0, 0, "出三").result(10)
        own_postgres.stop()
        # A player's action is refused, not acknowledged; what follows is kept, in order.
        refused = store.append_action("r", 1, 1, 1, "过")
        with pytest.raises(StoreUnavailable, match="storage unavailable"):
            refused.result(15)
        seats = store.save_seats("r", {"seats": [], "name": "kept"})
        assert store.failing is not None and store.failing.startswith("storage unavailable: ")
        time.sleep(1.0)  # tried again and again meanwhile
        assert not seats.done() and store.failing is not None
        with pytest.raises(StoreUnavailable):
            store.append_action("r", 1, 1, 1, "过").result(15)
        own_postgres.start()
        seats.result(15)  # written once the server is back, by the writer's new connection
        until(lambda: store.failing is None)
        store.append_action("r", 1, 1, 1, "过").result(10)  # the same action, now acknowledged
        loaded = store.load("r")  # the reader's connection is made again too
        assert loaded is not None and loaded.current is not None
        assert loaded.current["actions"] == [[0, "出三"], [1, "过"]]
        assert loaded.seats["name"] == "kept"

        # With nothing to write, the probe alone finds the server back and clears ``failing``.
        own_postgres.stop()
        touch = store.write(lambda db: db.execute("UPDATE rooms SET status = status"))
        with pytest.raises(StoreUnavailable):
            touch.result(15)  # a write someone waits for is tried once, as an action is
        assert store.failing is not None
        own_postgres.start()
        until(lambda: store.failing is None)
        assert store.pending() == 0
    finally:
        own_postgres.start()
        store.close()
    # Closed cleanly: reopened, everything acknowledged is there.
    again = open_store(own_postgres.url)
    try:
        loaded = again.load("r")
        assert loaded is not None and loaded.current is not None
        assert loaded.current["actions"] == [[0, "出三"], [1, "过"]]
    finally:
        again.close()


def test_two_stores_opening_one_new_database_migrate_it_once(postgres_url: str) -> None:
    opened: list[Store] = []
    failed: list[BaseException] = []
    start = threading.Barrier(2)

    def open_one() -> None:
        start.wait()
        try:
            opened.append(open_store(postgres_url))
        except BaseException as exc:  # reported below
            failed.append(exc)

    threads = [threading.Thread(target=open_one) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    try:
        assert failed == [] and len(opened) == 2
        with psycopg.connect(postgres_url) as db:
            assert db.execute("SELECT version_num FROM alembic_version").fetchall() == [
                (migrations.HEAD,)
            ]
        # Both write and read the one schema.
        opened[0].create_room("r", {}, {"seats": []}, "anxiang", {}, 1).result(10)
        assert opened[1].room_ids() == ["r"]
    finally:
        for store in opened:
            store.close()


def played_room(target: str) -> dict[str, Any]:
    """A room of three bots played to the middle of its third hand, its moves each seat's
    first legal action, then built again from the store: what the rebuilt room holds."""
    store = open_store(target)
    try:
        manager = RoomManager(store)
        bots = {0: "random", 1: "random", 2: "random"}
        room = manager.create(RoomOptions(bots=bots, seed=71, options={"match_hands": 4}), "r")

        async def play() -> None:  # each action written, then applied, as the server does
            for _ in range(2):
                state = room.state
                while state is not None and not state.is_terminal():
                    seat = state.to_act()[0]
                    assert await room.play(seat, state.legal_actions(seat)[0])
                    if room.state is None:
                        break
                room.table.between_since = -1e9
                room.driver.maybe_deal()
            state = room.state
            assert state is not None
            for _ in range(3):
                seat = state.to_act()[0]
                assert await room.play(seat, state.legal_actions(seat)[0])

        asyncio.run(play())
        store.flush(10)
    finally:
        store.close()
    store = open_store(target)
    try:
        built = RoomManager(store).build("r")
        assert built is not None
        return summary(built)
    finally:
        store.close()


def summary(room: Room) -> dict[str, Any]:
    state = room.state
    assert state is not None
    return {
        "hand": room.table.hand_number,
        "match": room.table.match_number,
        "scores": list(room.match.scores),
        # Each run draws its own 回放码 and its own deals' secrets (docs/fairness.md).
        "hands": [
            {
                **{k: v for k, v in record.items() if k != "replay_code"},
                "fairness": {
                    k: v for k, v in record["fairness"].items() if k not in ("commitment", "secret")
                },
            }
            for record in room.match.hands
        ],
        "actions": [[s, str(a)] for s, a in state.actions],
        "seats": room.seating.to_store(),
        "dissolved": room.table.dissolved,
    }


def test_a_room_restored_from_postgresql_is_the_one_restored_from_sqlite(
    postgres_url: str, tmp_path: Path
) -> None:
    from_postgresql = played_room(postgres_url)
    assert from_postgresql["hand"] == 3 and len(from_postgresql["actions"]) == 3
    assert from_postgresql == played_room(str(tmp_path / "rooms.db"))
