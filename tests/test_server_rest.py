"""A table as a group of friends uses it night after night, against a real ``wmq serve``
(tests/serverkit.py): a room nobody is in rests and is closed as it stands; only hands people
played count, and a leaderboard only real play; a signed-in player's seat follows them to
another device; one seat per player; a silent voter whose connection dropped has not agreed;
a six-digit room number joins, and guessing numbers is limited (docs/protocol.md §1, §2.4,
§7.2, §7.4 to §7.6).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.serverkit import Client, Msg, Server, running

LIMITS = {
    "rest_seconds": 2,
    "guess_burst": 3,
    "guess_interval": 600,
    "player_burst": 100,
    "room_burst": 100,
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with running(tmp_path_factory.mktemp("rest"), LIMITS) as s:
        yield s


def call(server: Server, method: str, path: str, key: str | None, body: Any = None) -> Any:
    headers = {"Content-Type": "application/json"}
    if key is not None:
        headers["Authorization"] = f"Bearer {key}"
    data = None if body is None else json.dumps(body).encode()
    status, _, raw = server.request(path, data, headers, method)
    return status, json.loads(raw) if raw else None


def ok(server: Server, method: str, path: str, key: str | None, body: Any = None) -> Any:
    status, data = call(server, method, path, key, body)
    assert status in (200, 201), (path, status, data)
    return data


def sign_up(server: Server, name: str) -> tuple[str, str]:
    data = ok(server, "POST", "/api/players", None, {"name": name})
    return str(data["player"]["id"]), str(data["key"])


def socket(server: Server, room_id: str, key: str | None = None) -> Client:
    headers = {} if key is None else {"Authorization": f"Bearer {key}"}
    return server.ws(room_id, additional_headers=headers)


def sit(c: Client, seat: int) -> Msg:
    return c.reply(c.send(type="sit", seat=seat), "welcome")


def club_with(server: Server, keys: list[str], rules: dict[str, Any]) -> str:
    """A club of the players of ``keys`` (the first its owner)."""
    club = ok(server, "POST", "/api/clubs", keys[0], {"name": "周五牌局", "rules": rules})
    cid = str(club["club"]["id"])
    for key in keys[1:]:
        code = ok(server, "POST", f"/api/clubs/{cid}/invites", keys[0], {})["code"]
        ok(server, "POST", "/api/clubs/join", key, {"code": code})
    return cid


class Players:
    """Connections of people at one table, each playing its first legal action when asked;
    every message each receives is looked at (none is lost while waiting for an answer)."""

    def __init__(self, clients: dict[int, Client]) -> None:
        self.clients = clients
        self.view: dict[int, Msg | None] = dict.fromkeys(clients)
        self.end: Msg | None = None

    def recv(self, k: int, timeout: float) -> Msg | None:
        try:
            msg = self.clients[k].recv(timeout)
        except TimeoutError:
            return None
        if msg["type"] in ("snapshot", "events"):
            self.view[k] = msg
        elif msg["type"] == "hand_end":
            self.end = msg
        return msg

    def play_hand(self) -> Msg:
        """Play until the hand in progress ends; its ``hand_end``."""
        deadline = time.monotonic() + 120
        while self.end is None:
            assert time.monotonic() < deadline, "the hand did not end"
            for k in self.clients:
                while self.recv(k, 0.01) is not None:
                    pass
            for k, view in self.view.items():
                if self.end is not None or view is None or not view["legal_actions"]:
                    continue
                c = self.clients[k]
                i = c.send(
                    type="act",
                    action=view["legal_actions"][0]["text"],
                    hand=view["hand_number"],
                    decision=view["decision"],
                )
                self.view[k] = None
                while True:
                    msg = self.recv(k, 10)
                    assert msg is not None, "no answer to an action"
                    if msg.get("ack") == i or (msg["type"] == "error" and msg.get("re") == i):
                        break
        return self.end


def room_info(server: Server, room_id: str, key: str | None = None) -> Msg:
    return dict(ok(server, "GET", f"/api/rooms/{room_id}", key)["room"])


def until_over(server: Server, room_id: str, key: str | None = None) -> Msg:
    """The room's info once its match is over (a resting room's is closed)."""
    end = time.monotonic() + 60
    while time.monotonic() < end:
        info = room_info(server, room_id, key)
        if info["match_over"]:
            return info
        time.sleep(0.2)
    raise AssertionError(f"room {room_id}'s match was never closed: {info}")


def test_friends_who_leave_the_table_count_only_the_hand_they_played(server: Server) -> None:
    players = [sign_up(server, name) for name in ("阿明", "小芳", "老王")]
    keys = [key for _, key in players]
    rules = {"turn_seconds": None, "next_seconds": 3, "options": {"match_hands": 8}}
    cid = club_with(server, keys, rules)
    made = ok(server, "POST", f"/api/clubs/{cid}/tables", keys[0], {})
    room_id = made["room_id"]
    seats = {k: socket(server, room_id, keys[k]) for k in range(3)}
    for k, c in seats.items():
        sit(c, k)
        c.reply(c.send(type="no_timer", agree=True))
    Players(seats).play_hand()
    for c in seats.values():
        c.close()
    # Nobody is left: the countdown deals nothing, and the room says when it will close.
    info = room_info(server, room_id, keys[0])
    assert info["status"] in ("between_hands", "over") and info["hands_played"] == 1
    closed = until_over(server, room_id, keys[0])
    assert closed["hands_played"] == 1 and closed["ended_by"] == "idle" and closed["dissolved"]
    assert closed["resting"] is None
    for _, key in players:
        stats = ok(server, "GET", "/api/me/stats?days=1", key)
        assert (stats["matches"], stats["hands"]) == (1, 1)
        (match,) = ok(server, "GET", "/api/me/matches", key)["matches"]
        assert match["hands"] == 1 and match["over"] and match["ranked"]
    board = ok(server, "GET", f"/api/clubs/{cid}/leaderboard?days=1", keys[1])["rows"]
    assert sorted(r["player"]["id"] for r in board) == sorted(pid for pid, _ in players)
    assert all(r["hands"] == 1 and r["matches"] == 1 for r in board)
    # Two members of one name are told apart; a removed member leaves the board.
    ok(server, "PATCH", "/api/me", keys[1], {"name": "阿明"})
    board = ok(server, "GET", f"/api/clubs/{cid}/leaderboard?days=1", keys[1])["rows"]
    labels = {r["player"]["id"]: r["player"]["label"] for r in board}
    ids = [pid for pid, _ in players]
    assert labels[ids[0]] == f"阿明#{ids[0][:4]}" and labels[ids[1]] == f"阿明#{ids[1][:4]}"
    assert labels[ids[2]] == "老王"
    ok(server, "POST", f"/api/clubs/{cid}/members/{ids[2]}", keys[0], {"action": "remove"})
    board = ok(server, "GET", f"/api/clubs/{cid}/leaderboard?days=1", keys[1])["rows"]
    assert sorted(r["player"]["id"] for r in board) == sorted(ids[:2])


def test_a_quick_start_left_mid_hand_ends_with_that_hand_and_stays_off_the_board(
    server: Server,
) -> None:
    (me, mine), (_, friend) = sign_up(server, "阿明"), sign_up(server, "小芳")
    rules = {"turn_seconds": None, "bot_delay_ms": 0, "options": {"match_hands": 8}}
    cid = club_with(server, [mine, friend], rules)
    made = ok(
        server, "POST", f"/api/clubs/{cid}/tables", mine, {"bots": {"1": "random", "2": "random"}}
    )
    room_id = made["room_id"]
    c = socket(server, room_id, mine)
    sit(c, 0)
    # The player makes a move of their own, then leaves the match mid-hand: 托管 plays the
    # hand out, and the match ends with it.
    view = c.until(lambda m: bool(m.get("legal_actions")))
    c.send(type="act", action=view["legal_actions"][0]["text"], decision=view["decision"])
    answer = c.reply(c.send(type="leave"), "room")
    assert answer["room"]["closing"] is True
    ended = c.until(lambda m: m["type"] == "match_end", timeout=60)
    assert ended["ended_by"] == "leave" and ended["hands_played"] == 1
    (match,) = ok(server, "GET", "/api/me/matches", mine)["matches"]
    assert match["hands"] == 1 and match["ranked"] is False
    # A member against their own bots alone is no real play for the club's board.
    board = ok(server, "GET", f"/api/clubs/{cid}/leaderboard?days=1", friend)["rows"]
    assert me not in [r["player"]["id"] for r in board]
    c.close()


def test_a_practice_table_stays_off_the_board(server: Server) -> None:
    (_, ka), (_, kb) = sign_up(server, "阿明"), sign_up(server, "小芳")
    rules = {"turn_seconds": None, "bot_delay_ms": 0, "options": {"match_hands": 1}}
    cid = club_with(server, [ka, kb], rules)
    made = ok(server, "POST", f"/api/clubs/{cid}/tables", ka, {"seed": 5, "bots": {"2": "random"}})
    room_id = made["room_id"]
    assert made["room"]["practice"] is True
    seats = {0: socket(server, room_id, ka), 1: socket(server, room_id, kb)}
    for k, c in seats.items():
        sit(c, k)
        c.reply(c.send(type="no_timer", agree=True))
    Players(seats).play_hand()
    until_over(server, room_id, ka)
    for key in (ka, kb):
        (match,) = ok(server, "GET", "/api/me/matches", key)["matches"]
        assert match["hands"] == 1 and match["ranked"] is False
    assert ok(server, "GET", f"/api/clubs/{cid}/leaderboard?days=1", ka)["rows"] == []
    for c in seats.values():
        c.close()


def test_a_seat_follows_its_player_to_their_phone(server: Server) -> None:
    pid, laptop_key = sign_up(server, "阿明")
    code = ok(server, "POST", "/api/me/transfer", laptop_key, {})["code"]
    phone = ok(server, "POST", "/api/players/transfer", None, {"code": code})
    assert phone["player"]["id"] == pid
    phone_key = phone["key"]
    made = server.room(bots={"2": "random"}, turn_seconds=None, bot_delay_ms=0)
    room_id = made["room_id"]
    laptop = socket(server, room_id, laptop_key)
    assert sit(laptop, 0)["seat"] == 0
    # One seat per player: not a second one, from any device.
    other = socket(server, room_id, phone_key)
    refused = other.reply(other.send(type="sit", seat=1), "error")
    assert refused["code"] == "already_seated" and "claim" in refused["message"]
    # The phone takes the seat; the laptop is told and watches.
    welcome = other.reply(other.send(type="join", claim=True), "welcome")
    assert welcome["seat"] == 0 and welcome["role"] == "player" and welcome["token"]
    moved = laptop.until(lambda m: m["type"] == "elsewhere")
    assert moved["seat"] == 0
    assert laptop.until(lambda m: m["type"] == "welcome")["seat"] is None
    # The laptop's token no longer holds the seat; the phone plays it.
    stale = laptop.reply(laptop.send(type="join", token=sit_token(laptop)), "error")
    assert stale["code"] == "bad_token"
    guest = socket(server, room_id)
    assert sit(guest, 1)["seat"] == 1
    guest.reply(guest.send(type="autoplay", on=True))  # 托管 plays the guest's seat
    view = other.until(lambda m: bool(m.get("legal_actions")), timeout=30)
    i = other.send(type="act", action=view["legal_actions"][0]["text"], decision=view["decision"])
    assert other.until(lambda m: m.get("ack") == i or m.get("re") == i)["type"] == "ack"
    # A guest's seat stays with its token; claiming needs a player.
    nobody = guest.reply(guest.send(type="join", claim=True), "error")
    assert nobody["code"] == "not_seated"
    for c in (laptop, other, guest):
        c.close()


def sit_token(c: Client) -> str:
    """The token the connection's first welcome gave it."""
    return str(next(m["token"] for m in c.log if m["type"] == "welcome" and m["token"]))


def test_the_silence_of_a_dropped_player_is_no_agreement(server: Server) -> None:
    made = server.room(turn_seconds=None, vote_seconds=5, next_seconds=None)
    room_id = made["room_id"]
    seats = [socket(server, room_id) for _ in range(3)]
    for k, c in enumerate(seats):
        sit(c, k)
    seats[2].close()  # seat 2's connection drops; it never answers
    seats[0].reply(seats[0].send(type="dissolve"), "room")
    seats[1].reply(seats[1].send(type="vote", agree=True), "room")
    result = seats[0].until(lambda m: m["type"] == "vote_result", timeout=15)
    assert result["passed"] is False and result["refused_by"] == [] and result["absent"] == [2]
    assert room_info(server, room_id)["match_over"] is False
    # Proposing again at once is refused, saying for how long.
    again = seats[0].reply(seats[0].send(type="dissolve"), "error")
    assert again["code"] == "rate_limited" and 1 <= again["retry_after"] <= 5
    for c in seats[:2]:
        c.close()


def test_a_room_number_joins_and_guessing_numbers_is_limited(server: Server) -> None:
    made = server.room(turn_seconds=None)
    number = made["room"]["number"]
    assert isinstance(number, str) and len(number) == 6 and number.isdigit()
    found = ok(server, "GET", f"/api/numbers/{number}", None)
    assert (found["room_id"], found["url"]) == (made["room_id"], f"/r/{made['room_id']}")
    wrong = [n for n in ("000000", "12345x", "99999") if n != number]
    for text in wrong:
        status, body = call(server, "GET", f"/api/numbers/{text}", None)
        assert status == 404 and text in body["error"]["message"]
    # The address has spent its guesses: even the right number waits now.
    status, body = call(server, "GET", f"/api/numbers/{number}", None)
    assert status == 429 and body["error"]["code"] == "rate_limited"
    assert room_info(server, made["room_id"])["number"] == number


def test_a_closed_room_shows_how_it_ended_after_a_restart(tmp_path: Path) -> None:
    with running(tmp_path, LIMITS) as s:
        made = s.room(bots={"1": "random", "2": "random"}, turn_seconds=None, bot_delay_ms=0)
        room_id = made["room_id"]
        c = socket(s, room_id)
        sit(c, 0)
        c.until(lambda m: bool(m.get("legal_actions")))
        c.close()
        closed = until_over(s, room_id)
        assert closed["ended_by"] == "idle" and closed["number"] == made["room"]["number"]
    with running(tmp_path, LIMITS) as again:
        info = room_info(again, room_id)
        assert info["ended_by"] == "idle" and info["number"] == made["room"]["number"]
