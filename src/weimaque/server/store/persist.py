"""Persistence glue: what a room writes to the store as its match goes on.

An action is written before it is applied (:meth:`Recorder.action`, awaited by the room): what a
player is told was accepted is in the store, and a write the store refuses leaves the table as
it was. Everything else a room writes follows from what is stored already (a hand's end from its
last action) or may be lost without losing an action (a deal nobody has acted on, a name): it is
queued, in order, and the store's writer keeps trying until it is written
(:mod:`weimaque.server.store.store`).

A room without a store (tests, benchmarks) gets a recorder that writes nothing. Rooms are rebuilt
from what is written here by ``RoomManager.restore`` (:mod:`weimaque.server.cluster.manager`).

In a cluster every write names the room's epoch, the number its owner got when it took the room
(docs/scale.md): the store refuses a write whose room a newer owner holds (``Fenced``), and the
recorder then tells its room (``on_fenced``), which this process lets go at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
import weakref
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, Final

from weimaque.games.protocol import Hand
from weimaque.server.store.store import Fenced, Store, StoreUnavailable

log = logging.getLogger("weimaque.server")


#: While writes are outstanding, the event loop gives the interpreter lock up for this long
#: every NUDGE_SECONDS (every SLOW_NUDGE_SECONDS once none has been done for STALL_SECONDS:
#: the writer is then waiting on the disk or a lock, not on the interpreter lock).
YIELD_SECONDS: Final = 0.0001
NUDGE_SECONDS: Final = 0.0002
SLOW_NUDGE_SECONDS: Final = 0.005
STALL_SECONDS: Final = 0.05
#: The interpreter's switch interval under ``wmq serve`` (CPython's default is 5 ms): how long
#: the store's writer may wait for the interpreter lock at each of the few points of a write
#: where it gives it up, while the event loop keeps it. Measured by ``bench/server.py``.
SWITCH_INTERVAL_SECONDS: Final = 0.0005


class _Inbox:
    """Writes done by the store's thread, handed to one event loop.

    One wake-up of the loop for all that one transaction wrote (a wake-up per write would cost
    the writer the interpreter lock each time, see ``store._statements``). And while writes
    are outstanding, the loop lets the writer have the interpreter lock (``nudge``): CPython
    hands a waiting thread the lock only when its holder keeps it a whole switch interval, and
    a busy event loop, making a system call every few microseconds, never does, so the writer
    would wait for the loop to run out of work (seconds, under load) at every statement.
    """

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.items: deque[tuple[Callable[[Future[None]], None], Future[None]]] = deque()
        self.lock = threading.Lock()
        self.scheduled = False
        self.outstanding = 0
        self.nudging = False
        self.last_done = 0.0

    def watch(self) -> None:
        """On the loop: one more write is outstanding."""
        self.outstanding += 1
        if not self.nudging:
            self.nudging = True
            self.last_done = time.monotonic()
            self.loop.call_later(NUDGE_SECONDS, self.nudge)

    def nudge(self) -> None:
        if self.outstanding <= 0:
            self.nudging = False
            return
        time.sleep(YIELD_SECONDS)  # a blocking sleep: the writer takes the lock meanwhile
        stalled = time.monotonic() - self.last_done > STALL_SECONDS
        self.loop.call_later(SLOW_NUDGE_SECONDS if stalled else NUDGE_SECONDS, self.nudge)

    def put(self, callback: Callable[[Future[None]], None], done: Future[None]) -> None:
        """From any thread: run ``callback(done)`` on the loop soon."""
        self.items.append((callback, done))
        with self.lock:
            if self.scheduled:
                return
            self.scheduled = True
        with contextlib.suppress(RuntimeError):  # a loop closed meanwhile: nobody waits
            self.loop.call_soon_threadsafe(self.run)

    def run(self) -> None:
        with self.lock:
            self.scheduled = False
        while self.items:
            callback, done = self.items.popleft()
            self.outstanding -= 1
            self.last_done = time.monotonic()
            try:
                callback(done)
            except Exception:  # one room's bug never keeps the others' answers
                log.exception("a write's answer failed")


_inboxes: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Inbox] = weakref.WeakKeyDictionary()


def on_loop(done: Future[None], callback: Callable[[Future[None]], None]) -> None:
    """Run ``callback(done)`` on the running event loop once the store has done ``done``."""
    loop = asyncio.get_running_loop()
    inbox = _inboxes.get(loop)
    if inbox is None:
        inbox = _inboxes[loop] = _Inbox(loop)
    inbox.watch()
    done.add_done_callback(lambda finished: inbox.put(callback, finished))


def answer_written() -> None:
    """On the loop: run now the answers of writes the store has done meanwhile.

    Called after each message a connection handles and each it sends. Under load a write is
    done long before the loop's turn ends; its answer (the ``ack``) then goes out in this
    turn instead of waiting for the next one behind every other connection's work.
    """
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return
    inbox = _inboxes.get(loop)
    if inbox is not None and inbox.items:
        inbox.run()


async def written(done: Future[None]) -> None:
    """Wait on the event loop until the store has done ``done`` (its error raised here)."""
    waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def settle(finished: Future[None]) -> None:
        if waiter.done():
            return
        if finished.cancelled():
            waiter.cancel()
            return
        failed = finished.exception()
        if failed is None:
            waiter.set_result(None)
        else:
            waiter.set_exception(failed)

    on_loop(done, settle)
    await waiter


class Recorder:
    """Writes one room's seats, hands and actions to an optional store."""

    def __init__(self, store: Store | None, room_id: str) -> None:
        """A recorder for ``room_id``; ``store`` None records nothing."""
        self.store = store
        self.room_id = room_id
        #: Why this process may not write for the room now, beyond the store's own failing
        #: (a cluster's lost or lapsed lease, docs/scale.md); None: it may.
        self.guard: Callable[[], str | None] | None = None
        #: The epoch this process holds the room at, which every write names (None: unfenced,
        #: a process alone).
        self.epoch: int | None = None
        #: Called on the loop when the store refused a write because a newer owner holds the
        #: room (``Fenced``).
        self.on_fenced: Callable[[], None] | None = None

    @property
    def durable(self) -> bool:
        """Whether actions are written (and so must be awaited before they are applied)."""
        return self.store is not None

    @property
    def failing(self) -> str | None:
        """Why the store's last write failed (or why this process may not write for the room
        now), or None while it writes."""
        if self.store is None:
            return None
        if self.guard is not None:
            refused = self.guard()
            if refused is not None:
                return refused
        return self.store.failing

    def refused(self) -> str | None:
        """Why this process may not change the room now (its lease is lost or not trusted,
        docs/scale.md), None while it may: then no message that changes the room is applied."""
        return None if self.guard is None else self.guard()

    def _watch(self, done: Future[None] | None) -> Future[None] | None:
        """Tell ``on_fenced`` (on the loop) if the store refuses ``done`` as fenced."""
        on_fenced = self.on_fenced
        if done is None or on_fenced is None:
            return done
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return done

        def check(finished: Future[None]) -> None:  # on the store's thread
            if not finished.cancelled() and isinstance(finished.exception(), Fenced):
                with contextlib.suppress(RuntimeError):  # a loop closed meanwhile
                    loop.call_soon_threadsafe(on_fenced)

        done.add_done_callback(check)
        return done

    def created(
        self, config: dict[str, Any], seats: dict[str, Any], rules: dict[str, Any], seed: int
    ) -> None:
        """A new room and its empty match; ``rules``: its ``id`` (the preset) and ``overrides``
        (RoomInfo's ``rules``)."""
        if self.store is not None:
            self._watch(
                self.store.create_room(
                    self.room_id,
                    config,
                    seats,
                    rules["id"],
                    rules["overrides"],
                    seed,
                    epoch=self.epoch,
                )
            )

    def seats(self, seats: dict[str, Any]) -> None:
        """The seats changed (a token, a name)."""
        if self.store is not None:
            self._watch(self.store.save_seats(self.room_id, seats, epoch=self.epoch))

    def deal(self, number: int, commitment: str, secret: str) -> None:
        """The commitment to hand ``number`` and its secret, before anyone plays it."""
        if self.store is not None:
            self._watch(
                self.store.save_deal(self.room_id, number, commitment, secret, epoch=self.epoch)
            )

    def hand_started(self, number: int, rules: dict[str, Any], hand: Hand) -> None:
        """A hand was dealt (``rules``: RoomInfo's, its ``id`` and ``overrides``)."""
        if self.store is not None:
            assert hand.seed is not None
            done = self.store.start_hand(
                self.room_id,
                number,
                rules["id"],
                rules["overrides"],
                hand.seed,
                hand.dealer,
                epoch=self.epoch,
            )
            self._watch(done)

    def append(self, number: int, seq: Any, seat: int, action: object) -> Future[None] | None:
        """Start writing ``seat``'s ``action`` (written in its text form, ``str``) as action
        ``seq`` (0-based; or the game's own hand object, whose ``actions`` count them) of hand
        ``number``, before it is applied: a future that fails with ``StoreUnavailable`` when
        the store cannot write it (None without a store)."""
        if self.store is None:
            return None
        refused = None if self.guard is None else self.guard()
        if refused is not None:
            # Not this process's to write: answered like a store that cannot write.
            failed: Future[None] = Future()
            failed.set_exception(StoreUnavailable(refused))
            return failed
        at = seq if isinstance(seq, int) else len(seq.actions)
        return self._watch(
            self.store.append_action(self.room_id, number, at, seat, str(action), epoch=self.epoch)
        )

    async def action(self, number: int, seq: Any, seat: int, action: object) -> None:
        """Write the action (``append``) and wait until it is written."""
        done = self.append(number, seq, seat, action)
        if done is not None:
            await written(done)

    def hand_finished(
        self,
        number: int,
        record: dict[str, Any],
        ledger: dict[str, Any],
        over: bool,
        match: int = 1,
        *,
        players: list[tuple[str | None, str | None, str | None]] | None = None,
        club: str | None = None,
        played: bool = True,
        ranked: bool = True,
    ) -> None:
        """Hand ``number`` of the room ended, in match ``match`` (and maybe the match ended);
        ``players``: who held the seats (player id, name, bot kind); ``played``, ``ranked``:
        whether it counts for 战绩 and for a leaderboard (docs/protocol.md §7.4)."""
        if self.store is not None:
            done = self.store.finish_hand(
                self.room_id,
                number,
                record,
                ledger,
                over,
                match,
                players=players,
                club=club,
                played=played,
                ranked=ranked,
                epoch=self.epoch,
            )
            self._watch(done)

    def match_ended(
        self, ledger: dict[str, Any], abandoned: int | None, how: str = "vote"
    ) -> Future[None] | None:
        """The match ended early (``how``: 解散 by a vote, a player who left, a room nobody came
        back to); ``abandoned``: the number of the hand dropped. The write's future (None
        without a store): the room announces the end once it is written."""
        if self.store is None:
            return None
        return self._watch(
            self.store.end_match(self.room_id, ledger, True, abandoned, how, epoch=self.epoch)
        )

    def match_started(self, number: int, seed: int, seats: dict[str, Any]) -> None:
        """The room started its match ``number`` (再来一局)."""
        if self.store is not None:
            self._watch(self.store.new_match(self.room_id, number, seed, seats, epoch=self.epoch))

    def keys(self, creator: str | None, invite: str | None) -> None:
        """The hashes of the creator's token and of the 守醒 invitation."""
        if self.store is not None:
            self._watch(self.store.save_keys(self.room_id, creator, invite, epoch=self.epoch))

    async def written(self) -> None:
        """Wait until everything this room (and any other) queued so far is written."""
        if self.store is not None:
            await written(self.store.barrier())


__all__ = ["Recorder", "answer_written", "on_loop", "written"]
