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

from weimaque.bots.external import PROTOCOL
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
        assert hello["type"] == "hello" and hello["seat"] == 2 and hello["protocol"] == PROTOCOL
        events: list[Msg] = []
        requests = errors = 0
        end: Msg | None = None
        lied = False
        deadline = time.monotonic() + 60
        while end is None and time.monotonic() < deadline:
            msg = _recv(ws)
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
