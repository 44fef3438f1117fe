"""The game side of the server's security: no side channel in claim windows (docs/protocol.md
§2.3), seats nobody can squat or spy from, deals anyone can check (docs/fairness.md). Each probe
is bounded in count and time."""

from __future__ import annotations

import copy
import json
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.serverkit import Client, Server, running
from weimaque.games.maque.cards import faces_str
from weimaque.games.maque.game.actions import Action
from weimaque.games.maque.game.observation import observation
from weimaque.games.maque.game.state import GameState
from weimaque.games.maque.rules.registry import get_rules
from weimaque.server.cluster.manager import RoomManager
from weimaque.server.table.options import RoomOptions
from weimaque.server.table.rooms import Room
from weimaque.server.table.seats import Conn
from weimaque.server.wire.protocol import parse_client

Msg = dict[str, Any]


# ------------------------------------------------------------------ §2 claim windows


class Recorder:
    """A connection that keeps every message as the wire would carry it."""

    def __init__(self) -> None:
        self.log: list[Msg] = []

    def send(self, message: Msg) -> None:
        self.log.append(json.loads(json.dumps(message, ensure_ascii=False)))


def find_deals() -> tuple[GameState, GameState, Action, int]:
    """Two deals that differ only in seat 2 holding a pair of the dealer's first discard.

    In deal A seat 2 holds two of card c (so it may 碰 the dealer's 出 c) and the stock holds x
    deep down; in deal B seat 2 holds x instead and the stock that c. Nothing else differs, and
    no other seat may claim c.
    """
    rules = get_rules("anxiang")
    for seed in range(2000):
        base = GameState.new(rules, seed, 0)
        if base.phase != "discard":
            continue
        hands = [list(base.hand_faces(s)) for s in range(3)]
        stock = list(base.stock)
        for first in base.legal_actions(0):
            c = first.face
            if c is None or hands[2].count(c) != 1 or hands[1].count(c) >= 2:
                continue
            deep = [j for j in range(14, len(stock)) if stock[j] == c]
            for x in sorted(set(hands[2])):
                if not deep or x == c or hands[2].count(x) != 1:
                    continue
                hands_a = copy.deepcopy(hands)
                hands_a[2].remove(x)
                hands_a[2].append(c)
                stock_a = list(stock)
                stock_a[deep[-1]] = x
                a = GameState(rules, hands_a, stock_a, 0)
                b = GameState(rules, hands, stock, 0)
                if a.phase != "discard" or b.phase != "discard":
                    continue
                a.apply(0, first)
                b.apply(0, first)
                w = a.window
                if w is None or set(w.options) != {2} or b.phase == "claim":
                    continue
                deal_a = GameState(rules, hands_a, stock_a, 0)
                deal_b = GameState(rules, hands, stock, 0)
                limit = in_step(deal_a, deal_b, first)
                if limit >= 6:
                    return (
                        GameState(rules, hands_a, stock_a, 0),
                        GameState(rules, hands, stock, 0),
                        first,
                        limit,
                    )
    raise AssertionError("no pair of deals found")


def in_step(a: GameState, b: GameState, first: Action, limit: int = 8) -> int:
    """How many discards both deals take alike under the test's policy (every window passed,
    A's first legal discard), their public views equal at each (at most ``limit``)."""
    discards = 0
    for _ in range(400):
        for state in (a, b):
            while state.phase == "claim":
                state.apply(state.to_act()[0], Action.parse("过"))
        if a.is_terminal() or b.is_terminal() or discards >= limit:
            return discards
        if a.turn != b.turn or observation(a, "public") != observation(b, "public"):
            return discards - 1
        action = first if discards == 0 else a.legal_actions(a.turn)[0]
        if not b.can(b.turn, action):
            return discards
        a.apply(a.turn, action)
        b.apply(b.turn, action)
        discards += 1
    return discards


def scripted_room(deal: GameState) -> tuple[Room, dict[Any, Conn], dict[Any, Recorder]]:
    """A room (no store, no timer, no loop) whose first hand is ``deal``; three seats and a
    spectator connected through recording clients."""
    manager = RoomManager(None)
    room = manager.create(RoomOptions(turn_seconds=None, bot_delay_ms=0))

    def start() -> GameState:
        room.match.current = deal
        deal.scores = list(room.match.scores)
        return deal

    room.match.start_hand = start  # type: ignore[method-assign]
    conns: dict[Any, Conn] = {}
    logs: dict[Any, Recorder] = {}
    for who in ("public", 0, 1, 2):
        logs[who] = Recorder()
        conns[who] = room.connect(logs[who])
        send(room, conns[who], type="join")
        if who != "public":
            send(room, conns[who], type="sit", seat=who, name=f"p{who}")
    assert room.state is deal
    return room, conns, logs


def send(room: Room, conn: Conn, **fields: Any) -> None:
    if fields["type"] == "act":  # in the decision the connection's seat is shown now
        assert isinstance(conn.seat, int)
        fields.setdefault("decision", room.decision_of(conn.seat))
    room.handle(conn, parse_client(json.dumps({"v": 1, **fields}, ensure_ascii=False)))


def normal(messages: list[Msg], room: Room) -> str:
    """The messages with what differs between two rooms (ids, random commitments) removed."""

    def clean(value: Any) -> Any:
        if isinstance(value, dict):
            return {
                k: clean(v)
                for k, v in value.items()
                if k
                not in ("commitment", "fairness", "server_ms", "token", "deadline_ms", "left_ms")
            }
        if isinstance(value, list):
            return [clean(v) for v in value]
        return value

    return json.dumps(clean(messages), ensure_ascii=False).replace(room.id, "ROOM")


def assert_no_window_seen(who: int | str, log: list[Msg]) -> None:
    """No message shows ``who`` a claim window it has no option in (docs/protocol.md §2.3):
    a spectator never sees one, a seat only with a decision, or as the 出 it just made lies in
    the middle (its ``ack``, which is the same whether or not another seat may claim it)."""
    for m in log:
        obs = m.get("observation")
        if not obs or obs["phase"] != "claim":
            continue
        if m["type"] == "ack":
            card = m["actor"]["action"][1:]
            assert obs["claim"] == {"card": card, "origin": "discard", "from": who}, m
            assert not obs["to_act"] and obs["legal_actions"] == [], m
            continue
        assert who != "public" and m["legal_actions"], (who, m)


def test_a_seat_without_an_option_cannot_tell_whether_another_had_one() -> None:
    deal_a, deal_b, first, limit = find_deals()
    room_a, conns_a, logs_a = scripted_room(deal_a)
    room_b, conns_b, logs_b = scripted_room(deal_b)
    # Everyone passes every window; discards follow deal A's first legal choice, while it is
    # legal in deal B too. Seat 2 declines its 碰 in A, which B never offers.
    steps = discards = 0
    while steps < 200:
        a, b = room_a.state, room_b.state
        assert a is not None and b is not None
        if a.is_terminal() or b.is_terminal():
            break
        if a.phase == "claim" or b.phase == "claim":
            for room, conns in ((room_a, conns_a), (room_b, conns_b)):
                state = room.state
                assert state is not None
                if state.phase != "claim":
                    continue
                for seat in state.to_act():
                    send(room, conns[seat], type="act", action="过")
        else:
            assert a.turn == b.turn
            seat = a.turn
            action = first if discards == 0 else a.legal_actions(seat)[0]
            if not b.can(seat, action) or discards >= limit:
                break
            send(room_a, conns_a[seat], type="act", action=str(action))
            send(room_b, conns_b[seat], type="act", action=str(action))
            discards += 1
        steps += 1
    assert discards >= 4, discards
    # Seat 2 was asked in A: its messages differ. Nobody else can tell.
    assert any(m.get("observation") and m["observation"]["phase"] == "claim" for m in logs_a[2].log)
    assert normal(logs_a[2].log, room_a) != normal(logs_b[2].log, room_b)
    for who in ("public", 0, 1):
        assert normal(logs_a[who].log, room_a) == normal(logs_b[who].log, room_b), who
    # A spectator never sees a window at all; a seat only when it has an option in it.
    for logs in (logs_a, logs_b):
        for who, rec in logs.items():
            assert_no_window_seen(who, rec.log)


# ------------------------------------------------------------------ a real server


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    # idle_evict: long enough that a room restored on demand is still in memory when the
    # next request asks, on a loaded machine.
    limits = {"room_burst": 1000, "seat_grace": 1, "idle_evict": 4}
    with running(tmp_path_factory.mktemp("game"), limits) as s:
        yield s


def sit(server: Server, room: str, seat: int | str, **extra: Any) -> tuple[Client, Msg]:
    c = server.ws(room)
    i = c.send(type="sit", seat=seat, **extra)
    return c, c.reply(i)


def play_out(clients: dict[int, Client], spectator: Client, hands: int) -> list[Msg]:
    """Every seat answers with its first legal action until ``hands`` hands end."""
    ends: list[Msg] = []
    everyone = [*clients.values(), spectator]
    deadline = time.monotonic() + 60
    while len(ends) < hands:
        assert time.monotonic() < deadline, "the match did not finish"
        for seat, c in clients.items():
            for m in c.drain(0.01):
                if m["type"] == "hand_end" and seat == 0:
                    ends.append(m)
                    if len(ends) < hands:
                        for other in clients.values():
                            other.send(type="next")
                if m["type"] in ("snapshot", "events") and m["legal_actions"]:
                    text = m["legal_actions"][0]["text"]
                    c.send(type="act", action=text, hand=m["hand_number"], decision=m["decision"])
        spectator.drain(0.0)
    for c in everyone:
        c.drain(0.2)
    return ends


def test_a_discard_held_by_a_window_is_shown_to_its_seat_as_the_game_says() -> None:
    """Seat 0's first 出 opens a window only seat 2 has an option in (deal A): seat 0's ack, and
    a fresh snapshot it asks for meanwhile, show the game's answered view (docs/protocol.md
    §2.3): the card out of its hand, lying in the middle, no decision; in deal B, where nobody
    may claim it, the ack is the same."""
    deal_a, deal_b, first, _ = find_deals()
    acks = []
    for deal in (deal_a, deal_b):
        room, conns, logs = scripted_room(deal)
        before = room.state
        assert before is not None
        hand = faces_str(before.hand_faces(0))
        send(room, conns[0], type="act", action=str(first))
        ack = next(m for m in logs[0].log if m["type"] == "ack")
        acks.append({k: v for k, v in ack.items() if k != "ack"})
        obs = ack["observation"]
        card = str(first)[1:]
        assert sorted(obs["hand"] + card) == sorted(hand)
        assert obs["claim"] == {"card": card, "origin": "discard", "from": 0}
        assert obs["legal_actions"] == [] and not obs["to_act"]
        if deal is deal_a:
            assert room.state is not None and room.state.phase == "claim"
            token = next(m["token"] for m in logs[0].log if m["type"] == "welcome" and m["token"])
            send(room, conns[0], type="join", token=token)
            snap = [m for m in logs[0].log if m["type"] == "snapshot"][-1]
            assert snap["observation"] == obs and snap["legal_actions"] == []
    assert acks[0] == acks[1]


def test_whole_hands_leak_no_window_and_verify(server: Server, tmp_path: Path) -> None:
    created = server.room(options={"match_hands": 2}, turn_seconds=None, bot_delay_ms=0)
    room = created["room_id"]
    assert created["room"]["practice"] is False and "practice_seed" not in created["room"]
    clients = {}
    for seat in range(3):
        clients[seat], welcome = sit(server, room, seat)
        assert welcome["type"] == "welcome"
    spectator = server.ws(room)
    spectator.send(type="join")
    ends = play_out(clients, spectator, 2)
    # Before each hand a commitment; after it, the reveal, and the record verifies.
    for c in clients.values():
        commits = [m["commitment"] for m in c.log if m["type"] == "snapshot" and m["commitment"]]
        assert commits
    for end in ends:
        block = end["fairness"]
        assert block["commitment"] in json.dumps([m for m in clients[1].log], ensure_ascii=False)
    # No viewer but the one with an option ever sees a window.
    for who, c in [*clients.items(), ("public", spectator)]:
        assert_no_window_seen(who, c.log)
    record = server.get(f"/api/rooms/{room}/record")
    # The match is over: its seed is shown, and every deal must follow from it.
    assert len(record["hands"]) == 2 and record["seed_text"] == str(record["seed"])
    path = tmp_path / "match.json"
    path.write_text(json.dumps(record, ensure_ascii=False), "utf-8")
    wmq = [sys.executable, "-c", "from weimaque.cli.app import main; main()", "verify"]
    done = subprocess.run([*wmq, str(path)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "2 deal commitment(s) match" in done.stdout
    assert "every deal follows from the match seed" in done.stdout
    for c in [*clients.values(), spectator]:
        c.close()


def test_a_table_of_bots_plays_every_hand_without_a_timer(server: Server) -> None:
    bots = {"0": "random", "1": "random", "2": "greedy"}
    room = server.room(bots=bots, options={"match_hands": 3}, turn_seconds=None, bot_delay_ms=0)
    deadline = time.monotonic() + 60
    while server.get(f"/api/rooms/{room['room_id']}")["room"]["status"] != "over":
        assert time.monotonic() < deadline, "the bots stopped"
        time.sleep(0.2)
    assert server.get(f"/api/rooms/{room['room_id']}")["room"]["hands_played"] == 3


def test_practice_rooms_show_their_seed(server: Server) -> None:
    room = server.room(seed=12345)["room"]
    assert room["practice"] is True and room["practice_seed"] == 12345
    listed = server.get(f"/api/rooms/{room['room_id']}")["room"]
    assert listed["practice_seed"] == 12345


def test_shouxing_only_by_invitation_and_never_a_seat_holder(server: Server) -> None:
    created = server.room(options={"shouxing": True})
    room, invite = created["room_id"], created["shouxing_invite"]
    assert invite and created["creator_token"] and invite != created["creator_token"]
    stranger, reply = sit(server, room, "shouxing")
    assert reply["type"] == "error" and reply["code"] == "bad_token"
    player, welcome = sit(server, room, 0)
    token = welcome["token"]
    # A second tab of seat 0's player, holding its token, may not become the 守醒.
    tab = server.ws(room)
    tab.reply(tab.send(type="join", token=token), "snapshot")
    tab.send(type="spectate")
    i = tab.send(type="sit", seat="shouxing", invite=invite)
    assert tab.reply(i, "error")["code"] in ("forbidden", "already_seated")
    watcher, welcome = sit(server, room, "shouxing", invite=invite)
    assert welcome["type"] == "welcome" and welcome["role"] == "shouxing"
    for c in (stranger, player, tab, watcher):
        c.close()


def test_tokens_are_stored_hashed_and_seats_are_freed(server: Server) -> None:
    created = server.room()
    room, creator = created["room_id"], created["creator_token"]
    c0, w0 = sit(server, room, 0)
    c1, w1 = sit(server, room, 1)
    raw = b"".join(
        str(row).encode()
        for row in sqlite3.connect(server.db).execute(
            "SELECT seats FROM rooms WHERE id = ?", (room,)
        )
    )
    assert raw and w0["token"].encode() not in raw and w1["token"].encode() not in raw
    assert creator.encode() not in server.db.read_bytes()
    # The creator frees seat 1 (its holder is at the table, but no hand is being played).
    status, _, body = server.request(
        f"/api/rooms/{room}/seats/1/free",
        json.dumps({"creator_token": "x" * 24}).encode(),
        {"Content-Type": "application/json"},
    )
    assert status == 403, body
    status, data = server.post(f"/api/rooms/{room}/seats/1/free", {"creator_token": creator})
    assert status == 200 and not data["room"]["seats"][1]["taken"], data
    assert c1.until(lambda m: m["type"] == "welcome")["seat"] is None
    # The freed token no longer holds anything.
    again = server.ws(room)
    assert again.reply(again.send(type="join", token=w1["token"]), "error")["code"] == "bad_token"
    # Seat 0's holder goes away: past the grace period (1 s here) the seat is free again.
    c0.close()
    deadline = time.monotonic() + 15
    while server.get(f"/api/rooms/{room}")["room"]["seats"][0]["taken"]:
        assert time.monotonic() < deadline, "the absent seat was never freed"
        time.sleep(0.2)
    for c in (c1, again):
        c.close()


def test_idle_rooms_leave_memory_and_come_back(server: Server) -> None:
    room = server.room(options={"match_hands": 1})["room_id"]
    c, _ = sit(server, room, 0)
    assert server.get("/api/health")["rooms_in_memory"] >= 1
    c.close()
    # Every room of this server is idle now (idle_evict = 4 s here): all leave memory.
    deadline = time.monotonic() + 20
    while server.get("/api/health")["rooms_in_memory"] > 0:
        assert time.monotonic() < deadline, "idle rooms stayed in memory"
        time.sleep(0.3)
    info = server.get(f"/api/rooms/{room}")["room"]  # restored from the store on demand
    assert (info["room_id"] == room and info["seats"][0]["name"] == "p0") or info["seats"][0]
    assert server.get("/api/health")["rooms_in_memory"] == 1
