"""Hostile numbers and shapes in every field a client sends a real ``wmq serve``: HTTP bodies,
paths, query strings, player messages and bot lines. Each is refused with a 400 (or the
protocol's error) that quotes it cut short; none is stored, none reaches an encoder, no
traceback reaches the log (docs/protocol.md §1, "Bounds")."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
from websockets.sync.client import connect

from tests.serverkit import Client, Server, running
from weimaque.server.table.options import PATTERN_SWITCHES, ROOM_OPTIONS

JSON = {"Content-Type": "application/json"}

#: JSON text of values no field accepts (each body stays under the server's 16 KiB).
HOSTILE: dict[str, str] = {
    "1e30": "1" + "0" * 30,
    "-1e30": "-1" + "0" * 30,
    "1e4000": "1" + "0" * 4000,
    "2^63": str(2**63),
    "-2^63-1": str(-(2**63) - 1),
    "float": "2.5",
    "1e308": "1e308",
    "1e999": "1e999",  # Python's json reads it as infinity
    "NaN": "NaN",
    "Infinity": "Infinity",
    "-Infinity": "-Infinity",
    "12k chars": json.dumps("字" * 4000, ensure_ascii=False),
    "nested 500": "[" * 500 + "]" * 500,
    "nested 3000": "[" * 3000 + "]" * 3000,
    "deep object": '{"a":' * 1500 + "1" + "}" * 1500,
}
PLACE = '"@@hostile@@"'

ROOM_FIELDS = [
    *("preset", "options", "bots", "turn_seconds", "autoplay_absent", "bot_delay_ms"),
    *("seed", "public", "next_seconds", "vote_seconds"),
    *(f"options.{name}" for name in (*ROOM_OPTIONS, *PATTERN_SWITCHES)),
    "bots.1",
]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    limits = {
        "room_burst": 10_000,
        "http_burst": 100_000,
        "http_rate": 100_000,
        "ws_burst": 100_000,
        "ws_rate": 100_000,
        "ws_address_burst": 100_000,
        "ws_address_rate": 100_000,
    }
    with running(tmp_path_factory.mktemp("bounds"), limits) as s:
        yield s


def body_with(path: str, base: dict[str, Any] | None = None) -> str:
    """JSON text of ``base`` with the placeholder at the dotted ``path``."""
    doc: dict[str, Any] = json.loads(json.dumps(base or {}))
    *outer, last = path.split(".")
    here = doc
    for key in outer:
        here = here.setdefault(key, {})
    here[last] = "@@hostile@@"
    return json.dumps(doc, ensure_ascii=False)


def post_text(server: Server, path: str, text: str) -> tuple[int, Any]:
    status, _, body = server.request(path, text.encode("utf-8"), JSON)
    return status, json.loads(body) if body else None


def refused(status: int, data: Any, where: str, statuses: tuple[int, ...] = (400,)) -> str:
    """The error's message, checked: the status, a code, bounded text."""
    assert status in statuses, (where, status, data)
    error = data["error"]
    assert isinstance(error["code"], str) and error["code"] != "internal", (where, error)
    message = error["message"]
    assert isinstance(message, str) and len(message) <= 300, (where, len(message), message[:300])
    return message


def no_tracebacks(server: Server) -> None:
    log = server.log()
    assert "Traceback" not in log and "message failed" not in log, log[-3000:]


@pytest.mark.parametrize("field", ROOM_FIELDS)
def test_room_fields_refuse_hostile_values(server: Server, field: str) -> None:
    for name, fragment in HOSTILE.items():
        text = body_with(field).replace(PLACE, fragment)
        status, data = post_text(server, "/api/rooms", text)
        message = refused(status, data, f"{field} = {name}")
        if name in ("1e30", "2^63"):
            assert fragment[:20] in message, (field, message)  # the value, quoted
        elif name == "1e4000":
            assert "integer of about 4000 digits" in message or fragment[:20] in message
    no_tracebacks(server)


@pytest.mark.parametrize(
    ("option", "value", "quote"),
    [
        ("match_hands", 10**30, "1000000000000000000000000000000"),
        ("liuzi_dealer", 10**4000, "<an integer of about 4000 digits>"),
        ("score_target", 2**64, str(2**64)),
        ("min_xi", -1, "-1"),
        ("deng_value", 1001, "1001"),
    ],
    ids=["match_hands 1e30", "liuzi_dealer 1e4000", "score_target 2^64", "min_xi -1", "deng 1001"],
)
def test_out_of_range_rule_options_are_400_quoting_them(
    server: Server, option: str, value: int, quote: str
) -> None:
    status, data = server.post("/api/rooms", {"options": {option: value}})
    message = refused(status, data, option)
    assert data["error"]["code"] == "bad_options"
    assert option in message and quote in message, message
    no_tracebacks(server)


@pytest.mark.parametrize("field", ["hand", "rules", "source", "last"])
def test_score_fields_refuse_hostile_values(server: Server, field: str) -> None:
    base = {"hand": "碰:七七七 手:二七十 三三 四五六 八八 胡:九", "rules": "anxiang"}
    for name, fragment in HOSTILE.items():
        text = body_with(field, base).replace(PLACE, fragment)
        refused(*post_text(server, "/api/score", text), f"{field} = {name}")
    no_tracebacks(server)


@pytest.fixture(scope="module")
def played(server: Server) -> tuple[str, str]:
    """A room whose first hand is over (three random bots), and its creator token."""
    body = {"bots": {"0": "random", "1": "random", "2": "random"}, "bot_delay_ms": 0}
    created = server.room(**body, options={"match_hands": 2}, next_seconds=600)
    room = created["room_id"]
    deadline = time.monotonic() + 30
    while not server.get(f"/api/rooms/{room}/hands")["hands"]:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    return room, created["creator_token"]


def path_fragments() -> list[str]:
    return [
        "3",
        "-1",
        "9" * 40,
        "9" * 5000,
        "1e400",
        "NaN",
        "%C2%B3",  # ³: a digit to str.isdigit, not to int()
        "%D9%A3",  # ٣: an Arabic-Indic three
        "%00",
        "%ED%A0%80",  # a lone surrogate, percent-encoded
        "0x1",
        "%20" + "1",
    ]


def test_paths_and_query_strings_are_bounded(server: Server, played: tuple[str, str]) -> None:
    room, creator = played
    token = json.dumps({"creator_token": creator})
    for frag in path_fragments():
        for kind in ("free", "bot"):
            status, data = post_text(server, f"/api/rooms/{room}/seats/{frag}/{kind}", token)
            refused(status, data, f"seats/{frag[:20]}/{kind}", (400, 404))
        status, _, body = server.request(f"/api/rooms/{room}/hands/{frag}")
        refused(status, json.loads(body), f"hands/{frag[:20]}", (404,))
        status, _, body = server.request(f"/api/rooms/{room}/hands/1/review?seat={frag}")
        refused(status, json.loads(body), f"review?seat={frag[:20]}", (400,))
        status, _, body = server.request(f"/api/rooms/{frag}")
        refused(status, json.loads(body), f"rooms/{frag[:20]}", (404,))
        status, _, body = server.request(f"/api/rooms?ids={frag},{frag}")
        assert status == 200 and json.loads(body)["rooms"] == []
    no_tracebacks(server)


def test_creator_bodies_refuse_hostile_values(server: Server, played: tuple[str, str]) -> None:
    room, creator = played
    base = {"creator_token": creator}
    for name, fragment in HOSTILE.items():
        for path, field in [
            (f"/api/rooms/{room}/seats/1/bot", "bot"),
            (f"/api/rooms/{room}/seats/1/bot", "creator_token"),
            (f"/api/rooms/{room}/seats/1/free", "creator_token"),
            (f"/api/rooms/{room}/bot-token", "seat"),
            (f"/api/rooms/{room}/bot-token", "name"),
            (f"/api/rooms/{room}/bot-token", "creator_token"),
        ]:
            extra = {"seat": 1} if path.endswith("bot-token") and field != "seat" else {}
            text = body_with(field, {**base, **extra}).replace(PLACE, fragment)
            status, data = post_text(server, path, text)
            refused(status, data, f"{path} {field} = {name}", (400, 403, 409))
    no_tracebacks(server)


#: Every field of every player message, with a valid value for the others.
MESSAGES: list[tuple[dict[str, Any], str]] = [
    ({"type": "ping"}, "id"),
    ({"type": "ping"}, "v"),
    ({"type": "ping"}, "t"),
    ({"type": "join"}, "token"),
    ({"type": "join"}, "name"),
    ({"type": "join"}, "watch"),
    ({"type": "sit"}, "seat"),
    ({"type": "sit", "seat": 0}, "name"),
    ({"type": "sit", "seat": "shouxing"}, "invite"),
    ({"type": "act"}, "action"),
    ({"type": "act", "action": "过"}, "hand"),
    ({"type": "act", "action": "过"}, "decision"),
    ({"type": "autoplay"}, "on"),
    ({"type": "hints"}, "on"),
    ({"type": "no_timer"}, "agree"),
    ({"type": "vote"}, "agree"),
]


def probe(client: Client, text: str, n: int) -> list[dict[str, Any]]:
    """Send ``text``, then a ping; what came back up to its pong."""
    client.ws.send(text)
    client.ws.send(json.dumps({"v": 1, "id": f"probe{n}", "type": "ping"}))
    got = []
    while True:
        msg = client.recv()
        if msg.get("type") == "pong" and msg.get("re") == f"probe{n}":
            return got
        got.append(msg)


def test_player_messages_refuse_hostile_values(server: Server) -> None:
    body = {"bots": {"1": "random", "2": "random"}, "turn_seconds": None}
    room = server.room(**body)["room_id"]
    client = server.ws(room)
    try:
        client.reply(client.send(type="sit", seat=0, name="p0"), "welcome")
        n = 0
        for base, field in MESSAGES:
            for name, fragment in HOSTILE.items():
                n += 1
                doc = {"v": 1, **base}
                text = body_with(field, doc).replace(PLACE, fragment)
                for msg in probe(client, text, n):
                    where = f"{base['type']}.{field} = {name}"
                    assert msg.get("code") != "internal", (where, msg)
                    if msg["type"] == "error":
                        assert len(json.dumps(msg, ensure_ascii=False)) < 3000, where
    finally:
        client.close()
    no_tracebacks(server)


def test_bot_lines_refuse_hostile_values(server: Server) -> None:
    created = server.room(bots={"1": "random"}, turn_seconds=None)
    room, creator = created["room_id"], created["creator_token"]
    status, issued = server.post(
        f"/api/rooms/{room}/bot-token", {"creator_token": creator, "seat": 2}
    )
    assert status == 201, issued
    url = f"ws://127.0.0.1:{server.port}/ws/{room}/bot"
    for field in ("type", "token", "protocol"):
        for name, fragment in HOSTILE.items():
            line = {"type": "join", "protocol": "weimaque-bot/1", "token": issued["bot_token"]}
            text = body_with(field, line).replace(PLACE, fragment)
            with connect(url, open_timeout=10, close_timeout=2) as ws:
                ws.send(text)
                reply = json.loads(ws.recv(timeout=10))
                assert reply["type"] == "error" and reply["code"] != "internal", (field, name)
    with connect(url, open_timeout=10, close_timeout=2, max_size=2**22) as ws:
        ws.send(json.dumps({"type": "join", "token": issued["bot_token"]}))
        assert json.loads(ws.recv(timeout=10))["type"] == "hello"
        for field in ("id", "action", "action_id"):
            for fragment in HOSTILE.values():
                text = body_with(field, {"id": 1, "action": "过"}).replace(PLACE, fragment)
                ws.send(text)
        ws.send("not json")
        deadline = time.monotonic() + 10
        while True:  # every line answered; the garbage line's error comes last
            line = json.loads(ws.recv(timeout=10))
            assert line.get("code") != "internal", line
            if line.get("type") == "error" and "not json" in line.get("message", ""):
                break
            assert time.monotonic() < deadline
    no_tracebacks(server)
