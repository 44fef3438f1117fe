"""What every endpoint of a server shares: its store, rooms, limits, budgets and worker pools.

``create_app`` (:mod:`..app`) makes one ``Server`` and keeps it in ``app.state.server``; each
endpoint (:mod:`.api`, :mod:`.sockets`) reads it with :func:`server_of`. Nothing here knows a
route.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from importlib import resources
from pathlib import Path
from typing import Any, Final, TypeVar, cast

from starlette.requests import HTTPConnection, Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response

from weimaque.games import Reviewing, get_game
from weimaque.server.base import metrics
from weimaque.server.base.limits import Counter, Limits, RateLimiter, client_address
from weimaque.server.cluster.leases import Cluster, ClusterConfig, ClusterUnavailable
from weimaque.server.cluster.manager import OwnedElsewhere, RestoreBusy, RoomManager
from weimaque.server.edge.fairqueue import FairQueue
from weimaque.server.edge.remote import RemoteBots
from weimaque.server.edge.shell import VERSION_HEADER, shell_of
from weimaque.server.store import accounts
from weimaque.server.store.accounts import Player
from weimaque.server.store.persist import written
from weimaque.server.store.store import Store, StoreUnavailable
from weimaque.server.table import botpool
from weimaque.server.table.options import DEFAULT_GAME, quoted
from weimaque.server.table.rooms import Room

#: The bot behind 偎麻雀's 复盘: an iteration budget (``Limits.review_iters``), so a review is
#: the same every time; another game names its own reviewer at that budget
#: (``Reviewing.review_spec``, docs/new-game.md).
REVIEW_BOT: Final = "mcts:iters={iters}"
#: Reviews kept in memory (they are computed again when asked for after that).
REVIEWS_KEPT: Final = 256
#: A device's ``last_seen`` is written at most this often.
SEEN_EVERY: Final = 60.0
#: The most rooms a player's or a club's list shows.
MAX_LISTED: Final = 50
#: How long a read of 战绩 waits for the writes queued before it (``Server.read_booked``).
BOOKED_WAIT_SECONDS: Final = 2.0
#: The target of every guess at a transfer code: they share one budget, whatever the address.
TRANSFER_CODES: Final = "transfer-codes"
#: Set in a request's scope when its cookie holds a key that signs nobody in.
DEAD_COOKIE: Final = "weimaque.dead_cookie"
#: The Redis channel on which a process tells the others of a member removed from a club
#: ("{club id} {player id}"): the tables they own close that player's sockets too.
REMOVED_CHANNEL: Final = "wmq:club-removed"
#: Why a removed member's socket at a club table is closed.
REMOVED_REASON: Final = "removed from the club"

T = TypeVar("T")
log = logging.getLogger("weimaque.server")

_PLACEHOLDER: Final = """<!doctype html>
<html lang="zh"><head><meta charset="utf-8"><title>安乡偎麻雀</title></head>
<body><h1>安乡偎麻雀</h1><p>The web UI is not installed. The API is at /api/presets.</p></body>
</html>
"""


def web_dir() -> Path:
    """The folder of the static UI (``src/weimaque/web``)."""
    return Path(str(resources.files("weimaque") / "web"))


def error_response(status: int, code: str, message: str) -> JSONResponse:
    """An HTTP error: ``{"error": {"code", "message"}}`` (docs/protocol.md §1)."""
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status)


def over_rate(limiter: RateLimiter, address: str, what: str) -> JSONResponse | None:
    """Take a token of ``address``'s bucket; without one, the 429 to answer ("too many
    ``what``"), with its ``Retry-After``."""
    if limiter.allow(address):
        return None
    return too_many(limiter.retry_after(address), what)


def too_many(seconds: float, what: str) -> JSONResponse:
    """The 429 of a spent budget ("too many ``what``"), with its ``Retry-After``."""
    wait = max(1, int(seconds + 0.999))
    response = error_response(429, "rate_limited", f"too many {what}; retry in {wait} s")
    response.headers["retry-after"] = str(wait)
    return response


class Budget:
    """A budget per address: this process's own token buckets, or in a cluster the one set
    every process shares through Redis (so that N processes never give an address N times
    its share); without Redis, this process's buckets stand in."""

    def __init__(self, name: str, burst: float, interval: float, cluster: Cluster | None) -> None:
        """``burst`` tokens per address, one more every ``interval`` seconds."""
        self.name = name
        self.local = RateLimiter(int(burst), interval)
        self.cluster = cluster
        self.refused = metrics.RATE_LIMITED.labels(name)

    async def over(self, address: str, what: str) -> JSONResponse | None:
        """Take a token of ``address``: None, or the 429 to answer without one."""
        if self.cluster is not None:
            try:
                wait = await self.cluster.take(
                    self.name, address, self.local.burst, self.local.interval
                )
            except ClusterUnavailable:
                refused = over_rate(self.local, address, what)
            else:
                refused = None if wait is None else too_many(wait, what)
        else:
            refused = over_rate(self.local, address, what)
        if refused is not None:
            self.refused.inc()
        return refused

    async def forgive(self, address: str) -> None:
        """Give back the token ``address`` last took (it was no abuse)."""
        if self.cluster is not None:
            await self.cluster.give_back(self.name, address, self.local.burst, self.local.interval)
        else:
            self.local.forgive(address)


class Server:
    """One server's shared parts."""

    def __init__(
        self,
        store: Store,
        limits: Limits,
        web: Path | None = None,
        cluster: ClusterConfig | None = None,
        trusted: tuple[str, ...] = (),
    ) -> None:
        """The parts over ``store``, within ``limits``, with the browser UI of ``web`` (default
        :func:`web_dir`), a member of ``cluster`` (docs/scale.md) or alone, behind the
        ``trusted`` proxies; workers start on first use."""
        self.store = store
        #: The balancers and peers whose forwarding headers count (``--trust-proxy``); they,
        #: and loopback, may read ``/metrics``.
        self.trusted = trusted
        self.limits = limits
        self.cluster = None if cluster is None else Cluster(cluster)
        #: What else to close with the server (a relay's connections).
        self.closing: list[Callable[[], Awaitable[None]]] = []
        self.manager = RoomManager(store, limits=limits, cluster=self.cluster)
        #: Open sockets per address: players' and bots' count together.
        self.ws_per_address = Counter()
        self.remote = RemoteBots(self.manager, limits, self.ws_per_address)
        self.web = web if web is not None else web_dir()
        self.pool = botpool.configure(limits.bot_workers)
        shared = self.cluster
        self.requests = Budget("http", limits.http_burst, 1.0 / limits.http_rate, shared)
        self.room_budget = Budget("rooms", limits.room_burst, limits.room_interval, shared)
        # Secrets are guessed at most this fast per address (docs/protocol.md §7.6).
        self.guesses = Budget("guesses", limits.guess_burst, limits.guess_interval, shared)
        # ... and at most this fast per target however many addresses guess: per player (a
        # passkey answered wrongly) and for the transfer codes of all players together.
        self.target_guesses = Budget(
            "target-guesses", limits.target_guess_burst, limits.target_guess_interval, shared
        )
        self.player_budget = Budget("players", limits.player_burst, limits.player_interval, shared)
        self.invite_budget = Budget("invites", limits.invite_burst, limits.invite_interval, shared)
        #: When each device was last written as seen (``player_keys.last_seen``).
        self.seen: dict[str, float] = {}
        #: Open sockets per signed-in player (a club shows its members online by it).
        self.online: dict[str, int] = {}
        # One budget for all the sockets of an address: many sockets are no way around the rate.
        self.address_budget = RateLimiter(limits.ws_address_burst, 1.0 / limits.ws_address_rate)
        #: The rooms each address created that are not over, for the per-address caps.
        self.created_by: dict[str, set[str]] = {}
        # 复盘 costs seconds of search: it runs in a process of its own (never on the event
        # loop's interpreter lock, never in the bots' pool), one review at a time, the addresses
        # that wait served in turn, each with a budget of its own (docs/protocol.md §6); the
        # last REVIEWS_KEPT results are kept and served to anyone.
        self.review_pool = botpool.BotPool(1)
        self.reviews: FairQueue[tuple[str, int, int], dict[str, Any]] = FairQueue(
            self._compute_review,
            limits.reviews_per_address,
            limits.reviews_waiting,
            REVIEWS_KEPT,
            what="reviews",
        )

    async def _compute_review(
        self, key: tuple[str, int, int], record: dict[str, Any]
    ) -> dict[str, Any]:
        named = record.get("game")
        game = get_game(named if isinstance(named, str) else DEFAULT_GAME)
        budget = self.limits.review_iters
        if isinstance(game, Reviewing):
            bot = game.review_spec(budget)
        else:
            bot = REVIEW_BOT.format(iters=budget)
        return await self.review_pool.review(record, key[2], bot)

    def index_response(self) -> Response:
        """The page of the browser UI (every page is drawn by it), saying the shell's version:
        a service worker holding another fetches this page's files anew (docs/web.md)."""
        index = self.web / "index.html"
        if index.is_file():
            headers = {VERSION_HEADER: shell_of(self.web).version}
            return FileResponse(index, media_type="text/html", headers=headers)
        return HTMLResponse(_PLACEHOLDER)

    async def room_or_404(self, request: Request) -> Room | JSONResponse:
        """The room of the path's ``room_id`` (restored if it left memory), or the error; a
        club's table is no room to anyone but its members (docs/protocol.md §7.5)."""
        room_id = str(request.path_params["room_id"])
        try:
            room = await self.manager.fetch(room_id) if len(room_id) <= 64 else None
        except RestoreBusy as exc:
            return error_response(503, "busy", str(exc))
        except (OwnedElsewhere, ClusterUnavailable) as exc:
            # The balancer's router relays a room held elsewhere; this is the moment between.
            message = f"the room is moving between servers ({exc}); try again"
            return error_response(503, "busy", message)
        if room is None or not await self.may_see(request, room):
            return error_response(404, "room_not_found", f"no room {quoted(room_id)}")
        return room

    # ----------------------------------------------------------------- players

    async def read(self, query: Callable[[Any], T]) -> T:
        """A read of the store, on a thread of its own (the disk never holds up the loop)."""
        return await asyncio.to_thread(self.store.read, query)

    async def read_booked(self, query: Callable[[Any], T]) -> T:
        """A read of what the tables book (战绩, totals, leaderboards): it first waits, up to
        ``BOOKED_WAIT_SECONDS``, for the writes this server queued before it, so a player told
        of a hand's end finds the hand there (docs/protocol.md §7.3); a store that cannot write
        delays it no longer than that."""
        with contextlib.suppress(TimeoutError, StoreUnavailable):
            await asyncio.wait_for(written(self.store.barrier()), BOOKED_WAIT_SECONDS)
        return await self.read(query)

    async def lookup(self, query: Callable[[Any], T]) -> T:
        """A read of a row or two by key: on the loop itself where the store answers it at
        once (a local SQLite file, docs/protocol.md §4), else on a thread (``read``)."""
        if self.store.inline_reads:
            return self.store.lookup(query)
        return await self.read(query)

    async def guessed(self, connection: HTTPConnection) -> JSONResponse | None:
        """Count a guess at a secret (docs/protocol.md §7.6): the 429 to answer once the
        address has none left."""
        return await self.guesses.over(client_address(connection.scope), "wrong codes or keys")

    async def guessed_at(self, target: str) -> JSONResponse | None:
        """Count a guess at ``target`` (a player's id, or ``TRANSFER_CODES``) whatever address
        made it (docs/protocol.md §7.6): the 429 once the target has none left."""
        return await self.target_guesses.over(target, "wrong guesses at this account")

    async def right_guess(self, connection: HTTPConnection, target: str | None = None) -> None:
        """A guess that was right gives its tokens back (the address's, and the target's)."""
        await self.guesses.forgive(client_address(connection.scope))
        if target is not None:
            await self.target_guesses.forgive(target)

    async def player_of(self, connection: HTTPConnection) -> Player | JSONResponse | None:
        """The signed-in player of a request or socket (``Authorization: Bearer KEY``, else
        the cookie); None for a guest; a 429 for an address that has spent its guesses (a
        wrong key is one)."""
        header = connection.headers.get("authorization", "")
        key = header[7:].strip() if header[:7].lower() == "bearer " else None
        if key is None:
            key = connection.cookies.get(accounts.COOKIE)
        if not key:
            return None
        found = None
        if accounts.is_key(key):
            digest = accounts.digest(key)
            found = await self.lookup(lambda db: accounts.player_of_key(db, digest))
        if found is None:
            # A wrong key is a guess; a browser's (a device signed out elsewhere) is also
            # to be dropped, which the answer asking for a player does (``DEAD_COOKIE``).
            if header[:7].lower() != "bearer ":
                connection.scope[DEAD_COOKIE] = True
            return await self.guessed(connection)
        now = time.time()
        if now - self.seen.get(found.device, 0.0) >= SEEN_EVERY:
            if len(self.seen) > 100_000:
                self.seen.clear()
            self.seen[found.device] = now
            self.store.write_later(lambda db: accounts.seen(db, found.device, now))
        return found

    async def rooms_named(self, ids: list[str], keep: Callable[[Room], bool]) -> list[Room]:
        """The rooms of ``ids`` (restored where they left memory) that ``keep`` keeps, at most
        ``MAX_LISTED`` (a room being restored is left out rather than waited on past that)."""
        found: list[Room] = []
        for room_id in ids[:MAX_LISTED]:
            try:
                room = await self.manager.fetch(room_id)
            except RestoreBusy:
                continue
            except OwnedElsewhere:
                # Played by another process: listed as the store has it.
                room = await asyncio.to_thread(self.manager.build, room_id)
            except ClusterUnavailable:
                continue
            if room is not None and keep(room):
                found.append(room)
        return found

    async def may_see(self, connection: HTTPConnection, room: Room) -> bool:
        """Whether the asker may see the room: any room but a club's, which only its members
        (not those waiting for approval) see."""
        club = room.table.opts.club
        if club is None:
            return True
        player = await self.player_of(connection)
        if not isinstance(player, Player):
            return False
        role = await self.read(lambda db: accounts.role_of(db, club, player.id))
        return role is not None and role != "pending"

    def live_rooms(self, address: str) -> list[Room]:
        """The rooms ``address`` created that are in memory and not over."""
        ids = self.created_by.get(address, set())
        live = []
        for room_id in list(ids):
            room = self.manager.rooms.get(room_id)
            if room is None or room.table.status == "over":
                ids.discard(room_id)  # over, or left memory (where it plays no more)
            else:
                live.append(room)
        if not ids:
            self.created_by.pop(address, None)
        return live

    async def made_room(self, address: str, room: Room, bots_only: bool) -> None:
        """``address`` made ``room`` (or turned it into a table of bots only): counted for
        ``too_many_rooms``, in a cluster by every process."""
        self.created_by.setdefault(address, set()).add(room.id)
        if self.cluster is not None:
            with contextlib.suppress(ClusterUnavailable):
                await self.cluster.made(address, room.id, bots_only)

    async def too_many_rooms(self, address: str, bots_only: bool) -> JSONResponse | None:
        """429 when ``address`` has its share of rooms (of rooms of bots only, ``bots_only``):
        rooms not over in this process's memory, or in a cluster, rooms in play on any
        process (docs/scale.md)."""
        limits = self.limits
        live = self.live_rooms(address)
        rooms, bots = len(live), sum(r.seating.all_bots() for r in live)
        if self.cluster is not None:
            with contextlib.suppress(ClusterUnavailable):
                shared = await self.cluster.rooms_of(address, limits.idle_evict)
                rooms, bots = max(rooms, shared[0]), max(bots, shared[1])
        if rooms >= limits.rooms_per_address:
            message = f"at most {limits.rooms_per_address} rooms per address that are not over"
            return error_response(429, "rate_limited", message)
        if bots_only and bots >= limits.bot_rooms_per_address:
            message = (
                f"at most {limits.bot_rooms_per_address} rooms of bots only per address "
                "that are not over"
            )
            return error_response(429, "rate_limited", message)
        return None

    def leave_club_tables(self, club_id: str, player_id: str) -> int:
        """A member removed from a club leaves its tables in this process: their sockets there
        close, and each seat they hold goes as a departing player's does (docs/protocol.md
        §7.5): 托管 plays it at once in a hand, and it is freed between hands (a player who
        left gets it back no more: the table is no room to them now). How many sockets
        closed."""
        closed = 0
        for room in list(self.manager.rooms.values()):
            if room.table.opts.club != club_id:
                continue
            for conn in list(room.seating.conns):
                if conn.player is not None and conn.player[0] == player_id:
                    conn.client.fail(REMOVED_REASON)
                    closed += 1
            for k, seat in enumerate(room.seating.seats):
                if seat.player != player_id or seat.token is None:
                    continue
                if room.table.hand is None:
                    room.free_seat(k)
                else:
                    seat.autoplay = seat.ready = True
                    seat.away = False
                    room.out.room_changed()
                    room.auto.wake()
        return closed

    async def removed_from_club(self, club_id: str, player_id: str) -> None:
        """``leave_club_tables`` here and, in a cluster, on every other process."""
        self.leave_club_tables(club_id, player_id)
        if self.cluster is not None:
            with contextlib.suppress(ClusterUnavailable):
                call = self.cluster.redis.publish(REMOVED_CHANNEL, f"{club_id} {player_id}")
                await self.cluster._guarded(call)

    async def listen_for_removals(self) -> None:
        """In a cluster: apply the removals other processes publish, until cancelled (a lost
        connection to Redis is made again)."""
        assert self.cluster is not None
        while True:
            try:
                pubsub = self.cluster.redis.pubsub()
                await pubsub.subscribe(REMOVED_CHANNEL)
                try:
                    while True:
                        message = await pubsub.get_message(
                            ignore_subscribe_messages=True, timeout=0.1
                        )
                        if message is not None and message.get("type") == "message":
                            club_id, _, player_id = str(message["data"]).partition(" ")
                            self.leave_club_tables(club_id, player_id)
                finally:
                    with contextlib.suppress(Exception):
                        await pubsub.aclose()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # Redis away: listened for again once it answers
                log.debug("cluster: removals channel: %s: %s", type(exc).__name__, exc)
                await asyncio.sleep(1.0)

    def arrived(self, player_id: str) -> None:
        """A socket of the signed-in ``player_id`` opened (``online``; in a cluster every
        process is told, docs/scale.md)."""
        self.online[player_id] = self.online.get(player_id, 0) + 1
        if self.cluster is not None:
            self.cluster.arrived(player_id)

    def left(self, player_id: str) -> None:
        """A socket of the signed-in ``player_id`` closed."""
        count = self.online.pop(player_id, 1) - 1
        if count > 0:
            self.online[player_id] = count
        if self.cluster is not None:
            self.cluster.left(player_id)

    async def online_among(self, player_ids: list[str]) -> set[str]:
        """The players of ``player_ids`` with a socket open: to this process, or in a cluster
        to any (from Redis; this process's own when Redis cannot say)."""
        here = {p for p in player_ids if self.online.get(p, 0) > 0}
        if self.cluster is not None:
            with contextlib.suppress(ClusterUnavailable):
                return here | await self.cluster.online_among(player_ids)
        return here

    def store_failing(self) -> JSONResponse | None:
        """503 while the store cannot write."""
        if self.store.failing is None:
            return None
        message = f"the store cannot write: {self.store.failing}"
        return error_response(503, "storage_unavailable", message)

    async def close(self) -> None:
        """Stop the rooms, the workers and the store."""
        await self.manager.close()
        for close in self.closing:
            await close()
        self.pool.close()
        await self.reviews.close()
        self.review_pool.close()
        self.store.close()


def server_of(connection: HTTPConnection) -> Server:
    """The ``Server`` of a request's or a socket's app."""
    return cast(Server, connection.app.state.server)


__all__ = [
    "DEAD_COOKIE",
    "REVIEW_BOT",
    "TRANSFER_CODES",
    "Server",
    "error_response",
    "over_rate",
    "server_of",
    "web_dir",
]
