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

from weimaque.server import migrations
from weimaque.server.app import create_app
from weimaque.server.store import Store

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
    assert rows(path, "SELECT * FROM matches ORDER BY room_id") == matches_before
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
