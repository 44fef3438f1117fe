"""The WebSocket protocol of docs/protocol.md, through Starlette's TestClient (RULES §2.1, §4.3)."""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from starlette.testclient import TestClient, WebSocketTestSession

from weimaque.games.maque.cards import faces_str
from weimaque.games.maque.game.actions import Action
from weimaque.games.maque.game.observation import observation
from weimaque.games.maque.game.record import start_from_record
from weimaque.games.maque.game.state import GameState
from weimaque.server.app import create_app
from weimaque.server.table.rooms import Room

Msg = dict[str, Any]
JSON = {"content-type": "application/json"}


class Client:
    """One WebSocket with a log of everything it received."""

    def __init__(self, ws: WebSocketTestSession) -> None:
        self.ws = ws
        self.log: list[Msg] = []
        self.next_id = 0

    def send(self, **fields: Any) -> int:
        self.next_id += 1
        self.ws.send_json({"v": 1, "id": self.next_id, **fields})
        return self.next_id

    def recv(self, timeout: float = 15.0) -> Msg:
        ws = self.ws

        async def get() -> Any:
            with anyio.fail_after(timeout):
                return await ws._send_rx.receive()

        message = ws.portal.call(get)
        assert message["type"] == "websocket.send", message
        data: Msg = json.loads(message["text"])
        assert data["v"] == 1
        self.log.append(data)
        return data

    def until(self, pred: Any, timeout: float = 15.0) -> Msg:
        """Read messages until one satisfies ``pred`` (a bound for a loaded machine, where a
        bot's first move may wait for its worker process to start)."""
        end = time.monotonic() + timeout
        while True:
            msg = self.recv(max(0.01, end - time.monotonic()))
            if pred(msg):
                return msg

    def reply(self, msg_id: int, kind: str | None = None) -> Msg:
        """The direct answer (``re`` = msg_id) of the given type."""
        return self.until(lambda m: m.get("re") == msg_id and (kind is None or m["type"] == kind))

    def drain(self, wait: float = 0.05) -> list[Msg]:
        out = []
        while True:
            try:
                out.append(self.recv(wait))
            except TimeoutError:
                return out


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    app = create_app(tmp_path / "test.db")
    with TestClient(app) as c:
        yield c


def make_room(client: TestClient, **body: Any) -> str:
    body.setdefault("bot_delay_ms", 0)
    res = client.post("/api/rooms", json=body)
    assert res.status_code == 201, res.text
    return str(res.json()["room_id"])


def room_of(client: TestClient, room_id: str) -> Room:
    room: Room = client.app.state.manager.rooms[room_id]  # type: ignore[attr-defined]
    return room


def seat_all(client: TestClient, room_id: str, stack: Any, seats: tuple[int, ...] = (0, 1, 2)):
    clients: dict[int, Client] = {}
    tokens: dict[int, str] = {}
    for s in seats:
        c = Client(stack.enter_context(client.websocket_connect(f"/ws/{room_id}")))
        c.reply(c.send(type="join"), "snapshot")
        i = c.send(type="sit", seat=s, name=f"p{s}")
        welcome = c.reply(i, "welcome")
        assert welcome["seat"] == s and welcome["role"] == "player"
        tokens[s] = welcome["token"]
        clients[s] = c
    return clients, tokens


def act_first(room: Room, clients: dict[int, Client]) -> tuple[int, str, Msg]:
    """The first seat that must decide plays its first legal action; returns its ack."""
    state = room.state
    assert state is not None
    seat = state.to_act()[0]
    action = str(state.legal_actions(seat)[0])
    c = clients[seat]
    ack = acked(c, c.send(type="act", action=action, decision=room.decision_of(seat)))
    assert ack["actor"] == {"seat": seat, "action": action, "auto": False}
    return seat, action, ack


def acked(c: Client, msg_id: int) -> Msg:
    """The immediate ``ack`` of an accepted action (its events may wait for a claim window)."""
    return c.until(lambda m: m["type"] == "ack" and m["ack"] == msg_id)


def truth_by_count(record: dict[str, Any]) -> dict[tuple[int, int], list[Msg]]:
    """Each (events seen, seat) → the seat's true observations after it saw that many events."""
    state: GameState = start_from_record(record)
    table: dict[tuple[int, int], list[Msg]] = {}

    def note() -> None:
        for s in range(3):
            seen = sum(1 for e in state.events if e.view(s) is not None)
            table.setdefault((seen, s), []).append(observation(state, s))

    note()
    for seat, text in record["actions"]:
        state.apply(int(seat), Action.parse(text))
        note()
    return table


def _fields(value: Any, key: str = "") -> Iterator[tuple[str, Any]]:
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _fields(v, k)
    elif isinstance(value, list):
        for v in value:
            yield from _fields(v, key)
    else:
        yield key, value


def check_no_leak(seat: int, log: list[Msg], record: dict[str, Any]) -> int:
    """Every message to ``seat`` during the hand shows only what the seat may see."""
    start = start_from_record(record)
    truth = truth_by_count(record)
    state = start_from_record(record)
    for s, text in record["actions"]:
        state.apply(int(s), Action.parse(text))
    stock = faces_str(start.stock)
    others = {faces_str(start.initial_hands[o]) for o in range(3) if o != seat}
    visible = [v for e in state.events if (v := e.view(seat)) is not None]
    checked = 0
    for msg in log:
        text = json.dumps(msg, ensure_ascii=False)
        assert 'stock"' not in text.replace('"stock_left"', ""), msg
        assert stock not in text
        if msg["type"] in ("hand_end", "match_end"):
            continue
        for key, value in _fields({k: v for k, v in msg.items() if k != "history"}):
            if key in ("hand", "cards") and isinstance(value, str):
                assert value not in others, (key, value, msg["type"])
        assert '"hands"' not in text or msg["type"] == "snapshot"
        obs = msg.get("observation")
        if msg["type"] in ("events", "snapshot") and obs is not None and obs["phase"] != "over":
            assert "hands" not in obs
            count = msg["from"] + len(msg["events"]) if msg["type"] == "events" else None
            if count is None:
                count = msg["event_count"]
            assert obs in truth[(count, seat)], f"observation differs from the truth at {count}"
            checked += 1
        events = msg.get("events") or msg.get("history") or []
        first = msg.get("from", 0)
        if msg["type"] == "events":
            for k, view in enumerate(events):
                assert view == visible[first + k]
        for view in events:
            if view["type"] == "wei" and view["seat"] != seat:
                assert "card" not in view, view  # 偎 face down (anxiang: no 明偎, RULES §4.3)
            if view["type"] == "dealt" and view["seat"] != seat:
                assert "cards" not in view
    return checked


def play_hand(room: Room, clients: dict[int, Client], limit: int = 400) -> int:
    n = 0
    while room.state is not None:
        act_first(room, clients)
        n += 1
        assert n < limit
    return n


def test_three_seats_play_a_hand_to_the_end(client: TestClient) -> None:
    room_id = make_room(client, seed=11, options={"match_hands": 2})
    with contextlib.ExitStack() as stack:
        clients, _ = seat_all(client, room_id, stack)
        room = room_of(client, room_id)
        first = clients[0].until(lambda m: m["type"] == "snapshot" and m["hand_number"] == 1)
        assert first["observation"]["viewer"] == 0 and len(first["observation"]["hand"]) >= 19
        n = play_hand(room, clients)
        assert n > 3
        ends = [c.until(lambda m: m["type"] == "hand_end") for c in clients.values()]
        assert ends[0] == ends[1] == ends[2]
        end = ends[0]
        assert sum(end["ledger"]["seats"]) + end["ledger"]["shouxing"] + end["ledger"]["pool"] == 0
        assert end["hand_number"] == 1 and end["record_url"].endswith("/hands/1")
        record = room.match.hands[0]
        for seat, c in clients.items():
            assert check_no_leak(seat, c.log, record) > 3
        # The record is served now, and replays to the same result.
        res = client.get(end["record_url"]).json()
        assert res["record"]["actions"] == record["actions"]
        steps = client.get(end["record_url"] + "/replay").json()["steps"]
        assert len(steps) == len(record["actions"]) + 1
        hands = client.get(f"/api/rooms/{room_id}/hands").json()
        assert hands["hands"][0]["number"] == 1
        # next: the hand is dealt once every connected seat is ready.
        for s in (0, 1):
            clients[s].send(type="next")
            clients[s].until(lambda m, s=s: m["type"] == "room" and m["room"]["seats"][s]["ready"])
        assert room.state is None
        clients[2].send(type="next")
        for c in clients.values():
            c.until(lambda m: m["type"] == "snapshot" and m["hand_number"] == 2)
        assert client.get(f"/api/rooms/{room_id}/hands/2").status_code == 404
        play_hand(room, clients)
        for c in clients.values():
            c.until(lambda m: m["type"] == "match_end")
        i = clients[0].send(type="next")
        assert clients[0].reply(i, "error")["code"] == "match_over"
        record = room.match.hands[1]
        for seat, c in clients.items():
            log = c.log[next(k for k, m in enumerate(c.log) if m.get("hand_number") == 2) :]
            check_no_leak(seat, log, record)


def test_reconnect_restores_the_seat(client: TestClient) -> None:
    room_id = make_room(client, seed=5)
    with contextlib.ExitStack() as stack:
        clients, tokens = seat_all(client, room_id, stack)
        room = room_of(client, room_id)
        for _ in range(6):
            act_first(room, clients)
        state = room.state
        assert state is not None
        # A second tab for seat 1, by token: same seat, full snapshot of the true view.
        tab = Client(stack.enter_context(client.websocket_connect(f"/ws/{room_id}")))
        i = tab.send(type="join", token=tokens[1])
        welcome = tab.reply(i, "welcome")
        assert welcome["seat"] == 1 and welcome["token"] == tokens[1]
        snap = tab.reply(i, "snapshot")
        assert snap["observation"] == observation(state, 1)
        assert snap["event_count"] == len(snap["history"])
        assert [v for e in state.events if (v := e.view(1)) is not None] == snap["history"]
        assert snap["legal_actions"] == [
            {"text": str(a), "id": a.id} for a in state.legal_actions(1)
        ]
        # The new tab can act for the seat; the old one sees the result too.
        clients[1] = tab
        while room.state is not None and 1 not in room.state.to_act():
            act_first(room, clients)
        if room.state is not None:
            act_first(room, clients)
    # Everyone dropped; reconnect seat 2 by token after the close.
    with client.websocket_connect(f"/ws/{room_id}") as ws:
        c = Client(ws)
        snap = c.reply(c.send(type="join", token=tokens[2]), "snapshot")
        assert snap["you"]["seat"] == 2
        if room.state is not None:
            assert snap["observation"] == observation(room.state, 2)
        info = client.get(f"/api/rooms/{room_id}").json()["room"]
        assert [s["connected"] for s in info["seats"]] == [False, False, True]


def test_bad_messages_get_errors_and_the_connection_survives(client: TestClient) -> None:
    room_id = make_room(client, seed=3)
    with contextlib.ExitStack() as stack:
        clients, _ = seat_all(client, room_id, stack)
        room = room_of(client, room_id)
        state = room.state
        assert state is not None
        seat = state.to_act()[0]
        other = (seat + 1) % 3
        c = clients[seat]
        c.drain()
        d = room.decision_of(seat)
        bad_inputs: list[tuple[str, str]] = [
            ("{not json", "bad_json"),
            ("[1, 2]", "bad_json"),
            ('{"v": 2, "type": "ping"}', "unsupported_version"),
            ('{"v": 1, "type": "dance"}', "unknown_type"),
            ('{"v": 1}', "unknown_type"),
            ('{"v": 1, "type": "sit", "seat": "1"}', "bad_message"),
            (f'{{"v": 1, "type": "act", "action": 1.5, "decision": {d}}}', "bad_message"),
            (
                f'{{"v": 1, "type": "act", "action": "出三", "decision": {d}, "extra": 1}}',
                "bad_message",
            ),
            ('{"v": 1, "type": "act", "action": "出三"}', "bad_message"),
            (f'{{"v": 1, "type": "act", "action": "跳", "decision": {d}}}', "bad_action"),
            (f'{{"v": 1, "type": "act", "action": 99, "decision": {d}}}', "bad_action"),
            (f'{{"v": 1, "type": "act", "action": "出一", "decision": {d - 1}}}', "stale"),
            (f'{{"v": 1, "type": "act", "action": "出一", "hand": 7, "decision": {d}}}', "stale"),
            ('{"v": 1, "type": "sit", "seat": 1}', "already_seated"),
            ('{"v": 1, "type": "next"}', "hand_in_progress"),
        ]
        held = set(state.hand_faces(seat))
        missing = next(f for f in range(20) if f not in held)
        bad_inputs.append(
            (
                json.dumps(
                    {"v": 1, "type": "act", "action": str(Action.discard(missing)), "decision": d}
                ),
                "",
            )
        )
        for text, code in bad_inputs:
            c.ws.send_text(text)
            err = c.until(lambda m: m["type"] == "error")
            if code:
                assert err["code"] == code, (text, err)
            else:
                assert err["code"] in ("illegal_action", "not_your_turn"), err
            try:
                sent = json.loads(text)
            except ValueError:
                sent = text
            assert err["echo"] == sent, (text, err)
            assert err["message"]
        # An illegal action names the rule; a seat that need not decide is refused.
        o = clients[other]
        if other not in state.to_act():
            sent = o.send(type="act", action="过", decision=room.decision_of(other))
            assert o.reply(sent, "error")["code"] == "not_your_turn"
        # A spectator may not act nor take a bot/taken seat.
        spec = Client(stack.enter_context(client.websocket_connect(f"/ws/{room_id}")))
        spec.reply(spec.send(type="join"), "snapshot")
        sent = spec.send(type="act", action="过", decision=0)
        assert spec.reply(sent, "error")["code"] == "not_seated"
        assert spec.reply(spec.send(type="sit", seat=0), "error")["code"] == "seat_taken"
        assert spec.reply(spec.send(type="sit", seat=5), "error")["code"] == "bad_seat"
        assert spec.reply(spec.send(type="join", token="nope"), "error")["code"] == "bad_token"
        # The connection still works: ping, and a legal action.
        pong = c.reply(c.send(type="ping", t="x"), "pong")
        assert pong["t"] == "x"
        _, _, ack = act_first(room, clients)
        assert ack["type"] == "ack"


def test_unknown_room_is_refused(client: TestClient) -> None:
    with client.websocket_connect("/ws/nope") as ws:
        msg = ws.receive_json()
        assert msg["type"] == "error" and msg["code"] == "room_not_found"
    assert client.get("/api/rooms/nope").status_code == 404
    assert client.get("/r/nope").status_code == 404


def test_http_api(client: TestClient) -> None:
    presets = client.get("/api/presets").json()
    assert presets["default"] == "anxiang" and "random" in presets["bots"]
    assert "min_xi" in presets["room_options"]
    bad = client.post("/api/rooms", json={"options": {"min_xi": "15"}})
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "bad_options"
    bad = client.post("/api/rooms", json={"options": {"shouxing_divisor": 3}})
    assert bad.status_code == 400
    bad = client.post("/api/rooms", json={"bots": {"1": "nobody"}})
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "bad_bots"
    assert client.post("/api/rooms", content=b"{x", headers=JSON).status_code == 400
    assert client.post("/api/rooms", content=b"{}").status_code == 415
    res = client.post("/api/rooms", json={"preset": "anxiang", "options": {"min_xi": 15}})
    assert res.status_code == 201
    body = res.json()
    info = client.get(f"/api/rooms/{body['room_id']}").json()["room"]
    assert info["rules"]["overrides"] == {"min_xi": 15} and info["status"] == "waiting"
    assert "seed" not in json.dumps(info)
    page = client.get(body["url"])
    assert page.status_code == 200 and "html" in page.text.lower()
    assert client.get("/").status_code == 200
    assert client.get(f"/api/rooms/{body['room_id']}/hands/1").status_code == 404
    # The lobby lists public rooms and the rooms the asker names (its own), not every room.
    listed = lambda q: [r["room_id"] for r in client.get(f"/api/rooms{q}").json()["rooms"]]  # noqa: E731
    assert body["room_id"] not in listed("")
    assert body["room_id"] in listed(f"?ids=nope,{body['room_id']}")
    public = client.post("/api/rooms", json={"public": True}).json()["room_id"]
    assert public in listed("") and body["room_id"] not in listed("")


def test_every_bot_the_lobby_offers_can_sit_in_a_room(client: TestClient) -> None:
    # The lobby builds its bot levels from ``bots`` (docs/protocol.md §1): each must be accepted.
    offered = client.get("/api/presets").json()["bots"]
    assert {"random", "policy", "greedy", "net", "mcts"} <= set(offered)
    for bot in offered:
        res = client.post("/api/rooms", json={"bots": {"1": bot}})
        assert res.status_code == 201, (bot, res.text)
    # A learned bot's weights come from the server's own files, never from a request.
    res = client.post("/api/rooms", json={"bots": {"1": "net:weights=/etc/passwd"}})
    assert res.status_code == 400 and res.json()["error"]["code"] == "bad_bots"


def test_presets_name_every_pattern(client: TestClient) -> None:
    # The lobby labels each preset's 名堂 (RULES §7.2) and builds its options from these.
    presets = client.get("/api/presets").json()
    names = presets["pattern_names"]
    assert names["zimo"] == "自摸" and names["hong"] == "红胡"
    for preset in presets["presets"]:
        assert set(preset["patterns"]) | set(preset["optional_patterns"]) <= set(names)
        switches = {"enable_patterns", "disable_patterns"}
        assert set(preset["options"]) == set(presets["room_options"]) - switches
    xiaozhuo = next(p for p in presets["presets"] if p["id"] == "xiaozhuo")
    assert xiaozhuo["optional_patterns"] == {"zimo": "+10", "zhe": "+10"}
    assert xiaozhuo["options"]["min_xi"] == 10


def test_spectator_sees_the_public_view(client: TestClient) -> None:
    room_id = make_room(client, seed=8, bots={"1": "random", "2": "random"})
    with contextlib.ExitStack() as stack:
        clients, _ = seat_all(client, room_id, stack, seats=(0,))
        spec = Client(stack.enter_context(client.websocket_connect(f"/ws/{room_id}")))
        snap = spec.reply(spec.send(type="join"), "snapshot")
        assert snap["you"]["role"] == "spectator"
        assert "hand" not in snap["observation"] and snap["legal_actions"] == []
        # Seat 0 plays what it is shown (bots answer at once on the server's thread, so the
        # room is not read from here); a view superseded meanwhile is refused as stale.
        c = clients[0]
        for _ in range(300):
            view = c.until(
                lambda m: (
                    m["type"] == "hand_end" or (m["type"] in ("snapshot", "events") and m["to_act"])
                )
            )
            if view["type"] == "hand_end":
                break
            sent = c.send(
                type="act", action=view["legal_actions"][0]["text"], decision=view["decision"]
            )
            answer = c.until(lambda m, sent=sent: m.get("ack") == sent or m.get("re") == sent)
            assert answer["type"] != "error" or answer["code"] == "stale", answer
        else:
            raise AssertionError("the hand did not end")
        spec.until(lambda m: m["type"] == "hand_end", timeout=10)
        for msg in spec.log:
            obs = msg.get("observation")
            if obs is not None and obs["phase"] != "over":
                assert "hand" not in obs and "hands" not in obs
            for view in msg.get("events") or msg.get("history") or []:
                if view["type"] == "dealt":
                    assert "cards" not in view


def test_absent_seats_are_played_when_the_room_chose_it(client: TestClient) -> None:
    room_id = make_room(client, seed=21, autoplay_absent=True)
    with contextlib.ExitStack() as stack:
        seat_all(client, room_id, stack)
        room = room_of(client, room_id)
        assert room.state is not None
    # Every tab closed: 托管 plays the whole hand.
    deadline = time.monotonic() + 20
    while room.state is not None and time.monotonic() < deadline:
        time.sleep(0.02)
    assert room.state is None and len(room.match.hands) == 1


def test_turn_timer_plays_for_a_slow_seat(client: TestClient) -> None:
    room_id = make_room(client, seed=2, turn_seconds=1, bots={"1": "random", "2": "random"})
    with contextlib.ExitStack() as stack:
        clients, _ = seat_all(client, room_id, stack, seats=(0,))
        c = clients[0]
        timed = c.until(lambda m: m.get("to_act") and m.get("timer"))
        assert timed["timer"]["seconds"] == 1
        auto = c.until(lambda m: m["type"] == "events" and (m["actor"] or {}).get("seat") == 0)
        assert auto["actor"]["auto"] is True


def test_bots_and_the_shouxing(client: TestClient) -> None:
    body = {"seed": 4, "options": {"shouxing": True}, "bots": {"0": "greedy", "1": "greedy"}}
    created = client.post("/api/rooms", json={**body, "bot_delay_ms": 0}).json()
    room_id, invite = created["room_id"], created["shouxing_invite"]
    with contextlib.ExitStack() as stack:
        clients, _ = seat_all(client, room_id, stack, seats=(2,))
        room = room_of(client, room_id)
        sx = Client(stack.enter_context(client.websocket_connect(f"/ws/{room_id}")))
        i = sx.send(type="sit", seat="shouxing", name="守", invite=invite)
        assert sx.reply(i, "welcome")["role"] == "shouxing"
        snap = sx.reply(i, "snapshot")
        state = room.state
        assert state is not None
        # The bots play on in the background, so the snapshot shows the hands as they were at
        # some step of this hand: replay the hand and find that step.
        replayed = GameState.new(state.rules, state.seed or 0, state.dealer)
        seen = [observation(replayed, "shouxing")["hands"]]
        for seat, action in list(state.actions):
            replayed.apply(seat, action)
            seen.append(observation(replayed, "shouxing")["hands"])
        assert snap["observation"]["hands"] in seen
        assert snap["legal_actions"] == []
        sent = sx.send(type="act", action="过", decision=0)
        assert sx.reply(sent, "error")["code"] == "not_seated"
        n = 0
        while room.state is not None:
            state = room.state
            if 2 in state.to_act():
                c = clients[2]
                action = str(state.legal_actions(2)[0])
                i = c.send(type="act", action=action, decision=room.decision_of(2))
                answer = c.until(
                    lambda m, i=i: (
                        (m["type"] == "ack" and m["ack"] == i)
                        or (m["type"] == "error" and m.get("re") == i)
                    )
                )
                # The bots move meanwhile: a state read between two of their moves may be gone
                # by the time the action arrives (refused, nothing applied): look again.
                assert answer["type"] == "ack" or answer["code"] in ("stale", "not_your_turn")
                n += 1
            else:
                time.sleep(0.005)
            assert n < 300
        end = sx.until(lambda m: m["type"] == "hand_end")
        assert end["ledger"]["shouxing"] >= 0
        # spectate: the seat stays held, this connection sees the public view.
        c = clients[2]
        i = c.send(type="spectate")
        assert c.reply(i, "welcome")["seat"] is None
        assert "hand" not in c.reply(i, "snapshot")["observation"]
        info = client.get(f"/api/rooms/{room_id}").json()["room"]
        assert info["seats"][2]["taken"] and info["shouxing"]["name"] == "守"


def test_the_shouxing_has_a_say_in_a_vote_to_dissolve(client: TestClient) -> None:
    """docs/protocol.md §2.4: the 守醒 settles with the table (RULES §8.4), so a player alone
    with bots and a 守醒 does not end the match by himself: the vote waits for the 守醒, who
    may refuse it, or propose one himself."""
    body = {"seed": 4, "options": {"shouxing": True}, "bots": {"0": "greedy", "1": "greedy"}}
    created = client.post("/api/rooms", json={**body, "vote_seconds": 60}).json()
    room_id, invite = created["room_id"], created["shouxing_invite"]
    with contextlib.ExitStack() as stack:
        clients, _ = seat_all(client, room_id, stack, seats=(2,))
        player = clients[2]
        sx = Client(stack.enter_context(client.websocket_connect(f"/ws/{room_id}")))
        assert sx.reply(sx.send(type="sit", seat="shouxing", invite=invite), "welcome")
        # Not alone: leaving mid-hand is refused as at any table of persons (no 托管 to the end).
        assert room_of(client, room_id).state is not None
        err = player.reply(player.send(type="leave"), "error")
        assert err["code"] == "hand_in_progress"
        vote = player.reply(player.send(type="dissolve"), "room")["room"]["vote"]
        assert vote["by"] == 2 and vote["answers"] == [None, None, True]
        assert vote["shouxing"] is None  # open: the 守醒 has not answered
        sx.send(type="vote", agree=False)
        result = player.until(lambda m: m["type"] == "vote_result")
        assert result["passed"] is False and result["refused_by"] == ["shouxing"]
        room = room_of(client, room_id)
        assert not room.table.dissolved and room.table.vote is None
        # The 守醒 proposes; the player agrees: the match ends, dissolved.
        vote = sx.reply(sx.send(type="dissolve"), "room")["room"]["vote"]
        assert vote["by"] == "shouxing" and vote["shouxing"] is True
        player.send(type="vote", agree=True)
        result = sx.until(lambda m: m["type"] == "vote_result")
        assert result["passed"] is True and result["by"] == "shouxing"
        end = sx.until(lambda m: m["type"] == "match_end")
        assert end["dissolved"] is True


def test_a_declined_hu_leaves_no_gap_for_the_others(client: TestClient) -> None:
    # RULES §3.1.5: declining a 胡 leaves no trace. With room seed 2, seat 2 is offered a 胡 in
    # the first hand and passes; seats 0 and 1 must see event counts without a gap.
    room_id = make_room(client, seed=2, options={"match_hands": 1})
    with contextlib.ExitStack() as stack:
        clients, _ = seat_all(client, room_id, stack)
        room = room_of(client, room_id)
        while room.state is not None:
            state = room.state
            seat = state.to_act()[0]
            legal = state.legal_actions(seat)
            action = legal[-1] if legal[0].kind == "hu" and seat != 0 else legal[0]
            c = clients[seat]
            acked(c, c.send(type="act", action=str(action), decision=room.decision_of(seat)))
        record = room.match.hands[0]
        replayed = start_from_record(record)
        for s, text in record["actions"]:
            replayed.apply(int(s), Action.parse(text))
        assert [e.seat for e in replayed.events if e.kind == "declined_hu"] == [2]
        for seat in (0, 1):
            c = clients[seat]
            # Every view of the hand has come once its end has (the end is sent after them).
            if not any(m["type"] == "hand_end" for m in c.log):
                c.until(lambda m: m["type"] == "hand_end")
            seen = 0
            for msg in c.log:
                assert "declined_hu" not in json.dumps(msg, ensure_ascii=False)
                if msg["type"] == "snapshot" and msg.get("hand_number") == 1:
                    seen = msg["event_count"]
                elif msg["type"] == "events":
                    assert msg["from"] == seen, (seat, msg["from"], seen)
                    seen += len(msg["events"])
            visible = [e for e in replayed.events if e.view(seat) is not None]
            assert seen == len(visible)


def test_a_room_may_turn_patterns_off_and_set_liuzi_min_xi(client: TestClient) -> None:
    # RULES §7.3 (a room chooses its 名堂) and §8.5 (the 留子 threshold).
    options = {"liuzi": True, "liuzi_min_xi": 20, "disable_patterns": ["hong"]}
    room_id = make_room(client, preset="xiaozhuo", options=options)
    overrides = client.get(f"/api/rooms/{room_id}").json()["room"]["rules"]["overrides"]
    assert overrides == {"liuzi": True, "liuzi_min_xi": 20, "disable_patterns": ["hong"]}
    res = client.post("/api/rooms", json={"options": {"disable_patterns": "hong"}})
    assert res.status_code == 400 and "disable_patterns" in res.text
