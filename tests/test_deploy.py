"""The local deployment's parts: Redis, and HAProxy routing each room to one process.

HAProxy is tested in front of two tiny real backends (Starlette under uvicorn, each answering
with its own name and the ``X-Forwarded-For`` it was given), so what is checked is the
balancer's routing alone: a room's pages, sockets and API calls meet in one process, rooms
spread over both, a dead process's rooms move within about two seconds.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from weimaque.deploy import haproxy, postgres, redis
from weimaque.deploy.local import LocalCluster, scratch_folder

needs_redis = pytest.mark.skipif(
    not redis.available(), reason="Debian's redis-server is not installed (make installs it)"
)
needs_haproxy = pytest.mark.skipif(
    not haproxy.available(), reason="Debian's haproxy is not installed (make installs it)"
)

BACKEND = """
import sys
import uvicorn
from starlette.applications import Starlette
from starlette.responses import JSONResponse, PlainTextResponse
from starlette.routing import Route, WebSocketRoute

NAME = sys.argv[2]

async def live(request):
    return PlainTextResponse("ok")

async def anything(request):
    xff = request.headers.get("x-forwarded-for")
    return JSONResponse({"name": NAME, "path": request.url.path, "xff": xff})

async def socket(ws):
    await ws.accept()
    await ws.send_text(NAME)
    await ws.receive_text()
    await ws.close()

app = Starlette(routes=[
    Route("/api/live", live),
    WebSocketRoute("/ws/{room}", socket),
    Route("/{path:path}", anything, methods=["GET", "POST"]),
])
uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
"""


def _wait_listening(port: int, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 30
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"backend on {port} did not start") from None
            time.sleep(0.05)


class Backend:
    """One tiny backend process named ``name``."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.port = haproxy.free_port()
        self.proc = subprocess.Popen(
            [sys.executable, "-c", BACKEND, str(self.port), name],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        _wait_listening(self.port, self.proc)

    def pause(self) -> None:
        self.proc.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        self.proc.send_signal(signal.SIGCONT)

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(10)


@pytest.fixture
def balanced(tmp_path: Path) -> Iterator[tuple[haproxy.LocalHAProxy, list[Backend]]]:
    backends = [Backend("a"), Backend("b")]
    try:
        proxy = haproxy.LocalHAProxy(
            tmp_path / "haproxy", [("127.0.0.1", b.port) for b in backends]
        )
        try:
            yield proxy, backends
        finally:
            proxy.close()
    finally:
        for b in backends:
            b.kill()


def get(proxy: haproxy.LocalHAProxy, path: str, source: str = "127.0.0.1") -> dict[str, str]:
    """GET through the balancer from the loopback address ``source`` (Linux routes all of
    127.0.0.0/8 to the loopback), claiming to be 6.6.6.6: the backend's answer."""
    conn = http.client.HTTPConnection("127.0.0.1", proxy.port, 5, (source, 0))
    try:
        conn.request("GET", path, headers={"X-Forwarded-For": "6.6.6.6"})
        res = conn.getresponse()
        body = res.read()
        if res.status != 200:
            raise OSError(f"{path}: {res.status} {body[:100]!r}")
        answer: dict[str, str] = json.loads(body)
        return answer
    finally:
        conn.close()


def socket_name(proxy: haproxy.LocalHAProxy, room: str) -> str:
    with connect(f"ws://127.0.0.1:{proxy.port}/ws/{room}", open_timeout=5) as ws:
        name = ws.recv(timeout=5)
        ws.send("bye")
        return str(name)


def owner(proxy: haproxy.LocalHAProxy, room: str) -> str:
    return get(proxy, f"/r/{room}")["name"]


ROOMS = [f"room{k:02d}x" for k in range(40)]


@needs_redis
def test_redis_answers_ping_and_comes_back_on_its_port(tmp_path: Path) -> None:
    import redis as redis_py

    with redis.LocalRedis(tmp_path / "redis") as server:
        assert server.url == f"redis://127.0.0.1:{server.port}/0"
        client = redis_py.Redis.from_url(server.url, socket_timeout=2)
        assert client.ping() is True
        client.set("wmq:room:abc", "http://127.0.0.1:1")
        port = server.port
        server.stop()
        with pytest.raises(redis_py.ConnectionError):
            redis_py.Redis.from_url(server.url, socket_timeout=1).ping()
        server.start()
        assert server.port == port
        client = redis_py.Redis.from_url(server.url, socket_timeout=2)
        assert client.ping() is True
        assert client.get("wmq:room:abc") is None  # nothing persisted: leases are taken again
    assert not redis.ping(port)


@needs_redis
def test_redis_that_cannot_start_quotes_its_output(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        server = redis.LocalRedis(tmp_path / "redis", port=port)
        with pytest.raises(RuntimeError, match=f"did not start on 127.0.0.1:{port}") as info:
            server.start()
    assert "Address already in use" in str(info.value)


@needs_haproxy
@pytest.mark.parametrize("backends", [[("127.0.0.1", 8001)], [("10.0.0.1", 8000), ("::1", 80)]])
def test_rendered_config_is_valid(tmp_path: Path, backends: list[tuple[str, int]]) -> None:
    path = tmp_path / "haproxy.cfg"
    path.write_text(haproxy.haproxy_config(backends), encoding="utf-8")
    haproxy.check_config(path)  # raises with HAProxy's words


@needs_haproxy
def test_config_rejected_quotes_haproxy(tmp_path: Path) -> None:
    path = tmp_path / "haproxy.cfg"
    path.write_text("frontend x\n    bind 127.0.0.1:1\n    nonsense here\n", encoding="utf-8")
    with pytest.raises(ValueError, match="nonsense"):
        haproxy.check_config(path)


def test_config_needs_backends() -> None:
    with pytest.raises(ValueError, match="no backends"):
        haproxy.haproxy_config([])


@needs_haproxy
def test_a_room_meets_in_one_backend(
    balanced: tuple[haproxy.LocalHAProxy, list[Backend]],
) -> None:
    proxy, _ = balanced
    for room in ROOMS[:8]:
        names = {owner(proxy, room) for _ in range(3)}
        names |= {get(proxy, f"/api/rooms/{room}")["name"] for _ in range(2)}
        names |= {get(proxy, f"/api/rooms/{room}/hands")["name"] for _ in range(2)}
        names.add(socket_name(proxy, room))
        assert len(names) == 1, (room, names)
    # Everything else is shared round-robin, whatever its path.
    assert {get(proxy, "/api/presets")["name"] for _ in range(4)} == {"a", "b"}


@needs_haproxy
def test_rooms_spread_and_move_when_a_backend_dies(
    balanced: tuple[haproxy.LocalHAProxy, list[Backend]],
) -> None:
    proxy, backends = balanced
    before = {room: owner(proxy, room) for room in ROOMS}
    assert set(before.values()) == {"a", "b"}, before
    backends[0].kill()
    killed = time.monotonic()
    moved = [room for room in ROOMS if before[room] == "a"]
    while True:
        try:
            if all(owner(proxy, room) == "b" for room in moved):
                break
        except OSError:
            pass  # the balancer has not seen it die yet: a 503 or a dropped connection
        # Its checks fail in about 1 s (every 500 ms, down after 2); 10 s is a bound only, for
        # a loaded machine.
        assert time.monotonic() - killed < 10.0, "rooms of a dead backend did not move"
        time.sleep(0.05)
    assert socket_name(proxy, moved[0]) == "b"
    # The rooms of the living backend never moved.
    assert all(owner(proxy, room) == "b" for room in ROOMS if before[room] == "b")


@needs_haproxy
def test_a_stalled_backend_is_taken_out_and_its_sockets_closed(
    balanced: tuple[haproxy.LocalHAProxy, list[Backend]],
) -> None:
    proxy, backends = balanced
    room = next(room for room in ROOMS if owner(proxy, room) == "a")
    with connect(f"ws://127.0.0.1:{proxy.port}/ws/{room}", open_timeout=5) as ws:
        assert ws.recv(timeout=5) == "a"
        backends[0].pause()
        try:
            paused = time.monotonic()
            # Its checks time out (2 s each, 2 of them): it is down, and the balancer closes
            # the sockets it held, so their clients reconnect to the room's next process.
            with pytest.raises(ConnectionClosed):
                ws.recv(timeout=10)
            assert time.monotonic() - paused < 8
            assert owner(proxy, room) == "b"
        finally:
            backends[0].resume()


@needs_haproxy
def test_the_client_address_reaches_the_backend(
    balanced: tuple[haproxy.LocalHAProxy, list[Backend]],
) -> None:
    proxy, _ = balanced
    # The client's own X-Forwarded-For (6.6.6.6) is dropped: only what the balancer saw is told.
    assert get(proxy, "/r/abc", source="127.0.3.7")["xff"] == "127.0.3.7"
    assert get(proxy, "/api/presets", source="127.0.3.8")["xff"] == "127.0.3.8"


def _serve_joins_clusters() -> bool:
    """Whether this ``wmq serve`` takes a PostgreSQL store and a Redis (docs/scale.md)."""
    from typer.testing import CliRunner

    from weimaque.cli.app import app

    shown = CliRunner().invoke(app, ["serve", "--help"], env={"COLUMNS": "200"}).output
    return all(name in shown for name in ("--store", "--redis", "--node-url", "--trust-proxy"))


@needs_redis
@needs_haproxy
@pytest.mark.skipif(not postgres.available(), reason="PostgreSQL is not installed (make does)")
def test_local_cluster_serves_through_its_balancer_and_stops_everything() -> None:
    if not _serve_joins_clusters():
        pytest.skip("wmq serve has no --store/--redis/--node-url/--trust-proxy yet")
    with scratch_folder("wmq-test-cluster-") as tmp:
        cluster = LocalCluster(tmp, servers=2)
        with cluster:
            pids = [s.pid for s in cluster.servers]
            with urllib.request.urlopen(cluster.url + "/api/live", timeout=5) as res:
                assert res.status == 200
            body = json.dumps({"seed": 3, "bot_delay_ms": 0}).encode()
            request = urllib.request.Request(
                cluster.url + "/api/rooms", body, {"Content-Type": "application/json"}
            )
            with urllib.request.urlopen(request, timeout=10) as res:
                room = json.loads(res.read())["room_id"]
            with urllib.request.urlopen(f"{cluster.url}/api/rooms/{room}", timeout=5) as res:
                assert json.loads(res.read())["room"]["room_id"] == room
            with connect(f"ws://127.0.0.1:{cluster.port}/ws/{room}", open_timeout=5) as ws:
                ws.send(json.dumps({"v": 1, "type": "sit", "seat": 0}))
                welcome = json.loads(ws.recv(timeout=10))
                assert welcome["type"] == "welcome" and welcome["seat"] == 0, welcome
            assert cluster.owner(room) in cluster.servers
        for pid in pids:
            assert pid is not None
            with pytest.raises(ProcessLookupError):
                os.kill(pid, 0)  # stopped and reaped
        assert not redis.ping(cluster.redis.port)
        assert not cluster.postgres.running


@needs_redis
@needs_haproxy
@pytest.mark.skipif(not postgres.available(), reason="PostgreSQL is not installed (make does)")
def test_wmq_cluster_serves_until_ctrl_c_then_stops_all_of_it() -> None:
    if not _serve_joins_clusters():
        pytest.skip("wmq serve has no --store/--redis/--node-url/--trust-proxy yet")
    port = haproxy.free_port()
    code = "from weimaque.cli.app import main; main()"
    proc = subprocess.Popen(
        [sys.executable, "-c", code, "cluster", "--servers", "1", "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert proc.stdout is not None
        lines = []
        for line in proc.stdout:
            lines.append(line)
            if line.startswith("Ctrl-C"):
                break
        shown = "".join(lines)
        assert f"http://127.0.0.1:{port}/" in shown, shown
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/live", timeout=5) as res:
            assert res.status == 200
        # Where each process's metrics are (docs/scale.md), answered to this machine.
        metrics = re.search(r"metrics 1 +(http://\S+/metrics)", shown)
        assert metrics is not None, shown
        with urllib.request.urlopen(metrics[1], timeout=5) as res:
            assert b"wmq_rooms_in_memory" in res.read()
        folder = Path(shown.split(" servers in ", 1)[1].split(" …", 1)[0])
        assert (folder / "serve-1.log").exists()
        proc.send_signal(signal.SIGINT)
        rest, _ = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, rest
    assert "stopped" in rest
    assert not folder.exists()  # the temporary folder, with every piece's data, is gone
    with pytest.raises(OSError):
        urllib.request.urlopen(f"http://127.0.0.1:{port}/api/live", timeout=2)
