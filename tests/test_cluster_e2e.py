"""A cluster for real: PostgreSQL, Redis, two ``wmq serve`` and HAProxy (docs/scale.md).

Three players play through the load balancer while a spectator watches from the other process
(its socket relayed to the owner); the hand is the one a single process plays from the same
seed and actions. Then the failures: the room's owner killed with SIGKILL mid-hand, PostgreSQL
and Redis stopped mid-hand and started again, and an owner paused past its lease. In every case
no acknowledged action is lost, nothing is acknowledged that was not stored by the room's one
owner, and a client never sees the table go back.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.serverkit import Endpoint, Msg, Server, Table
from weimaque.deploy import postgres as local_postgres
from weimaque.deploy import redis as local_redis
from weimaque.deploy.haproxy import available as haproxy_available
from weimaque.deploy.local import ClusterServer, LocalCluster

pytestmark = pytest.mark.skipif(
    not (local_postgres.available() and local_redis.available() and haproxy_available()),
    reason="Debian's postgresql, redis-server and haproxy are not installed (make test does)",
)

#: Short leases, so that a lost owner is replaced within seconds; not shorter, so that an
#: owner on a loaded machine (the whole suite beside its browsers) does not miss its renewals
#: and drop a room (docs/scale.md) whose test clients do not reconnect.
LEASE = 2.0
#: No turn timers and no grace that frees a seat while a test holds it.
ROOM = {"turn_seconds": None, "next_seconds": None, "options": {"match_hands": 2}}


@pytest.fixture
def cluster() -> Iterator[LocalCluster]:
    # PostgreSQL runs as its own user, which must reach the folder: not under pytest's
    # private temporary root.
    folder = Path(tempfile.mkdtemp(prefix="wmq-cluster-"))
    os.chmod(folder, 0o755)
    try:
        with LocalCluster(folder, servers=2, lease_seconds=LEASE) as made:
            yield made
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def endpoint(url: str) -> Endpoint:
    return Endpoint(int(url.rsplit(":", 1)[1]))


def eventually(what: Callable[[], Any], seconds: float = 30.0, label: str = "") -> Any:
    """``what()`` once it returns without an exception, retried for ``seconds``."""
    end = time.monotonic() + seconds
    while True:
        try:
            return what()
        except Exception as exc:
            if time.monotonic() > end:
                raise AssertionError(f"{label or what} never came: {exc!r}") from exc
            time.sleep(0.2)


def seat_again(via: Endpoint, room_id: str, tokens: list[str]) -> Table:
    """The three players back at the table (through ``via``), once it serves the room."""

    def join() -> Table:
        table = Table(via, room_id, tokens=tokens)
        return table

    return eventually(join, label="the table back")  # type: ignore[no-any-return]


def owner_of(cluster: LocalCluster, room_id: str) -> ClusterServer:
    found = eventually(lambda: cluster.owner(room_id) or _raise("no owner"), label="an owner")
    assert isinstance(found, ClusterServer)
    return found


def _raise(why: str) -> Any:
    raise LookupError(why)


def health(server: ClusterServer) -> tuple[int, dict[str, Any]]:
    status, _, body = endpoint(server.url).request("/api/health")
    return status, json.loads(body)


def decisions(table: Table) -> list[int]:
    """The highest decision each seat has seen so far (from its log)."""
    seen = []
    for c in table.seats:
        numbers = [
            m["decision"]
            for m in c.log
            if m["type"] in ("snapshot", "events") and m.get("decision") is not None
        ]
        seen.append(max(numbers, default=-1))
    return seen


def first_decisions(table: Table) -> list[int]:
    seen = []
    for c in table.seats:
        numbers = [
            m["decision"]
            for m in c.log
            if m["type"] in ("snapshot", "events") and m.get("decision") is not None
        ]
        seen.append(numbers[0] if numbers else -1)
    return seen


def act_until_acked(table: Table, seconds: float = 10.0) -> None:
    """The seat to act plays, again while the answer is ``storage_unavailable``: an owner whose
    lease renewal came late (a 1 s lease on a loaded machine) refuses with nothing applied, and
    the client tries again (docs/scale.md), as a player does when the page says so."""
    deadline = time.monotonic() + seconds
    while True:
        k = table.to_act()
        assert k is not None
        answer = table.act(k)
        if answer != "storage_unavailable" or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert answer == "ack"


def play(table: Table, actions: int) -> None:
    for _ in range(actions):
        act_until_acked(table)


def finish_hand(table: Table, number: int) -> None:
    while number not in table.ended:
        act_until_acked(table)


def record_of(via: Endpoint, room_id: str, number: int) -> dict[str, Any]:
    got = eventually(lambda: via.get(f"/api/rooms/{room_id}/hands/{number}"), label="record")
    return dict(got["record"])


def test_a_hand_through_the_balancer_is_the_hand_of_one_process(
    cluster: LocalCluster, tmp_path: Path
) -> None:
    lb = endpoint(cluster.url)
    room_id = lb.room(seed=41, **ROOM)["room_id"]
    table = Table(lb, room_id)
    owner = owner_of(cluster, room_id)
    other = next(s for s in cluster.servers if s is not owner)
    # A spectator on the other process: its socket is relayed to the room's owner.
    watcher = endpoint(other.url).ws(room_id)
    i = watcher.send(type="spectate")
    assert watcher.reply(i)["type"] in ("welcome", "snapshot")
    # So is a request of its API: the same answer from either process.
    info = endpoint(other.url).get(f"/api/rooms/{room_id}")["room"]
    assert info["room_id"] == room_id and info["spectators"] == 1, info
    finish_hand(table, 1)
    watcher.until(lambda m: m["type"] == "hand_end")
    clustered = record_of(lb, room_id, 1)
    assert clustered["actions"] == table.acked[1]
    assert cluster.owner(room_id) is owner  # one owner all along
    table.close()
    watcher.close()

    single = Server(tmp_path)
    try:
        alone_id = single.room(seed=41, **ROOM)["room_id"]
        alone = Table(single, alone_id)
        finish_hand(alone, 1)
        alone_record = single.get(f"/api/rooms/{alone_id}/hands/1")["record"]
        alone.close()
    finally:
        single.stop()
    assert alone.acked[1] == table.acked[1]
    for key in ("actions", "result", "seed", "dealer"):
        assert clustered.get(key) == alone_record.get(key), key


def test_every_process_lists_every_public_room(cluster: LocalCluster) -> None:
    lb = endpoint(cluster.url)
    made = {lb.room(seed=k, public=True, **ROOM)["room_id"] for k in range(6)}
    private = lb.room(seed=99, **ROOM)["room_id"]
    player = lb.ws(private)
    assert player.ask(type="sit", seat=0, name="p")["type"] == "welcome"
    for server in cluster.servers:
        direct = endpoint(server.url)

        def listed(query: str, direct: Endpoint = direct) -> set[str]:
            return {r["room_id"] for r in direct.get(f"/api/rooms{query}")["rooms"]}

        def public(direct: Endpoint = direct) -> set[str]:
            rooms = listed("", direct)
            return rooms if made <= rooms else _raise(f"{made - rooms} missing")

        assert private not in eventually(public, seconds=10, label="the lobby")
        # A private room is listed only to whoever names it (its players' browsers).
        eventually(lambda: private in listed(f"?ids={private}") or _raise("not listed"), seconds=10)
    player.close()


def test_a_killed_owner_loses_no_acknowledged_action(cluster: LocalCluster) -> None:
    lb = endpoint(cluster.url)
    room_id = lb.room(seed=7, **ROOM)["room_id"]
    table = Table(lb, room_id)
    play(table, 12)
    before = decisions(table)
    owner = owner_of(cluster, room_id)
    owner.kill()
    table.close()
    again = seat_again(lb, room_id, table.tokens)
    new_owner = owner_of(cluster, room_id)
    assert new_owner is not owner
    # No going back: the first view after the move is where the table was.
    assert all(a >= b for a, b in zip(first_decisions(again), before, strict=True))
    finish_hand(again, 1)
    record = record_of(lb, room_id, 1)
    assert record["actions"] == table.acked[1] + again.acked[1]
    again.close()


def test_postgres_away_and_back_loses_nothing(cluster: LocalCluster) -> None:
    lb = endpoint(cluster.url)
    room_id = lb.room(seed=11, **ROOM)["room_id"]
    table = Table(lb, room_id)
    play(table, 6)
    owner = owner_of(cluster, room_id)
    cluster.postgres.stop()
    try:
        k = table.to_act()
        assert k is not None
        assert table.act(k) == "storage_unavailable"
        status, body = health(owner)
        assert status == 503 and body["store"] == "failing" and body["reason"], body
        assert body["cluster"]["redis"] == "ok", body
    finally:
        cluster.postgres.start()
    # The same decision, written once the store is back (the store finds it by itself).
    assert eventually(lambda: table.act(k) == "ack" or _raise("refused"), label="an ack")
    finish_hand(table, 1)
    assert record_of(lb, room_id, 1)["actions"] == table.acked[1]
    assert health(owner)[0] == 200
    table.close()


def test_redis_away_and_back_loses_nothing(cluster: LocalCluster) -> None:
    lb = endpoint(cluster.url)
    room_id = lb.room(seed=13, **ROOM)["room_id"]
    table = Table(lb, room_id)
    play(table, 6)
    owner = owner_of(cluster, room_id)
    cluster.redis.stop()
    try:
        time.sleep(LEASE * 1.2)  # the lease runs out: the room may not act
        k = table.to_act()
        assert k is not None
        assert table.act(k) == "storage_unavailable"
        status, body = health(owner)
        assert status == 503 and body["cluster"]["redis"] == "failing", body
        assert body["store"] == "ok", body
    finally:
        cluster.redis.start()
    # Redis is back, empty: the owner's next renewal finds its lease gone and lets the room go;
    # the players come back through the balancer and the room is restored from the store.
    eventually(
        lambda: health(owner)[1]["cluster"]["leases"] == 0 or _raise("still held"),
        seconds=10,
        label="the room let go",
    )
    before = decisions(table)
    table.close()
    again = seat_again(lb, room_id, table.tokens)
    assert all(a >= b for a, b in zip(first_decisions(again), before, strict=True))
    finish_hand(again, 1)
    assert record_of(lb, room_id, 1)["actions"] == table.acked[1] + again.acked[1]
    again.close()


def test_a_paused_owner_refuses_to_act_once_its_lease_is_gone(cluster: LocalCluster) -> None:
    lb = endpoint(cluster.url)
    room_id = lb.room(seed=17, **ROOM)["room_id"]
    table = Table(lb, room_id)
    play(table, 6)
    owner = owner_of(cluster, room_id)
    k = table.to_act()
    assert k is not None
    view = table.view[k]
    assert view is not None
    owner.pause()  # cut off: it cannot renew, and its clients' messages wait in its socket
    try:
        action = view["legal_actions"][0]["text"]
        sent = table.seats[k].send(
            type="act", action=action, hand=view["hand_number"], decision=view["decision"]
        )
        time.sleep(LEASE * 1.5)
        # Meanwhile the players come back through the balancer, to the other process.
        others = seat_again(lb, room_id, table.tokens)
        taken = owner_of(cluster, room_id)
        assert taken is not owner
    finally:
        owner.resume()
    # The paused process wakes up with the action in its socket: it is never acknowledged.
    answer: Msg | None = None
    with contextlib.suppress(Exception):
        answer = table.seats[k].until(
            lambda m: m.get("ack") == sent or m.get("re") == sent, timeout=5
        )
    assert answer is None or answer["type"] == "error", answer
    # It learnt at its first renewal that the room is another's, and let it go.
    eventually(
        lambda: "its lease is lost" in owner.output(20_000) or _raise("not yet"),
        seconds=10,
        label="the paused owner dropping the room",
    )
    table.close()
    # The new owner plays the hand from what was stored: the paused action is not in it.
    finish_hand(others, 1)
    record = record_of(lb, room_id, 1)
    assert record["actions"] == table.acked[1] + others.acked[1]
    others.close()
