"""The store knows the game (docs/protocol.md §4, §7.3, §7.5; migration 0008), on both engines
(``store_target``, tests/pg.py):

- a database the server wrote at revision 0007 (before games) is brought forward: its rows
  keep every figure and are of 偎麻雀 (``maque``);
- 战绩, the totals and a club's leaderboard of a real ``wmq serve`` are per game: a hand of
  another game, written straight into the store, is kept apart from 偎麻雀's, and an unknown
  game is a 400 quoting it.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.pool import NullPool

from tests import serverkit
from weimaque.server.store import accounts, migrations
from weimaque.server.store.store import open_store

#: What the server of revision 0007 wrote: a player, a club, a room and its match of two
#: hands, their seats and the match's summary.
OLD_ROWS: dict[str, list[dict[str, Any]]] = {
    "players": [{"id": "p", "name": "阿明", "created": 1.0}],
    "clubs": [
        {"id": "c", "name": "周五牌局", "owner": "p", "approval": 0, "rules": "{}", "created": 2.0}
    ],
    "rooms": [
        {
            "id": "r",
            "created": 3.0,
            "config": json.dumps({"club": "c"}),
            "seats": "{}",
            "status": "over",
            "club_id": "c",
        }
    ],
    "matches": [
        {"room_id": "r", "rules": "anxiang", "overrides": "{}", "seed": 7, "ledger": "null"}
    ],
    "hand_seats": [
        {
            "room_id": "r",
            "number": number,
            "seat": seat,
            "match": 1,
            "player_id": "p" if seat == 0 else None,
            "name": f"s{seat}",
            "bot": None if seat == 0 else "random",
            "club_id": "c",
            "finished": 10.0 + number,
            "points": points,
            "won": int(points > 0),
            "chou": 0,
            "xi": max(points, 0),
            "played": 1,
            "ranked": 1,
        }
        for number, figures in ((1, (12, -6, -6)), (2, (-3, 6, -3)))
        for seat, points in enumerate(figures)
    ],
}


#: How the server of revision 0007 summed a match's hands into ``match_seats`` (§7.3).
SUMMARIES_0007 = (
    "INSERT INTO match_seats (room_id, match, seat, holder, player_id, name, bot, club_id, "
    "started, last, hands, total, ranked) SELECT room_id, match, seat, "
    "COALESCE(player_id, ''), MAX(player_id), MAX(name), MAX(bot), MAX(club_id), "
    "MIN(finished), MAX(finished), COUNT(*), SUM(points), MIN(ranked) FROM hand_seats "
    "WHERE played = 1 GROUP BY room_id, match, seat, COALESCE(player_id, '')"
)


def sa_engine(target: str) -> sa.Engine:
    if target.startswith("postgresql"):
        url = sa.make_url(target).set(drivername="postgresql+psycopg")
        return sa.create_engine(url, poolclass=NullPool)
    return sa.create_engine(f"sqlite:///{target}", poolclass=NullPool)


def write_at_0007(target: str) -> None:
    """A database at revision 0007, holding :data:`OLD_ROWS` (and their match summaries, as
    the server of that revision summed them)."""
    if target.startswith("postgresql"):
        engine = sa_engine(target)
        try:
            with engine.connect() as connection:
                migrations.run(connection, "0007")
                connection.commit()
        finally:
            engine.dispose()
    else:
        db = sqlite3.connect(target, isolation_level=None)
        migrations.upgrade(db, "0007")
        db.close()
    engine = sa_engine(target)
    try:
        with engine.begin() as connection:
            for table, rows in OLD_ROWS.items():
                for row in rows:
                    names = ", ".join(row)
                    marks = ", ".join(f":{k}" for k in row)
                    connection.execute(
                        sa.text(f"INSERT INTO {table} ({names}) VALUES ({marks})"), row
                    )
            connection.execute(sa.text(SUMMARIES_0007))
    finally:
        engine.dispose()


def select(target: str, sql: str) -> list[tuple[Any, ...]]:
    engine = sa_engine(target)
    try:
        with engine.connect() as connection:
            return [tuple(r) for r in connection.execute(sa.text(sql)).all()]
    finally:
        engine.dispose()


def test_a_database_of_revision_0007_is_brought_forward(store_target: str) -> None:
    write_at_0007(store_target)
    assert select(store_target, "SELECT version_num FROM alembic_version") == [("0007",)]
    figures = (
        "SELECT room_id, number, seat, match, player_id, points, won, xi, finished, played, "
        "ranked FROM hand_seats ORDER BY number, seat"
    )
    summaries = "SELECT room_id, match, seat, holder, total, hands, ranked FROM match_seats"
    before = {
        sql: select(store_target, sql)
        for sql in (
            figures,
            summaries + " ORDER BY seat",
            "SELECT id, config, status, club_id FROM rooms",
            "SELECT room_id, rules, seed FROM matches",
            "SELECT id, name, rules FROM clubs",
        )
    }
    assert len(before[figures]) == 6

    store = open_store(store_target)
    try:
        for sql, rows in before.items():
            assert select(store_target, sql) == rows, sql
        for table in ("rooms", "matches", "hand_seats", "match_seats", "clubs"):
            assert select(store_target, f"SELECT DISTINCT game FROM {table}") == [("maque",)]
        # The figures' rows carry their match's preset, the variant.
        for table in ("hand_seats", "match_seats"):
            found = select(store_target, f"SELECT DISTINCT variant FROM {table}")
            assert found == [("anxiang",)], table
        assert select(store_target, "SELECT version_num FROM alembic_version") == [
            (migrations.HEAD,)
        ]
        # 战绩 and figures of 偎麻雀 are the old ones; another game has none.
        found, _ = store.read(lambda db: accounts.matches(db, "p", limit=5, before=None))
        assert [(m["game"], m["rules"], m["total"], m["hands"]) for m in found] == [
            ("maque", "anxiang", 9, 2)
        ]
        for game in ("maque", "sandingguai"):
            page, _ = store.read(
                lambda db, g=game: accounts.matches(db, "p", limit=5, before=None, game=g)
            )
            assert len(page) == (game == "maque")
        totals = store.read(lambda db: accounts.stats(db, "p", 0.0))
        assert (totals["hands"], totals["points"], totals["wins"]) == (2, 9, 1)
        assert store.read(lambda db: accounts.stats(db, "p", 0.0, "sandingguai"))["hands"] == 0
        # A new room of another game is written as of that game.
        store.create_room("r2", {"game": "sandingguai"}, {}, "basic", {}, 1).result()
        store.create_room("r3", {}, {}, "anxiang", {}, 1).result()
    finally:
        store.close()
    assert select(store_target, "SELECT id, game FROM rooms WHERE id != 'r' ORDER BY id") == [
        ("r2", "sandingguai"),
        ("r3", "maque"),
    ]
    assert select(store_target, "SELECT game FROM matches WHERE room_id = 'r2'") == [
        ("sandingguai",)
    ]


# ------------------------------------------------------------------ the endpoints, per game


def call(
    server: serverkit.Server,
    method: str,
    path: str,
    head: dict[str, str] | None = None,
    body: Any = None,
) -> tuple[int, Any]:
    data = None if body is None else json.dumps(body).encode()
    headers = {"Content-Type": "application/json", **(head or {})}
    status, _, raw = server.request(path, data, headers, method)
    return status, json.loads(raw) if raw else None


def sign_up(server: serverkit.Server, name: str) -> tuple[str, dict[str, str]]:
    status, body = call(server, "POST", "/api/players", body={"name": name})
    assert status == 201, body
    return str(body["player"]["id"]), {"Authorization": f"Bearer {body['key']}"}


def test_records_and_leaderboards_are_per_game(store_target: str, tmp_path: Path) -> None:
    server = serverkit.Server(tmp_path, db=store_target)
    try:
        per_game(server, store_target)
    finally:
        server.stop()


def per_game(server: serverkit.Server, store_target: str) -> None:
    people = [sign_up(server, name) for name in ("阿明", "小红", "老王")]
    heads = [h for _, h in people]
    status, made = call(server, "POST", "/api/clubs", heads[0], {"name": "周五牌局"})
    assert status == 201, made
    club = made["club"]["id"]
    for head in heads[1:]:
        status, invite = call(server, "POST", f"/api/clubs/{club}/invites", heads[0], {})
        assert status == 201, invite
        status, joined = call(server, "POST", "/api/clubs/join", head, {"code": invite["code"]})
        assert status == 200 and joined["role"] == "member", joined
    # A club table of 偎麻雀, one hand, played by the three members themselves.
    body = {"turn_seconds": None, "next_seconds": None, "options": {"match_hands": 1}}
    status, room = call(server, "POST", f"/api/clubs/{club}/tables", heads[0], body)
    assert status == 201, room
    table = serverkit.Table(server, room["room_id"], headers=heads)
    try:
        while (k := table.to_act()) is not None:
            assert table.act(k) == "ack"
    finally:
        table.close()

    mine = call(server, "GET", "/api/me/matches", heads[0])[1]["matches"]
    assert [(m["game"], m["hands"]) for m in mine] == [("maque", 1)]
    maque_points = mine[0]["total"]
    for table in ("hand_seats", "match_seats"):  # the variant, written with the figures
        found = select(
            store_target,
            f"SELECT DISTINCT game, variant FROM {table} WHERE room_id = '{room['room_id']}'",
        )
        assert found == [("maque", mine[0]["rules"]["id"])], table
    board = call(server, "GET", f"/api/clubs/{club}/leaderboard", heads[0])[1]
    assert board["game"] == "maque" and len(board["rows"]) == 3
    stats = call(server, "GET", "/api/me/stats", heads[0])[1]
    assert (stats["game"], stats["hands"], stats["points"]) == ("maque", 1, maque_points)

    # A hand of another game at the club's table, written straight into the store.
    other = another_game_hand(store_target, people[0][0], club)

    def matches(head: dict[str, str], query: str = "") -> list[tuple[str, str, int]]:
        status, page = call(server, "GET", "/api/me/matches" + query, head)
        assert status == 200, page
        return [(m["room_id"], m["game"], m["total"]) for m in page["matches"]]

    assert matches(heads[0]) == [
        (other, "sandingguai", 500),
        (room["room_id"], "maque", maque_points),
    ]
    assert matches(heads[0], "?game=maque") == [(room["room_id"], "maque", maque_points)]
    assert matches(heads[0], "?game=sandingguai") == [(other, "sandingguai", 500)]
    # Another member sees the player's matches at their club, per game alike.
    theirs = f"/api/players/{people[0][0]}/matches"
    status, page = call(server, "GET", theirs + "?game=sandingguai", heads[1])
    assert status == 200 and [m["room_id"] for m in page["matches"]] == [other]
    status, page = call(server, "GET", theirs + "?game=maque", heads[1])
    assert [m["room_id"] for m in page["matches"]] == [room["room_id"]]

    stats = call(server, "GET", "/api/me/stats", heads[0])[1]
    assert (stats["game"], stats["hands"], stats["points"]) == ("maque", 1, maque_points)
    stats = call(server, "GET", "/api/me/stats?game=sandingguai", heads[0])[1]
    assert (stats["game"], stats["hands"], stats["points"]) == ("sandingguai", 1, 500)
    boards = {
        game: call(server, "GET", f"/api/clubs/{club}/leaderboard{q}", heads[1])[1]
        for game, q in (("maque", ""), ("sandingguai", "?game=sandingguai"))
    }
    assert boards["maque"] == board
    assert [(r["player"]["id"], r["points"]) for r in boards["sandingguai"]["rows"]] == [
        (people[0][0], 500)
    ]

    for path in (
        "/api/me/matches",
        "/api/me/stats",
        theirs,
        f"/api/clubs/{club}/leaderboard",
    ):
        status, refused = call(server, "GET", f"{path}?game=chess%27s", heads[1])
        assert status == 400, (path, refused)
        assert refused["error"]["code"] == "unknown_game"
        assert "chess's" in refused["error"]["message"], refused


def another_game_hand(target: str, player: str, club: str) -> str:
    """A finished hand of 三丁拐 at ``club``'s table, ``player`` at seat 0 with 500 points:
    written as the store writes a hand of that game (its room, match, seats and summary)."""
    store = open_store(target)
    try:
        store.create_room("sdg", {"game": "sandingguai", "club": club}, {}, "basic", {}, 1).result()

        def op(db: Any) -> None:
            for seat, points in enumerate((500, -250, -250)):
                db.execute(
                    "INSERT INTO hand_seats (room_id, number, seat, match, player_id, name, bot, "
                    "club_id, finished, points, won, chou, xi, played, ranked, game, "
                    "variant) "
                    "VALUES ('sdg', 1, ?, 1, ?, ?, NULL, ?, 4e9, ?, ?, 0, 0, 1, 1, "
                    "'sandingguai', 'basic')",
                    (seat, player if seat == 0 else None, f"s{seat}", club, points, int(seat == 0)),
                )
            db.execute(accounts.MATCH_SEATS, ("sdg", 1))
            db.execute("UPDATE rooms SET status = 'over' WHERE id = 'sdg'")

        store.write(op).result()
    finally:
        store.close()
    return "sdg"
