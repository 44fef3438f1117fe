"""A partition, for real: PostgreSQL, Redis, two ``wmq serve`` and HAProxy, each process
reaching Redis through a TCP proxy of its own that the test can stop forwarding (docs/scale.md,
the failure table). The room's owner, cut off from Redis alone, keeps its players' sockets
(HAProxy still sees it live) but changes nothing once its lease is no longer trusted: the votes
that would pass a 解散 opened before the cut, a new proposal and an action are all refused. The
other process takes the room and plays on; when it dies and the partition heals, the room
restored on the first process holds every action either owner acknowledged.

And who is online, which every process answers alike: a club member with a socket open to one
process is online on the other.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.serverkit import Table
from tests.test_cluster_e2e import (
    LEASE,
    ROOM,
    _raise,
    endpoint,
    eventually,
    finish_hand,
    owner_of,
    play,
    record_of,
    seat_again,
)
from weimaque.deploy import postgres as local_postgres
from weimaque.deploy import redis as local_redis
from weimaque.deploy.haproxy import available as haproxy_available
from weimaque.deploy.local import LocalCluster

pytestmark = pytest.mark.skipif(
    not (local_postgres.available() and local_redis.available() and haproxy_available()),
    reason="Debian's postgresql, redis-server and haproxy are not installed (make test does)",
)


class Cuttable:
    """A TCP proxy to one address that can stop forwarding (``cut``) and start again
    (``heal``): bytes sent meanwhile wait in it, as on a network that drops a link, and the
    connections stay open."""

    def __init__(self, host: str, port: int) -> None:
        self.target = (host, port)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = int(self.listener.getsockname()[1])
        self.open = threading.Event()
        self.open.set()
        self.closed = False
        self.sockets: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def cut(self) -> None:
        self.open.clear()

    def heal(self) -> None:
        self.open.set()

    def _accept(self) -> None:
        while not self.closed:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(self.target)
            except OSError:
                client.close()
                continue
            self.sockets += [client, upstream]
            for src, dst in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(src, dst), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                self.open.wait()  # cut: held here, never delivered until healed
                if self.closed:
                    break
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                with contextlib.suppress(OSError):
                    s.shutdown(socket.SHUT_RDWR)

    def close(self) -> None:
        self.closed = True
        self.open.set()
        self.listener.close()
        for s in self.sockets:
            with contextlib.suppress(OSError):
                s.close()


@pytest.fixture
def partitioned() -> Iterator[tuple[LocalCluster, list[Cuttable]]]:
    folder = Path(tempfile.mkdtemp(prefix="wmq-cluster-"))
    os.chmod(folder, 0o755)
    proxies: list[Cuttable] = []

    def via(k: int, url: str) -> str:
        parts = urlsplit(url)
        assert parts.hostname is not None and parts.port is not None
        proxy = Cuttable(parts.hostname, parts.port)
        proxies.append(proxy)
        return proxy.url

    try:
        with LocalCluster(folder, servers=2, lease_seconds=LEASE, redis_via=via) as made:
            yield made, proxies
    finally:
        for proxy in proxies:
            proxy.close()
        shutil.rmtree(folder, ignore_errors=True)


def error_code(table: Table, k: int, **message: object) -> str:
    """What seat ``k``'s message is answered: the error's code, or the reply's type."""
    i = table.seats[k].send(**message)
    reply = table.wait(k, lambda m: m.get("re") == i)
    return str(reply.get("code", reply["type"]))


def test_an_owner_cut_off_from_redis_changes_nothing_and_loses_nothing(
    partitioned: tuple[LocalCluster, list[Cuttable]],
) -> None:
    cluster, proxies = partitioned
    lb = endpoint(cluster.url)
    room_id = lb.room(seed=23, **ROOM)["room_id"]
    table = Table(lb, room_id)
    play(table, 6)
    owner = owner_of(cluster, room_id)
    other = next(s for s in cluster.servers if s is not owner)
    # A vote to 解散, opened while the owner holds its lease: seats 1 and 2 have to answer.
    opened = table.ask(0, type="dissolve")
    assert opened["type"] == "room" and opened["room"]["vote"] is not None, opened

    proxies[cluster.servers.index(owner)].cut()
    # Redis lets the lease go; a request that reaches the other process then takes the room.
    direct = endpoint(other.url)

    def taken() -> bool:
        direct.request(f"/api/rooms/{room_id}")
        return cluster.owner(room_id) is other or _raise("not taken yet")

    eventually(taken, label="the room taken over")
    # The cut-off owner, still holding its players' sockets, changes nothing: not the answers
    # that would pass the 解散, not a new proposal, not an action, not the seats.
    assert error_code(table, 1, type="vote", agree=True) == "storage_unavailable"
    assert error_code(table, 2, type="vote", agree=True) == "storage_unavailable"
    k = table.to_act()
    assert k is not None
    assert table.act(k) == "storage_unavailable"
    assert error_code(table, 1, type="no_timer", agree=False) == "storage_unavailable"
    # The players come to the new owner (directly: the balancer still sends them to the old
    # one, which it sees live) and play on.
    others = Table(direct, room_id, tokens=table.tokens)
    play(others, 5)
    assert error_code(table, 2, type="dissolve") == "storage_unavailable"
    state = direct.get(f"/api/rooms/{room_id}")["room"]
    assert not state["dissolved"] and not state["match_over"] and state["vote"] is None, state

    # The new owner dies; the partition heals. The first process learns at its next renewal
    # that the room is not its own, lets it go, and takes it again from the store.
    others.close()
    other.kill()
    proxies[cluster.servers.index(owner)].heal()
    eventually(
        lambda: "its lease is lost" in owner.output(20_000) or _raise("not yet"),
        seconds=15,
        label="the cut-off owner dropping the room",
    )
    table.close()
    again = seat_again(lb, room_id, table.tokens)
    assert owner_of(cluster, room_id) is owner
    finish_hand(again, 1)
    record = record_of(lb, room_id, 1)
    acked = table.acked[1] + others.acked[1] + again.acked[1]
    assert record["actions"] == acked
    info = lb.get(f"/api/rooms/{room_id}")["room"]
    assert not info["dissolved"] and not info["match_over"], info
    again.close()


def test_a_club_member_online_on_one_process_is_online_on_every_one(
    partitioned: tuple[LocalCluster, list[Cuttable]],
) -> None:
    cluster, _ = partitioned  # never cut here
    here, there = (endpoint(server.url) for server in cluster.servers)
    status, made = here.post("/api/players", {"name": "阿明"})
    assert status == 201, made
    key = {"Authorization": f"Bearer {made['key']}"}
    status, _, body = here.request(
        "/api/clubs",
        json.dumps({"name": "周五牌局"}).encode(),
        {**key, "Content-Type": "application/json"},
    )
    assert status == 201, body
    club_id = json.loads(body)["club"]["id"]

    def online() -> bool:
        status, _, body = there.request(f"/api/clubs/{club_id}", headers=key)
        assert status == 200, body
        (member,) = json.loads(body)["club"]["members"]
        return bool(member["online"])

    assert not online()
    room_id = here.room(seed=3, **ROOM)["room_id"]
    socket_here = here.ws(room_id, additional_headers=key)  # on the first process
    i = socket_here.send(type="spectate")
    socket_here.reply(i)
    eventually(lambda: online() or _raise("offline"), seconds=10, label="online on the other")
    socket_here.close()
    eventually(lambda: not online() or _raise("online"), seconds=10, label="offline again")
