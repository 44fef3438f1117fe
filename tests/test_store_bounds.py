"""The store's scans stay cheap however much it holds, on both engines (``store_target``,
tests/pg.py; docs/protocol.md §4, §7.3):

- every ``DELETE … WHERE`` and ``SELECT … WHERE`` of the writer and of 战绩 has an index
  under it (migration 0007): the plan of each, with sequential scans priced out, reads an
  index, never a whole table;
- 战绩 is one query per page, keyset-paged, whatever the player's number of hands, and a hand
  written twice (ended again after a restart) is counted once;
- reads run on a pool of connections: a long one does not hold up the next.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from typing import Any

import pytest

from weimaque.server.store import accounts
from weimaque.server.store.engines import PostgreSQLConnection
from weimaque.server.store.sql import Connection, Cursor
from weimaque.server.store.store import Store, open_store

#: The scans of the store and of the accounts (literal values: EXPLAIN takes them as they are).
SCANS: dict[str, str] = {
    "expired invitations": "DELETE FROM club_invites WHERE expires < 5",
    "spent invitations": "DELETE FROM club_invites WHERE club_id = 'c' AND uses >= max_uses",
    "a club's live invitations": (
        "SELECT COUNT(*) FROM club_invites WHERE club_id = 'c' AND expires >= 5"
    ),
    "an invitation by id": "DELETE FROM club_invites WHERE id = 'i' AND club_id = 'c'",
    "an invitation by code": "SELECT club_id FROM club_invites WHERE hash = 'h'",
    "a removal": "SELECT removed FROM club_removed WHERE club_id = 'c' AND player_id = 'p'",
    "a player's transfer codes": "DELETE FROM transfers WHERE player_id = 'p'",
    "expired transfer codes": "DELETE FROM transfers WHERE expires < 5",
    "devices unused": "DELETE FROM player_keys WHERE last_seen < 5",
    "a player's devices by use": (
        "SELECT id FROM player_keys WHERE player_id = 'p' AND (last_seen, id) < (5, 'd') "
        "ORDER BY last_seen DESC, id DESC LIMIT 20"
    ),
    "a key": "SELECT id FROM player_keys WHERE hash = 'h' AND last_seen >= 5",
    "a club's tables": (
        "SELECT id FROM rooms WHERE club_id = 'c' AND status != 'over' ORDER BY created"
    ),
    "the rooms not over": "SELECT id FROM rooms WHERE status != 'over' ORDER BY created",
    "a player's matches": (
        "SELECT room_id FROM match_seats WHERE player_id = 'p' "
        "AND (last, room_id, match) < (5, 'r', 1) "
        "ORDER BY last DESC, room_id DESC, match DESC LIMIT 21"
    ),
    "a player's matches of one game": (
        "SELECT room_id FROM match_seats WHERE player_id = 'p' AND game = 'g' "
        "AND (last, room_id, match) < (5, 'r', 1) "
        "ORDER BY last DESC, room_id DESC, match DESC LIMIT 21"
    ),
    "a match's seats": "SELECT seat FROM match_seats WHERE room_id = 'r' AND match = 1",
    "a match's hands": "SELECT seat FROM hand_seats WHERE room_id = 'r' AND match = 1",
    "a player's hands": "SELECT seat FROM hand_seats WHERE player_id = 'p' AND finished >= 5",
    "a club's hands": "SELECT seat FROM hand_seats WHERE club_id = 'c' AND finished >= 5",
    "a player's hands of one game": (
        "SELECT seat FROM hand_seats WHERE player_id = 'p' AND game = 'g' AND finished >= 5"
    ),
    "a club's hands of one game": (
        "SELECT seat FROM hand_seats WHERE club_id = 'c' AND game = 'g' AND finished >= 5"
    ),
    "a club's members": "SELECT role FROM club_members WHERE club_id = 'c'",
    "a player's clubs": "SELECT role FROM club_members WHERE player_id = 'p'",
    "a room's actions": "DELETE FROM actions WHERE room_id = 'r'",
    "a player's ceremonies": "DELETE FROM ceremonies WHERE player_id = 'p'",
    "expired ceremonies": "DELETE FROM ceremonies WHERE expires < 5",
    "a room's number": "SELECT number FROM room_numbers WHERE room_id = 'r'",
    "a player's passkeys": "SELECT id FROM passkeys WHERE player_id = 'p'",
}

#: The indices migration 0007 adds.
INDICES = (
    "club_invites_id",
    "club_invites_club",
    "club_invites_expires",
    "transfers_player",
    "transfers_expires",
    "player_keys_seen",
    "player_keys_last_seen",
    "rooms_club",
    "rooms_live",
    "ceremonies_player",
    "match_seats_player",
    # Migration 0008: 战绩, totals and leaderboards of one game.
    "match_seats_player_game",
    "hand_seats_player_game",
    "hand_seats_club_game",
)

#: The scans of one game read the index made for them (migration 0008).
GAME_INDICES = {
    "a player's matches of one game": "match_seats_player_game",
    "a player's hands of one game": "hand_seats_player_game",
    "a club's hands of one game": "hand_seats_club_game",
}


@pytest.fixture
def store(store_target: str) -> Iterator[Store]:
    opened = open_store(store_target)
    try:
        yield opened
    finally:
        opened.close()


def plan(db: Connection, sql: str) -> str:
    """The engine's plan of ``sql``, sequential scans priced out where it can (PostgreSQL)."""
    if isinstance(db, PostgreSQLConnection):
        db.execute("SET enable_seqscan = off")
        try:
            return "\n".join(str(r[0]) for r in db.execute("EXPLAIN " + sql).fetchall())
        finally:
            db.execute("RESET enable_seqscan")
    return "\n".join(str(r[-1]) for r in db.execute("EXPLAIN QUERY PLAN " + sql).fetchall())


@pytest.mark.parametrize("scan", sorted(SCANS))
def test_every_scan_reads_an_index(store: Store, scan: str) -> None:
    found = store.read(lambda db: plan(db, SCANS[scan]))
    if scan in GAME_INDICES:
        assert GAME_INDICES[scan] in found, found
    if store.engine.dialect.name == "postgresql":
        assert "Seq Scan" not in found, found
        assert "Index" in found, found
    else:
        # SQLite: "SEARCH t USING INDEX …" (or its primary key), never "SCAN t" alone.
        lines = [line for line in found.splitlines() if line.startswith(("SCAN", "SEARCH"))]
        assert lines, found
        for line in lines:
            assert line.startswith("SEARCH") or " USING " in line, found


def test_the_migrations_indices_exist(store: Store) -> None:
    if store.engine.dialect.name == "postgresql":
        sql = "SELECT indexname FROM pg_indexes WHERE schemaname = current_schema()"
    else:
        sql = "SELECT name FROM sqlite_master WHERE type = 'index'"
    names = {str(r[0]) for r in store.read(lambda db: db.execute(sql).fetchall())}
    assert set(INDICES) <= names, set(INDICES) - names


class Counting:
    """A connection that counts the statements run on it."""

    def __init__(self, db: Connection) -> None:
        self.db = db
        self.dialect = db.dialect
        self.statements: list[str] = []

    def execute(self, sql: str, parameters: Sequence[Any] = (), /) -> Cursor:
        self.statements.append(sql)
        return self.db.execute(sql, parameters)


def record(points: list[int], winner: int | None, code: str) -> dict[str, Any]:
    return {
        "actions": [],
        "result": {"winner": winner, "total": 15 if winner is not None else 0},
        "settlement": {"seats": points},
        "replay_code": code,
    }


def test_a_long_record_is_paged_one_query_a_page(store: Store) -> None:
    names = {"p": "阿明", "q": "小芳", "r": "老王"}
    for pid, name in names.items():
        device = accounts.Device(f"d{pid}", f"h{pid}", "test")
        store.write(lambda db, p=pid, n=name, d=device: accounts.create_player(db, p, n, d))
    store.write(lambda db: accounts.create_club(db, "c", "牌友", "p", False, {}))
    expected: list[tuple[str, int, int, int, int]] = []  # room, match, hands, total, place
    number = 0
    for k in range(13):
        room = f"room{k:02d}"
        seats = {"seats": [{"player": "p"}, {"player": "q"}, {"kind": "bot"}]}
        store.create_room(room, {"club": "c"} if k % 3 == 0 else {}, seats, "anxiang", {}, k)
        for match in (1, 2):
            totals = [0, 0, 0]
            hands = 1 + (k + match) % 3
            for h in range(hands):
                number += 1
                points = [(k + h) % 5 - 2, 2 - (k + h) % 5, 0]
                totals = [a + b for a, b in zip(totals, points, strict=True)]
                holders = [("p", "阿明", None), ("q", "小芳", None), (None, "greedy", "greedy")]
                done = record(points, 0 if points[0] > 0 else None, f"C{number:07d}")
                store.finish_hand(
                    room,
                    number,
                    done,
                    {},
                    over=match == 2 and h == hands - 1,
                    match=match,
                    players=holders,
                    club="c" if k % 3 == 0 else None,
                )
                if h == 0:  # written again, as after a restart: counted once
                    store.finish_hand(
                        room, number, done, {}, False, match, players=holders, club=None
                    )
            place = 1 + sum(t > totals[0] for t in totals)
            expected.append((room, match, hands, totals[0], place))
    store.flush(10)
    expected.reverse()  # newest first: the last match written ended last
    got: list[dict[str, Any]] = []
    cursor = None
    while True:
        counting: list[Counting] = []

        def page(db: Connection, before: Any = cursor, seen: list[Counting] = counting) -> Any:
            seen.append(Counting(db))
            counted: Any = seen[-1]
            return accounts.matches(counted, "p", limit=4, before=before)

        rows, cursor = store.read(page)
        assert len(counting[0].statements) == 1, counting[0].statements
        assert len(rows) <= 4
        got += rows
        if cursor is None:
            break
    assert [(m["room_id"], m["match"], m["hands"], m["total"], m["place"]) for m in got] == (
        expected
    )
    first = got[-1]
    assert first["players"] == [
        {"seat": 0, "name": "阿明", "player_id": "p", "bot": None, "total": first["total"]},
        {"seat": 1, "name": "小芳", "player_id": "q", "bot": None, "total": -first["total"]},
        {"seat": 2, "name": "greedy", "player_id": None, "bot": "greedy", "total": 0},
    ]
    assert first["club"] == {"id": "c", "name": "牌友"} and first["over"] is True
    # Another's record at a club: only the club's matches, paged the same way.
    rows, _ = store.read(lambda db: accounts.matches(db, "q", limit=50, before=None, clubs=["c"]))
    assert {m["room_id"] for m in rows} == {f"room{k:02d}" for k in range(0, 13, 3)}


def test_a_long_read_does_not_hold_up_the_next(store: Store) -> None:
    if store.engine.shared_reader:
        pytest.skip(":memory: reads on the writer's connection")
    inside = threading.Event()
    release = threading.Event()

    def long_read(db: Connection) -> int:
        inside.set()
        release.wait(20)
        return 1

    thread = threading.Thread(target=store.read, args=(long_read,))
    thread.start()
    try:
        assert inside.wait(20)
        count = store.read(lambda db: db.execute("SELECT COUNT(*) FROM rooms").fetchone()[0])
        assert count == 0
        assert not release.is_set() and thread.is_alive()  # answered while the other read ran
    finally:
        release.set()
        thread.join(20)


def test_devices_and_invitations_are_bounded_on_both_engines(store: Store) -> None:
    """The caps of accounts' SQL, on each engine: devices past ``MAX_DEVICES`` sign out the one
    used longest ago; a club's live invitations stop at ``MAX_LIVE_INVITES``; an invitation's
    uses run out; one made before a removal does not bring the removed player back."""
    for pid in ("p", "q", "r"):
        device = accounts.Device(f"{pid}0", f"hash-{pid}0", "test")
        store.write(lambda db, p=pid, d=device: accounts.create_player(db, p, p, d))
    for k in range(1, accounts.MAX_DEVICES + 3):
        device = accounts.Device(f"p{k}", f"hash-p{k}", "test")
        store.write(lambda db, d=device: accounts.add_device(db, "p", d))
        store.write(lambda db, k=k: accounts.seen(db, f"p{k}", 1e10 + k))  # used in this order
    store.flush(10)
    held, _ = store.read(lambda db: accounts.devices(db, "p", "p0", limit=50))
    assert len(held) == accounts.MAX_DEVICES
    assert {d["id"] for d in held} == {f"p{k}" for k in range(3, accounts.MAX_DEVICES + 3)}

    store.write(lambda db: accounts.create_club(db, "c", "牌友", "p", False, {}))
    made = []
    for k in range(accounts.MAX_LIVE_INVITES + 1):
        invite = accounts.Invite(f"i{k}", f"code-{k}", "c", "p", 1e10, 2)
        stored: list[bool] = []
        store.write(lambda db, i=invite, out=stored: out.append(accounts.add_invite(db, i)))
        store.flush(10)
        made.append(stored[0])
    assert made == [True] * accounts.MAX_LIVE_INVITES + [False]
    assert len(store.read(lambda db: accounts.invites(db, "c"))) == accounts.MAX_LIVE_INVITES

    def join(code: str, who: str) -> Any:
        out: list[Any] = []
        store.write(lambda db: out.append(accounts.join_by_invite(db, code, who))).result(10)
        return out[0]

    assert join("code-0", "q") == ("c", "member")
    assert join("code-0", "q") == ("c", "member")  # a member again: no use spent
    store.write(lambda db: accounts.remove_member(db, "c", "q")).result(10)
    assert join("code-0", "q") == "removed"  # made before the removal
    assert join("code-0", "r") == ("c", "member")
    store.write(lambda db: accounts.set_role(db, "c", "r", None)).result(10)
    assert join("code-0", "r") is None  # spent: two uses
    revoked: list[int] = []
    store.write(lambda db: revoked.append(accounts.revoke_invite(db, "c", "i1"))).result(10)
    assert revoked == [1]
    assert join("code-1", "r") is None  # revoked
    later = accounts.Invite("new", "code-new", "c", "p", 1e10, 1)
    store.write(lambda db: accounts.add_invite(db, later)).result(10)
    assert join("code-new", "q") == ("c", "member")  # an admin's new invitation brings them back
