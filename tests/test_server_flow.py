"""Between hands and between matches, as the apps do it (docs/protocol.md §2.4, §3): the
countdown to the next deal and its ready marks, 解散 by vote, 再来一局 with hands numbered across a
room's matches, 托管 for a player gone past the offline grace, and the creator's seat controls.

In process through Starlette's TestClient, except where a real ``wmq serve`` matters (restarts).
Every room is seeded; waits poll with timeouts; clocks the point of a test is not are shortened
on the room object (``offline_grace``, or its options replaced) rather than slept through.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import random
import sqlite3
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from tests import serverkit
from tests.test_server_protocol import Client, acked, room_of
from tests.test_server_security_game import find_deals, normal, scripted_room, send
from weimaque.games.maque.game.actions import Action
from weimaque.games.maque.match import Match
from weimaque.games.maque.rules.registry import get_rules
from weimaque.games.maque.verify import verify_document
from weimaque.server.app import create_app
from weimaque.server.cluster.manager import RoomManager
from weimaque.server.store.store import Store
from weimaque.server.table.options import OFFLINE_GRACE_S, RoomOptions
from weimaque.server.table.rooms import Room

Msg = dict[str, Any]
#: Every card face (RULES §1): none may appear in a message about who is ready, who voted or
#: who is offline.
FACES = "一二三四五六七八九十壹贰叁肆伍陆柒捌玖拾"
#: The message types this protocol added or changed, and RoomInfo's new fields.
NEW_TYPES = ("room", "vote_result", "match_end")
NEW_FIELDS = ("next_hand", "vote", "rematch", "dissolved", "match_number", "first_hand")


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(tmp_path / "flow.db")) as c:
        yield c


def new_room(client: TestClient, **body: Any) -> tuple[str, str]:
    body.setdefault("bot_delay_ms", 0)
    res = client.post("/api/rooms", json=body)
    assert res.status_code == 201, res.text
    return str(res.json()["room_id"]), str(res.json()["creator_token"])


def sit(client: TestClient, room_id: str, stack: Any, seat: int) -> tuple[Client, str]:
    c = Client(stack.enter_context(client.websocket_connect(f"/ws/{room_id}")))
    welcome = c.reply(c.send(type="sit", seat=seat, name=f"p{seat}"), "welcome")
    return c, str(welcome["token"])


class Loose(Client):
    """A player's connection that the test may hang up (``hang_up``) at any moment."""

    open = True

    def hang_up(self) -> None:
        """Close the socket and wait until the server has seen it close."""
        if self.open:
            self.open = False
            self.ws.__exit__(None, None, None)


def loose(client: TestClient, room_id: str, stack: Any, seat: int) -> tuple[Loose, str]:
    c = Loose(client.websocket_connect(f"/ws/{room_id}").__enter__())
    stack.callback(c.hang_up)
    welcome = c.reply(c.send(type="sit", seat=seat, name=f"p{seat}"), "welcome")
    return c, str(welcome["token"])


def spectator(client: TestClient, room_id: str, stack: Any) -> Client:
    c = Client(stack.enter_context(client.websocket_connect(f"/ws/{room_id}")))
    c.reply(c.send(type="join"), "snapshot")
    return c


def got(c: Client, pred: Callable[[Msg], bool], timeout: float = 10.0) -> Msg:
    """The first message ``c`` received that satisfies ``pred``, waiting for it if need be."""
    for m in c.log:
        if pred(m):
            return m
    return c.until(pred, timeout)


def wait_for(what: Callable[[], bool], timeout: float = 20.0, why: str = "") -> None:
    end = time.monotonic() + timeout
    while not what():
        assert time.monotonic() < end, f"timed out waiting: {why}"
        time.sleep(0.01)


def autoplay_hand(room: Room, clients: dict[int, Client]) -> Msg:
    """托管 plays every person's seat to the end of the hand; 托管 is then cancelled."""
    for c in clients.values():
        c.reply(c.send(type="autoplay", on=True), "snapshot")
    end = next(iter(clients.values())).until(lambda m: m["type"] == "hand_end", timeout=30)
    for c in clients.values():
        c.reply(c.send(type="autoplay", on=False), "snapshot")
    return end


def shorten(room: Room, **fields: Any) -> None:
    """Give a live room shorter clocks than a request may ask for (the length is not the point)."""
    room.table.opts = dataclasses.replace(room.table.opts, **fields)


def faceless(messages: list[Msg]) -> int:
    """No new message, and no new RoomInfo field, names a card; how many were checked."""
    checked = 0
    for m in messages:
        parts: list[Any] = []
        if m["type"] in NEW_TYPES:
            parts.append(m)
        info = m.get("room")
        if isinstance(info, dict):
            parts += [info.get(k) for k in NEW_FIELDS]
            parts += [{k: s[k] for k in ("offline", "ready")} for s in info["seats"]]
        for part in parts:
            text = json.dumps(part, ensure_ascii=False)
            assert not set(text) & set(FACES), (m["type"], text[:300])
            checked += 1
    return checked


# ------------------------------------------------------------------ room options


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("next_seconds", 2),
        ("next_seconds", 601),
        ("next_seconds", True),
        ("next_seconds", "20"),
        ("next_seconds", 20.5),
        ("vote_seconds", 4),
        ("vote_seconds", 601),
        ("vote_seconds", None),
        ("vote_seconds", False),
        ("vote_seconds", [60]),
    ],
)
def test_next_and_vote_seconds_are_checked(client: TestClient, field: str, value: Any) -> None:
    res = client.post("/api/rooms", json={field: value})
    assert res.status_code == 400, res.text
    message = res.json()["error"]["message"]
    assert field in message and repr(value) in message


def test_next_and_vote_seconds_defaults_and_a_huge_integer(client: TestClient) -> None:
    info = client.post("/api/rooms", json={}).json()["room"]
    assert (info["next_seconds"], info["vote_seconds"]) == (20, 60)
    assert info["next_hand"] is None and info["vote"] is None and info["rematch"] is None
    assert (info["match_number"], info["first_hand"], info["dissolved"]) == (1, 1, False)
    info = client.post("/api/rooms", json={"next_seconds": None, "vote_seconds": 5}).json()["room"]
    assert (info["next_seconds"], info["vote_seconds"]) == (None, 5)
    presets = client.get("/api/presets").json()
    assert (presets["next_seconds"], presets["vote_seconds"]) == (20, 60)
    body = '{"next_seconds": ' + "9" * 4000 + "}"
    res = client.post("/api/rooms", content=body, headers={"content-type": "application/json"})
    assert res.status_code == 400 and len(res.json()["error"]["message"]) < 200


# ------------------------------------------------------------------ the next deal


def test_the_countdown_deals_the_next_hand(client: TestClient) -> None:
    room_id, _ = new_room(client, seed=31, bots={"1": "random", "2": "random"}, next_seconds=3)
    with contextlib.ExitStack() as stack:
        c, _ = sit(client, room_id, stack, 0)
        room = room_of(client, room_id)
        before = time.time() * 1000
        end = autoplay_hand(room, {0: c})
        info = c.until(lambda m: m["type"] == "room" and m["room"]["next_hand"] is not None)
        countdown = info["room"]["next_hand"]
        assert countdown["seconds"] == 3 and 0 < countdown["left_ms"] <= 3000
        # The deadline is the wall clock when the message was sent (during the test, however
        # long it sat unread on a loaded machine) plus the time left.
        sent = countdown["deadline_ms"] - countdown["left_ms"]
        assert before - 5 <= sent <= time.time() * 1000 + 5, (before, countdown)
        # Nobody presses 下一局: the countdown deals, and sends no tick meanwhile.
        snap = c.until(lambda m: m["type"] == "snapshot" and m["hand_number"] == 2, timeout=10)
        # dealt by the countdown, not before it
        assert time.time() * 1000 >= countdown["deadline_ms"] - 500
        assert snap["room"]["next_hand"] is None and snap["room"]["status"] == "playing"
        between = c.log[c.log.index(end) : c.log.index(snap)]
        rooms = [m for m in between if m["type"] == "room"]
        assert len(rooms) <= 3, [m["room"]["next_hand"] for m in rooms]
        assert faceless(c.log) > 0


def test_every_present_player_ready_deals_at_once(client: TestClient) -> None:
    room_id, _ = new_room(client, seed=32, bots={"2": "random"}, next_seconds=600)
    with contextlib.ExitStack() as stack:
        c0, _ = sit(client, room_id, stack, 0)
        c1, _ = sit(client, room_id, stack, 1)
        room = room_of(client, room_id)
        autoplay_hand(room, {0: c0, 1: c1})
        # The one who presses hears it at once, with re; the bot counts as ready.
        answer = c0.reply(c0.send(type="next"), "room")
        assert [s["ready"] for s in answer["room"]["seats"]] == [True, False, True]
        assert answer["room"]["next_hand"]["seconds"] == 600
        assert room.state is None
        other = c1.until(lambda m: m["type"] == "room" and m["room"]["seats"][0]["ready"])
        assert "re" not in other
        started = time.monotonic()
        snap = c1.reply(c1.send(type="next"), "snapshot")
        # at once: not at the countdown's 600 s (a bound only, for a loaded machine)
        assert snap["hand_number"] == 2 and time.monotonic() - started < 60
        assert [s["ready"] for s in snap["room"]["seats"]] == [False, False, True]
        assert faceless(c0.log + c1.log) > 0


def test_ready_marks_count_offline_and_autoplay_seats(client: TestClient) -> None:
    room_id, _ = new_room(client, seed=33, next_seconds=600)
    with contextlib.ExitStack() as stack:
        c0, _ = sit(client, room_id, stack, 0)
        c1, _ = sit(client, room_id, stack, 1)
        gone, _ = loose(client, room_id, stack, 2)
        room = room_of(client, room_id)
        room.seating.grace = 0.3
        autoplay_hand(room, {0: c0, 1: c1, 2: gone})
        c1.reply(c1.send(type="autoplay", on=True), "snapshot")  # 托管 between hands
        info = client.get(f"/api/rooms/{room_id}").json()["room"]
        assert [s["ready"] for s in info["seats"]] == [False, True, False]
        gone.hang_up()
        marked = c0.until(lambda m: m["type"] == "room" and m["room"]["seats"][2]["offline"])
        assert [s["ready"] for s in marked["room"]["seats"]] == [False, True, True]
        assert not marked["room"]["seats"][2]["connected"]
        # The only player the deal waits for presses 下一局: dealt at once.
        snap = c0.reply(c0.send(type="next"), "snapshot")
        assert snap["hand_number"] == 2


def test_cancelling_autoplay_while_its_move_is_written_keeps_it_cancelled(
    client: TestClient,
) -> None:
    """取消托管 sent while 托管's move for the seat waits on the store: the move is played (it
    was stored), and 托管 stays off (docs/protocol.md §3), not taken for a timer running out."""
    room_id, _ = new_room(client, seed=46, bots={"1": "random", "2": "random"})
    with contextlib.ExitStack() as stack:
        c, _ = sit(client, room_id, stack, 0)
        room = room_of(client, room_id)
        store = room.recorder.store
        assert store is not None
        c.reply(c.send(type="autoplay", on=True), "snapshot")
        # Stall the writer until the write it holds is 托管's move for seat 0 alone.
        for _ in range(200):
            store._write_lock.acquire()
            time.sleep(0.05)
            state = room.state
            if (
                state is not None
                and state.phase != "claim"
                and state.to_act() == (0,)
                and room.driver.acting.held  # the move taken from the queue, waiting on the lock
            ):
                break
            store._write_lock.release()
            time.sleep(0.001)
        else:
            pytest.fail("托管 never waited on the store for seat 0's move")
        before = len(state.actions)
        try:
            snap = c.reply(c.send(type="autoplay", on=False), "snapshot")
            assert not snap["room"]["seats"][0]["autoplay"]
        finally:
            store._write_lock.release()
        # The 托管 mark for the move is set (or not) before the move is applied.
        wait_for(lambda: len(state.actions) > before, why="the stored move is played")
        assert not room.seating.seats[0].autoplay
        assert not room.info()["seats"][0]["autoplay"]


def test_a_player_under_autoplay_presses_next_by_itself(client: TestClient) -> None:
    room_id, _ = new_room(client, seed=34, bots={"1": "random", "2": "random"}, next_seconds=None)
    with contextlib.ExitStack() as stack:
        c, _ = sit(client, room_id, stack, 0)
        room = room_of(client, room_id)
        c.reply(c.send(type="autoplay", on=True), "snapshot")
        c.until(lambda m: m["type"] == "hand_end", timeout=30)
        # Under 托管, with no countdown: 托管 presses 下一局 for the connected player, as it
        # does for a bot (docs/protocol.md §2.4), and the next hand is dealt by itself.
        c.until(lambda m: m["type"] == "snapshot" and m.get("hand_number") == 2, timeout=30)
        assert room.table.hand_number == 2


# ------------------------------------------------------------------ 解散 by vote


def three_players(client: TestClient, stack: Any, **body: Any) -> tuple[Room, dict[int, Client]]:
    room_id, _ = new_room(client, turn_seconds=600, **body)
    clients = {s: sit(client, room_id, stack, s)[0] for s in range(3)}
    room = room_of(client, room_id)
    assert room.state is not None
    return room, clients


def test_a_vote_passes_with_two_agreeing_and_one_silent(client: TestClient) -> None:
    with contextlib.ExitStack() as stack:
        room, clients = three_players(client, stack, seed=41)
        # Long enough for seat 1 to answer first on a loaded machine.
        shorten(room, vote_seconds=3)
        # A few moves in, seat 0 proposes 解散 in the middle of the hand.
        for _ in range(4):
            state = room.state
            assert state is not None
            seat = state.to_act()[0]
            acked(
                clients[seat],
                clients[seat].send(
                    type="act",
                    action=str(state.legal_actions(seat)[0]),
                    decision=room.decision_of(seat),
                ),
            )
        number = room.table.hand_number
        proposed = time.monotonic()
        answer = clients[0].reply(clients[0].send(type="dissolve"), "room")
        vote = answer["room"]["vote"]
        assert vote["kind"] == "dissolve" and vote["by"] == 0 and vote["seconds"] == 3
        assert vote["answers"] == [True, None, None] and vote["left_ms"] <= 3000
        answer = clients[1].reply(clients[1].send(type="vote", agree=True), "room")
        assert answer["room"]["vote"]["answers"] == [True, True, None]
        # Seat 2 says nothing: at the deadline its silence agrees.
        result = clients[2].until(lambda m: m["type"] == "vote_result")
        assert time.monotonic() - proposed >= 2.9
        assert result == {
            "v": 1,
            "type": "vote_result",
            "kind": "dissolve",
            "passed": True,
            "by": 0,
            "refused_by": [],
            "absent": [],
        }
        ended = clients[2].until(lambda m: m["type"] == "match_end")
        assert ended["dissolved"] is True and ended["hands_played"] == 0
        assert ended["scores"] == [0, 0, 0] and ended["hands"] == []
        snap = clients[2].until(lambda m: m["type"] == "snapshot")
        assert snap["observation"] is None and snap["history"] == []
        assert snap["match"]["dissolved"] and snap["match"]["over"]
        info = client.get(f"/api/rooms/{room.id}").json()["room"]
        assert info["status"] == "over" and info["dissolved"] and info["vote"] is None
        # The hand in progress was dropped: not scored, not counted, never served.
        assert room.state is None and room.match.hands == []
        assert client.get(f"/api/rooms/{room.id}/hands").json()["hands"] == []
        res = client.get(f"/api/rooms/{room.id}/hands/{number}")
        assert res.status_code == 404 and res.json()["error"]["code"] == "hand_not_found"
        for c in (clients[0], clients[1]):
            c.until(lambda m: m["type"] == "vote_result")
            c.until(lambda m: m["type"] == "snapshot" and m["match"]["dissolved"])
        for c in clients.values():
            assert not any(m["type"] == "hand_end" for m in c.log)
            after = c.log[next(k for k, m in enumerate(c.log) if m["type"] == "vote_result") :]
            # Nothing about the dropped hand comes after the vote: no card at all.
            assert not set(json.dumps(after, ensure_ascii=False)) & set(FACES)
            assert faceless(c.log) > 0
        err = clients[1].reply(clients[1].send(type="dissolve"), "error")
        assert err["code"] == "match_over"


def test_a_refusal_closes_the_vote_at_once_and_errors_are_clear(client: TestClient) -> None:
    with contextlib.ExitStack() as stack:
        room, clients = three_players(client, stack, seed=42, vote_seconds=30)
        watcher = spectator(client, room.id, stack)
        c0, c1, c2 = clients[0], clients[1], clients[2]
        assert c0.reply(c0.send(type="vote", agree=True), "error")["code"] == "no_vote"
        assert watcher.reply(watcher.send(type="dissolve"), "error")["code"] == "not_seated"
        c0.reply(c0.send(type="dissolve"), "room")
        err = c1.reply(c1.send(type="dissolve"), "error")
        assert err["code"] == "vote_open" and "seat 0" in err["message"]
        assert err["echo"] == {"v": 1, "type": "dissolve", "id": err["re"]}
        assert c0.reply(c0.send(type="vote", agree=False), "error")["code"] == "already_voted"
        assert watcher.reply(watcher.send(type="vote", agree=True), "error")["code"] == "not_seated"
        c2.reply(c2.send(type="vote", agree=True), "room")
        assert c2.reply(c2.send(type="vote", agree=False), "error")["code"] == "already_voted"
        started = time.monotonic()
        c1.send(type="vote", agree=False)
        for c in (c0, c1, c2, watcher):
            result = c.until(lambda m: m["type"] == "vote_result")
            assert result["passed"] is False and result["by"] == 0 and result["refused_by"] == [1]
        assert time.monotonic() - started < 20  # at once: not at the vote's deadline (30 s)
        assert room.table.vote is None and room.state is not None and not room.table.dissolved
        assert c2.reply(c2.send(type="vote", agree=True), "error")["code"] == "no_vote"
        # The refused proposer waits vote_seconds before proposing again; the others need not.
        err = c0.reply(c0.send(type="dissolve"), "error")
        assert err["code"] == "rate_limited" and "30 s" in err["message"]
        answer = c2.reply(c2.send(type="dissolve"), "room")
        assert answer["room"]["vote"]["by"] == 2
        c1.reply(c1.send(type="vote", agree=False), "room")
        assert c1.reply(c1.send(type="dissolve"), "room")["room"]["vote"]["by"] == 1
        assert faceless(c0.log + watcher.log) > 0


def test_a_match_that_ended_is_not_dissolved_and_a_lone_player_ends_it_alone(
    client: TestClient,
) -> None:
    room_id, _ = new_room(client, seed=43, bots={"1": "random", "2": "greedy"})
    with contextlib.ExitStack() as stack:
        c, _ = sit(client, room_id, stack, 0)
        room = room_of(client, room_id)
        # Bots agree: the only person at the table ends the match by proposing.
        c.send(type="dissolve")
        assert c.until(lambda m: m["type"] == "vote_result")["passed"] is True
        assert c.until(lambda m: m["type"] == "match_end")["dissolved"] is True
        assert room.match.is_over() and room.table.dissolved


# ------------------------------------------------------------------ restarts (a real server)


def crash(server: serverkit.Server) -> None:
    """SIGKILL the server: no shutdown handler runs (its bot workers die with it)."""
    server.proc.kill()
    server.proc.wait(10)


def test_a_dissolved_room_stays_dissolved_after_a_restart(tmp_path: Path) -> None:
    # Two people and a bot: the hand in progress is dropped when both agree (a player alone
    # with bots would see it played out, docs/protocol.md §2.4).
    body = {"seed": 44, "bots": {"2": "greedy"}, "bot_delay_ms": 0}
    body["options"] = {"liuzi": True}
    server = serverkit.Server(tmp_path)
    try:
        room = server.room(**body)["room_id"]
        c = server.ws(room)
        token = c.reply(c.send(type="sit", seat=0, name="p0"), "welcome")["token"]
        friend = server.ws(room)
        friend.reply(friend.send(type="sit", seat=1, name="p1"), "welcome")
        friend.reply(friend.send(type="autoplay", on=True), "snapshot")
        c.reply(c.send(type="autoplay", on=True), "snapshot")
        first = c.after(0, lambda m: m["type"] == "hand_end", timeout=30)
        c.reply(c.send(type="autoplay", on=False), "snapshot")
        c.reply(c.send(type="next"), "snapshot")  # hand 2 is dealt, then dissolved
        c.send(type="dissolve")
        friend.send(type="vote", agree=True)
        ended = c.until(lambda m: m["type"] == "match_end")
        assert ended["dissolved"] and ended["hands_played"] == 1
        # The 留子 pool left is shared as at a normal end (RULES §8.5).
        pool = first["ledger"]["pool"]
        assert ended["ledger"]["pool"] == 0
        assert pool > 0 and sum(ended["final_pool_share"]) == pool
        c.close()
        crash(server)
    finally:
        server.stop()
    again = serverkit.Server(tmp_path)
    try:
        info = again.get(f"/api/rooms/{room}")["room"]
        assert info["dissolved"] and info["status"] == "over" and info["match_over"]
        assert info["hand_number"] == 1 and info["hands_played"] == 1
        hands = again.get(f"/api/rooms/{room}/hands")
        assert [h["number"] for h in hands["hands"]] == [1]
        assert hands["ledger"] == ended["ledger"]
        status, _, _ = again.request(f"/api/rooms/{room}/hands/2")
        assert status == 404
        c = again.ws(room)
        snap = c.reply(c.send(type="join", token=token), "snapshot")
        assert snap["match"]["dissolved"] and snap["match"]["ledger"] == ended["ledger"]
        assert c.reply(c.send(type="dissolve"), "error")["code"] == "match_over"
        record = again.get(f"/api/rooms/{room}/record")
        assert record["ended_early"] is True and record["ledger"] == ended["ledger"]
        assert record["hands"][0]["fairness"] == first["fairness"]  # the reveal kept
        assert verify_document(record).hands == 1  # what `wmq verify` checks, pool share too
        c.close()
    finally:
        again.stop()


def test_match_two_restores_with_its_own_ledger_and_room_wide_numbers(tmp_path: Path) -> None:
    body = {"seed": 45, "bots": {"1": "random", "2": "random"}, "bot_delay_ms": 0}
    body.update(next_seconds=600, options={"match_hands": 2})
    server = serverkit.Server(tmp_path)
    try:
        room = server.room(**body)["room_id"]
        c = server.ws(room)
        token = c.reply(c.send(type="sit", seat=0, name="p0"), "welcome")["token"]
        c.reply(c.send(type="autoplay", on=True), "snapshot")
        c.after(0, lambda m: m["type"] == "hand_end", timeout=30)
        c.send(type="next")  # under 托管 the countdown would deal; a press deals at once
        match_one = c.until(lambda m: m["type"] == "match_end", timeout=30)
        assert match_one["hands_played"] == 2 and match_one["match_number"] == 1
        # The only person at the table chooses 再来一局: match 2 starts, its first hand is 3.
        c.send(type="rematch")
        snap = c.until(lambda m: m["type"] == "snapshot" and m["hand_number"] == 3, timeout=10)
        assert snap["room"]["match_number"] == 2 and snap["room"]["first_hand"] == 3
        assert snap["match"]["hands"] == [] and snap["match"]["scores"] == [0, 0, 0]
        # Choosing 再来一局 is being at the table: 托管 is off again until asked for.
        assert not snap["room"]["seats"][0]["autoplay"]
        c.send(type="autoplay", on=True)
        end3 = c.until(lambda m: m["type"] == "hand_end" and m["hand_number"] == 3, timeout=30)
        assert end3["record_url"].endswith("/hands/3")
        assert end3["ledger"]["seats"] == end3["settlement"]["seats"]  # match 2's own ledger
        c.until(lambda m: m["type"] == "room" and m["room"]["next_hand"] is not None)
        c.close()
        crash(server)
    finally:
        server.stop()
    again = serverkit.Server(tmp_path)
    try:
        info = again.get(f"/api/rooms/{room}")["room"]
        assert (info["match_number"], info["first_hand"], info["hand_number"]) == (2, 3, 3)
        assert info["status"] == "between_hands" and info["hands_played"] == 1
        # Nobody is back yet: the room rests, no countdown runs (docs/protocol.md §2.4).
        assert info["next_hand"] is None and info["resting"]["seconds"] == 300
        hands = again.get(f"/api/rooms/{room}/hands")
        assert [(h["number"], h["match"]) for h in hands["hands"]] == [(1, 1), (2, 1), (3, 2)]
        assert hands["ledger"] == end3["ledger"]
        assert again.get(f"/api/rooms/{room}/hands/1")["match"] == 1
        assert again.get(f"/api/rooms/{room}/hands/3")["match"] == 2
        c = again.ws(room)
        snap = c.reply(c.send(type="join", token=token), "snapshot")
        assert [h["number"] for h in snap["match"]["hands"]] == [3]
        assert snap["match"]["ledger"] == end3["ledger"] and snap["match"]["number"] == 2
        assert snap["last_hand"]["hand_number"] == 3
        snap = c.reply(c.send(type="next"), "snapshot")
        assert snap["hand_number"] == 4 and snap["commitment"]
        status, _, body4 = again.request(f"/api/rooms/{room}/hands/4")
        assert status == 404 and b"hand_not_finished" in body4
        record = again.get(f"/api/rooms/{room}/record")
        assert (record["match_number"], record["first_hand"]) == (2, 3)
        assert len(record["hands"]) == 1
        c.close()
    finally:
        again.stop()


# ------------------------------------------------------------------ 再来一局


def finished_match(
    client: TestClient, stack: Any, seed: int, **body: Any
) -> tuple[Room, dict[int, Client], dict[int, str]]:
    """Seats 0 and 1 (people) and a bot play a one-hand match to its end."""
    body.setdefault("bots", {"2": "random"})
    room_id, _ = new_room(client, seed=seed, options={"match_hands": 1}, **body)
    clients, tokens = {}, {}
    for s in (0, 1):
        clients[s], tokens[s] = sit(client, room_id, stack, s)
    room = room_of(client, room_id)
    assert clients[0].reply(clients[0].send(type="rematch"), "error")["code"] == "match_not_over"
    autoplay_hand(room, clients)
    for c in clients.values():
        got(c, lambda m: m["type"] == "match_end")
    return room, clients, tokens


def test_rematch_when_everyone_chooses_it(client: TestClient) -> None:
    with contextlib.ExitStack() as stack:
        room, clients, tokens = finished_match(client, stack, 51)
        watcher = spectator(client, room.id, stack)
        assert watcher.reply(watcher.send(type="rematch"), "error")["code"] == "not_seated"
        answer = clients[0].reply(clients[0].send(type="rematch"), "room")
        window = answer["room"]["rematch"]
        assert window["chosen"] == [True, False, True] and window["shouxing"] is None
        assert window["seconds"] == 60 and 0 < window["left_ms"] <= 60_000
        assert clients[0].reply(clients[0].send(type="next"), "error")["code"] == "match_over"
        clients[1].send(type="rematch")
        snap = clients[1].until(lambda m: m["type"] == "snapshot" and m["hand_number"] == 2)
        assert snap["you"]["seat"] == 1 and snap["observation"]["viewer"] == 1
        info = snap["room"]
        assert (info["match_number"], info["first_hand"], info["hand_number"]) == (2, 2, 2)
        assert info["rematch"] is None and not info["match_over"] and info["hands_played"] == 0
        assert snap["match"]["hands"] == [] and snap["match"]["number"] == 2
        # A practice room's next match has a seed derived from the room's.
        assert room.table.seed == random.Random("51:match:2").getrandbits(63)
        # Same seats, same tokens.
        tab = Client(stack.enter_context(client.websocket_connect(f"/ws/{room.id}")))
        assert tab.reply(tab.send(type="join", token=tokens[0]), "welcome")["seat"] == 0
        end = autoplay_hand(room, clients)
        assert end["hand_number"] == 2 and end["record_url"].endswith("/hands/2")
        listed = client.get(f"/api/rooms/{room.id}/hands").json()["hands"]
        assert [(h["number"], h["match"]) for h in listed] == [(1, 1), (2, 2)]
        assert client.get(f"/api/rooms/{room.id}/hands/1").json()["match"] == 1
        steps = client.get(f"/api/rooms/{room.id}/hands/2/replay").json()["steps"]
        assert steps[-1]["settlement"] == end["settlement"]
        assert faceless(clients[0].log + watcher.log) > 0


def test_rematch_frees_the_seat_of_who_did_not_choose(client: TestClient) -> None:
    with contextlib.ExitStack() as stack:
        room, clients, tokens = finished_match(client, stack, 52)
        shorten(room, vote_seconds=1)
        clients[0].reply(clients[0].send(type="rematch"), "room")
        # Seat 1 lets the window pass: its seat is freed, its connection a spectator.
        welcome = clients[1].until(lambda m: m["type"] == "welcome")
        assert welcome["seat"] is None and welcome["token"] is None and welcome["held"] is None
        snap = clients[1].until(lambda m: m["type"] == "snapshot")
        assert snap["you"]["role"] == "spectator" and snap["room"]["match_number"] == 2
        assert snap["room"]["status"] == "waiting" and not snap["room"]["seats"][1]["taken"]
        assert snap["room"]["seats"][0]["taken"] and snap["room"]["seats"][2]["kind"] == "bot"
        err = clients[1].reply(clients[1].send(type="join", token=tokens[1]), "error")
        assert err["code"] == "bad_token"
        assert room.state is None
        # Someone takes the free seat: the new match's first hand is dealt.
        newcomer, _ = sit(client, room.id, stack, 1)
        snap = newcomer.until(lambda m: m["type"] == "snapshot" and m["hand_number"] == 2)
        assert snap["room"]["first_hand"] == 2


def test_a_rematch_window_nobody_completes_closes(client: TestClient) -> None:
    with contextlib.ExitStack() as stack:
        room, clients, _ = finished_match(client, stack, 53)
        # Long enough for the chooser to leave first on a loaded machine.
        shorten(room, vote_seconds=3)
        clients[0].reply(clients[0].send(type="rematch"), "room")
        clients[0].reply(clients[0].send(type="leave"), "welcome")  # the only chooser leaves
        closed = clients[1].until(lambda m: m["type"] == "room" and m["room"]["rematch"] is None)
        assert closed["room"]["match_number"] == 1 and closed["room"]["match_over"]


# ------------------------------------------------------------------ offline: 托管 after a grace


def window_for_seat_2() -> tuple[int, Action]:
    """A practice seed whose first hand lets seat 2 alone claim one of the dealer's first 出."""
    for seed in range(500):
        state = Match.new(get_rules("anxiang"), seed).start_hand()
        if state.phase != "discard":
            continue
        for action in state.legal_actions(0):
            after = state.copy()
            after.apply(0, action)
            if after.phase == "claim" and after.to_act() == (2,):
                return seed, action
    raise AssertionError("no such seed")


def test_an_offline_player_is_played_in_a_claim_window_and_comes_back(client: TestClient) -> None:
    seed, first = window_for_seat_2()
    room_id, _ = new_room(client, seed=seed, turn_seconds=600)
    room = room_of(client, room_id)
    room.seating.grace = 0.3
    with contextlib.ExitStack() as stack:
        c0, _ = sit(client, room_id, stack, 0)
        c1, _ = sit(client, room_id, stack, 1)
        gone, token = loose(client, room_id, stack, 2)
        deal = room.state
        assert deal is not None and deal.dealer == 0
        acked(c0, c0.send(type="act", action=str(first), decision=room.decision_of(0)))
        assert deal.phase == "claim" and deal.to_act() == (2,)
        closed = time.monotonic()  # before the close: the server sees it before hang_up returns
        gone.hang_up()
        marked = c1.until(lambda m: m["type"] == "room" and m["room"]["seats"][2]["offline"])
        # after the room's grace (0.3 s), not the default's (OFFLINE_GRACE_S, 5 s)
        assert 0.25 <= time.monotonic() - closed < OFFLINE_GRACE_S
        assert not marked["room"]["seats"][2]["autoplay"]
        # 托管 answered the window for the offline seat: the table plays on, no timer spent.
        wait_for(lambda: any(s == 2 for s, _ in deal.actions), 5, "托管 in the window")
        # no turn timer (600 s) was spent; a bound only, for a loaded machine
        assert not room.seating.seats[2].autoplay and time.monotonic() - closed < 60
        # Back with the token: plays again at once, not under 托管.
        back = Client(stack.enter_context(client.websocket_connect(f"/ws/{room_id}")))
        snap = back.reply(back.send(type="join", token=token), "snapshot")
        assert not snap["room"]["seats"][2]["offline"] and not snap["room"]["seats"][2]["autoplay"]
        assert room.seating.offline == set()


def test_the_offline_mark_goes_up_whether_or_not_the_seat_had_an_option() -> None:
    # The same moment in two deals that differ only in seat 2 holding a pair of the dealer's
    # first 出 (test_server_security_game): in A seat 2 is deciding in a claim window when its
    # socket closes, in B there is no window. The room messages everyone else receives, and
    # when, are the same: the mark goes up OFFLINE_GRACE_S after the close in both.
    deal_a, deal_b, first, _ = find_deals()
    seen: dict[str, list[tuple[float, str]]] = {}
    wakes: dict[str, list[float]] = {}
    for name, deal in (("A", deal_a), ("B", deal_b)):
        room, conns, logs = scripted_room(deal)
        now = [1000.0]
        room.table.clock = lambda now=now: now[0]
        send(room, conns[0], type="act", action=str(first))
        assert (deal.phase == "claim") == (name == "A")
        for log in logs.values():
            log.log.clear()
        room.disconnect(conns[2])
        times = []
        for t in (0.0, 1.0, OFFLINE_GRACE_S - 0.01, OFFLINE_GRACE_S, OFFLINE_GRACE_S + 0.5):
            now[0] = 1000.0 + t
            times.append(room.auto.next_clock(now[0]))
            room.auto.housekeep()
            for who in ("public", 0, 1):
                for m in logs[who].log:
                    if m["type"] == "room":
                        seen.setdefault(f"{name}{who}", []).append((t, normal([m], room)))
                logs[who].log.clear()
        wakes[name] = times
        assert room.seating.offline == {2}
    assert wakes["A"] == wakes["B"]
    assert wakes["A"][0] == 1000.0 + OFFLINE_GRACE_S
    for who in ("public", 0, 1):
        assert seen[f"A{who}"] == seen[f"B{who}"], who
        marks = [t for t, text in seen[f"A{who}"] if '"offline": true' in text]
        assert marks and marks[0] == OFFLINE_GRACE_S


# ------------------------------------------------------------------ the creator's seat controls


def test_a_seat_is_freed_only_between_hands(client: TestClient) -> None:
    room_id, creator = new_room(client, seed=61, bots={"2": "random"}, turn_seconds=600)
    with contextlib.ExitStack() as stack:
        c0, _ = sit(client, room_id, stack, 0)
        victim, token = loose(client, room_id, stack, 1)
        room = room_of(client, room_id)
        assert room.state is not None
        victim.hang_up()
        url = f"/api/rooms/{room_id}/seats/1/free"
        res = client.post(url, json={"creator_token": creator})
        assert res.status_code == 409 and res.json()["error"]["code"] == "hand_in_progress"
        res = client.post(
            f"/api/rooms/{room_id}/bot-token", json={"creator_token": creator, "seat": 1}
        )
        assert res.status_code == 400 and res.json()["error"]["code"] == "seat_taken"
        back = Client(stack.enter_context(client.websocket_connect(f"/ws/{room_id}")))
        assert back.reply(back.send(type="join", token=token), "welcome")["seat"] == 1
        autoplay_hand(room, {0: c0, 1: back})
        res = client.post(url, json={"creator_token": creator})
        assert res.status_code == 200 and not res.json()["room"]["seats"][1]["taken"]
        assert back.until(lambda m: m["type"] == "welcome")["seat"] is None


def test_the_creator_gives_a_gone_players_seat_to_a_bot(client: TestClient, tmp_path: Path) -> None:
    room_id, creator = new_room(client, seed=62, turn_seconds=600)
    with contextlib.ExitStack() as stack:
        c0, _ = sit(client, room_id, stack, 0)
        c1, token1 = loose(client, room_id, stack, 1)
        room = room_of(client, room_id)
        url = f"/api/rooms/{room_id}/seats/2/bot"
        # An empty seat: the bot takes it and the table is full, the hand is dealt.
        res = client.post(url, json={"creator_token": creator, "bot": "random"})
        assert res.status_code == 200, res.text
        seat = res.json()["room"]["seats"][2]
        assert (seat["kind"], seat["bot"], seat["taken"]) == ("bot", "random", True)
        assert room.state is not None
        url = f"/api/rooms/{room_id}/seats/1/bot"
        res = client.post(url, json={"creator_token": creator})
        assert res.status_code == 409 and res.json()["error"]["code"] == "seat_connected"
        c1.reply(c1.send(type="spectate"), "snapshot")  # watching is still being there
        res = client.post(url, json={"creator_token": creator})
        assert res.status_code == 409 and res.json()["error"]["code"] == "seat_connected"
        assert client.post(url, json={"creator_token": "x" * 24}).status_code == 403
        c1.hang_up()
        # Mid-hand, the gone player's seat goes to the 托管 bot; the token stops working.
        res = client.post(url, json={"creator_token": creator})
        assert res.status_code == 200, res.text
        assert res.json()["room"]["seats"][1]["kind"] == "bot"
        assert res.json()["room"]["seats"][1]["bot"] == "greedy"
        res = client.post(url, json={"creator_token": creator})
        assert res.status_code == 409 and res.json()["error"]["code"] == "bad_seat"
        tab = Client(stack.enter_context(client.websocket_connect(f"/ws/{room_id}")))
        assert tab.reply(tab.send(type="join", token=token1), "error")["code"] == "bad_token"
        c0.reply(c0.send(type="autoplay", on=True), "snapshot")
        c0.until(lambda m: m["type"] == "hand_end", timeout=30)
    # Kept as a bot seat in the store.
    store = Store(tmp_path / "flow.db")
    try:
        restored = RoomManager(store).restore(room_id)
        assert restored is not None
        assert [s.kind for s in restored.seating.seats] == ["human", "bot", "bot"]
        assert restored.seating.seats[1].bot == "greedy" and restored.seating.seats[1].token is None
    finally:
        store.close()


HUGE_INT = "7" * 4000
BAD_BODIES = [
    pytest.param('{"creator_token": "TOKEN", "bot": ' + HUGE_INT + "}", id="huge-int"),
    pytest.param('{"creator_token": "TOKEN", "bot": "' + "x" * 10000 + '"}', id="huge-string"),
    pytest.param('{"creator_token": "TOKEN", "bot": ["greedy"]}', id="list"),
    pytest.param('{"creator_token": "TOKEN", "bot": "mcts:ms=99999"}', id="out-of-bounds"),
    pytest.param('{"creator_token": "TOKEN", "bot": "nobody"}', id="unknown-kind"),
    pytest.param('{"creator_token": "TOKEN", "bot": true}', id="bool"),
    pytest.param('{"creator_token": "TOKEN", "nope": 1}', id="extra-field"),
    pytest.param('{"creator_token": "TOKEN", "' + "k" * 5000 + '": 1}', id="huge-key"),
    pytest.param('{"creator_token": "TOKEN", "seat": ' + HUGE_INT + "}", id="huge-seat"),
    pytest.param('{"creator_token": "TOKEN", "seat": 1, "name": ' + HUGE_INT + "}", id="name"),
    pytest.param('["TOKEN"]', id="list-body"),
    pytest.param('"' + "s" * 10000 + '"', id="string-body"),
    pytest.param(HUGE_INT, id="int-body"),
    pytest.param('{"creator_token": ' + HUGE_INT + "}", id="int-token"),
]


@pytest.mark.parametrize("body", BAD_BODIES)
@pytest.mark.parametrize("path", ["seats/1/bot", "seats/1/free", "bot-token"])
def test_the_seat_endpoints_bound_their_input(client: TestClient, body: str, path: str) -> None:
    room_id, creator = new_room(client, seed=63)
    text = body.replace("TOKEN", creator)
    headers = {"content-type": "application/json"}
    res = client.post(f"/api/rooms/{room_id}/{path}", content=text, headers=headers)
    assert res.status_code in (400, 403, 413), (res.status_code, res.text[:200])
    if res.status_code == 403:  # only where no token is given
        assert "TOKEN" not in body
    error = res.json()["error"]
    assert len(error["message"]) < 400 and error["code"], error


@pytest.mark.parametrize("seat", ["9" * 4000, "-1", "3", "shouxing", "%E4%B8%80", "1.0"])
def test_a_bad_seat_in_the_path_is_a_400(client: TestClient, seat: str) -> None:
    room_id, creator = new_room(client, seed=64)
    res = client.post(f"/api/rooms/{room_id}/seats/{seat}/bot", json={"creator_token": creator})
    assert res.status_code == 400 and res.json()["error"]["code"] == "bad_seat"
    assert len(res.json()["error"]["message"]) < 200
    if seat != "shouxing":
        res = client.post(
            f"/api/rooms/{room_id}/seats/{seat}/free", json={"creator_token": creator}
        )
        assert res.status_code == 400 and res.json()["error"]["code"] == "bad_seat"
    res = client.post(
        f"/api/rooms/{room_id}/seats/1/bot",
        content=b"{}",
        headers={"content-type": "application/json", "content-length": "9" * 5000},
    )
    assert res.status_code in (400, 413)


# ------------------------------------------------------------------ the store and the server


OLD_SCHEMA = """
CREATE TABLE rooms (id TEXT PRIMARY KEY, created REAL NOT NULL, config TEXT NOT NULL,
    seats TEXT NOT NULL, status TEXT NOT NULL);
CREATE TABLE matches (room_id TEXT PRIMARY KEY REFERENCES rooms(id), rules TEXT NOT NULL,
    overrides TEXT NOT NULL, seed INTEGER NOT NULL, ledger TEXT NOT NULL,
    over INTEGER NOT NULL DEFAULT 0);
CREATE TABLE hands (room_id TEXT NOT NULL REFERENCES rooms(id), number INTEGER NOT NULL,
    record TEXT NOT NULL, finished REAL NOT NULL, PRIMARY KEY (room_id, number));
CREATE TABLE room_keys (room_id TEXT PRIMARY KEY REFERENCES rooms(id), creator TEXT, invite TEXT);
CREATE TABLE deals (room_id TEXT NOT NULL REFERENCES rooms(id), number INTEGER NOT NULL,
    commitment TEXT NOT NULL, secret TEXT NOT NULL, PRIMARY KEY (room_id, number));
CREATE TABLE current (room_id TEXT PRIMARY KEY REFERENCES rooms(id), number INTEGER NOT NULL,
    rules TEXT NOT NULL, overrides TEXT NOT NULL, seed INTEGER NOT NULL, dealer INTEGER NOT NULL,
    actions TEXT NOT NULL);
"""


def test_a_database_of_the_first_schema_opens_and_restores(tmp_path: Path) -> None:
    # A room with one finished hand and one in progress, written by this code, copied into a
    # database of the schema before matches were numbered.
    new = tmp_path / "new.db"
    store = Store(new)
    manager = RoomManager(store)
    bots = {0: "random", 1: "random", 2: "random"}
    room = manager.create(RoomOptions(bots=bots, seed=71, options={"match_hands": 4}))

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
    state = room.state
    assert state is not None
    want = (
        room.table.hand_number,
        list(room.match.scores),
        [[s, str(a)] for s, a in state.actions],
    )
    store.close()
    old = tmp_path / "old.db"
    db = sqlite3.connect(old)
    db.executescript(OLD_SCHEMA)
    db.execute("ATTACH DATABASE ? AS src", (str(new),))
    copies = {
        "rooms": "id, created, config, seats, status",
        "matches": "room_id, rules, overrides, seed, ledger, over",
        "hands": "room_id, number, record, finished",
        "room_keys": "room_id, creator, invite",
        "deals": "room_id, number, commitment, secret",
    }
    for table, cols in copies.items():
        db.execute(f"INSERT INTO {table} ({cols}) SELECT {cols} FROM src.{table}")
    # The first schema kept the hand in progress's actions as one JSON list in ``current``.
    db.execute(
        "INSERT INTO current (room_id, number, rules, overrides, seed, dealer, actions) "
        "SELECT c.room_id, c.number, c.rules, c.overrides, c.seed, c.dealer, "
        "(SELECT json_group_array(json_array(a.seat, a.action)) FROM "
        "(SELECT seat, action FROM src.actions WHERE room_id = c.room_id AND number = c.number "
        "ORDER BY seq) a) FROM src.current c"
    )
    db.commit()
    db.execute("DETACH DATABASE src")
    db.close()
    store = Store(old)
    try:
        logged = store.db.execute("SELECT actions FROM current").fetchall()
        assert logged == [("[]",)]  # moved into the action log, one row each
        columns = {r[1] for r in store.db.execute("PRAGMA table_info(matches)")}
        assert {"number", "dissolved"} <= columns
        assert "match" in {r[1] for r in store.db.execute("PRAGMA table_info(hands)")}
        restored = RoomManager(store).restore(room.id)
        assert restored is not None and restored.state is not None
        assert (
            restored.table.match_number,
            restored.table.first_hand,
            restored.table.dissolved,
        ) == (1, 1, False)
        got = (
            restored.table.hand_number,
            list(restored.match.scores),
            [[s, str(a)] for s, a in restored.state.actions],
        )
        assert got == want and restored.table.hand_number == 3
    finally:
        store.close()
    assert Store(old).load(room.id) is not None  # opened twice: the migration is done once


def test_wmq_serve_closes_silent_sockets_within_about_40_s(monkeypatch: pytest.MonkeyPatch) -> None:
    # A socket that stops answering WebSocket pings (a phone that lost its network) is closed
    # by uvicorn's keepalive: a ping every ws_ping_interval, closed ws_ping_timeout after one
    # goes unanswered; then the seat's offline grace starts (docs/protocol.md §3). Checked here
    # on what `wmq serve` hands uvicorn (nothing is served: a silent socket takes 40 s).
    import inspect

    import uvicorn
    from typer.testing import CliRunner

    import weimaque.cli.serve
    import weimaque.server.app
    from weimaque.cli.app import app

    seen: dict[str, Any] = {}
    monkeypatch.setattr(uvicorn, "run", lambda app_, **kwargs: seen.update(kwargs))
    monkeypatch.setattr(weimaque.server.app, "create_app", lambda *a, **k: object())
    monkeypatch.setattr(weimaque.cli.serve, "quiet_collector", lambda: None)
    done = CliRunner().invoke(app, ["serve", "--port", "1", "--db", ":memory:"])
    assert done.exit_code == 0, done.output
    assert seen["ws"] == "websockets-sansio"  # whose keepalive closes the socket (uvicorn)
    defaults = inspect.signature(uvicorn.Config).parameters
    interval = seen.get("ws_ping_interval", defaults["ws_ping_interval"].default)
    timeout = seen.get("ws_ping_timeout", defaults["ws_ping_timeout"].default)
    assert interval is not None and timeout is not None and interval + timeout <= 40
