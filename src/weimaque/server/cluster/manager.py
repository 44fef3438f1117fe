"""All the rooms of a server: created, looked up, and restored from the store after a restart.

A room restored while the server runs (it had left memory) is rebuilt in a thread, one at a time
(:meth:`RoomManager.fetch`): replaying a long match never holds up the other rooms.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Callable
from typing import Any

import orjson

from weimaque.server.base.limits import Limits
from weimaque.server.base.periodic import every
from weimaque.server.cluster.leases import Cluster
from weimaque.server.store import accounts
from weimaque.server.store.store import FIRST_EPOCH, Store, StoredRoom, StoreUnavailable
from weimaque.server.table.options import RoomOptions
from weimaque.server.table.rooms import Room
from weimaque.server.table.seats import Seat, hash_token, new_token, stored_hash
from weimaque.server.table.table import Setup
from weimaque.server.wire.common import SeatId

log = logging.getLogger("weimaque.server")

#: Rooms with a match to replay waiting to be restored at once (more are answered "busy":
#: they are asked again later). A room with no finished hand costs no replay and never waits.
RESTORES_WAITING = 16
#: Actions of a hand in progress past which a room counts as a match to replay.
CHEAP_ACTIONS = 200


class RoomManager:
    """All rooms of a server, created, looked up and restored from the store."""

    def __init__(
        self,
        store: Store | None = None,
        new_id: Callable[[], str] | None = None,
        limits: Limits | None = None,
        cluster: Cluster | None = None,
    ) -> None:
        """A manager over an optional store, of the rooms whose leases ``cluster`` holds
        (docs/scale.md; None: every room of the store is this process's)."""
        self.store = store
        self.cluster = cluster
        if cluster is not None:
            cluster.on_lost = self.drop
            cluster.listing = self.listing
        self.rooms: dict[str, Room] = {}
        self._new_id = new_id or (lambda: secrets.token_urlsafe(6))
        self.limits = limits or Limits()
        #: When each room was last seen without connections, and each seat without its player.
        self._idle: dict[str, float] = {}
        self._absent: dict[tuple[str, SeatId], float] = {}
        self._sweeper: asyncio.Task[None] | None = None
        #: Rooms being restored in a thread, and the one restore that runs at a time.
        self._restoring: dict[str, asyncio.Future[Room | None]] = {}
        self._restore_slot = asyncio.Semaphore(1)
        #: Restores that replay a match, waiting for the slot or in it.
        self._replaying = 0
        #: Leases being given back, of rooms a newer owner took (kept until done).
        self._releases: set[asyncio.Task[None]] = set()

    async def open(self, opts: RoomOptions) -> Room:
        """Create a room (``create``), in a cluster under a lease taken first; raise
        ``ClusterUnavailable`` when no lease can be taken."""
        if self.cluster is None:
            return self.create(opts)
        room_id = self._new_id()
        while room_id in self.rooms or await self.cluster.claim(room_id) is not None:
            room_id = self._new_id()
        try:
            return self.create(opts, room_id)
        except BaseException:
            await self.cluster.release(room_id)
            raise

    async def hand_off(self, room: Room) -> None:
        """In a cluster, let a new room go once it is stored: its players' requests go where
        the load balancer sends the room's id, and the process there restores it. A table of
        bots, which plays with nobody connected, and a public room, which the lobby lists from
        its owner's entries, stay."""
        if self.cluster is None or room.conns or room.seating.all_bots() or room.opts.public:
            return
        if self.rooms.get(room.id) is not room:
            return
        await room.recorder.written()
        if room.conns or self.rooms.get(room.id) is not room:
            return
        del self.rooms[room.id]
        await room.close()
        await self.cluster.release(room.id)

    def listing(self) -> dict[str, str]:
        """The lobby entries of this process's rooms that are not over (no club's table):
        room id → JSON of when it was made, whether it is public, and its information."""
        return {
            room.id: orjson.dumps(
                {"created": room.table.created, "public": room.opts.public, "info": room.info()}
            ).decode()
            for room in self.rooms.values()
            if room.status != "over" and room.opts.club is None
        }

    def holds(self, room_id: str) -> bool:
        """Whether the room is in this process's memory (or being restored into it)."""
        return room_id in self.rooms or room_id in self._restoring

    def drop(self, room_id: str) -> None:
        """Forget a room at once (its lease is lost: another process may play it now). Its
        sockets are closed, and its clients connect again, through the balancer, to the room's
        new owner; nothing it did after the lease was lost was acknowledged."""
        room = self.rooms.pop(room_id, None)
        self._idle.pop(room_id, None)
        if room is None:
            return
        for conn in list(room.conns):
            conn.client.fail("the room moved to another server")
        room.stop()

    def _guard(self, room: Room, epoch: int | None) -> None:
        """In a cluster, the room writes only while this process holds its lease, and every
        write names ``epoch``, the room's owner's number: the store refuses it once a newer
        owner took the room, and the room is then let go (docs/scale.md)."""
        cluster = self.cluster
        if cluster is not None:
            room_id = room.id
            room.recorder.guard = lambda: cluster.refusal(room_id)
            # A room built only to be listed holds no epoch: the store would refuse its writes.
            room.recorder.epoch = 0 if epoch is None else epoch
            room.recorder.on_fenced = lambda: self._fenced(room)

    def _fenced(self, room: Room) -> None:
        """The store refused a write of ``room``: another process took it (its epoch is newer).
        Nothing more of it is played here; its lease, if still this process's, is given back."""
        if self.rooms.get(room.id) is not room:
            return  # let go already (or a newer restore of it is kept)
        log.warning("room %s: a newer owner took it (a write was refused); dropped", room.id)
        self.drop(room.id)
        if self.cluster is not None:
            task = asyncio.get_running_loop().create_task(self.cluster.release(room.id))
            self._releases.add(task)
            task.add_done_callback(self._releases.discard)

    def create(self, opts: RoomOptions, room_id: str | None = None) -> Room:
        """Create a room from checked options; raise ``RoomError`` for bad rules or bots."""
        setup = Setup.of(opts)  # the game, its rules and bots checked (RoomError)
        # A live room's seeds come from the OS CSPRNG; a chosen seed makes a practice room.
        seed = opts.seed if opts.seed is not None else secrets.randbits(63)
        if room_id is None:
            room_id = self._new_id()
            while room_id in self.rooms:
                room_id = self._new_id()
        room = Room(room_id, opts, seed, self.store, setup=setup)
        self._guard(room, FIRST_EPOCH)
        room.table.unattended_delay = self.limits.unattended_delay_ms / 1000
        room.table.rest_seconds = self.limits.rest_seconds
        room.recorder.created(opts.to_json(), room.seating.to_store(), setup.rules_info(), seed)
        self.rooms[room_id] = room
        room.start()
        room.hands.maybe_deal()  # three bots: play at once
        return room

    def issue_keys(self, room: Room) -> dict[str, str | None]:
        """The creator's token (frees seats) and the 守醒 invitation, shown once, kept hashed."""
        creator = new_token()
        # the 守醒 of a table of four persons is whoever sits out: no invitation (RULES §2.1.1)
        invite = new_token() if room.shouxing is not None and room.seating.persons is None else None
        room.creator = hash_token(creator)
        room.invite = None if invite is None else hash_token(invite)
        room.recorder.keys(room.creator, room.invite)
        return {"creator_token": creator, "shouxing_invite": invite}

    def get(self, room_id: str) -> Room | None:
        """A room by id (restored from the store on first use)."""
        room = self.rooms.get(room_id)
        if room is None and self.store is not None and self.cluster is None:
            room = self.restore(room_id)
            if room is not None and self._sweeper is not None:
                # Back from the store while the server runs (it had left memory): play on.
                room.start()
                room.hands.maybe_deal()
        return room

    async def fetch(self, room_id: str) -> Room | None:
        """A room by id; one that left memory is rebuilt in a thread, never on the event loop.

        Restores run one at a time; asking for a room being restored waits for that restore.
        Raise ``RestoreBusy`` when too many rooms wait to be restored; in a cluster,
        ``OwnedElsewhere`` for a room another process holds and ``ClusterUnavailable`` when
        Redis cannot say.
        """
        room = self.rooms.get(room_id)
        if room is not None or self.store is None:
            return room
        cluster = self.cluster
        if cluster is not None and room_id not in self._restoring and room_id not in cluster.until:
            owner = await cluster.claim(room_id)
            if owner is not None and owner != cluster.config.node_url:
                raise OwnedElsewhere(owner)
        running = self._restoring.get(room_id)
        if running is None:
            running = asyncio.ensure_future(self._restore_in_thread(room_id))
            self._restoring[room_id] = running
            running.add_done_callback(lambda _: self._restoring.pop(room_id, None))
        return await asyncio.shield(running)

    async def _restore_in_thread(self, room_id: str) -> Room | None:
        assert self.store is not None
        epoch = None
        if self.cluster is not None:
            # Taken in the store before it is read: every write of an earlier owner is then
            # either read here or refused (docs/scale.md, fencing).
            try:
                epoch = await asyncio.to_thread(self.store.take_room, room_id)
            except StoreUnavailable as exc:
                await self.cluster.release(room_id)
                raise RestoreBusy(f"the store cannot take the room now ({exc}); try again") from exc
            if epoch is None:
                await self.cluster.release(room_id)  # no such room: no lease kept
                return None
        data = await asyncio.to_thread(self.store.load, room_id)
        cheap = data is None or (
            not data.hands
            and not data.archive
            and len((data.current or {}).get("actions", ())) <= CHEAP_ACTIONS
        )
        if cheap:
            return await self._restored(room_id, data, epoch)
        if self._replaying >= RESTORES_WAITING:
            raise RestoreBusy(f"{self._replaying} rooms are being restored; try again")
        self._replaying += 1
        try:
            async with self._restore_slot:
                return await self._restored(room_id, data, epoch)
        finally:
            self._replaying -= 1

    async def _restored(
        self, room_id: str, data: StoredRoom | None, epoch: int | None = None
    ) -> Room | None:
        """The room rebuilt from ``data`` in a thread and kept (None: no such room); ``epoch``:
        the one this process took it at, in a cluster."""
        room = self.rooms.get(room_id)
        if room is not None:
            return room
        built = None if data is None else await asyncio.to_thread(self.rebuild, data, epoch)
        if built is None:
            if self.cluster is not None:
                await self.cluster.release(room_id)  # no such room: no lease kept
            return None
        if self.cluster is not None and self.cluster.refusal(room_id) is not None:
            return None  # its lease was lost while it was rebuilt
        room = self.rooms.setdefault(room_id, built)
        if room is built and self._sweeper is not None:
            room.start()
            room.hands.maybe_deal()
        return room

    def restore(self, room_id: str) -> Room | None:
        """Rebuild a room from the store (``build``) and keep it in memory."""
        room = self.build(room_id)
        if room is not None:
            self.rooms[room_id] = room
        return room

    def build(self, room_id: str) -> Room | None:
        """A room rebuilt from the store by replaying its finished hands and its current one
        (not yet kept: any thread may build one)."""
        assert self.store is not None
        data = self.store.load(room_id)
        return None if data is None else self.rebuild(data)

    def rebuild(self, data: StoredRoom, epoch: int | None = None) -> Room:
        """The room of ``data``, read from the store (``build``); in a cluster, its writes name
        ``epoch``, the one this process took it at (None: another process's room, built to be
        listed, which writes nothing that can be made)."""
        assert self.store is not None
        room_id = data.room_id
        opts = RoomOptions.from_json(data.config, stored=True)
        seats = [_stored_seat(s) for s in data.seats["seats"]]
        sx_raw = data.seats.get("shouxing")
        shouxing = (
            None
            if sx_raw is None
            else Seat("human", None, stored_hash(sx_raw.get("token")), sx_raw.get("name"))
        )
        # Persons taking turns at the seats (RULES §2.1.1) are stored by person: where each
        # sits follows from the match once its hands are booked again.
        persons_raw = data.seats.get("persons")
        persons = None if persons_raw is None else [_stored_seat(s) for s in persons_raw]
        room = Room(
            room_id, opts, data.seed, self.store, seats, shouxing, data.created, persons=persons
        )
        self._guard(room, epoch)
        room.table.unattended_delay = self.limits.unattended_delay_ms / 1000
        room.table.rest_seconds = self.limits.rest_seconds
        store = self.store
        room.hands.resume(data, lambda number: store.deal(room_id, number))
        room.creator, room.invite = self.store.keys(room_id)
        room.table.number = self.store.read(lambda db: accounts.room_number(db, room_id))
        return room

    def restore_all(self) -> int:
        """Restore every stored room that is not over; how many. In a cluster none: a room
        is restored by the process its players reach, under its lease."""
        if self.store is None or self.cluster is not None:
            return 0
        count = 0
        for room_id in self.store.room_ids():
            if room_id in self.rooms:
                continue
            try:
                if self.restore(room_id) is not None:
                    count += 1
            except Exception:
                log.exception("could not restore room %s", room_id)
        return count

    def start(self) -> None:
        """Start the automatic play of every room, and the sweeper (inside the running loop)."""
        for room in self.rooms.values():
            room.start()
            room.hands.maybe_deal()
        if self._sweeper is None:
            self._sweeper = asyncio.get_running_loop().create_task(self._sweep_forever())

    async def close(self) -> None:
        """Stop every room's task and write what is still pending."""
        if self._sweeper is not None:
            self._sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._sweeper
            self._sweeper = None
        for room in list(self.rooms.values()):
            await room.close()
        if self.cluster is not None:
            await self.cluster.close()

    async def _sweep_forever(self) -> None:
        period = max(0.2, min(5.0, self.limits.seat_grace / 4, self.limits.idle_evict / 4))
        await every(period, self.sweep, "sweep")

    async def sweep(self, now: float | None = None) -> None:
        """Free squatted seats; evict idle and finished rooms from memory (not from the store)."""
        now = time.monotonic() if now is None else now
        for room_id, room in list(self.rooms.items()):
            self._free_absent(room, now)
            if room.conns:
                self._idle.pop(room_id, None)
                continue
            since = self._idle.setdefault(room_id, now)
            limit = self.limits.idle_evict
            if room.status == "over":
                limit = min(limit, 30.0)
            if self.store is not None and now - since >= limit:
                if room.acting.held or self.store.failing is not None:
                    continue  # it leaves once what it did is in the store
                # Everything it did is in the store before it leaves memory.
                await room.recorder.written()
                if room.conns or self.rooms.get(room_id) is not room:
                    continue
                del self.rooms[room_id]
                self._idle.pop(room_id, None)
                await room.close()
                if self.cluster is not None:
                    await self.cluster.release(room_id)
                log.info("room %s left memory (idle %.0f s)", room_id, now - since)

    def _free_absent(self, room: Room, now: float) -> None:
        """A person's seat with nobody on it between hands (or before the first) is freed; not
        in a resting room, whose match is closed as it stands first (docs/protocol.md §2.4)."""
        if room.table.rest_deadline() is not None:
            return
        seats: list[SeatId] = [s for s, seat in enumerate(room.seats) if seat.kind == "human"]
        if room.shouxing is not None:
            seats.append("shouxing")
        for seat_id in seats:
            key = (room.id, seat_id)
            seat = room.seating.seat(seat_id)
            held = any(c.seat == seat_id or c.held == seat_id for c in room.conns)
            if seat.token is None or held or room.table.hand is not None:
                self._absent.pop(key, None)
                continue
            since = self._absent.setdefault(key, now)
            if now - since >= self.limits.seat_grace:
                self._absent.pop(key, None)
                if room.free_seat(seat_id):
                    log.info("room %s: seat %s freed (absent)", room.id, seat_id)

    def hand_record(self, room_id: str, number: int) -> tuple[int, dict[str, Any]] | None:
        """(match number, record) of a finished hand of the room (never the hand in progress)."""
        room = self.get(room_id)
        return None if room is None else room.hand_record(number)


def _stored_seat(s: dict[str, Any]) -> Seat:
    """A seat (or a person's place) from its stored form (``Seat.to_store``)."""
    return Seat(
        s["kind"],
        s.get("bot"),
        stored_hash(s.get("token")),
        s.get("name"),
        no_timer=s.get("no_timer", False),
        player=s.get("player"),
    )


class RestoreBusy(Exception):
    """Too many rooms wait to be restored from the store (answered 503, to be asked again)."""


class OwnedElsewhere(Exception):
    """The room is played by another process of the cluster (its URL: ``args[0]``)."""


__all__ = ["OwnedElsewhere", "RestoreBusy", "RoomManager"]
