"""A remote bot over WebSocket takes a seat in a server room with a bot token (bot protocol)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from starlette.testclient import TestClient, WebSocketTestSession

from tests.test_bot_lines import check_line
from weimaque.games.lines import PROTOCOL
from weimaque.server.app import create_app

Msg = dict[str, Any]


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(tmp_path / "bots.db")) as c:
        yield c


def _recv(ws: WebSocketTestSession, timeout: float = 10.0) -> Msg:
    async def get() -> Any:
        with anyio.fail_after(timeout):
            return await ws._send_rx.receive()

    message = ws.portal.call(get)
    assert message["type"] == "websocket.send", message
    data: Msg = json.loads(message["text"])
    return data


def _room(client: TestClient) -> tuple[str, str]:
    body = {"bots": {"0": "greedy", "1": "random"}, "bot_delay_ms": 0, "seed": 12}
    body["options"] = {"match_hands": 1}
    res = client.post("/api/rooms", json=body)
    assert res.status_code == 201, res.text
    data = res.json()
    return data["room_id"], data["creator_token"]


def test_bot_token_is_issued_by_the_creator_only(client: TestClient) -> None:
    room_id, creator = _room(client)
    url = f"/api/rooms/{room_id}/bot-token"
    assert client.post(url, json={"creator_token": "guess", "seat": 2}).status_code == 403
    assert client.post(url, json={"seat": 2}).status_code == 403
    bad = client.post(url, json={"creator_token": creator, "seat": 0})
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "seat_taken"
    assert client.post(url, json={"creator_token": creator, "seat": 5}).status_code == 400
    ok = client.post(url, json={"creator_token": creator, "seat": 2, "name": "remote"})
    assert ok.status_code == 201 and ok.json()["seat"] == 2 and ok.json()["bot_token"]
    again = client.post(url, json={"creator_token": creator, "seat": 2})
    assert again.status_code == 400
    assert client.post("/api/rooms/nosuch/bot-token", json={}).status_code == 404


def test_remote_bot_plays_a_hand_over_websocket(client: TestClient) -> None:
    room_id, creator = _room(client)
    issued = client.post(
        f"/api/rooms/{room_id}/bot-token", json={"creator_token": creator, "seat": 2}
    ).json()
    with client.websocket_connect(issued["ws"]) as ws:
        ws.send_text(json.dumps({"type": "join", "protocol": PROTOCOL, "token": "nope"}))
        refused = _recv(ws)
        assert refused["type"] == "error" and refused["code"] == "bad_token"
    with client.websocket_connect(issued["ws"]) as ws:
        ws.send_text(
            json.dumps({"type": "join", "protocol": PROTOCOL, "token": issued["bot_token"]})
        )
        hello = _recv(ws)
        check_line(hello)
        assert hello["type"] == "hello" and hello["seat"] == 2 and hello["protocol"] == PROTOCOL
        events: list[Msg] = []
        requests = errors = 0
        end: Msg | None = None
        lied = False
        deadline = time.monotonic() + 60
        while end is None and time.monotonic() < deadline:
            msg = _recv(ws)
            check_line(msg)
            if msg["type"] == "event":
                events.append(msg["event"])
            elif msg["type"] == "error":
                errors += 1
            elif msg["type"] == "request":
                requests += 1
                assert msg["observation"]["viewer"] == 2 and "hands" not in msg["observation"]
                if not lied:  # one illegal answer: refused, and asked again
                    lied = True
                    bad = next(a for a in ("胡", "碰", "出一", "出拾") if a not in msg["legal"])
                    ws.send_text(json.dumps({"id": msg["id"], "action": bad}))
                    continue
                ws.send_text(json.dumps({"id": msg["id"], "action": msg["legal"][0]}))
            elif msg["type"] == "end":
                end = msg
        assert end is not None, "the hand did not end"
        assert requests >= 2 and errors == 1
        assert end["hand_end"]["hand_number"] == 1 and "result" in end["observation"]
        dealt = [e for e in events if e["type"] == "dealt"]
        assert [("cards" in e) for e in dealt] == [e["seat"] == 2 for e in dealt]


def test_a_bot_that_stops_reading_is_dropped() -> None:
    # The outgoing queue's bound (`queue_messages`, docs/protocol.md §6) for remote bots too: at
    # most `limit` lines wait; past that the connection is to be closed (the seat then counts as
    # absent), and nothing more is queued.
    from types import SimpleNamespace

    from weimaque.server.edge.remote import Link

    link = Link(SimpleNamespace(id="r1"), limit=3)  # type: ignore[arg-type]  # only .id is read
    for k in range(5):
        link.notice("x", f"line {k}")
    assert link.failed == "the bot fell 3 lines behind"
    assert link.out.qsize() == 4  # three lines and the end marker
    lines = [link.out.get_nowait() for _ in range(4)]
    assert lines[-1] is None and all(line is not None for line in lines[:3])


def test_a_flooding_bot_is_told_to_slow_down(tmp_path: Path) -> None:
    # The per-connection message budget of players' sockets holds for bots: past the burst,
    # lines are dropped with one notice, and the connection stays usable.
    from weimaque.server.base.limits import Limits

    app = create_app(tmp_path / "bots.db", limits=Limits(ws_burst=5, ws_rate=0.01))
    with TestClient(app) as client:
        room_id, creator = _room(client)
        issued = client.post(
            f"/api/rooms/{room_id}/bot-token", json={"creator_token": creator, "seat": 2}
        ).json()
        with client.websocket_connect(issued["ws"]) as ws:
            ws.send_text(
                json.dumps({"type": "join", "protocol": PROTOCOL, "token": issued["bot_token"]})
            )
            assert _recv(ws)["type"] == "hello"
            for _ in range(30):
                ws.send_text("garbage")
            codes = []
            while "rate_limited" not in codes:
                msg = _recv(ws, timeout=5)
                if msg["type"] == "error":
                    codes.append(msg["code"])
            # The burst's five garbage lines were read and answered, then one notice.
            assert codes.count("garbage") == 5
            assert codes.count("rate_limited") == 1


def test_bot_token_body_is_json_and_bounded(client: TestClient) -> None:
    # Like POST /api/rooms: JSON only (no cross-site form posts) and a size bound (`max_body`,
    # docs/protocol.md §6; docs/bot-protocol.md, in a server room).
    room_id, creator = _room(client)
    url = f"/api/rooms/{room_id}/bot-token"
    plain = client.post(url, content=b"seat=2", headers={"Content-Type": "text/plain"})
    assert plain.status_code == 415 and plain.json()["error"]["code"] == "bad_content_type"
    huge = json.dumps({"creator_token": creator, "seat": 2, "name": "x" * 100_000})
    big = client.post(url, content=huge, headers={"Content-Type": "application/json"})
    assert big.status_code == 413 and big.json()["error"]["code"] == "too_large"
    ok = client.post(url, json={"creator_token": creator, "seat": 2})
    assert ok.status_code == 201


def test_bot_socket_refuses_nested_garbage_and_a_full_room(tmp_path: Path) -> None:
    from starlette.websockets import WebSocketDisconnect

    from weimaque.server.base.limits import Limits

    app = create_app(tmp_path / "bots.db", limits=Limits(conns_per_room=1))
    with TestClient(app) as client:
        room_id, creator = _room(client)
        issued = client.post(
            f"/api/rooms/{room_id}/bot-token", json={"creator_token": creator, "seat": 2}
        ).json()
        # A first line nested past Python's recursion limit: an error line, no crash.
        with client.websocket_connect(issued["ws"]) as ws:
            ws.send_text("[" * 50_000 + "]" * 50_000)
            refused = _recv(ws)
            assert refused["type"] == "error" and refused["code"] == "bad_join"
        with client.websocket_connect(issued["ws"]) as ws:
            ws.send_text(
                json.dumps({"type": "join", "protocol": PROTOCOL, "token": issued["bot_token"]})
            )
            assert _recv(ws)["type"] == "hello"
            # The room holds its one connection: a second socket is refused.
            with client.websocket_connect(issued["ws"]) as second:
                full = _recv(second)
                assert full["type"] == "error" and full["code"] == "rate_limited"
                with pytest.raises(WebSocketDisconnect):
                    second.receive_text()


def test_a_remote_bot_plays_a_sandingguai_hand(client: TestClient) -> None:
    # The line protocol is the seam's (docs/bot-protocol.md): a remote bot plays any game's
    # room, told its preset and every option, answering with the legal actions' texts.
    body = {
        "game": "sandingguai",
        "bots": {"0": "greedy", "1": "random"},
        "bot_delay_ms": 0,
        "seed": 5,
        "options": {"match_hands": 1},
    }
    res = client.post("/api/rooms", json=body)
    assert res.status_code == 201, res.text
    room_id, creator = res.json()["room_id"], res.json()["creator_token"]
    issued = client.post(
        f"/api/rooms/{room_id}/bot-token", json={"creator_token": creator, "seat": 2}
    )
    assert issued.status_code == 201, issued.text
    with client.websocket_connect(issued.json()["ws"]) as ws:
        join = {"type": "join", "protocol": PROTOCOL, "token": issued.json()["bot_token"]}
        ws.send_text(json.dumps(join))
        hello = _recv(ws)
        check_line(hello)
        assert hello["rules"] == "sandingguai" and hello["options"]["match_hands"] == 1
        end: Msg | None = None
        requests = 0
        deadline = time.monotonic() + 60
        while end is None and time.monotonic() < deadline:
            msg = _recv(ws)
            check_line(msg)
            if msg["type"] == "request":
                requests += 1
                assert msg["observation"]["viewer"] == 2
                ws.send_text(json.dumps({"id": msg["id"], "action": msg["legal"][-1]}))
            elif msg["type"] == "end":
                end = msg
        assert end is not None and requests >= 1, "the hand did not end"
        assert end["hand_end"]["hand_number"] == 1


def test_a_bot_token_names_a_seat_of_the_table(client: TestClient) -> None:
    # The seats are the table's (its shape): at a table of two there is no seat 2.
    body = {"variant": "anxiang-2p", "bots": {"1": "random"}, "bot_delay_ms": 0}
    res = client.post("/api/rooms", json=body)
    assert res.status_code == 201, res.text
    room_id, creator = res.json()["room_id"], res.json()["creator_token"]
    url = f"/api/rooms/{room_id}/bot-token"
    bad = client.post(url, json={"creator_token": creator, "seat": 2})
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "bad_seat"
    assert "0..1" in bad.json()["error"]["message"] and "2" in bad.json()["error"]["message"]
    ok = client.post(url, json={"creator_token": creator, "seat": 0})
    assert ok.status_code == 201 and ok.json()["seat"] == 0
