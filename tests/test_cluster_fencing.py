"""Two processes of a cluster over one store and a real Redis (docs/scale.md, fencing): a
process that still trusts a lease Redis has given to another (it froze between its check and
its write) writes nothing the new owner has not read, and lets the room go; who is online is
one answer on every process."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest
import redis

from weimaque.deploy import redis as local_redis
from weimaque.deploy.redis import LocalRedis
from weimaque.server.cluster.leases import Cluster, ClusterConfig, lease_key
from weimaque.server.cluster.manager import RoomManager
from weimaque.server.store.store import FIRST_EPOCH, Fenced, open_store
from weimaque.server.table.options import RoomOptions
from weimaque.server.table.rooms import Room
from weimaque.server.table.seats import Conn
from weimaque.server.wire.protocol import ProtocolError, parse_client

pytestmark = pytest.mark.skipif(
    not local_redis.available(), reason="Debian's redis-server is not installed (make test does)"
)

BOTS = {0: "random", 1: "random", 2: "random"}


@pytest.fixture(scope="module")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalRedis]:
    with LocalRedis(tmp_path_factory.mktemp("redis")) as server:
        yield server


def forget_lease(server: LocalRedis, room_id: str) -> None:
    """Redis lets the lease go, as when its owner could not renew it (cut off from Redis)."""
    client = redis.Redis.from_url(server.url)
    try:
        client.delete(lease_key(room_id))
    finally:
        client.close()


async def until(predicate: object, label: str) -> None:
    for _ in range(500):
        if callable(predicate) and predicate():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"{label} never came")


def test_a_stale_owners_writes_are_refused_and_it_drops_the_room(
    redis_server: LocalRedis, store_target: str
) -> None:
    async def run() -> None:
        stores = [open_store(store_target), open_store(store_target)]
        a = Cluster(ClusterConfig(redis_server.url, "http://a:1"))
        b = Cluster(ClusterConfig(redis_server.url, "http://b:2"))
        first, second = RoomManager(stores[0], cluster=a), RoomManager(stores[1], cluster=b)
        try:
            room = await first.open(RoomOptions(bots=BOTS, seed=5, options={"match_hands": 2}))
            room.stop()  # its moves are made here, one by one
            assert room.recorder.epoch == FIRST_EPOCH
            state = room.state
            assert state is not None
            for _ in range(3):
                seat = state.to_act()[0]
                assert await room.play(seat, state.legal_actions(seat)[0])
            acked = [[s, str(x)] for s, x in state.actions]
            # A is cut off: Redis forgets its lease, which A still trusts (it froze between its
            # check and its write); B takes the room and reads it back.
            forget_lease(redis_server, room.id)
            taken = await second.fetch(room.id)
            assert taken is not None and taken is not room
            taken.stop()
            assert taken.recorder.epoch == FIRST_EPOCH + 1
            assert taken.state is not None
            assert [[s, str(x)] for s, x in taken.state.actions] == acked
            assert room.recorder.refused() is None  # A would act: only the store can say no
            # A's 解散 (a vote passing in that instant) and A's next move: refused, unmade.
            room.driver.dissolve()
            seat = state.to_act()[0]
            with pytest.raises(Fenced):
                await room.recorder.action(1, state, seat, state.legal_actions(seat)[0])
            await until(lambda: room.id not in first.rooms, "A dropping the room")
            assert room.auto.closed
            stores[0].flush(10)
            assert stores[0].fence.refused >= 2 and stores[1].fence.taken == 1
            assert await b.owner(room.id) == "http://b:2"  # A gave back nothing of B's
            # B plays on from the hand as it was: nothing of A's is in the store.
            state_b = taken.state
            seat = state_b.to_act()[0]
            assert await taken.play(seat, state_b.legal_actions(seat)[0])
            stores[1].flush(10)
            stored = stores[1].load(room.id)
            assert stored is not None and not stored.dissolved and stored.current is not None
            assert stored.current["actions"] == [[s, str(x)] for s, x in state_b.actions]
            assert stored.current["actions"][:3] == acked
        finally:
            await first.close()
            await second.close()
            for store in stores:
                store.close()

    asyncio.run(run())


def test_every_process_sees_who_is_online_on_any(redis_server: LocalRedis) -> None:
    async def run() -> None:
        a = Cluster(ClusterConfig(redis_server.url, "http://a:1"))
        b = Cluster(ClusterConfig(redis_server.url, "http://b:2"))
        try:
            a.arrived("p1")
            a.arrived("p1")  # two sockets of p1 on A
            b.arrived("p2")
            await until(lambda: not a._tasks and not b._tasks, "the news written")
            assert await b.online_among(["p1", "p2", "p3"]) == {"p1", "p2"}
            a.left("p1")  # one of p1's sockets is left
            await until(lambda: not a._tasks, "the news written")
            assert await b.online_among(["p1"]) == {"p1"}
            a.left("p1")
            await until(lambda: not a._tasks, "the news written")
            assert await b.online_among(["p1", "p2"]) == {"p2"}
            # With every renewal a process says again who is there.
            await b.renew()
            assert await a.online_among(["p2"]) == {"p2"}
        finally:
            await a.close()
            await b.close()
        # A process that stops says nobody is online there any more.
        c = Cluster(ClusterConfig(redis_server.url, "http://c:3"))
        try:
            assert await c.online_among(["p2"]) == set()
        finally:
            await c.close()

    asyncio.run(run())


class Wire:
    """A connection that keeps what it is sent."""

    def __init__(self) -> None:
        self.log: list[dict[str, Any]] = []

    def send(self, message: dict[str, Any]) -> None:
        self.log.append(json.loads(json.dumps(message, ensure_ascii=False)))


def say(room: Room, conn: Conn, **fields: Any) -> dict[str, Any]:
    """Send one message; the error it was refused with, else {}."""
    try:
        room.handle(conn, parse_client(json.dumps({"v": 1, **fields}, ensure_ascii=False)))
    except ProtocolError as exc:
        return dict(exc.to_message())
    return {}


def test_a_room_whose_lease_is_not_trusted_changes_and_decides_nothing() -> None:
    room = RoomManager(None).create(
        RoomOptions(turn_seconds=None, next_seconds=None, seed=9, options={"match_hands": 1})
    )
    conns = [room.connect(Wire()) for _ in range(3)]
    for seat, conn in enumerate(conns):
        assert say(room, conn, type="sit", seat=seat, name=f"p{seat}", id=seat) == {}
    assert say(room, conns[0], type="dissolve", id="d") == {}  # trusted: the vote opens
    vote = room.table.vote
    assert vote is not None
    cut = "the room's lease could not be renewed (Redis: TimeoutError)"
    room.recorder.guard = lambda: cut
    changes: list[dict[str, Any]] = [
        {"type": "vote", "agree": True},
        {"type": "dissolve"},
        {"type": "next"},
        {"type": "leave"},
        {"type": "autoplay", "on": True},
        {"type": "no_timer", "agree": False},
        {"type": "rematch"},
        {"type": "join", "token": "x" * 43, "name": "改名"},
    ]
    for message in changes:
        error = say(room, conns[1], id="c", **message)
        assert error.get("code") == "storage_unavailable", (message, error)
        assert cut in error["message"]
    assert say(room, conns[2], type="sit", seat=0, id="s")["code"] == "storage_unavailable"
    assert say(room, conns[2], type="ping", t=1, id="p") == {}  # read-only: answered
    # The vote's time runs out while the lease is not trusted: nothing is decided.
    vote.deadline = room.table.clock() - 1
    room.driver.settle_vote()
    assert room.table.vote is vote and not room.table.dissolved
    assert vote.answers == {0: True}
    # Trusted again (the renewal went through): the vote passes on its deadline.
    room.recorder.guard = None
    room.driver.settle_vote()
    assert room.table.vote is None and room.table.dissolved
