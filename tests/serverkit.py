"""A real ``wmq serve`` in a subprocess, and small HTTP and WebSocket clients for it.

Used by the security tests: every probe goes over a socket to 127.0.0.1, as an attacker's
would. The server stops when the test module is done (and dies with the test process).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from websockets.sync.client import ClientConnection, connect

Msg = dict[str, Any]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Endpoint:
    """Where a test's HTTP requests and sockets go: a server, or a load balancer before many."""

    port: int

    def __init__(self, port: int) -> None:
        self.port = port

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def request(
        self,
        path: str,
        body: bytes | None = None,
        headers: dict[str, str] | None = None,
        method: str | None = None,
    ) -> tuple[int, dict[str, str], bytes]:
        req = urllib.request.Request(
            self.base + path, data=body, headers=headers or {}, method=method
        )
        try:
            with urllib.request.urlopen(req, timeout=10) as res:
                return res.status, dict(res.headers), res.read()
        except urllib.error.HTTPError as exc:
            return exc.code, dict(exc.headers), exc.read()

    def get(self, path: str) -> Any:
        status, _, body = self.request(path)
        assert status == 200, (path, status, body[:300])
        return json.loads(body)

    def post(self, path: str, payload: Any) -> tuple[int, Any]:
        status, _, body = self.request(
            path, json.dumps(payload).encode(), {"Content-Type": "application/json"}
        )
        return status, json.loads(body) if body else None

    def room(self, **options: Any) -> Msg:
        status, data = self.post("/api/rooms", options)
        assert status == 201, data
        return dict(data)

    def ws(self, room_id: str, **kw: Any) -> Client:
        ws = connect(
            f"ws://127.0.0.1:{self.port}/ws/{room_id}",
            open_timeout=10,
            close_timeout=2,
            max_size=2**22,
            **kw,
        )
        return Client(ws.__enter__())


class Server(Endpoint):
    """``wmq serve`` on a free port with a fresh database; ``log`` is its stderr."""

    def __init__(
        self,
        tmp: Path,
        limits: dict[str, Any] | None = None,
        db: Path | str | None = None,
        extra: list[str] | None = None,
    ) -> None:
        """``wmq serve`` with ``limits`` (``--limit NAME=VALUE``) and ``extra`` arguments;
        ``db``: its store (a file or a PostgreSQL URL, ``store_target``)."""
        self.port = free_port()
        self.db = db if db is not None else tmp / "server.db"
        self.log_path = tmp / "server.log"
        args = [sys.executable, "-c", "from weimaque.cli.app import main; main()", "serve"]
        args += ["--port", str(self.port), "--db", str(self.db)]
        for key, value in (limits or {}).items():
            args += ["--limit", f"{key}={value}"]
        args += extra or []
        self._log = self.log_path.open("wb")
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self.proc = subprocess.Popen(args, stdout=self._log, stderr=self._log, env=env)
        deadline = time.monotonic() + 60
        while True:
            try:
                self.get("/api/health")
                break
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError(f"wmq serve did not start: {self.log()}") from None
                time.sleep(0.1)

    def log(self) -> str:
        return self.log_path.read_text("utf-8", "replace")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self._log.close()


def late(reply: Msg) -> bool:
    """Whether ``reply`` refuses a change as ``storage_unavailable``: in a cluster, an owner
    whose lease renewal came late (a loaded machine) applies nothing, and the client tries
    again (docs/scale.md)."""
    return reply["type"] == "error" and reply.get("code") == "storage_unavailable"


def ask_until_taken(
    send: Callable[[], int], answer: Callable[[int], Msg], seconds: float = 10.0
) -> Msg:
    """``send`` a message and return its first direct answer (``answer`` of its id), sent again
    while that is a late owner's refusal (``late``), for up to ``seconds``."""
    deadline = time.monotonic() + seconds
    while True:
        reply = answer(send())
        if not late(reply) or time.monotonic() > deadline:
            return reply
        time.sleep(0.1)


class Client:
    """One WebSocket with a log of everything it received."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.log: list[Msg] = []
        self.next_id = 0

    def send(self, **fields: Any) -> int:
        self.next_id += 1
        self.ws.send(json.dumps({"v": 1, "id": self.next_id, **fields}, ensure_ascii=False))
        return self.next_id

    def recv(self, timeout: float = 10.0) -> Msg:
        text = self.ws.recv(timeout=timeout)
        assert isinstance(text, str)
        data: Msg = json.loads(text)
        self.log.append(data)
        return data

    def until(self, pred: Callable[[Msg], bool], timeout: float = 10.0) -> Msg:
        end = time.monotonic() + timeout
        while True:
            msg = self.recv(max(0.01, end - time.monotonic()))
            if pred(msg):
                return msg

    def after(self, start: int, pred: Callable[[Msg], bool], timeout: float = 10.0) -> Msg:
        """The first message from ``log[start]`` on that matches ``pred``: read already (an
        answer awaited meanwhile reads past it) or waited for."""
        for msg in self.log[start:]:
            if pred(msg):
                return msg
        return self.until(pred, timeout)

    def reply(self, msg_id: int, kind: str | None = None, timeout: float = 10.0) -> Msg:
        return self.until(
            lambda m: m.get("re") == msg_id and (kind is None or m["type"] == kind), timeout
        )

    def ask(self, seconds: float = 10.0, **fields: Any) -> Msg:
        """Send a message and return its first direct answer (a ``sit``'s ``welcome``, an
        error...), as ``ask_until_taken``."""
        return ask_until_taken(
            lambda: self.send(**fields),
            lambda i: self.until(lambda m: m.get("re") == i),
            seconds,
        )

    def drain(self, wait: float = 0.1) -> list[Msg]:
        out = []
        while True:
            try:
                out.append(self.recv(wait))
            except TimeoutError:
                return out

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.ws.close()


class Table:
    """The players of one room (three, or ``seats``), each playing its first legal action when
    asked to decide."""

    def __init__(
        self,
        server: Endpoint,
        room_id: str,
        tokens: list[str] | None = None,
        headers: list[dict[str, str]] | None = None,
        seats: int = 3,
    ) -> None:
        """``headers``: each seat's socket's (a signed-in player's, docs/protocol.md §7.2)."""
        self.seats = [
            server.ws(room_id, additional_headers=None if headers is None else headers[k])
            for k in range(seats)
        ]
        self.view: list[Msg | None] = [None] * seats
        #: hand number → its hand_end; the hands each seat was asked to deal again after
        self.ended: dict[int, Msg] = {}
        self.nexted: set[int] = set()
        #: hand number → the acknowledged actions, [seat, action] as a hand record lists them
        self.acked: dict[int, list[list[Any]]] = {}
        self.tokens: list[str] = []
        for k in range(seats):
            if tokens is None:
                welcome = self.ask(k, type="sit", seat=k, name=f"p{k}")
            else:
                welcome = self.ask(k, type="join", token=tokens[k])
            assert welcome["type"] == "welcome", (k, welcome)
            self.tokens.append(str(welcome["token"]))
        for k in range(seats):  # no turn timer: only these players ever move
            self.ask(k, type="no_timer", agree=True)

    def ask(self, k: int, seconds: float = 10.0, **fields: Any) -> Msg:
        """Seat ``k`` sends a message and has its first direct answer, as ``Client.ask``."""
        return ask_until_taken(
            lambda: self.seats[k].send(**fields),
            lambda i: self.wait(k, lambda m: m.get("re") == i),
            seconds,
        )

    def take(self, k: int, msg: Msg) -> None:
        if msg["type"] in ("snapshot", "events"):
            self.view[k] = msg
        elif msg["type"] == "hand_end":
            self.ended.setdefault(msg["hand_number"], msg)
            self.view[k] = None

    def recv(self, k: int, timeout: float) -> Msg | None:
        try:
            msg = self.seats[k].recv(timeout)
        except TimeoutError:
            return None
        self.take(k, msg)
        return msg

    def wait(self, k: int, pred: Callable[[Msg], bool], timeout: float = 10.0) -> Msg:
        end = time.monotonic() + timeout
        while (left := end - time.monotonic()) > 0:
            msg = self.recv(k, left)
            if msg is not None and pred(msg):
                return msg
        raise AssertionError(f"seat {k}: timed out; last messages {self.seats[k].log[-3:]}")

    def settle(self) -> None:
        """Every message the server queued to each seat before now has arrived (and been read):
        a ``ping`` on each connection is answered after them (one queue per connection)."""
        for k, c in enumerate(self.seats):
            i = c.send(type="ping", t=0)
            self.wait(k, lambda m, i=i: m["type"] == "pong" and m.get("re") == i)

    def drain(self, wait: float = 0.01) -> list[Msg]:
        got = []
        for k in range(len(self.seats)):
            while (msg := self.recv(k, wait)) is not None:
                got.append(msg)
        return got

    def to_act(self, timeout: float = 10.0) -> int | None:
        """The seat asked to decide now (after a hand's end, everyone asks for the next);
        None once the match is over."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            self.drain()
            for number, msg in self.ended.items():
                if msg["match_over"]:
                    return None
                if number not in self.nexted:
                    self.nexted.add(number)
                    for c in self.seats:
                        c.send(type="next")
            for k, view in enumerate(self.view):
                if view is not None and view["legal_actions"]:
                    return k
        last = [c.log[-2:] for c in self.seats]
        raise AssertionError(f"nobody is asked to decide (stuck?); the last messages: {last}")

    def act(self, k: int) -> str:
        """Seat ``k`` plays its first legal action: "ack", or the error's code."""
        view = self.view[k]
        assert view is not None
        hand = view["hand_number"]
        action = view["legal_actions"][0]["text"]
        i = self.seats[k].send(type="act", action=action, hand=hand, decision=view["decision"])
        reply = self.wait(
            k, lambda m: m.get("ack") == i or (m["type"] == "error" and m.get("re") == i)
        )
        if reply["type"] != "ack":
            return str(reply["code"])
        self.acked.setdefault(hand, []).append([k, reply["actor"]["action"]])
        self.view[k] = None  # its next view is on its way
        return "ack"

    def close(self) -> None:
        for c in self.seats:
            c.close()


@contextlib.contextmanager
def running(tmp: Path, limits: dict[str, Any] | None = None) -> Iterator[Server]:
    server = Server(tmp, limits)
    try:
        yield server
    finally:
        server.stop()
