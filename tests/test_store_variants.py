"""战绩 and leaderboards per variant (docs/protocol.md §7.3, §7.5), on both engines
(``store_target``, tests/pg.py): a table of two playing 全名堂 (``quanmingtang-2p``) and a table
of three playing 安乡 (``anxiang``) are different contests. A real ``wmq serve`` whose club
members play one match of each:

- the player's totals are of every variant of the game by default (as before a variant could be
  asked for), ``by_variant`` gives each variant's, and ``?variant=ID`` (an id or an alias of a
  preset of the game) counts that one alone; 战绩 (the matches) is filtered alike;
- the club's leaderboard is of every variant by default, of one with ``?variant=ID``, and names
  the variants its ranked hands were played at;
- a variant the game does not have is a 400 quoting it;
- 安乡 with four persons is a contest of its own (``variant=anxiang&persons=4``);
- a database of revision 0008 learns each hand's table (``persons``, migration 0009).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from tests import serverkit
from tests.test_server_four import FOUR, Four, play_hand, wait_deal
from tests.test_store_games import SUMMARIES_0007, sa_engine, select
from weimaque.server.players import variants
from weimaque.server.store import accounts, migrations
from weimaque.server.store.store import open_store


def call(server: serverkit.Server, path: str, head: dict[str, str], body: Any = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    method = "GET" if body is None else "POST"
    headers = {"Content-Type": "application/json", **head}
    status, _, raw = server.request(path, data, headers, method)
    return status, json.loads(raw) if raw else None


def ok(server: serverkit.Server, path: str, head: dict[str, str], body: Any = None) -> Any:
    status, answer = call(server, path, head, body)
    assert status in (200, 201), (path, answer)
    return answer


def test_records_and_leaderboards_are_per_variant(store_target: str, tmp_path: Path) -> None:
    server = serverkit.Server(tmp_path, db=store_target)
    try:
        per_variant(server)
    finally:
        server.stop()


def play(server: serverkit.Server, club: str, heads: list[dict[str, str]], variant: str) -> str:
    """One hand of ``variant`` at a club table, its seats held by the players of ``heads``."""
    body = {
        "preset": variant,
        "turn_seconds": None,
        "next_seconds": None,
        "options": {"match_hands": 1},
    }
    room = ok(server, f"/api/clubs/{club}/tables", heads[0], body)
    table = serverkit.Table(server, room["room_id"], headers=heads, seats=len(heads))
    try:
        while (k := table.to_act()) is not None:
            assert table.act(k) == "ack"
    finally:
        table.close()
    return str(room["room_id"])


def two_contests(server: serverkit.Server) -> tuple[list[str], list[dict[str, str]], str, str, str]:
    """阿明, 小红 and 老王 in a club: the three play a hand of 安乡, 阿明 and 小红 one of 全名堂
    at a table of two. (Their ids, their headers, the club, the room of three, the room of two.)"""
    people = []
    for name in ("阿明", "小红", "老王"):
        made = ok(server, "/api/players", {}, {"name": name})
        people.append((str(made["player"]["id"]), {"Authorization": f"Bearer {made['key']}"}))
    ids, heads = [p for p, _ in people], [h for _, h in people]
    club = ok(server, "/api/clubs", heads[0], {"name": "周五牌局"})["club"]["id"]
    for head in heads[1:]:
        invite = ok(server, f"/api/clubs/{club}/invites", heads[0], {})
        ok(server, "/api/clubs/join", head, {"code": invite["code"]})

    three = play(server, club, heads, "anxiang")
    two = play(server, club, heads[:2], "quanmingtang-2p")
    return ids, heads, club, three, two


def per_variant(server: serverkit.Server) -> None:
    ids, heads, club, three, two = two_contests(server)

    # 阿明's matches, and what each counted for each player.
    mine = ok(server, "/api/me/matches", heads[0])["matches"]
    # A match's preset is its rules; its variant names the table too.
    assert [(m["room_id"], m["rules"]["id"], m["variant"]["id"]) for m in mine] == [
        (two, "quanmingtang", "quanmingtang-2p"),
        (three, "anxiang", "anxiang"),
    ]
    totals = {m["room_id"]: {p["seat"]: p["total"] for p in m["players"]} for m in mine}
    seat_of = {m["room_id"]: m["seat"] for m in mine}
    mine_in = {room: totals[room][seat_of[room]] for room in (two, three)}

    # The totals: every variant by default; each variant's in by_variant; one when asked.
    stats = ok(server, "/api/me/stats", heads[0])
    assert (stats["game"], stats["variant"], stats["matches"], stats["hands"]) == (
        "maque",
        None,
        2,
        2,
    )
    assert stats["points"] == mine_in[two] + mine_in[three]
    each = {row["variant"]["id"]: row for row in stats["by_variant"]}
    assert sorted(each) == ["anxiang", "quanmingtang-2p"]
    assert each["quanmingtang-2p"]["variant"]["name"] == "全名堂 二人"
    assert each["quanmingtang-2p"]["variant"]["name_en"].endswith("two players")
    for variant, room in (("quanmingtang-2p", two), ("anxiang", three)):
        assert (each[variant]["matches"], each[variant]["hands"]) == (1, 1)
        assert each[variant]["points"] == mine_in[room]
        one = ok(server, f"/api/me/stats?variant={variant}", heads[0])
        assert one["variant"]["id"] == variant
        assert (one["matches"], one["hands"], one["points"]) == (1, 1, mine_in[room])
        assert one["by_variant"] == stats["by_variant"]  # every variant's, whichever is asked
        page = ok(server, f"/api/me/matches?variant={variant}", heads[0])["matches"]
        assert [m["room_id"] for m in page] == [room]
        theirs = f"/api/players/{ids[0]}/matches?game=maque&variant={variant}"
        assert [m["room_id"] for m in ok(server, theirs, heads[2])["matches"]] == [room]
    # A preset by its alias is answered as its id.
    alias = ok(server, "/api/me/stats?variant=DEFAULT&days=30", heads[0])
    assert (alias["variant"]["id"], alias["hands"]) == ("anxiang", 1)
    # 安乡 at a table of two is another contest still: none played.
    other_table = ok(server, "/api/me/stats?variant=anxiang&persons=2", heads[0])
    assert (other_table["variant"]["id"], other_table["hands"]) == ("anxiang-2p", 0)
    # 全名堂 at a table of three (the preset itself) is not the table of two.
    assert ok(server, "/api/me/stats?variant=quanmingtang", heads[0])["hands"] == 0
    # 老王 played the table of three only.
    third = ok(server, "/api/me/stats", heads[2])
    assert [row["variant"]["id"] for row in third["by_variant"]] == ["anxiang"]
    assert ok(server, "/api/me/stats?variant=quanmingtang-2p", heads[2])["hands"] == 0
    # 三丁拐 has no such preset; 阿明 played no 三丁拐.
    other = ok(server, "/api/me/stats?game=sandingguai", heads[0])
    assert (other["hands"], other["by_variant"]) == (0, [])

    # The club's leaderboard: every variant by default, one when asked.
    board = ok(server, f"/api/clubs/{club}/leaderboard", heads[1])
    assert board["variant"] is None
    assert sorted(v["id"] for v in board["variants"]) == ["anxiang", "quanmingtang-2p"]
    points = {r["player"]["id"]: (r["points"], r["hands"]) for r in board["rows"]}
    for k in range(3):
        both = totals[three][k] + (totals[two][k] if k < 2 else 0)
        assert points[ids[k]] == (both, 2 if k < 2 else 1)
    for variant, room in (("quanmingtang-2p", two), ("anxiang", three)):
        one = ok(server, f"/api/clubs/{club}/leaderboard?variant={variant}&days=7", heads[1])
        assert (one["variant"]["id"], one["variants"]) == (variant, board["variants"])
        found = {r["player"]["id"]: (r["points"], r["hands"]) for r in one["rows"]}
        assert found == {ids[k]: (totals[room][k], 1) for k in totals[room]}

    # A variant the game has not is refused, quoted.
    for path, bad in (
        ("/api/me/stats", "zhuo's"),
        ("/api/me/stats?game=sandingguai", "anxiang"),
        ("/api/me/matches", "zhuo's"),
        (f"/api/players/{ids[0]}/matches", "zhuo's"),
        (f"/api/clubs/{club}/leaderboard", "zhuo's"),
        (f"/api/clubs/{club}/leaderboard?game=sandingguai", "quanmingtang-2p"),
        ("/api/me/stats?persons=5", "anxiang"),
    ):
        joiner = "&" if "?" in path else "?"
        quoted = bad.replace("'", "%27")
        status, refused = call(server, f"{path}{joiner}variant={quoted}", heads[1])
        assert status == 400, (path, refused)
        message = refused["error"]["message"]
        if "persons" in path:  # a table the variant cannot have
            assert refused["error"]["code"] == "bad_request" and "'5'" in message, refused
            continue
        assert refused["error"]["code"] == "unknown_variant", refused
        assert f"'{bad}'" in message or repr(bad) in message, refused


# ------------------------------------------------------------------ migration 0009


def hand_rows(room: str, variant: str, figures: tuple[int, ...]) -> list[dict[str, Any]]:
    """A hand of one match at ``room``: a row per person, the player ``p`` at seat 0."""
    return [
        {
            "room_id": room,
            "number": 1,
            "seat": seat,
            "match": 1,
            "player_id": "p" if seat == 0 else None,
            "name": f"s{seat}",
            "bot": None if seat == 0 else "random",
            "club_id": None,
            "finished": 10.0,
            "points": points,
            "won": int(points > 0),
            "chou": 0,
            "xi": max(points, 0),
            "played": 1,
            "ranked": 0,
            "game": "maque",
            "variant": variant,
        }
        for seat, points in enumerate(figures)
    ]


#: What the server of revision 0008 wrote: three rooms of one hand each, 全名堂 at a table of
#: two, 安乡 at the table of three and 安乡 with four persons taking turns (RULES §2.1.1).
TABLES_0008 = (
    ("two", "quanmingtang", (8, -8)),
    ("three", "anxiang", (12, -6, -6)),
    ("four", "anxiang", (-4, 10, -3, -3)),
)

SUMMARIES_0008 = SUMMARIES_0007.replace("ranked) SELECT", "ranked, game, variant) SELECT").replace(
    "MIN(ranked) FROM", "MIN(ranked), MAX(game), MAX(variant) FROM"
)


def write_at_0008(target: str) -> None:
    if target.startswith("postgresql"):
        engine = sa_engine(target)
        try:
            with engine.connect() as connection:
                migrations.run(connection, "0008")
                connection.commit()
        finally:
            engine.dispose()
    else:
        db = sqlite3.connect(target, isolation_level=None)
        migrations.upgrade(db, "0008")
        db.close()
    engine = sa_engine(target)
    try:
        with engine.begin() as connection:
            connection.execute(
                sa.text("INSERT INTO players (id, name, created) VALUES ('p', '阿明', 1.0)")
            )
            for room, variant, figures in TABLES_0008:
                connection.execute(
                    sa.text(
                        "INSERT INTO rooms (id, created, config, seats, status) "
                        "VALUES (:r, 3.0, '{}', '{}', 'over')"
                    ),
                    {"r": room},
                )
                connection.execute(
                    sa.text(
                        "INSERT INTO matches (room_id, rules, overrides, seed, ledger) "
                        "VALUES (:r, :v, '{}', 7, 'null')"
                    ),
                    {"r": room, "v": variant},
                )
                for row in hand_rows(room, variant, figures):
                    names = ", ".join(row)
                    marks = ", ".join(f":{k}" for k in row)
                    connection.execute(
                        sa.text(f"INSERT INTO hand_seats ({names}) VALUES ({marks})"), row
                    )
            connection.execute(sa.text(SUMMARIES_0008))
    finally:
        engine.dispose()


def test_a_database_of_revision_0008_learns_its_tables(store_target: str) -> None:
    write_at_0008(store_target)
    assert select(store_target, "SELECT version_num FROM alembic_version") == [("0008",)]
    figures = "SELECT room_id, seat, points, variant FROM hand_seats ORDER BY room_id, seat"
    before = select(store_target, figures)
    store = open_store(store_target)
    try:
        assert select(store_target, "SELECT version_num FROM alembic_version") == [
            (migrations.HEAD,)
        ]
        assert select(store_target, figures) == before
        for table in ("hand_seats", "match_seats"):
            found = select(store_target, f"SELECT DISTINCT room_id, persons FROM {table}")
            assert sorted(found) == [("four", 4), ("three", 3), ("two", 2)], table
        # The player's figures: three contests, and 安乡's two tables are not summed.
        each = store.read(lambda db: accounts.stats_by_variant(db, "p", 0.0))
        assert sorted((v, n, f["points"]) for v, n, f in each) == [
            ("anxiang", 3, 12),
            ("anxiang", 4, -4),
            ("quanmingtang", 2, 8),
        ]
        four = accounts.Contest(("anxiang",), 4)
        assert store.read(lambda db: accounts.stats(db, "p", 0.0, contest=four))["points"] == -4
        page, _ = store.read(
            lambda db: accounts.matches(db, "p", limit=5, before=None, contest=four)
        )
        assert [(m["room_id"], m["persons"], m["total"]) for m in page] == [("four", 4, -4)]
        # Each contest by the variant that names it, else its preset and its persons.
        named = [variants.contest_json("maque", v, n) for v, n, _ in each]
        assert {(x["id"], x["persons"], x["name_en"]) for x in named} == {
            ("anxiang", None, "Anxiang (21 patterns)"),
            ("anxiang", 4, "Anxiang (21 patterns), 4 persons"),
            ("quanmingtang-2p", None, "All patterns (app tier), two players"),
        }
    finally:
        store.close()


# ------------------------------------------------------------------ four persons


def test_four_persons_are_a_contest_of_their_own(store_target: str, tmp_path: Path) -> None:
    """安乡 with four persons taking turns at its three seats (RULES §2.1.1) is not 安乡 at its
    table of three: the hand counts under ``variant=anxiang&persons=4`` alone."""
    server = serverkit.Server(tmp_path, {"room_burst": 1000}, db=store_target)
    four = None
    try:
        people = []
        for p in range(4):
            made = ok(server, "/api/players", {}, {"name": f"P{p}"})
            people.append({"Authorization": f"Bearer {made['key']}"})
        options = {**FOUR, "match_hands": 1}
        made = server.room(options=options, seed=5, turn_seconds=600, next_seconds=None)
        four = Four(server, made["room_id"], heads=people)
        wait_deal(four, 1)
        play_hand(four, "all")
        while four.match_end is None:
            four.pump()
        ledger = four.match_end["ledger"]["seats"]
        for p, head in enumerate(people):
            stats = ok(server, "/api/me/stats", head)
            assert [(x["variant"], x["hands"]) for x in stats["by_variant"]] == [
                (
                    {
                        "id": "anxiang",
                        "persons": 4,
                        "name": "安乡（21 项名堂）（4人）",
                        "name_en": "Anxiang (21 patterns), 4 persons",
                    },
                    1,
                )
            ]
            assert stats["points"] == ledger[p]
            assert ok(server, "/api/me/stats?variant=anxiang", head)["hands"] == 0
            asked = ok(server, "/api/me/stats?variant=anxiang&persons=4", head)
            assert (asked["variant"]["persons"], asked["hands"], asked["points"]) == (
                4,
                1,
                ledger[p],
            )
            (match,) = ok(server, "/api/me/matches?variant=anxiang&persons=4", head)["matches"]
            assert (match["variant"]["id"], match["variant"]["persons"]) == ("anxiang", 4)
            assert ok(server, "/api/me/matches?variant=anxiang", head)["matches"] == []
    finally:
        if four is not None:
            four.close()
        server.stop()
