"""Bounds that hold across a real cluster (PostgreSQL, Redis, two ``wmq serve``, HAProxy;
docs/scale.md):

- a request of a room sent to the process that does not own it is relayed only within the
  owner's body limit: a declared 256 MiB body is answered 413 before a byte of it is sent, a
  chunked one as soon as it passes the limit (the relay never buffers it);
- a member removed from a club on one process loses their socket at a table another process
  plays;
- each process serves its metrics, relay and lease series included, to loopback, never
  through the balancer.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from tests.serverkit import Client, Endpoint
from tests.test_cluster_e2e import LEASE, eventually, owner_of
from weimaque.deploy import postgres as local_postgres
from weimaque.deploy import redis as local_redis
from weimaque.deploy.haproxy import available as haproxy_available
from weimaque.deploy.local import ClusterServer, LocalCluster
from weimaque.server.base.limits import Limits

pytestmark = pytest.mark.skipif(
    not (local_postgres.available() and local_redis.available() and haproxy_available()),
    reason="Debian's postgresql, redis-server and haproxy are not installed (make test does)",
)

ROOM = {"turn_seconds": None, "next_seconds": None, "options": {"match_hands": 2}}
#: The owner's body limit, which the relay applies.
LIMIT = Limits().max_body


@pytest.fixture(scope="module")
def cluster() -> Iterator[LocalCluster]:
    folder = Path(tempfile.mkdtemp(prefix="wmq-cluster-"))
    os.chmod(folder, 0o755)
    try:
        with LocalCluster(folder, servers=2, lease_seconds=LEASE) as made:
            yield made
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def endpoint(server: ClusterServer | str) -> Endpoint:
    url = server if isinstance(server, str) else server.url
    return Endpoint(int(url.rsplit(":", 1)[1]))


def owned_room(cluster: LocalCluster) -> tuple[str, ClusterServer, ClusterServer, Client]:
    """A room, its owner, the other process, and a spectator's socket that keeps the room
    held (a room nobody is in rests)."""
    lb = endpoint(cluster.url)
    room_id = lb.room(seed=5, **ROOM)["room_id"]
    watcher = lb.ws(room_id)
    i = watcher.send(type="spectate")
    watcher.reply(i)
    owner = owner_of(cluster, room_id)
    other = next(s for s in cluster.servers if s is not owner)
    return room_id, owner, other, watcher


def answer_of(sock: socket.socket) -> tuple[int, bytes]:
    """The status and body of the HTTP answer read from ``sock`` (closed at its end)."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        assert chunk, data
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = next(
        int(line.split(b":", 1)[1])
        for line in head.split(b"\r\n")
        if line.lower().startswith(b"content-length:")
    )
    while len(body) < length:
        chunk = sock.recv(65536)
        assert chunk
        body += chunk
    return int(head.split()[1]), body


def head_of(port: int, path: str, extra: str) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=15)
    sock.sendall(
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        f"Content-Type: application/json\r\n{extra}\r\n".encode()
    )
    return sock


def test_a_relayed_body_over_the_limit_is_refused_before_it_is_sent(
    cluster: LocalCluster,
) -> None:
    room_id, owner, other, watcher = owned_room(cluster)
    path = f"/api/rooms/{room_id}/seats/0/free"
    # Declared 256 MiB: the answer comes with not one byte of the body sent.
    sock = head_of(other.port, path, f"Content-Length: {256 * 1024 * 1024}\r\n")
    try:
        status, body = answer_of(sock)
    finally:
        sock.close()
    assert status == 413, body
    assert json.loads(body)["error"]["code"] == "too_large"
    assert str(LIMIT) in json.loads(body)["error"]["message"]
    # Chunked: cut as soon as it passes the limit, long before its end (never sent).
    sock = head_of(other.port, path, "Transfer-Encoding: chunked\r\n")
    try:
        chunk = b"[" + b" " * 4094 + b"]"
        for _ in range(LIMIT // len(chunk) + 2):
            sock.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
        status, body = answer_of(sock)
    finally:
        sock.close()
    assert status == 413, body
    assert str(LIMIT) in json.loads(body)["error"]["message"]
    # A body within the limit is relayed and answered by the owner.
    status, _, body = endpoint(other).request(
        f"/api/rooms/{room_id}/seats/0/free", b"{}", {"Content-Type": "application/json"}
    )
    assert status in (400, 403), body  # the owner's own answer: no creator token
    assert b"too_large" not in body
    status, _, text = endpoint(other).request("/metrics")
    assert status == 200
    metrics = text.decode()
    assert "wmq_relay_refused_bodies_total 2.0" in metrics, metrics[-3000:]
    assert 'wmq_relay_requests_total{kind="http"}' in metrics

    def renewed() -> float:
        text = endpoint(owner).request("/metrics")[2].decode()
        line = next(x for x in text.splitlines() if x.startswith("wmq_leases_renewed_total"))
        count = float(line.split()[-1])
        assert count >= 1, line
        return count

    eventually(renewed, seconds=15, label="a lease renewed")  # three times a lease
    # The balancer forwards the client's address: /metrics is not there for players.
    status, _, text = endpoint(cluster.url).request("/metrics")
    assert status == 404 and b"wmq_" not in text
    watcher.close()


def call(via: Endpoint, method: str, path: str, key: str, body: Any = None) -> tuple[int, Any]:
    headers = {"Content-Type": "application/json", "Authorization": f"Bearer {key}"}
    data = None if body is None else json.dumps(body).encode()
    status, _, raw = via.request(path, data, headers, method)
    return status, json.loads(raw) if raw else None


def test_a_member_removed_on_one_process_leaves_a_table_of_another(
    cluster: LocalCluster,
) -> None:
    lb = endpoint(cluster.url)
    keys = {}
    for name in ("owner", "member"):
        status, data = lb.post("/api/players", {"name": name})
        assert status == 201, data
        keys[name] = (data["player"]["id"], data["key"])
    owner_key, (member_id, member_key) = keys["owner"][1], keys["member"]
    club = call(lb, "POST", "/api/clubs", owner_key, {"name": "牌友"})[1]["club"]["id"]
    code = call(lb, "POST", f"/api/clubs/{club}/invites", owner_key, {})[1]["code"]
    assert call(lb, "POST", "/api/clubs/join", member_key, {"code": code})[0] == 200
    status, room = call(lb, "POST", f"/api/clubs/{club}/tables", owner_key, {"seed": 9, **ROOM})
    assert status == 201, room
    room_id = room["room_id"]
    ws = connect(
        f"ws://127.0.0.1:{lb.port}/ws/{room_id}",
        additional_headers={"Authorization": f"Bearer {member_key}"},
        open_timeout=10,
    )
    seat = Client(ws.__enter__())
    welcome = seat.ask(type="sit", seat=0, name="member")
    assert welcome["type"] == "welcome", welcome
    owner = owner_of(cluster, room_id)
    other = next(s for s in cluster.servers if s is not owner)
    # Removed through the process that does not play the table.
    path = f"/api/clubs/{club}/members/{member_id}"
    assert call(endpoint(other), "POST", path, owner_key, {"action": "remove"})[0] == 200

    def closed() -> bool:
        with pytest.raises(ConnectionClosed):
            while True:
                seat.recv(5)
        return True

    assert eventually(closed, seconds=15, label="the removed member's socket closed")
    seat.close()
