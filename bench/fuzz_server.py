"""Hostile messages against a real ``wmq serve``: the server must shrug them all off.

Run: ``.venv/bin/python bench/fuzz_server.py [--messages 10000] [--seed 1]``.

Twelve connections over two rooms (one of three fuzzing players who also play legal moves, one
of bots with fuzzing spectators) send random hostile messages: malformed JSON, wrong types,
unknown fields, lone surrogates, NaN, huge numbers, deep nesting, bidi and zero-width names,
strings up to the 64 KiB limit, binary frames and bad UTF-8, forged tokens, illegal actions,
interleaved with legal play. Separate throwaway connections send frames over the size limit and
compressed (RSV1) frames, which the protocol answers by closing them. Reported, and required to
be zero: ``internal`` errors, connections lost (closed without such a frame), replies that are
not standard JSON or not valid UTF-8, and tracebacks in the server's log. Finally every finished
hand is checked against its stored record (``wmq verify``'s checks) and the database.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from weimaque.games.maque.verify import verify_document

sys.path.insert(0, str(Path(__file__).resolve().parent))  # also when loaded by file (tests)
import _serve
from _serve import free_port, post

NASTY_STRINGS = [
    "\ud800",
    "\udfff",
    "a\ud83d",
    "\u202eevil",
    "\u200b\u200d",
    "\x00\x07\x1b[31m",
    "出三",
    "过",
    "'; drop table rooms; --",
    "../../etc/passwd",
    "<script>alert(1)</script>",
    "é" * 30,
    "令牌" * 20,
]
NASTY_NUMBERS: list[Any] = [
    0,
    -1,
    1.5,
    2**63,
    -(2**70),
    10**300,
    1e308,
    True,
    False,
    None,
    "NaN",
    "Infinity",
]
TYPES = ["join", "sit", "act", "next", "spectate", "ping", "dance", "", "JOIN", None, 1]


@dataclass
class Report:
    """What the fuzzers saw."""

    sent: int = 0
    replies: int = 0
    codes: dict[str, int] = field(default_factory=dict)
    internal: int = 0
    bad_replies: int = 0
    lost: int = 0
    closed_as_required: int = 0
    hands_checked: int = 0
    tracebacks: int = 0
    problems: list[str] = field(default_factory=list)


def start_server(db: Path, port: int, log: Path) -> subprocess.Popen[bytes]:
    """``wmq serve`` with message rates high enough that every fuzz message is parsed (and the
    room of bots at its own pace, so that its hands end within the run and are checked)."""
    limits = ("ws_rate=1000000", "ws_burst=1000000", "room_burst=1000", "http_burst=100000")
    limits += ("ws_address_rate=1000000", "ws_address_burst=1000000", "unattended_delay_ms=1")
    return _serve.start_server(db, port, limits, log)


def get(port: int, path: str) -> Any:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as res:
        return json.loads(res.read())


def nasty_value(rng: random.Random, depth: int = 0) -> Any:
    roll = rng.random()
    if roll < 0.3:
        return rng.choice(NASTY_STRINGS)
    if roll < 0.55:
        return rng.choice(NASTY_NUMBERS)
    if roll < 0.65:
        return "x" * rng.choice([1, 100, 5000, 60_000])
    if depth < 3 and roll < 0.8:
        return [nasty_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    if depth < 3:
        return {rng.choice(NASTY_STRINGS): nasty_value(rng, depth + 1)}
    return None


def hostile(
    rng: random.Random, legal: list[str], token: str | None, decision: int | None = None
) -> str | bytes:
    """One hostile frame (text or binary)."""
    kind = rng.random()
    if kind < 0.05:
        return bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 200)))
    if kind < 0.1:
        return rng.choice(["{", "[1,2", "nul", '{"v":1,"type":"ping","t":NaN}', "[" * 5000])
    if kind < 0.15:
        return '{"v": 1, "type": "sit", "seat": 0, "name": "\\ud800\\u202e"}'
    msg: dict[str, Any] = {"v": rng.choice([1, 1, 1, 2, True, 1.0, "1", None])}
    msg["type"] = rng.choice(TYPES)
    keys = ["id", "seat", "name", "token", "action", "hand", "decision", "t", "invite", "x"]
    for key in rng.sample(keys, 3):
        msg[key] = nasty_value(rng)
    if rng.random() < 0.3:
        msg["type"] = "act"
        msg["action"] = rng.choice([*legal, "出三", "碰", "胡", "吃一二三", 99, -1]) if legal else 7
        if rng.random() < 0.7:  # the decision shown, so the act reaches the rules' checks
            msg["decision"] = decision
    if rng.random() < 0.1 and token:
        msg = {"v": 1, "type": "join", "token": token + rng.choice(["", "x", "é"])}
    text = json.dumps(msg, ensure_ascii=rng.random() < 0.5)
    data = text.encode("utf-8", "surrogatepass")
    if len(data) >= 64 * 1024:  # the limit itself is probed by over_limit_frames
        data = data[: 64 * 1024 - 16]
    return data.decode("utf-8", "ignore")


async def fuzzer(
    port: int,
    room: str,
    seat: int | None,
    count: int,
    rng: random.Random,
    report: Report,
) -> None:
    """One connection: hostile frames, and legal play when it holds a seat."""
    ws: ClientConnection = await connect(
        f"ws://127.0.0.1:{port}/ws/{room}", max_size=2**22, compression=None
    )
    legal: list[str] = []
    token: str | None = None
    hand = 0
    decision: int | None = None
    waiting: set[int] = set()
    got = 0

    async def read() -> None:
        nonlocal legal, token, hand, got, decision
        async for raw in ws:
            report.replies += 1
            got += 1
            try:
                assert isinstance(raw, str)
                raw.encode("utf-8")
                msg = json.loads(raw, parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))
            except (AssertionError, UnicodeEncodeError, ValueError) as exc:
                report.bad_replies += 1
                report.problems.append(f"bad reply {exc}: {str(raw)[:100]}")
                continue
            if msg["type"] == "error":
                report.codes[msg["code"]] = report.codes.get(msg["code"], 0) + 1
                if msg["code"] == "internal":
                    report.internal += 1
            if msg.get("type") == "welcome" and msg.get("token"):
                token = msg["token"]
            if msg.get("type") in ("snapshot", "events"):
                legal = [a["text"] for a in msg.get("legal_actions") or []]
                hand = msg.get("hand_number", hand)
                decision = msg.get("decision")
            if msg.get("type") == "hand_end":
                await ws.send(json.dumps({"v": 1, "type": "next"}))
            waiting.discard(msg.get("re"))

    reader = asyncio.create_task(read())
    try:
        if seat is not None:
            await ws.send(json.dumps({"v": 1, "type": "sit", "seat": seat, "name": f"f{seat}"}))
        for k in range(count):
            if reader.done():
                break
            if legal and rng.random() < 0.35:
                action = rng.choice(legal)
                legal = []
                act = {"v": 1, "type": "act", "action": action, "hand": hand, "id": k}
                await ws.send(json.dumps({**act, "decision": decision}))
            else:
                await ws.send(hostile(rng, legal, token, decision))
            report.sent += 1
            # A client that reads its replies: at most 32 messages unanswered (every message
            # is answered at least once, but for a few; so wait a second at most). A client
            # that stops reading is dropped by design (tests/test_server_security.py).
            for _ in range(100):
                if k + 1 - got <= 32 or reader.done():
                    break
                await asyncio.sleep(0.01)
        # Still alive: a ping is answered.
        await ws.send(json.dumps({"v": 1, "type": "ping", "id": "last", "t": 1}))
        waiting.add("last")  # type: ignore[arg-type]
        for _ in range(200):
            if "last" not in waiting or reader.done():
                break
            await asyncio.sleep(0.05)
        if "last" in waiting:
            report.lost += 1
            report.problems.append(f"connection to {room} seat {seat} stopped answering")
    except ConnectionClosed as exc:
        report.lost += 1
        report.problems.append(f"connection to {room} seat {seat} lost: {exc}")
    finally:
        reader.cancel()
        await ws.close()


async def over_limit_frames(port: int, room: str, report: Report) -> None:
    """Frames the protocol refuses by closing: over 64 KiB, and compressed (RSV1) ones."""
    for payload in (b"x" * (64 * 1024 + 1), b"x" * (2**20)):
        ws = await connect(f"ws://127.0.0.1:{port}/ws/{room}", max_size=2**22, compression=None)
        try:
            await ws.send(payload.decode())
            await asyncio.wait_for(ws.recv(), 10)
        except ConnectionClosed as exc:
            if exc.rcvd is not None and exc.rcvd.code == 1009:
                report.closed_as_required += 1
        finally:
            await ws.close()
    for _ in range(3):
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(
            (
                f"GET /ws/{room} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                "Sec-WebSocket-Version: 13\r\n"
                "Sec-WebSocket-Extensions: permessage-deflate\r\n\r\n"
            ).encode()
        )
        await reader.readuntil(b"\r\n\r\n")
        # A deflated frame (RSV1) of a payload that would inflate to 16 MiB.
        body = bytes([0x78, 0xDA]) + b"\x00" * 64
        writer.write(bytes([0xC1, 0x80 | len(body)]) + b"\0\0\0\0" + body)
        await writer.drain()
        reply = await asyncio.wait_for(reader.read(64), 10)
        if reply[:1] == b"\x88":
            report.closed_as_required += 1
        writer.close()


def check_state(port: int, db: Path, rooms: list[str], report: Report) -> None:
    """Each room's record verifies and matches the stored hands."""
    con = sqlite3.connect(db)
    for room in rooms:
        record = get(port, f"/api/rooms/{room}/record")
        stored = [
            json.loads(r[0])
            for r in con.execute(
                "SELECT record FROM hands WHERE room_id = ? ORDER BY number", (room,)
            )
        ]
        if stored != record["hands"]:
            report.problems.append(f"room {room}: served record differs from the database")
        if record["hands"]:
            try:
                verify_document(record)
            except Exception as exc:
                report.problems.append(f"room {room}: {exc}")
            report.hands_checked += len(record["hands"])
    con.close()


async def run(port: int, db: Path, messages: int, seed: int) -> Report:
    report = Report()
    rng = random.Random(seed)
    players = post(port, "/api/rooms", {"turn_seconds": None, "bot_delay_ms": 0})["room_id"]
    bots = post(
        port,
        "/api/rooms",
        {"bots": {"0": "greedy", "1": "random", "2": "random"}, "bot_delay_ms": 20},
    )["room_id"]
    conns: list[tuple[str, int | None]] = [(players, s) for s in range(3)]
    conns += [(players, None)] * 3 + [(bots, None)] * 6
    per = max(1, messages // len(conns))
    await asyncio.gather(
        *(
            fuzzer(port, room, seat, per, random.Random(rng.getrandbits(64)), report)
            for room, seat in conns
        ),
        over_limit_frames(port, bots, report),
    )
    check_state(port, db, [players, bots], report)
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db, log, port = Path(tmp) / "fuzz.db", Path(tmp) / "server.log", free_port()
        proc = start_server(db, port, log)
        started = time.perf_counter()
        try:
            report = asyncio.run(run(port, db, args.messages, args.seed))
        finally:
            proc.terminate()
            proc.wait(10)
        report.tracebacks = log.read_text("utf-8", "replace").count("Traceback")
    took = time.perf_counter() - started
    print(f"fuzz: {report.sent} hostile/legal messages on 12 connections in {took:.1f} s")
    print(f"  replies {report.replies}, error codes {dict(sorted(report.codes.items()))}")
    print(f"  frames refused by closing, as the protocol says: {report.closed_as_required}")
    print(f"  hands checked against their records: {report.hands_checked}")
    print(
        f"  internal errors {report.internal}, connections lost {report.lost}, "
        f"bad replies {report.bad_replies}, tracebacks {report.tracebacks}"
    )
    for problem in report.problems[:10]:
        print("  problem:", problem)
    bad = report.internal + report.lost + report.bad_replies + report.tracebacks
    sys.exit(1 if bad or report.problems else 0)


if __name__ == "__main__":
    main()
