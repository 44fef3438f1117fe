"""The store's schema grows by migrations (docs/protocol.md §4): a database made by the server
before migrations existed (``tests/data/store-0.db``: a match of three bots played to its end,
and a room waiting for its players) is upgraded in place and loses nothing.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

from starlette.testclient import TestClient

from weimaque.server.app import create_app
from weimaque.server.store import migrations
from weimaque.server.store.store import Store

OLD = Path(__file__).parent / "data" / "store-0.db"


def rows(path: Path, sql: str) -> list[tuple[Any, ...]]:
    db = sqlite3.connect(path)
    try:
        return db.execute(sql).fetchall()
    finally:
        db.close()


def schema(path: Path) -> dict[str, list[str]]:
    tables = [r[0] for r in rows(path, "SELECT name FROM sqlite_master WHERE type = 'table'")]
    return {t: sorted(r[1] for r in rows(path, f"PRAGMA table_info({t})")) for t in sorted(tables)}


def test_the_newest_revision_is_the_one_the_store_knows() -> None:
    assert migrations.head() == migrations.HEAD


def test_an_older_database_is_upgraded_in_place_and_loses_nothing(tmp_path: Path) -> None:
    path = tmp_path / "weimaque.db"
    shutil.copy(OLD, path)
    assert "alembic_version" not in schema(path)
    rooms_before = rows(path, "SELECT id, created, config, seats, status FROM rooms ORDER BY id")
    hands_before = rows(path, "SELECT room_id, number, match, record FROM hands ORDER BY number")
    matches_before = rows(path, "SELECT * FROM matches ORDER BY room_id")
    assert len(rooms_before) == 2 and len(hands_before) == 3

    Store(path).close()
    fresh = tmp_path / "fresh.db"
    Store(fresh).close()
    # The upgraded file has exactly the schema of a new one, at the newest revision.
    assert schema(path) == schema(fresh)
    assert rows(path, "SELECT version_num FROM alembic_version") == [(migrations.HEAD,)]
    assert rows(path, "SELECT id, created, config, seats, status FROM rooms ORDER BY id") == (
        rooms_before
    )
    # Every row of the file is of 偎麻雀 (migration 0008).
    assert rows(path, "SELECT * FROM matches ORDER BY room_id") == [
        (*m, "maque") for m in matches_before
    ]
    assert rows(path, "SELECT DISTINCT game FROM rooms") == [("maque",)]
    assert rows(path, "SELECT DISTINCT game FROM hand_seats") == [("maque",)]
    # Every hand is as it was, with a 回放码 added, and its seats counted for 战绩.
    codes = []
    for (room, number, match, before), (after,) in zip(
        hands_before,
        rows(path, "SELECT record FROM hands ORDER BY number"),
        strict=True,
    ):
        record = json.loads(after)
        codes.append(record.pop("replay_code"))
        assert record == json.loads(before), (room, number)
        seats = rows(
            path,
            "SELECT seat, match, player_id, name, points FROM hand_seats "
            f"WHERE room_id = '{room}' AND number = {number} ORDER BY seat",
        )
        points = json.loads(before)["settlement"]["seats"]
        assert [(s, m, p, pts) for s, m, p, _, pts in seats] == [
            (seat, match, None, points[seat]) for seat in range(3)
        ]
    assert len(set(codes)) == 3
    # Opening it again changes nothing.
    again = schema(path), rows(path, "SELECT record FROM hands ORDER BY number")
    Store(path).close()
    assert (schema(path), rows(path, "SELECT record FROM hands ORDER BY number")) == again

    # The server plays on from it: the finished match, its hands with their 回放码, the room
    # that waits for its players.
    bots_room = hands_before[0][0]
    waiting = next(r[0] for r in rooms_before if r[0] != bots_room)
    with TestClient(create_app(path)) as client:
        info = client.get(f"/api/rooms/{bots_room}").json()["room"]
        assert info["match_over"] and info["hand_number"] == 3
        hands = client.get(f"/api/rooms/{bots_room}/hands").json()["hands"]
        assert [h["code"] for h in hands] == codes
        replay = client.get(f"/api/replays/{codes[1]}").json()
        assert replay["number"] == 2 and replay["steps"] and "room_id" not in replay
        assert client.get(f"/api/rooms/{waiting}").json()["room"]["status"] == "waiting"


def test_hands_of_an_older_file_rank_only_real_play(tmp_path: Path) -> None:
    """Revision 0004 marks the hands an older file holds (docs/protocol.md §7.5): a practice
    room's (a chosen seed) and a player's against bots alone count on no leaderboard; every
    old hand was played (it is in 战绩 as before)."""
    path = tmp_path / "old.db"
    db = sqlite3.connect(path, isolation_level=None)
    migrations.upgrade(db, "0003")
    rooms = {"practice": {"seed": 5}, "friends": {}, "alone": {}}
    for room_id, config in rooms.items():
        db.execute(
            "INSERT INTO rooms (id, created, config, seats, status) VALUES (?, 0, ?, '{}', 'over')",
            (room_id, json.dumps(config)),
        )
    bots = {"practice": [None, None, "random"], "friends": [None, None, "random"]}
    bots["alone"] = [None, "random", "random"]
    for room_id, kinds in bots.items():
        for seat, bot in enumerate(kinds):
            db.execute(
                "INSERT INTO hand_seats (room_id, number, seat, match, player_id, name, bot, "
                "club_id, finished, points, won, chou, xi) "
                "VALUES (?, 1, ?, 1, NULL, 'x', ?, 'c', 0, 0, 0, 1, 0)",
                (room_id, seat, bot),
            )
    db.close()
    Store(path).close()
    ranked = rows(
        path,
        "SELECT room_id, MIN(ranked), MAX(ranked), MIN(played) FROM hand_seats "
        "GROUP BY room_id ORDER BY room_id",
    )
    assert ranked == [("alone", 0, 0, 1), ("friends", 1, 1, 1), ("practice", 0, 0, 1)]
    assert rows(path, "SELECT COUNT(*) FROM room_numbers") == [(0,)]
