"""Probes of a real ``wmq serve`` as an attacker would send them (docs/protocol.md §6, Limits):
sizes, rates, headers, strict parsing, bot budgets. Each probe is bounded in count and time."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import math
import socket
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect

from tests.serverkit import Client, Server, running

JSON = {"Content-Type": "application/json"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with running(tmp_path_factory.mktemp("sec"), {"room_burst": 1000}) as s:
        yield s


@pytest.fixture(scope="module")
def tight(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server with small bounds, so each cap is reached in a few requests."""
    limits = {
        "room_burst": 4,
        "room_interval": 60,
        "conns_per_room": 4,
        "conns_per_address": 6,
        "queue_messages": 16,
        "send_timeout": 2,
        "ws_burst": 5000,
        "ws_rate": 5000,
        "ws_address_burst": 5000,
        "ws_address_rate": 5000,
    }
    with running(tmp_path_factory.mktemp("tight"), limits) as s:
        yield s


def no_tracebacks(server: Server) -> None:
    log = server.log()
    assert "Traceback" not in log, log[-3000:]


def strict_json(text: str) -> Any:
    """Parse as standard JSON: NaN and Infinity are refused."""

    def refuse(name: str) -> Any:
        raise AssertionError(f"non-standard JSON constant {name} in {text[:200]}")

    return json.loads(text, parse_constant=refuse)


def alive(client: Client) -> None:
    """The connection still answers."""
    pong = client.reply(client.send(type="ping", t=5), "pong")
    assert pong["t"] == 5


# ------------------------------------------------------------------ §1.1 frames


def test_no_compression_and_big_frames_are_refused(server: Server) -> None:
    room = server.room()["room_id"]
    # The client offers permessage-deflate; the server must not take it.
    c = server.ws(room, compression="deflate")
    try:
        assert not c.ws.protocol.extensions, c.ws.protocol.extensions
        c.reply(c.send(type="join"), "snapshot")
        # A compressed frame is a protocol error (RSV1 without the extension): refused unread.
        big = server.ws(room)
        try:
            with pytest.raises(ConnectionClosed) as closed:
                big.ws.send("x" * (64 * 1024 + 1))
                for _ in range(20):  # a room broadcast may come first; then the close
                    big.recv(5)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009
        finally:
            big.close()
        # 64 KiB exactly passes the WebSocket layer and is refused by the parser instead.
        ok = server.ws(room)
        try:
            ok.ws.send("[" + " " * (64 * 1024 - 2) + "]")
            # A room broadcast (the closed socket leaving) may come first; then the refusal.
            assert ok.until(lambda m: m["type"] == "error")["code"] == "bad_json", ok.log
            alive(ok)
        finally:
            ok.close()
        alive(c)
    finally:
        c.close()
    no_tracebacks(server)


def raw_ws(server: Server, path: str, extra: str = "") -> socket.socket:
    """A WebSocket handshake over a bare socket (to send frames no library would)."""
    s = socket.create_connection(("127.0.0.1", server.port), timeout=5)
    s.sendall(
        (
            f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nUpgrade: websocket\r\n"
            "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
            f"Sec-WebSocket-Version: 13\r\n{extra}\r\n"
        ).encode()
    )
    head = b""
    while b"\r\n\r\n" not in head:
        head += s.recv(1)
    assert b" 101 " in head.split(b"\r\n")[0], head
    return s


def frame(payload: bytes, opcode: int = 1, rsv1: bool = False) -> bytes:
    """A masked client frame (mask of zeros, so the payload is sent as is)."""
    first = 0x80 | (0x40 if rsv1 else 0) | opcode
    n = len(payload)
    if n < 126:
        head = bytes([first, 0x80 | n])
    elif n < 65536:
        head = bytes([first, 0x80 | 126]) + n.to_bytes(2, "big")
    else:
        head = bytes([first, 0x80 | 127]) + n.to_bytes(8, "big")
    return head + b"\0\0\0\0" + payload


def close_code(s: socket.socket) -> int:
    """The code of the server's close frame, past any text frames (a room broadcast) before it."""

    def read(n: int) -> bytes:
        data = b""
        while len(data) < n:
            chunk = s.recv(n - len(data))
            assert chunk, f"the connection ended without a close frame after {data!r}"
            data += chunk
        return data

    while True:
        first, second = read(2)
        n = second & 0x7F
        if n == 126:
            n = int.from_bytes(read(2), "big")
        elif n == 127:
            n = int.from_bytes(read(8), "big")
        payload = read(n)
        if first & 0x0F == 0x8:
            return int.from_bytes(payload[:2], "big")
        assert first & 0x0F == 0x1, f"frame {first:#x} before the close"


def test_deflate_bomb_is_never_inflated(server: Server) -> None:
    """A frame claiming 16 MiB is refused from its header; an RSV1 (deflated) frame is an error."""
    room = server.room()["room_id"]
    extension = "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n"
    s = raw_ws(server, f"/ws/{room}", extension)
    try:
        s.sendall(frame(b"\x00" * 10, rsv1=True))  # a compressed frame without the extension
        assert close_code(s) == 1002
    finally:
        s.close()
    s = raw_ws(server, f"/ws/{room}")
    try:
        # The header announces 16 MiB; the server closes without waiting for the payload.
        s.sendall(bytes([0x81, 0x80 | 127]) + (16 * 2**20).to_bytes(8, "big") + b"\0\0\0\0")
        assert close_code(s) == 1009
    finally:
        s.close()
    no_tracebacks(server)


# ------------------------------------------------------------------ §1.2 slow readers


def test_a_reader_that_stops_reading_is_dropped(tight: Server) -> None:
    room = tight.room()["room_id"]
    # max_queue=1: the client library stops reading its socket once one message waits.
    stalled = connect(
        f"ws://127.0.0.1:{tight.port}/ws/{room}", max_queue=1, open_timeout=10, close_timeout=1
    ).__enter__()
    stalled.socket.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    try:
        join = json.dumps({"v": 1, "type": "join"})
        sent = 0
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                for _ in range(50):
                    stalled.send(join)
                    sent += 50 and 1
            except (ConnectionClosed, OSError):
                break
            info = tight.get(f"/api/rooms/{room}")["room"]
            if info["spectators"] == 0:
                break
            time.sleep(0.05)
        assert tight.get(f"/api/rooms/{room}")["room"]["spectators"] == 0, sent
        assert "closing the connection" in tight.log()
    finally:
        stalled.close()
    no_tracebacks(tight)


# ------------------------------------------------------------------ §1.3 zombies


@pytest.mark.parametrize(
    "text",
    [
        '{"v": 1, "type": "sit", "seat": 0, "name": "\\ud800"}',
        '{"v": 1, "id": "\\ud800", "type": "ping"}',
        '{"v": 1, "type": "ping", "t": "\\udfff"}',
        '{"v": 1, "type": "act", "action": "\\ud800"}',
        '{"v": "\\ud800", "type": "join"}',
        '{"\\ud800": 1, "v": 1, "type": "join"}',
        '{"v": 1, "type": "\\ud800"}',
        '{"v": 1, "type": "join", "token": "\\ud800"}',
    ],
)
def test_a_lone_surrogate_is_refused_and_never_echoed(server: Server, text: str) -> None:
    room = server.room()["room_id"]
    c = server.ws(room)
    try:
        c.ws.send(text)
        raw = c.ws.recv(timeout=10)
        assert isinstance(raw, str)
        raw.encode("utf-8")  # valid text: no lone surrogate came back
        err = strict_json(raw)
        assert err["type"] == "error" and err["code"] in ("bad_json", "bad_token"), err
        assert "\ud800" not in json.dumps(err, ensure_ascii=False)
        alive(c)
    finally:
        c.close()
    no_tracebacks(server)


# ------------------------------------------------------------------ §1.4 bot budgets


@pytest.mark.parametrize(
    ("spec", "quoted"),
    [
        ("mcts:ms=1e9", "ms must be within"),
        ("mcts:ms=inf", "ms must be within"),
        ("mcts:ms=nan", "ms must be within"),
        ("mcts:iters=10**12", "iters must be a int"),
        ("mcts:iters=1000000000000", "iters must be within"),
        ("greedy:x=" + "a" * 5000, "ASCII text of at most"),
        ("greedy:x=1", "unknown parameter 'x'"),
        ("mcts:depth=3", "unknown parameter 'depth'"),
        ("\ud800", "ASCII text"),
        ("oracle", "unknown bot"),
    ],
)
def test_bot_specs_are_bounded(server: Server, spec: str, quoted: str) -> None:
    body = json.dumps({"bots": {"1": spec}}).encode()  # ensure_ascii: the surrogate as \ud800
    status, _, raw = server.request("/api/rooms", body, JSON)
    assert status == 400, raw[:300]
    error = strict_json(raw.decode())["error"]
    assert error["code"] == "bad_bots" and quoted in error["message"], error
    assert len(error["message"]) < 300


def test_good_bot_specs_still_pass(server: Server) -> None:
    status, data = server.post("/api/rooms", {"bots": {"1": "mcts:ms=50,top=4", "2": "greedy"}})
    assert status == 201, data
    assert [s["bot"] for s in data["room"]["seats"]] == [None, "mcts:ms=50,top=4", "greedy"]


# ------------------------------------------------------------------ §1.5 caps


def test_connections_are_capped_per_room_and_per_address(tight: Server) -> None:
    room_a = tight.room()["room_id"]
    room_b = tight.room()["room_id"]
    opened: list[Client] = []
    try:
        for _ in range(4):
            opened.append(tight.ws(room_a))
        extra = tight.ws(room_a)
        err = extra.recv()
        assert err["code"] == "room_full", err
        with pytest.raises(ConnectionClosed) as closed:
            extra.recv()
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4429
        for _ in range(2):
            opened.append(tight.ws(room_b))
        extra = tight.ws(room_b)
        assert extra.recv()["code"] == "rate_limited"
        for c in opened:
            alive(c)
    finally:
        for c in opened:
            c.close()
    # Closed sockets no longer count.
    deadline = time.monotonic() + 5
    while True:
        c = tight.ws(room_b)
        try:
            alive(c)
            break
        except (ConnectionClosed, AssertionError, KeyError):
            assert time.monotonic() < deadline
            time.sleep(0.2)
        finally:
            c.close()


# ------------------------------------------------------------------ §1.6 room flood


def test_room_creation_needs_json_within_a_size_limit(server: Server) -> None:
    status, _, raw = server.request("/api/rooms", b"{}", {"Content-Type": "text/plain"})
    assert status == 415 and b"application/json" in raw
    status, _, raw = server.request("/api/rooms", b"{}")  # urllib's default form type
    assert status == 415
    big = json.dumps({"preset": "anxiang", "pad": "x" * 20_000}).encode()
    status, _, raw = server.request("/api/rooms", big, JSON)
    assert status == 413 and strict_json(raw.decode())["error"]["code"] == "too_large"


def test_room_creation_is_rate_limited_per_address(tight: Server) -> None:
    codes = [tight.post("/api/rooms", {})[0] for _ in range(8)]
    assert 201 in codes and codes[-1] == 429, codes
    status, headers, raw = tight.request("/api/rooms", b"{}", JSON)
    assert status == 429 and int(headers["retry-after"]) >= 1
    assert strict_json(raw.decode())["error"]["code"] == "rate_limited"
    # Reading is not creating: the room list still answers.
    assert "rooms" in tight.get("/api/rooms")


# ------------------------------------------------------------------ §1.7 small ones


def test_a_non_ascii_token_is_a_clean_error_without_traceback(server: Server) -> None:
    room = server.room()["room_id"]
    c = server.ws(room)
    try:
        for token in ("é" * 24, "令牌" * 12, "x" * 24, "'; drop table rooms; --"):
            err = c.reply(c.send(type="join", token=token), "error")
            assert err["code"] == "bad_token", err
        alive(c)
    finally:
        c.close()
    no_tracebacks(server)


def test_seed_out_of_range_is_a_400(server: Server) -> None:
    for seed in (2**63, -1, 10**30):
        status, data = server.post("/api/rooms", {"seed": seed})
        assert status == 400 and data["error"]["code"] == "bad_request", data
        assert "seed must be within" in data["error"]["message"]
    no_tracebacks(server)


def test_nan_is_never_sent_and_versions_are_strict(server: Server) -> None:
    room = server.room()["room_id"]
    c = server.ws(room)
    try:
        for constant in ("NaN", "-Infinity"):
            text = '{"v": 1, "type": "ping", "t": ' + constant + "}"
            c.ws.send(text)
            raw = c.ws.recv(timeout=10)
            assert isinstance(raw, str)
            assert strict_json(raw)["code"] == "bad_json"
        for version in ("true", "1.0", '"1"', "[1]"):
            c.ws.send('{"v": ' + version + ', "type": "ping"}')
            err = strict_json(str(c.ws.recv(timeout=10)))
            assert err["code"] == "unsupported_version", (version, err)
        pong = c.reply(c.send(type="ping", t=1.5), "pong")
        assert pong["t"] == 1.5 and math.isfinite(pong["server_ms"])
        for t in ("x" * 65, {"a": 1}, [1]):
            err = c.reply(c.send(type="ping", t=t), "error")
            assert err["code"] == "bad_message"
    finally:
        c.close()


def test_display_names_are_cleaned_and_bounded(server: Server) -> None:
    room = server.room()["room_id"]
    c = server.ws(room)
    try:
        name = "\u202eevil\u200b\u200d\x07 \u2066小王\u2069   " + "长" * 40
        welcome = c.reply(c.send(type="sit", seat=0, name=name), "welcome")
        assert welcome["name"] == "evil 小王 " + "长" * 16
        assert len(welcome["name"]) == 24
        info = server.get(f"/api/rooms/{room}")["room"]
        assert info["seats"][0]["name"] == welcome["name"]
        # A name of only invisible characters gets the default.
        d = server.ws(room)
        try:
            welcome = d.reply(d.send(type="sit", seat=1, name="\u200b\u202e\x00"), "welcome")
            assert welcome["name"] == "玩家2"
        finally:
            d.close()
    finally:
        c.close()


def test_security_headers_and_the_origin_check(server: Server) -> None:
    for path in ("/", "/api/health", "/api/rooms/nope", "/static/js/app.js"):
        status, headers, _ = server.request(path)
        lower = {k.lower(): v for k, v in headers.items()}
        assert "frame-ancestors 'none'" in lower["content-security-policy"], (path, status)
        assert "script-src 'self'" in lower["content-security-policy"]
        assert lower["x-frame-options"] == "DENY"
        assert lower["x-content-type-options"] == "nosniff"
    room = server.room()["room_id"]
    url = f"ws://127.0.0.1:{server.port}/ws/{room}"
    with pytest.raises(InvalidStatus) as refused:
        connect(url, origin="http://evil.example", open_timeout=5)  # type: ignore[arg-type]
    assert refused.value.response.status_code == 403
    origin = f"http://127.0.0.1:{server.port}"
    with connect(url, origin=origin, open_timeout=5) as same:  # type: ignore[arg-type]
        same.send(json.dumps({"v": 1, "type": "ping", "id": 1}))
        assert json.loads(same.recv(timeout=10))["type"] == "pong"


# ------------------------------------------------------------------ fuzz (the long run: bench)


def test_a_short_fuzz_run_ends_clean(tmp_path: Path) -> None:
    """bench/fuzz_server.py with 600 messages: no internal error, no lost connection, no
    traceback, every reply standard JSON, the records consistent (10,000 in bench/)."""
    spec = importlib.util.spec_from_file_location(
        "fuzz_server", Path(__file__).parent.parent / "bench" / "fuzz_server.py"
    )
    assert spec is not None and spec.loader is not None
    fuzz = importlib.util.module_from_spec(spec)
    sys.modules["fuzz_server"] = fuzz  # dataclasses look their module up
    spec.loader.exec_module(fuzz)
    db, log, port = tmp_path / "fuzz.db", tmp_path / "server.log", fuzz.free_port()
    proc = fuzz.start_server(db, port, log)
    try:
        report = asyncio.run(fuzz.run(port, db, 600, seed=3))
    finally:
        proc.terminate()
        proc.wait(10)
    assert report.sent >= 590
    assert report.internal == 0 and report.lost == 0 and report.bad_replies == 0, report
    assert report.closed_as_required == 5, report
    assert report.problems == [], report.problems
    assert sum(report.codes.values()) > 100  # the hostile messages were answered
    assert "Traceback" not in log.read_text("utf-8", "replace")
