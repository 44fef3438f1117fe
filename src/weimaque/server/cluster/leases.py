"""Many server processes, one owner per room: leases in Redis (docs/scale.md).

A live room is played by exactly one process at a time, its *owner*. Ownership is a lease: the
Redis key ``wmq:room:{id}`` holds ``"{node} {url}"`` (the owner's random node id and the address
its peers reach it at) with an expiry of ``lease_seconds`` that the owner renews three times a
lease. The owner acts for the room only while it knows its lease to be alive: it counts the
lease from the moment it *sent* the renewal that Redis answered, less a tenth for the drift of
the clocks, so that Redis always forgets a lease after its owner has stopped trusting it.

A renewal that finds the key gone or someone else's means the room was (or may have been) taken
over: the process drops the room at once, closing its sockets (the clients reconnect through the
load balancer and reach the new owner); nothing of it is kept, so a process never acts on a room
from memory that another process may have moved on. A renewal that cannot reach Redis leaves the
lease to run out: the room then waits (``storage_unavailable``, as for a store that cannot
write) until a renewal gets through, or drops it when the lease turns out lost.

Rate limits that count per address are shared here too (:class:`SharedLimits`): N processes
never give an address N times its budget. So is who is online (a club shows its members so):
each process says which signed-in players have a socket open to it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from weimaque.server.base.periodic import every

if TYPE_CHECKING:
    from redis.asyncio import Redis

log = logging.getLogger("weimaque.server")

#: Rooms renewed per call to Redis (one script call renews many leases).
RENEW_CHUNK: Final = 500

#: The lobby's entries (room id → the room's public information as JSON) and when each was
#: last written (a sorted set: room id → Unix milliseconds). An entry not written again for
#: ``LOBBY_LEASES`` leases is gone (its process is).
LOBBY: Final = "wmq:lobby"
LOBBY_AT: Final = "wmq:lobby:at"
LOBBY_LEASES: Final = 3

_CLAIM: Final = """
local held = redis.call('GET', KEYS[1])
if not held then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return ARGV[1]
end
if held == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return held
"""

_RENEW: Final = """
local kept = {}
for i, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[1] then
    redis.call('PEXPIRE', key, ARGV[2])
    kept[i] = 1
  else
    kept[i] = 0
  end
end
return kept
"""

_RELEASE: Final = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""

#: A token bucket per key, on Redis's own clock: {allowed (0/1), milliseconds until a token}.
_TAKE: Final = """
local burst = tonumber(ARGV[1])
local interval = tonumber(ARGV[2])
local give = tonumber(ARGV[3])
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local found = redis.call('HMGET', KEYS[1], 'tokens', 'since')
local tokens = tonumber(found[1]) or burst
local since = tonumber(found[2]) or now
if interval > 0 then
  tokens = math.min(burst, tokens + (now - since) / interval)
end
local allowed = 0
if give > 0 then
  tokens = math.min(burst, tokens + give)
elseif tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'since', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil(burst * interval) + 1000)
local wait = 0
if tokens < 1 then
  wait = math.ceil((1 - tokens) * interval)
end
return {allowed, wait}
"""


def lease_key(room_id: str) -> str:
    """The Redis key of a room's lease."""
    return f"wmq:room:{room_id}"


def online_key(player_id: str) -> str:
    """The Redis hash saying which processes a player has a socket open to: process node →
    when it last said so (Unix milliseconds)."""
    return f"wmq:online:{player_id}"


@dataclass(frozen=True)
class ClusterConfig:
    """How a process joins a cluster: Redis, the address its peers reach it at, the lease."""

    redis_url: str
    node_url: str
    lease_seconds: float = 3.0


class ClusterUnavailable(Exception):
    """Redis cannot be reached: no room can be claimed now."""


@dataclass(slots=True)
class LeaseStats:
    """What this process's leases did since it started (read by the metrics)."""

    #: Rooms whose lease this process took (a claim that found it free or its own).
    claimed: int = 0
    #: Leases renewed (one per room per renewal that Redis answered).
    renewed: int = 0
    #: Leases found gone or another's at a renewal: their rooms were dropped.
    lost: int = 0


@dataclass
class Cluster:
    """This process's leases, and the claims of rooms it does not hold yet."""

    config: ClusterConfig
    #: Called with a room id (on the loop) when its lease is found lost: drop the room.
    on_lost: Callable[[str], None] = lambda room_id: None
    node: str = field(default_factory=lambda: secrets.token_hex(8))
    #: Rooms this process holds, and until when (``time.monotonic``) it may act for each.
    until: dict[str, float] = field(default_factory=dict)
    #: Why Redis could not be reached last (None: it answered).
    failing: str | None = None
    #: The lobby entries of the rooms this process holds (room id → JSON), written to Redis
    #: with every renewal so that every process lists every process's rooms.
    listing: Callable[[], dict[str, str]] = dict
    #: The signed-in players with a socket open to this process (player id → sockets), whom
    #: every process shows online (:meth:`online_among`).
    present: dict[str, int] = field(default_factory=dict)
    #: Counts of the leases taken, renewed and lost.
    stats: LeaseStats = field(default_factory=LeaseStats)
    _redis: Redis | None = None
    _task: asyncio.Task[None] | None = None
    _tasks: set[asyncio.Task[None]] = field(default_factory=set)

    @property
    def me(self) -> str:
        """This process's lease value."""
        return f"{self.node} {self.config.node_url}"

    @property
    def lease_ms(self) -> int:
        return max(100, int(self.config.lease_seconds * 1000))

    def _trust(self, sent: float) -> float:
        """Until when a lease renewed by a request sent at ``sent`` may be trusted."""
        return sent + 0.9 * self.config.lease_seconds

    @property
    def redis(self) -> Redis:
        if self._redis is None:
            import redis.asyncio as aioredis

            timeout = max(0.2, self.config.lease_seconds / 3)
            self._redis = aioredis.from_url(
                self.config.redis_url,
                socket_timeout=timeout,
                socket_connect_timeout=timeout,
                decode_responses=True,
            )
        return self._redis

    async def _call(self, script: str, keys: list[str], args: list[Any]) -> Any:
        return await self._guarded(self.redis.eval(script, len(keys), *keys, *args))

    async def _guarded(self, call: Awaitable[Any]) -> Any:
        """Await a Redis call; keep ``failing`` up to date; ``ClusterUnavailable`` on failure."""
        from redis.exceptions import RedisError

        try:
            found = await call
        except (RedisError, OSError) as exc:
            reason = f"Redis: {type(exc).__name__}: {exc}"
            if self.failing is None:
                log.warning("cluster: %s", reason)
            self.failing = reason
            raise ClusterUnavailable(reason) from exc
        if self.failing is not None:
            log.info("cluster: Redis answers again")
            self.failing = None
        return found

    # ----------------------------------------------------------------- leases

    async def claim(self, room_id: str) -> str | None:
        """Take the room's lease unless another process holds it: None when this process holds
        it now, else the holder's URL. Raise ``ClusterUnavailable`` without Redis."""
        sent = time.monotonic()
        held = str(await self._call(_CLAIM, [lease_key(room_id)], [self.me, self.lease_ms]))
        if held == self.me:
            if room_id not in self.until:
                self.stats.claimed += 1
            self.until[room_id] = self._trust(sent)
            return None
        self.until.pop(room_id, None)
        return held.split(" ", 1)[1] if " " in held else held

    async def owner(self, room_id: str) -> str | None:
        """The URL of the room's owner, if any (a read: nothing is claimed)."""
        held = await self._guarded(self.redis.get(lease_key(room_id)))
        return None if held is None else str(held).split(" ", 1)[-1]

    def refusal(self, room_id: str) -> str | None:
        """Why this process may not act for the room now (None: it may)."""
        until = self.until.get(room_id)
        if until is None:
            return "this server no longer holds the room"
        if time.monotonic() >= until:
            why = self.failing or "Redis did not answer in time"
            return f"the room's lease could not be renewed ({why})"
        return None

    async def release(self, room_id: str) -> None:
        """Give the room's lease back (it left this process's memory)."""
        if self.until.pop(room_id, None) is None:
            return
        with contextlib.suppress(ClusterUnavailable):
            await self._call(_RELEASE, [lease_key(room_id)], [self.me])
            await self._unlist([room_id])

    async def renew(self) -> None:
        """Renew every lease held; drop the rooms whose lease is gone or another's."""
        rooms = list(self.until)
        for start in range(0, len(rooms), RENEW_CHUNK):
            chunk = rooms[start : start + RENEW_CHUNK]
            sent = time.monotonic()
            try:
                kept = await self._call(
                    _RENEW, [lease_key(r) for r in chunk], [self.me, self.lease_ms]
                )
            except ClusterUnavailable:
                return  # the leases run out; the rooms wait (``refusal``)
            for room_id, ok in zip(chunk, kept, strict=True):
                if room_id not in self.until:
                    continue  # released meanwhile
                if ok:
                    self.until[room_id] = self._trust(sent)
                    self.stats.renewed += 1
                else:
                    del self.until[room_id]
                    self.stats.lost += 1
                    log.warning("room %s: its lease is lost; dropped", room_id)
                    self.on_lost(room_id)
        with contextlib.suppress(ClusterUnavailable):
            await self.publish()
        with contextlib.suppress(ClusterUnavailable):
            await self.show_present()

    # ----------------------------------------------------------------- the lobby

    async def publish(self) -> None:
        """Write this process's lobby entries; forget every process's stale ones."""
        entries = {k: v for k, v in self.listing().items() if k in self.until}
        now = int(time.time() * 1000)
        stale = now - int(LOBBY_LEASES * self.config.lease_seconds * 1000)
        async with self.redis.pipeline(transaction=False) as pipe:
            if entries:
                mapping: dict[Any, Any] = dict(entries)
                pipe.hset(LOBBY, mapping=mapping)
                pipe.zadd(LOBBY_AT, dict.fromkeys(entries, now))
            pipe.zrangebyscore(LOBBY_AT, 0, stale)
            done = await self._guarded(pipe.execute())
        gone = [str(k) for k in done[-1]]
        if gone:
            await self._unlist(gone)

    async def _unlist(self, room_ids: list[str]) -> None:
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.hdel(LOBBY, *room_ids)
            pipe.zrem(LOBBY_AT, *room_ids)
            await self._guarded(pipe.execute())

    async def lobby(self) -> dict[str, str]:
        """Every process's lobby entries (room id → JSON) that are fresh."""
        stale = int(time.time() * 1000) - int(LOBBY_LEASES * self.config.lease_seconds * 1000)
        ids = await self._guarded(self.redis.zrangebyscore(LOBBY_AT, stale, "+inf"))
        if not ids:
            return {}
        found = await self._guarded(self.redis.hmget(LOBBY, ids))
        return {str(k): str(v) for k, v in zip(ids, found, strict=True) if v is not None}

    def start(self) -> None:
        """Renew the leases in the background (inside the running loop)."""
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._renew_forever())

    async def _renew_forever(self) -> None:
        await every(self.config.lease_seconds / 3, self.renew, "cluster: renewal")

    async def ping(self) -> str | None:
        """Whether Redis answers: None, else why not."""
        try:
            await self._guarded(self.redis.ping())
        except ClusterUnavailable as exc:
            return str(exc)
        return None

    async def close(self) -> None:
        """Stop renewing and give every lease back."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
            self._task = None
        for room_id in list(self.until):
            await self.release(room_id)
        for task in list(self._tasks):
            task.cancel()
        if self.present:  # nobody is online here any more
            with contextlib.suppress(ClusterUnavailable):
                async with self.redis.pipeline(transaction=False) as pipe:
                    for player_id in self.present:
                        pipe.hdel(online_key(player_id), self.node)
                    await self._guarded(pipe.execute())
            self.present.clear()
        if self._redis is not None:
            with contextlib.suppress(Exception):
                await self._redis.aclose()
            self._redis = None

    # ----------------------------------------------------------------- who is online

    def arrived(self, player_id: str) -> None:
        """A socket of a signed-in player opened here (counted in ``present``); with its first
        one, every process is told at once (in the background: a socket never waits on it)."""
        self.present[player_id] = self.present.get(player_id, 0) + 1
        if self.present[player_id] == 1:
            self._background(self._show([player_id]))

    def left(self, player_id: str) -> None:
        """A socket of a signed-in player closed here; with its last one, this process no
        longer shows the player online (another process may still)."""
        count = self.present.pop(player_id, 1) - 1
        if count > 0:
            self.present[player_id] = count
            return
        self._background(self._guarded(self.redis.hdel(online_key(player_id), self.node)))

    def _background(self, call: Awaitable[Any]) -> None:
        async def run() -> None:
            with contextlib.suppress(ClusterUnavailable):
                await call

        task = asyncio.get_running_loop().create_task(run())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def show_present(self) -> None:
        """Say again (with every renewal) that this process's present players are online."""
        if self.present:
            await self._show(list(self.present))

    async def _show(self, player_ids: list[str]) -> None:
        now = int(time.time() * 1000)
        keep = int(LOBBY_LEASES * self.config.lease_seconds * 1000)
        async with self.redis.pipeline(transaction=False) as pipe:
            for player_id in player_ids:
                pipe.hset(online_key(player_id), self.node, now)
                pipe.pexpire(online_key(player_id), keep)
            await self._guarded(pipe.execute())

    async def online_among(self, player_ids: list[str]) -> set[str]:
        """The players of ``player_ids`` with a socket open to any process: one said so within
        ``LOBBY_LEASES`` leases (a process that died without a word stops counting then).
        Raise ``ClusterUnavailable`` without Redis."""
        if not player_ids:
            return set()
        stale = int(time.time() * 1000) - int(LOBBY_LEASES * self.config.lease_seconds * 1000)
        async with self.redis.pipeline(transaction=False) as pipe:
            for player_id in player_ids:
                pipe.hvals(online_key(player_id))
            found = await self._guarded(pipe.execute())
        return {
            player_id
            for player_id, stamps in zip(player_ids, found, strict=True)
            if any(int(stamp) >= stale for stamp in stamps)
        }

    # ----------------------------------------------------------------- shared budgets

    async def made(self, address: str, room_id: str, bots_only: bool) -> None:
        """Count a room ``address`` made (or turned into a table of bots only)."""
        key = f"wmq:made:{address}"
        value = f"{int(time.time() * 1000)} {int(bots_only)}"
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.hset(key, room_id, value)
            pipe.expire(key, 7 * 24 * 3600)
            await self._guarded(pipe.execute())

    async def rooms_of(self, address: str, recent: float) -> tuple[int, int]:
        """How many rooms ``address`` made are in play somewhere, and how many of them are
        tables of bots only: a room counts while a process holds its lease, or for ``recent``
        seconds after it was made (it waits then for its first player's process). The others
        are forgotten."""
        key = f"wmq:made:{address}"
        made = await self._guarded(self.redis.hgetall(key))
        if not made:
            return 0, 0
        ids = list(made)
        async with self.redis.pipeline(transaction=False) as pipe:
            for room_id in ids:
                pipe.exists(lease_key(room_id))
            held = await self._guarded(pipe.execute())
        since = time.time() * 1000 - recent * 1000
        rooms = bots = 0
        gone = []
        for room_id, alive in zip(ids, held, strict=True):
            at, _, flag = str(made[room_id]).partition(" ")
            if alive or float(at) >= since:
                rooms += 1
                bots += flag == "1"
            else:
                gone.append(room_id)
        if gone:
            await self._guarded(self.redis.hdel(key, *gone))
        return rooms, bots

    async def take(self, name: str, key: str, burst: float, interval: float) -> float | None:
        """Take a token of the bucket ``name`` of ``key`` (shared by every process): None when
        taken, else the seconds until one is there. Without Redis the caller's own bucket is
        asked instead (``ClusterUnavailable``)."""
        found = await self._call(
            _TAKE, [f"wmq:rate:{name}:{key}"], [burst, int(interval * 1000), 0]
        )
        allowed, wait = int(found[0]), int(found[1])
        return None if allowed else wait / 1000

    async def give_back(self, name: str, key: str, burst: float, interval: float) -> None:
        """Give a token of ``name`` back to ``key``."""
        with contextlib.suppress(ClusterUnavailable):
            await self._call(_TAKE, [f"wmq:rate:{name}:{key}"], [burst, int(interval * 1000), 1])


__all__ = [
    "Cluster",
    "ClusterConfig",
    "ClusterUnavailable",
    "LeaseStats",
    "lease_key",
    "online_key",
]
