"""Room leases and shared budgets against a real Redis (docs/scale.md).

Two :class:`Cluster` objects stand for two processes: one takes a room, the other finds it taken;
a lease that is not renewed runs out locally before Redis forgets it, a renewal that finds the
room taken over drops it, and a per-address budget is one budget for every process.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from weimaque.deploy import redis as local_redis
from weimaque.deploy.redis import LocalRedis
from weimaque.server.cluster.leases import Cluster, ClusterConfig, ClusterUnavailable, lease_key

pytestmark = pytest.mark.skipif(
    not local_redis.available(), reason="Debian's redis-server is not installed (make test does)"
)


@pytest.fixture(scope="module")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalRedis]:
    with LocalRedis(tmp_path_factory.mktemp("redis")) as server:
        yield server


def member(redis_server: LocalRedis, name: str, lease: float | None = None) -> Cluster:
    """A process of the cluster, with the product's lease unless a test times one out: a
    short lease makes every later check race the machine's load."""
    if lease is None:
        return Cluster(ClusterConfig(redis_server.url, f"http://{name}"))
    return Cluster(ClusterConfig(redis_server.url, f"http://{name}", lease))


def test_a_room_has_one_owner(redis_server: LocalRedis) -> None:
    async def run() -> None:
        a, b = member(redis_server, "a:1"), member(redis_server, "b:2")
        try:
            assert await a.claim("r1") is None
            assert a.refusal("r1") is None
            assert await b.claim("r1") == "http://a:1"  # taken: where it is played
            assert b.refusal("r1") is not None
            assert await a.claim("r1") is None  # its own again: renewed
            assert await b.owner("r1") == "http://a:1"
            await a.release("r1")
            assert await b.claim("r1") is None  # given back: the next one takes it
            assert await a.claim("r1") == "http://b:2"
        finally:
            await a.close()
            await b.close()

    asyncio.run(run())


def test_a_lease_not_renewed_stops_its_owner_before_another_can_take_it(
    redis_server: LocalRedis,
) -> None:
    async def run() -> None:
        a, b = member(redis_server, "a:1", lease=0.6), member(redis_server, "b:2")
        lost: list[str] = []
        a.on_lost = lost.append
        try:
            assert await a.claim("r2") is None
            # a is cut off (it renews nothing): it stops acting before Redis lets b in.
            while await b.claim("r2") is not None:
                refusal = a.refusal("r2")
                assert refusal is None or "renewed" in refusal, refusal
                await asyncio.sleep(0.02)
            assert a.refusal("r2") is not None
            # a's renewal finds the room someone else's: dropped, never to act again.
            await a.renew()
            assert lost == ["r2"]
            assert a.refusal("r2") == "this server no longer holds the room"
            assert b.refusal("r2") is None
        finally:
            await a.close()
            await b.close()

    asyncio.run(run())


def test_renewals_keep_a_lease_past_its_length(redis_server: LocalRedis) -> None:
    async def run() -> None:
        # Renewed every 0.67 s and trusted 1.8 s: a loaded machine may stall this process for
        # a second without the lease running out.
        lease = 2.0
        a, b = member(redis_server, "a:1", lease=lease), member(redis_server, "b:2")
        lost: list[str] = []
        a.on_lost = lost.append
        try:
            assert await a.claim("r3") is None
            a.start()
            end = time.monotonic() + 3.25 * lease  # over three leases
            while time.monotonic() < end:
                assert await b.claim("r3") == "http://a:1"
                await asyncio.sleep(0.05)
            assert a.refusal("r3") is None and lost == []
        finally:
            await a.close()  # gives the lease back
            await b.close()
        c = member(redis_server, "c:3")
        try:
            assert await c.claim("r3") is None
        finally:
            await c.close()

    asyncio.run(run())


def test_without_redis_nothing_is_claimed_and_leases_run_out(tmp_path: Path) -> None:
    async def run(server: LocalRedis) -> None:
        a = member(server, "a:1", lease=0.45)
        lost: list[str] = []
        a.on_lost = lost.append
        try:
            assert await a.claim("r4") is None
            server.stop()
            with pytest.raises(ClusterUnavailable):
                await a.claim("r5")
            await a.renew()  # fails: the lease is left to run out
            assert a.failing is not None and "Redis" in a.failing
            await asyncio.sleep(0.45)
            refusal = a.refusal("r4")
            assert refusal is not None and "Redis" in refusal, refusal
            assert await a.ping() is not None
            server.start()  # back, empty: the lease is gone, so the room is dropped
            await a.renew()
            assert lost == ["r4"] and a.failing is None
        finally:
            await a.close()

    with LocalRedis(tmp_path) as server:
        asyncio.run(run(server))


def test_a_budget_is_shared_by_every_process(redis_server: LocalRedis) -> None:
    async def run() -> None:
        a, b = member(redis_server, "a:1"), member(redis_server, "b:2")
        try:
            taken = []
            for k in range(6):
                one = a if k % 2 == 0 else b
                taken.append(await one.take("t", "10.0.0.1", 4, 60.0))
            assert taken[:4] == [None] * 4  # four between them, not four each
            assert all(w is not None and 0 < w <= 60 for w in taken[4:]), taken
            await b.give_back("t", "10.0.0.1", 4, 60.0)
            assert await a.take("t", "10.0.0.1", 4, 60.0) is None
            assert await a.take("t", "10.0.0.2", 4, 60.0) is None  # another address
        finally:
            await a.close()
            await b.close()

    asyncio.run(run())


def test_lease_keys_name_the_room() -> None:
    assert lease_key("abc") == "wmq:room:abc"


def test_the_rooms_an_address_made_are_counted_by_every_process(redis_server: LocalRedis) -> None:
    async def run() -> None:
        a, b = member(redis_server, "a:1"), member(redis_server, "b:2")
        try:
            await a.made("10.0.0.9", "m1", False)
            await b.made("10.0.0.9", "m2", True)
            assert await a.rooms_of("10.0.0.9", 60.0) == (2, 1)  # both, whoever made them
            # Past their first minute only rooms some process holds still count.
            assert await b.claim("m2") is None
            assert await a.rooms_of("10.0.0.9", 0.0) == (1, 1)
            await b.release("m2")
            assert await a.rooms_of("10.0.0.9", 0.0) == (0, 0)
            assert await a.rooms_of("10.0.0.9", 60.0) == (0, 0)  # forgotten for good
        finally:
            await a.close()
            await b.close()

    asyncio.run(run())
