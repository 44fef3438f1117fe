"""The room's clock: bots, the turn timer, 托管 and the room's own deadlines.

One asyncio task per room (``AutoPlay.drive``) makes every automatic decision when it is due: a
bot's move, a move for a seat under 托管 (played by the server's bot when its player runs out
of time, is away or offline), and the room's deadlines (the offline grace, the countdown to the
next deal, a vote to 解散, the 再来一局 window). It sleeps until the next is due, or until the
room wakes it (``wake``) because something changed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import random

from weimaque.games.protocol import SeatBot
from weimaque.server.store.store import StoreUnavailable
from weimaque.server.table import botpool
from weimaque.server.table.clocks import DecisionClocks
from weimaque.server.table.driver import HandDriver
from weimaque.server.table.options import autoplay_bot_name

log = logging.getLogger("weimaque.server")


class AutoPlay:
    """The automatic decisions and deadlines of one room, in its own task."""

    def __init__(
        self, driver: HandDriver, clocks: DecisionClocks, bots: dict[int, SeatBot]
    ) -> None:
        """Automatic play at the table ``driver`` drives; ``bots`` play the bots' seats."""
        self.driver = driver
        self.table = driver.table
        self.seating = driver.table.seating
        self.out = driver.out
        self.clocks = clocks
        self.bots = bots
        self._auto: SeatBot | None = None
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        #: Seconds until the next automatic decision, as ``step`` last found it (none due).
        self.waiting = math.inf
        self._loop: asyncio.AbstractEventLoop | None = None
        self.closed = False

    def wake(self) -> None:
        """Something changed: look again what is due."""
        self._wake.set()

    def auto_name(self) -> str:
        """The 托管 bot's spec: the first the game offers (``Game.bots``)."""
        return autoplay_bot_name(self.table.game.info.id)

    def auto_bot(self) -> SeatBot:
        if self._auto is None:
            setup = self.table.setup
            self._auto = setup.game.bot(self.auto_name(), setup.variant, setup.options)
        return self._auto

    def due(self) -> tuple[float, int | None]:
        """(seconds until the next automatic decision, its seat or None)."""
        state = self.table.hand
        if state is None:
            return math.inf, None
        now = self.table.clock()
        best: tuple[float, int | None] = (math.inf, None)
        for seat in state.to_act():
            due = self.seat_due(seat, now)
            if due is None:
                continue
            wait = max(0.0, due - now)
            if wait < best[0]:
                best = (wait, seat)
        return best

    def seat_due(self, seat: int, now: float) -> float | None:
        """When the server decides for a seat that must decide (None: it waits for its player).

        A bot, a seat under 托管 or watched by its player: after the bot delay. A person with no
        open connection: once the offline grace has passed (at once with ``autoplay_absent``),
        or when the turn timer runs out, whichever comes first.
        """
        clock = self.clocks.get(seat)
        since = now if clock is None else clock.since
        s = self.seating.seats[seat]
        delay = self.table.auto_delay()
        if s.kind == "bot" or s.autoplay or s.away:
            return since + delay
        present = self.seating.present(seat)
        if not present and self.table.opts.autoplay_absent:
            return since + delay
        turn = self.table.turn_seconds if clock is None else clock.seconds
        due = None if turn is None else since + turn
        if not present:
            offline = max(since, self.seating.gone_since(seat, now) + self.seating.grace) + delay
            due = offline if due is None else min(due, offline)
        return due

    def next_clock(self, now: float) -> float:
        """When the next of the room's own clocks is due (offline marks, vote, 再来一局, deal)."""
        times = [self.seating.next_offline(now)]
        if self.driver.recorder.failing is not None:
            times.append(now + 1.0)  # look again whether the store writes (a deal waits for it)
        if self.table.vote is not None:
            times.append(self.table.vote.deadline)
        rest = self.table.rest_deadline()
        if rest is not None:
            times.append(rest)
        if self.table.rematch is not None:
            times.append(self.table.rematch.deadline)
        if self.table.hand is None and self.table.records and not self.table.is_over():
            if self.seating.all_bots():
                times.append(self.table.between_since + self.table.auto_delay())
            else:
                if self.table.next_deadline is not None:
                    times.append(self.table.next_deadline)
                # 托管 presses 下一局 (docs/protocol.md §2.4); once that moment has passed, a
                # deal still waiting waits for a person, whose press wakes the room.
                auto = self.driver.auto_ready_at()
                if auto is not None and auto > now:
                    times.append(auto)
        return min(times)

    def housekeep(self) -> bool:
        """Run the room's clocks that are due; whether anything happened."""
        now = self.table.clock()
        done = False
        if self.seating.mark_offline(now):
            self.out.room_changed()
            done = True
        if self.driver.presence():
            self.out.room_changed()
            done = True
        if self.driver.close_if_idle():
            done = True
        if self.table.vote is not None and now >= self.table.vote.deadline:
            self.driver.settle_vote()
            done = True
        if self.table.rematch is not None and now >= self.table.rematch.deadline:
            self.driver.settle_rematch()
            done = True
        if self.table.hand is None and self.driver.maybe_deal():
            done = True
        return done

    async def step(self) -> bool:
        """Make the automatic decision that is due, if any; whether something happened."""
        self.out.flush()
        if self.housekeep():
            return True
        wait, seat = self.due()
        table = self.table
        hand, actions = table.hand, table.actions
        if wait > 0 or hand is None or seat is None:
            self.waiting = wait
            return False
        s = self.seating.seats[seat]
        bot = self.bots.get(seat) if s.kind == "bot" else self.auto_bot()
        assert bot is not None
        view = hand.bot_view(seat)
        legal = hand.legal_actions(seat)
        before = len(actions)
        rng = random.Random(table.rng.getrandbits(64))
        spec = (s.bot or "random") if s.kind == "bot" else self.auto_name()
        setup = table.setup
        try:
            # Off the event loop, in the server's bounded pool (botpool).
            action = await botpool.POOL.decide(
                setup.game, spec, setup.variant, setup.options, view, rng.getrandbits(64)
            )
        except Exception as exc:
            log.error("bot %s failed (%s); playing a random legal action", spec, exc)
            action = rng.choice(legal)

        def moved() -> bool:
            return (
                table.hand is not hand
                or table.actions is not actions
                or len(actions) != before
                or seat not in hand.to_act()
            )

        if moved():
            return True  # someone acted meanwhile; look again
        if action not in legal:
            log.error("bot %s chose illegal %s; playing the first legal action", spec, action)
            action = legal[0]
        async with self.driver.acting:  # looked at again once no action is being written
            if moved():
                return True  # someone acted meanwhile; look again
            now = self.table.clock()
            due = self.seat_due(seat, now)
            if due is None or due > now:
                return True  # the player took the seat back meanwhile (取消托管, back online)
            absent = not self.seating.present(seat) and (
                self.table.opts.autoplay_absent or self.seating.offline_by(seat, now)
            )
            # Why the seat is played is decided now: the player may send 取消托管 while the
            # action is written, and that must not be taken for a timer running out.
            timed_out = (
                s.kind == "human" and not (s.autoplay or s.away or absent) and not hand.in_window()
            )
            # Written first: what the table is shown is stored (StoreUnavailable: see drive).
            if not await self.driver.logged(seat, action):
                return True
            if timed_out:
                # The turn timer ran out: the 托管 badge goes up, on a turn everyone sees, never
                # inside a claim window (it would name the seat that had an option there). A
                # seat played because it is offline gets none: its player plays again on coming
                # back.
                s.autoplay = True
                self.out.room_changed()
            self.driver.apply(seat, action, auto=True)
        return True

    async def drive(self) -> None:
        """Bots, timers and 托管, forever."""
        while not self.closed:
            wait: float | None = None
            try:
                if await self.step():
                    await asyncio.sleep(0)
                    continue
                wait = self.waiting  # what step found due (nothing has changed since)
            except StoreUnavailable as exc:
                # Nothing was applied; the move is chosen and tried again in a while.
                log.debug("room %s: an automatic move was not stored: %s", self.table.id, exc)
                await asyncio.sleep(1)
            except Exception:
                log.exception("room %s: automatic play failed", self.table.id)
                await asyncio.sleep(1)
            if wait is None:
                wait, _ = self.due()
            now = self.table.clock()
            wait = min(wait, self.next_clock(now) - now, 3600.0)
            if wait <= 0:  # nothing could be done now: do not spin
                wait = 0.05
            self._wake.clear()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(max(wait, 0.001)):  # no task per wait (wait_for)
                    await self._wake.wait()

    def start(self) -> None:
        """Start the automatic-play task on the running loop, once."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        if self._task is not None and self._loop is loop and not self._task.done():
            return
        self._loop = loop
        self._wake = asyncio.Event()
        self._task = loop.create_task(self.drive(), name=f"room-{self.table.id}")

    def stop(self) -> None:
        """Stop at once: no automatic move from now on; the task ends on the loop."""
        self.closed = True
        if self._task is not None:
            self._task.cancel()

    async def close(self) -> None:
        """Stop, and wait for the task to end."""
        self.stop()
        task = self._task
        if task is not None:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task


__all__ = ["AutoPlay"]
