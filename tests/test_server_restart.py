"""A real ``wmq serve`` killed by SIGKILL mid-hand comes back with the same hand (loopback)."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from websockets.sync.client import ClientConnection, connect

Msg = dict[str, Any]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def server(db: Path, port: int) -> Iterator[subprocess.Popen[bytes]]:
    """Run ``wmq serve`` in a subprocess until the block ends (or the test kills it)."""
    code = "from weimaque.cli.app import main; main()"
    args = [sys.executable, "-c", code, "serve", "--port", str(port), "--db", str(db)]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/health", timeout=1):
                    break
            except OSError:
                assert proc.poll() is None, proc.stdout.read() if proc.stdout else b""
                assert time.monotonic() < deadline, "server did not start"
                time.sleep(0.05)
        yield proc
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if proc.stdout:
            proc.stdout.close()


def post(port: int, path: str, body: Any) -> Any:
    req = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(req, timeout=5) as res:
        return json.loads(res.read())


def get(port: int, path: str) -> Any:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as res:
        return json.loads(res.read())


class Seat:
    """A websocket client holding one seat, remembering its latest view."""

    def __init__(self, port: int, room_id: str) -> None:
        self.ws: ClientConnection = connect(f"ws://127.0.0.1:{port}/ws/{room_id}").__enter__()
        self.view: Msg | None = None
        #: the last view received (``view`` is cleared once acted on)
        self.last: Msg | None = None
        #: the view an ``ack`` of a 出 carried since the last view (docs/protocol.md §2.3)
        self.answered: Msg | None = None
        self.ended: Msg | None = None
        self.n = 0

    def send(self, **fields: Any) -> int:
        self.n += 1
        self.ws.send(json.dumps({"v": 1, "id": self.n, **fields}, ensure_ascii=False))
        return self.n

    def recv(self, timeout: float) -> Msg | None:
        try:
            msg: Msg = json.loads(self.ws.recv(timeout=timeout))
        except TimeoutError:
            return None
        if msg["type"] in ("snapshot", "events"):
            self.view = self.last = msg
            self.answered = None
        elif msg["type"] == "ack":
            self.answered = msg.get("observation")
        elif msg["type"] == "hand_end":
            self.ended = msg
        assert msg["type"] != "error" or msg["code"] in ("not_your_turn", "stale"), msg
        return msg

    def until(self, pred: Any, timeout: float = 15.0) -> Msg:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            msg = self.recv(end - time.monotonic())
            if msg is not None and pred(msg):
                return msg
        raise AssertionError("timed out")

    def close(self) -> None:
        self.ws.close()


def drain(seats: list[Seat], quiet: float = 0.002) -> None:
    """Read what each seat was sent until it has been sent nothing for ``quiet`` seconds."""
    for s in seats:
        while s.recv(quiet) is not None:
            pass


def settle(seats: list[Seat]) -> None:
    """Every message the server queued to each seat before now has arrived (and been read): a
    ``ping`` on each connection is answered after them (one queue per connection)."""
    for s in seats:
        i = s.send(type="ping", t=0)
        s.until(lambda m, i=i: m["type"] == "pong" and m.get("re") == i)


def step(seats: list[Seat]) -> bool:
    """The first seat whose latest view says it must decide plays its first legal action."""
    for _ in range(100):
        drain(seats)
        for s in seats:
            if s.view and s.view["legal_actions"]:
                action = s.view["legal_actions"][0]["text"]
                i = s.send(type="act", action=action, decision=s.view["decision"])
                reply = s.until(lambda m, i=i: i in (m.get("re"), m.get("ack")))
                s.view = None  # a newer view is on its way (after a claim window, maybe)
                if reply["type"] == "error":
                    continue
                return True
        if any(s.ended for s in seats):
            return False
    raise AssertionError("nobody to act")


def test_server_killed_mid_hand_restores_the_hand(tmp_path: Path) -> None:
    db = tmp_path / "wmq.db"
    port = free_port()
    with server(db, port) as proc:
        room_id = post(port, "/api/rooms", {"seed": 17, "bot_delay_ms": 0})["room_id"]
        seats = [Seat(port, room_id) for _ in range(3)]
        tokens = []
        for k, s in enumerate(seats):
            s.send(type="join")
            i = s.send(type="sit", seat=k)
            tokens.append(s.until(lambda m, i=i: m["type"] == "welcome" and m.get("re") == i))
        for s in seats:
            s.until(lambda m: m["type"] == "snapshot" and m["hand_number"] == 1)
        for _ in range(10):
            assert step(seats)
        # The news of the last action reaches every seat before the kill (a ping answered
        # after it: a quiet spell is no proof on a loaded machine).
        settle(seats)
        before = [s.last for s in seats]
        # A seat that answered its last view (a claim window keeps the news back) is shown
        # that position again as its answer leaves it: no decision offered, and a 出 out of
        # its hand and in the middle, as its ack showed it.
        answered = [s.view is None for s in seats]
        acked = [s.answered for s in seats]
        proc.kill()  # SIGKILL: no shutdown handler runs
        proc.wait()
        for s in seats:
            s.close()
    port = free_port()
    with server(db, port):
        info = get(port, f"/api/rooms/{room_id}")["room"]
        assert info["status"] == "playing" and info["hand_number"] == 1
        seats = [Seat(port, room_id) for _ in range(3)]
        for k, s in enumerate(seats):
            i = s.send(type="join", token=tokens[k]["token"])
            snap = s.until(lambda m, i=i: m["type"] == "snapshot" and m.get("re") == i)
            old = before[k]
            assert old is not None
            assert snap["you"]["seat"] == k
            if answered[k]:
                old = {**old, "legal_actions": []}
                old["observation"] = acked[k] or {
                    **old["observation"],
                    "to_act": False,
                    "legal_actions": [],
                }
            assert snap["observation"] == old["observation"]
            assert snap["legal_actions"] == old["legal_actions"]
        for _ in range(400):
            if not step(seats):
                break
        ends = [s.ended or s.until(lambda m: m["type"] == "hand_end") for s in seats]
        assert ends[0] == ends[1] == ends[2]
        hand = get(port, f"/api/rooms/{room_id}/hands/1")
        assert len(hand["record"]["actions"]) > 10
        for s in seats:
            s.close()


def test_the_log_is_folded_into_the_file_off_the_event_loop(tmp_path: Path) -> None:
    # A commit never runs a checkpoint (it would stall every table); a thread of the store does.
    import sqlite3

    from weimaque.server.store.store import Store

    path = tmp_path / "rooms.db"
    store = Store(path, checkpoint_seconds=0.05)
    try:
        assert store.db.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 0
        for k in range(200):
            store.create_room(f"r{k}", {"k": k}, {}, "anxiang", {}, k)
        wal = Path(str(path) + "-wal")
        deadline = time.monotonic() + 10
        # The checkpoint thread copies the log into the file: a fresh reader that ignores the
        # log (immutable) sees the rooms once it has run.
        while True:
            uri = f"file:{path}?immutable=1"
            ro = sqlite3.connect(uri, uri=True)
            try:
                n = ro.execute("SELECT COUNT(*) FROM rooms").fetchone()[0]
            except sqlite3.DatabaseError:  # not even the schema, or pages being copied in
                n = 0
            finally:
                ro.close()
            if n == 200 or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        assert n == 200
        assert wal.exists()
    finally:
        store.close()
    # Closing folds and empties the log.
    assert not Path(str(path) + "-wal").exists() or Path(str(path) + "-wal").stat().st_size == 0
