"""Every socket counted and timed, and 复盘 budgets per address, against a real ``wmq serve``.

Each client comes from a loopback address of its own (Linux routes all of 127.0.0.0/8 to the
loopback, as bench/server.py uses), so one address's sockets and reviews are told apart from
another's exactly as the server tells real clients apart (docs/protocol.md §6).
"""

from __future__ import annotations

import http.client
import json
import selectors
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import ClientConnection, connect

from tests.serverkit import Server, running

CAP = 12
# Long enough that a loaded machine (the suite's workers beside their browsers) opens a test's
# sockets well within them: the caps are tested on sockets that are still waiting.
JOIN_TIMEOUT = 3.0
HEAD_TIMEOUT = 4.0
TIGHT = {"conns_per_address": CAP, "join_timeout": JOIN_TIMEOUT, "head_timeout": HEAD_TIMEOUT}


@pytest.fixture(scope="module")
def tight(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with running(tmp_path_factory.mktemp("tight"), TIGHT) as server:
        yield server


@pytest.fixture(scope="module")
def plain(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    # The queue's order is tested, not the reviews: a small search budget computes them fast.
    with running(tmp_path_factory.mktemp("plain"), {"review_iters": 40}) as server:
        yield server


def http_from(
    server: Server, address: str, path: str, method: str = "GET", body: Any = None
) -> tuple[int, dict[str, str], Any]:
    """One request from ``address``: status, headers, the JSON body."""
    conn = http.client.HTTPConnection(
        "127.0.0.1", server.port, timeout=60, source_address=(address, 0)
    )
    try:
        data = None if body is None else json.dumps(body)
        headers = {} if body is None else {"Content-Type": "application/json"}
        conn.request(method, path, data, headers)
        res = conn.getresponse()
        raw = res.read()
        return res.status, {k.lower(): v for k, v in res.getheaders()}, json.loads(raw or "null")
    finally:
        conn.close()


def bot_socket(server: Server, room: str, address: str, **kw: Any) -> ClientConnection:
    ws = connect(
        f"ws://127.0.0.1:{server.port}/ws/{room}/bot",
        open_timeout=10,
        close_timeout=2,
        source_address=(address, 0),
        **kw,
    )
    return ws.__enter__()  # as serverkit does: kept open past this call


def player_socket(server: Server, room: str, address: str) -> ClientConnection:
    ws = connect(
        f"ws://127.0.0.1:{server.port}/ws/{room}",
        open_timeout=10,
        close_timeout=2,
        source_address=(address, 0),
    )
    return ws.__enter__()


def refused(ws: ClientConnection, timeout: float = 10) -> tuple[dict[str, Any], int | None]:
    """The error line a refused socket gets, and the code it is then closed with."""
    first = json.loads(ws.recv(timeout=timeout))
    with pytest.raises(ConnectionClosed):
        ws.recv(timeout=timeout)
    return first, ws.close_code


def welcomed(ws: ClientConnection) -> dict[str, Any]:
    """The ``welcome`` answering a join: a connection is a spectator from its opening, so the
    room's broadcasts caused by other sockets' joins may come first (docs/protocol.md §2)."""
    while True:
        message: dict[str, Any] = json.loads(ws.recv(timeout=10))
        if message["type"] == "welcome":
            return message
        assert message["type"] == "room", message


def still_serving(server: Server) -> None:
    """Another client is served meanwhile: health, a new room, a player's socket."""
    status, _, body = http_from(server, "127.0.0.1", "/api/health")
    assert status == 200 and body["ok"] is True
    room = server.room()["room_id"]
    with player_socket(server, room, "127.0.0.1") as ws:
        ws.send(json.dumps({"v": 1, "type": "join", "id": 1}))
        assert json.loads(ws.recv(timeout=10))["type"] == "welcome"


def test_idle_bot_sockets_count_against_the_address_cap_and_time_out(tight: Server) -> None:
    room = tight.room()["room_id"]
    opened = time.monotonic()
    idle = [bot_socket(tight, room, "127.0.0.2") for _ in range(CAP)]
    try:
        with bot_socket(tight, room, "127.0.0.2") as extra:
            error, code = refused(extra)
        assert error["code"] == "rate_limited" and f"at most {CAP}" in error["message"]
        assert code == 4429
        still_serving(tight)
        # Without a join line each is told so and closed after join_timeout, not before.
        for ws in idle:
            error, code = refused(ws)
            assert error == {
                "type": "error",
                "code": "join_timeout",
                "message": f"no join line within {JOIN_TIMEOUT:g} s",
            }
            assert code == 4408
        took = time.monotonic() - opened
        assert JOIN_TIMEOUT - 0.1 <= took < JOIN_TIMEOUT + 5, took
    finally:
        for ws in idle:
            ws.close()
    # The address has its sockets back: a new one is heard (a join with a wrong token).
    with bot_socket(tight, room, "127.0.0.2") as ws:
        ws.send(json.dumps({"type": "join", "protocol": "weimaque-bot/1", "token": "x" * 24}))
        error, code = refused(ws)
    assert error["code"] == "bad_token" and code == 4401


def test_bot_and_player_sockets_share_one_cap(tight: Server) -> None:
    room = tight.room()["room_id"]
    half = CAP // 2
    players = [player_socket(tight, room, "127.0.0.3") for _ in range(half)]
    for ws in players:
        ws.send(json.dumps({"v": 1, "type": "join", "id": 1}))
        welcomed(ws)
    bots = [bot_socket(tight, room, "127.0.0.3") for _ in range(CAP - half)]
    try:
        with player_socket(tight, room, "127.0.0.3") as one_more:
            error, code = refused(one_more)
        assert error["code"] == "rate_limited" and code == 4429
        with bot_socket(tight, room, "127.0.0.3") as one_more:
            error, code = refused(one_more)
        assert error["code"] == "rate_limited" and code == 4429
    finally:
        for ws in [*players, *bots]:
            ws.close()


def test_a_silent_player_socket_is_closed_but_a_joined_one_stays(tight: Server) -> None:
    room = tight.room()["room_id"]
    with (
        player_socket(tight, room, "127.0.0.4") as joined,
        player_socket(tight, room, "127.0.0.4") as silent,
    ):
        joined.send(json.dumps({"v": 1, "type": "join", "id": 1}))
        welcomed(joined)
        start = time.monotonic()
        with pytest.raises(ConnectionClosed):
            while True:
                silent.recv(timeout=JOIN_TIMEOUT + 5)
        assert silent.close_code == 4408
        assert f"{JOIN_TIMEOUT:g} s" in (silent.close_reason or "")
        assert time.monotonic() - start < JOIN_TIMEOUT + 5
        time.sleep(JOIN_TIMEOUT)
        joined.send(json.dumps({"v": 1, "type": "ping", "id": 2, "t": 1}))
        while (msg := json.loads(joined.recv(timeout=10)))["type"] != "pong":
            pass
        assert msg["re"] == 2


def test_a_silent_http_connection_is_counted_and_closed(tight: Server) -> None:
    quiet = [
        socket.create_connection(("127.0.0.1", tight.port), 10, ("127.0.0.5", 0))
        for _ in range(CAP)
    ]
    try:
        time.sleep(0.2)  # every one of them accepted before the next
        with socket.create_connection(("127.0.0.1", tight.port), 10, ("127.0.0.5", 0)) as extra:
            assert extra.recv(200).startswith(b"HTTP/1.1 429 ")
        still_serving(tight)
        start = time.monotonic()
        for s in quiet:
            s.settimeout(HEAD_TIMEOUT + 5)
            assert s.recv(10) == b""  # closed by the server: no request head in time
        assert time.monotonic() - start < HEAD_TIMEOUT + 5
    finally:
        for s in quiet:
            s.close()
    assert http_from(tight, "127.0.0.5", "/api/health")[0] == 200


def test_the_bot_socket_checks_origin(plain: Server) -> None:
    room = plain.room()["room_id"]
    with pytest.raises(InvalidStatus) as refusal:
        bot_socket(plain, room, "127.0.0.1", origin="http://evil.example")
    assert refusal.value.response.status_code == 403
    join = json.dumps({"type": "join", "protocol": "weimaque-bot/1", "token": "x" * 24})
    # The server's own page, and a program that sends no Origin, are heard.
    for origin in (f"http://127.0.0.1:{plain.port}", None):
        with bot_socket(plain, room, "127.0.0.1", origin=origin) as ws:
            ws.send(join)
            assert refused(ws)[0]["code"] == "bad_token"


def finished_hands(server: Server, address: str, seed: int) -> tuple[str, list[int]]:
    """A room of three bots that has played its two hands."""
    body = {
        "seed": seed,
        "bots": {"0": "random", "1": "random", "2": "random"},
        "options": {"match_hands": 2},
        "turn_seconds": None,
        "bot_delay_ms": 0,
    }
    status, _, data = http_from(server, address, "/api/rooms", "POST", body)
    assert status == 201, data
    room = data["room_id"]
    deadline = time.monotonic() + 60
    while server.get(f"/api/rooms/{room}")["room"]["status"] != "over":
        assert time.monotonic() < deadline, "the bots stopped"
        time.sleep(0.1)
    return room, [h["number"] for h in server.get(f"/api/rooms/{room}/hands")["hands"]]


class Asker:
    """Review requests sent one after another from this thread (each from its address, on a
    connection of its own), answered by the server in whatever order it serves them.

    One thread sends them all, in order, at once: asking threads, each started in turn, could
    reach the server with more time between them (a loaded machine) than a review takes, and a
    review done before the next request came would free its place.
    """

    def __init__(self, server: Server) -> None:
        self.server = server
        self.sent: list[tuple[str, str, http.client.HTTPConnection]] = []

    def ask(self, address: str, path: str) -> None:
        conn = http.client.HTTPConnection(
            "127.0.0.1", self.server.port, timeout=60, source_address=(address, 0)
        )
        conn.request("GET", path)  # sent; its answer is read by ``answers``
        self.sent.append((address, path, conn))

    def answers(self) -> list[tuple[int, tuple[int, dict[str, str], Any]]]:
        """(index in the order sent, its answer), in the order the answers began to arrive."""
        waiting = selectors.DefaultSelector()
        for k, (_, _, conn) in enumerate(self.sent):
            assert conn.sock is not None
            waiting.register(conn.sock, selectors.EVENT_READ, k)
        order: list[int] = []
        deadline = time.monotonic() + 60
        while len(order) < len(self.sent):
            assert time.monotonic() < deadline, f"answered only {order}"
            for key, _ in waiting.select(timeout=1):
                waiting.unregister(key.fileobj)
                order.append(key.data)
        waiting.close()
        got = []
        for k in order:
            conn = self.sent[k][2]
            try:
                res = conn.getresponse()
                raw = res.read()
                headers = {name.lower(): v for name, v in res.getheaders()}
                got.append((k, (res.status, headers, json.loads(raw or "null"))))
            finally:
                conn.close()
        return got


def test_one_address_cannot_deny_another_its_review(plain: Server) -> None:
    room, numbers = finished_hands(plain, "127.0.0.6", seed=5)
    paths = [f"/api/rooms/{room}/hands/{n}/review?seat={s}" for n in numbers for s in range(3)]
    first = http_from(plain, "127.0.0.6", paths[0])
    assert first[0] == 200, first
    # Four more at once from the same address: two are taken (one computing, one waiting).
    askers = Asker(plain)
    for path in paths[1:5]:
        askers.ask("127.0.0.6", path)
    # A cached review is anyone's, the asker's own budget spent or not.
    again = http_from(plain, "127.0.0.6", paths[0])
    assert again[0] == 200 and again[2] == first[2]
    # Another address gets its review however many the first one asked for.
    other = http_from(plain, "127.0.0.7", paths[5])
    assert other[0] == 200, other
    answers = [answer for _, answer in askers.answers()]
    refusals = [a for a in answers if a[0] == 429]
    assert len(refusals) == 2 and sum(a[0] == 200 for a in answers) == 2
    for _, headers, body in refusals:
        assert body["error"]["code"] == "busy"
        message = body["error"]["message"]
        assert "of this address" in message and "at most 2" in message
        assert int(headers["retry-after"]) >= 1


def test_the_review_queue_serves_addresses_in_turn(tmp_path: Path) -> None:
    # 200 iterations: each review takes longer (about half a second) than the five requests take
    # to arrive, so the first is still computing when the last comes in.
    with running(tmp_path, {"reviews_per_address": 3, "review_iters": 200}) as server:
        room, numbers = finished_hands(server, "127.0.0.8", seed=6)
        paths = [f"/api/rooms/{room}/hands/{n}/review?seat={s}" for n in numbers for s in range(3)]
        # Address A asks for three reviews (the first starts computing), then B for two, each
        # request after the last has reached the server.
        askers = Asker(server)
        for k, path in enumerate(paths[:5]):
            askers.ask("127.0.0.8" if k < 3 else "127.0.0.9", path)
            time.sleep(0.05)
        answered = askers.answers()
        assert all(answer[0] == 200 for _, answer in answered), answered
        order = [k for k, _ in answered]
        # One at a time, in turn: A's first, B's first, A's second, B's second, A's third (a
        # queue in order of arrival would serve all of A's before any of B's).
        assert order == [0, 3, 1, 4, 2], [askers.sent[k][:2] for k in order]


def test_a_request_head_trickled_in_is_cut_off(tight: Server) -> None:
    with socket.create_connection(("127.0.0.1", tight.port), 10, ("127.0.0.10", 0)) as slow:
        slow.sendall(f"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1:{tight.port}\r\n".encode())
        slow.settimeout(0.25)
        start = time.monotonic()
        closed = False
        while time.monotonic() - start < HEAD_TIMEOUT + 5:
            try:
                slow.sendall(b"X-Slow: 1\r\n")  # a header line now and then, never the end
                closed = slow.recv(10) == b""
            except TimeoutError:
                continue
            except OSError:
                closed = True
            if closed:
                break
        assert closed and time.monotonic() - start >= HEAD_TIMEOUT - 0.1


def test_a_client_that_closed_its_socket_is_let_go_without_a_warning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A write that finds the client gone (a player closing the tab while the room still had news
    for it) ends the connection as any failed write does, but is not logged as a failure; a
    write that takes too long still is."""
    import asyncio

    from starlette.websockets import WebSocketDisconnect

    from weimaque.server.base.limits import CLIENT_GONE, send_within
    from weimaque.server.edge.sockets import QueueClient

    class Gone:
        async def send_text(self, text: str) -> None:
            raise WebSocketDisconnect(1001)

    class Stuck:
        async def send_text(self, text: str) -> None:
            await asyncio.sleep(10)

    assert asyncio.run(send_within(Gone(), "{}", 1.0)) == CLIENT_GONE  # type: ignore[arg-type]
    slow = asyncio.run(send_within(Stuck(), "{}", 0.01))  # type: ignore[arg-type]
    assert slow is not None and "took over" in slow
    caplog.set_level("DEBUG", logger="weimaque.server")
    for reason in (CLIENT_GONE, slow):
        client = QueueClient(label=f"client {reason}")
        client.fail(reason)
        assert client.failed == reason and client.queue.get_nowait() is None
    levels = {r.getMessage().split(": ", 1)[0]: r.levelname for r in caplog.records}
    assert levels == {f"client {CLIENT_GONE}": "DEBUG", f"client {slow}": "WARNING"}


def test_a_write_that_waits_for_the_socket_is_finished_in_order() -> None:
    """A write the socket takes at once needs no timer; one that waits for the socket to drain
    is awaited to its end within the send timeout, and one that never ends is given up
    (``send_within``, docs/protocol.md §6)."""
    import asyncio

    from weimaque.server.base.limits import send_within

    class Socket:
        """A socket whose buffer is full until ``room`` is set."""

        def __init__(self) -> None:
            self.sent: list[str] = []
            self.room = asyncio.Event()

        async def send_text(self, text: str) -> None:
            await self.room.wait()
            self.sent.append(text)

    async def main() -> None:
        ws = Socket()
        ws.room.set()
        assert await send_within(ws, "a", 5.0) is None and ws.sent == ["a"]  # type: ignore[arg-type]
        ws.room.clear()
        waiting = asyncio.ensure_future(send_within(ws, "b", 5.0))  # type: ignore[arg-type]
        for _ in range(5):
            await asyncio.sleep(0)
        assert not waiting.done() and ws.sent == ["a"]
        ws.room.set()
        assert await waiting is None and ws.sent == ["a", "b"]
        ws.room.clear()
        slow = await send_within(ws, "c", 0.01)  # type: ignore[arg-type]
        assert slow is not None and "took over" in slow and ws.sent == ["a", "b"]

    asyncio.run(main())
