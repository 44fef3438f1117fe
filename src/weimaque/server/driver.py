"""The hand driver: dealing, applying actions, ending hands, and the automatic play.

Bots, the turn timer and 托管 (a seat played by the server's bot when its player runs out of
time or is away) all run in one asyncio task per room, ``_drive``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from typing import Any

from weimaque.bots import Bot, BotView, get_bot
from weimaque.game.actions import Action
from weimaque.game.events import Event
from weimaque.game.state import NUM_SEATS
from weimaque.server import botpool
from weimaque.server.fairness import commitment, deal_json, new_secret, reveal
from weimaque.server.options import ABSENT_SECONDS, autoplay_bot_name
from weimaque.server.protocol import server_message
from weimaque.server.seats import Conn
from weimaque.server.views import RoomViews

log = logging.getLogger("weimaque.server")


class HandDriver(RoomViews):
    """Deals, applies and ends hands; plays bots, timers and 托管."""

    _deal_secret: str | None = None

    # ----------------------------------------------------------------- the hand

    def _all_taken(self) -> bool:
        return all(s.taken for s in self.seats)

    def _ready_to_deal(self) -> bool:
        if self.state is not None or self.match.is_over() or not self._all_taken():
            return False
        if not self.match.hands:
            return True
        humans = [s for s, seat in enumerate(self.seats) if seat.kind == "human"]
        if not humans:
            return True
        # Seats under 托管 (or watched by their player) are ready; the players at the table
        # deal the next hand when all of them are.
        present = [
            s
            for s in humans
            if self.connected(s) and not (self.seats[s].autoplay or self.seats[s].away)
        ]
        if present and all(self.seats[s].ready for s in present):
            return True
        turn = self.turn_seconds
        return turn is not None and time.monotonic() - self._between_since >= turn

    def _maybe_deal(self, origin: Conn | None = None, re: Any = None) -> bool:
        """Deal the next hand if the room is ready; send everyone a snapshot."""
        self.flush_pending()
        if not self._ready_to_deal():
            return False
        state = self.match.start_hand()
        for seat in self.seats:
            seat.ready = False
        self.last_hand = None
        self._last_state = None
        self._commit(state.seed)
        self._seen.clear()
        self.recorder.hand_started(self.hand_number, self.rules, state)
        self._track()
        self.send_deal(origin, re)
        if state.is_terminal():  # a deal win is decided by actions, but be safe
            self._end_hand()
        self._wake.set()
        return True

    def _commit(self, seed: int | None) -> None:
        """Commit to the new hand's seed with a fresh secret, stored before anyone plays."""
        if seed is None:  # a hand dealt from explicit cards (tests) has no seed to commit to
            self.deal_commitment = self._deal_secret = None
            return
        secret = new_secret()
        self.deal_commitment, self._deal_secret = commitment(secret, seed), secret
        if self.store is not None:
            self.store.save_deal(self.id, self.hand_number, self.deal_commitment, secret)

    def _reveal(self, record: dict[str, Any], state: Any) -> None:
        """Add the revealed secret and the deal to a finished hand's record."""
        if self._deal_secret is not None and state.seed is not None:
            record["fairness"] = reveal(self._deal_secret, state.seed)
            record["deal"] = deal_json(state)
        self.deal_commitment = self._deal_secret = None

    def _track(self) -> None:
        """Start the decision clock of each seat that must decide now."""
        state = self.state
        now = time.monotonic()
        todo = set() if state is None else set(state.to_act())
        for seat in list(self._since):
            if seat not in todo:
                del self._since[seat]
        for seat in todo:
            self._since.setdefault(seat, now)

    def apply(
        self,
        seat: int,
        action: Action,
        auto: bool,
        origin: Conn | None = None,
        re: Any = None,
    ) -> None:
        """Apply a verified action and send each connection what it may see of it."""
        self.flush_pending()
        state = self.state
        assert state is not None
        first = len(state.events)
        before = state.copy()
        state.apply(seat, action)
        new: list[Event] = state.events[first:]
        self.recorder.actions(state)
        self._since.pop(seat, None)
        self._track()
        self.send_events(new, first, seat, action, auto, origin, re, before)
        if state.is_terminal():
            self._end_hand()
        self._wake.set()

    def _end_hand(self) -> None:
        self.flush_pending()  # the last action's news goes out with the hand still in place
        state = self.state
        assert state is not None and state.result is not None
        number = self.hand_number
        settlement = self.match.finish_hand()
        record = self.match.hands[-1]
        self._reveal(record, state)
        self._last_state = state
        self.last_hand = self._hand_end(number, state, settlement)
        self.last_hand["fairness"] = record.get("fairness")
        self._between_since = time.monotonic()
        for seat in self.seats:
            seat.ready = False  # 托管 stays on until its player cancels it
        self._since.clear()
        self.recorder.hand_finished(number, record, self.match.ledger(), self.match.is_over())
        self.broadcast(server_message("hand_end", **self.last_hand))
        if self.match.is_over():
            ranking = sorted(range(NUM_SEATS), key=lambda s: (-self.match.scores[s], s))
            self.broadcast(
                server_message(
                    "match_end",
                    hands_played=len(self.match.hands),
                    ledger=self.match.ledger(),
                    scores=list(self.match.scores),
                    final_pool_share=None
                    if self.match.final_share is None
                    else list(self.match.final_share),
                    ranking=ranking,
                    hands=self.summaries(),
                )
            )
        self.broadcast_room()

    # ----------------------------------------------------------------- bots, timer, 托管

    def _auto_bot(self) -> Bot:
        if self._auto is None:
            self._auto = get_bot(autoplay_bot_name())
        return self._auto

    def _due(self) -> tuple[float, int | None]:
        """(seconds until the next automatic decision, its seat or None)."""
        state = self.state
        if state is None:
            turn = self.turn_seconds
            if self.match.hands and not self.match.is_over() and self._all_bots():
                # A table of bots deals its next hand without waiting for anyone.
                delay = self.opts.bot_delay_ms / 1000
                return max(0.0, self._between_since + delay - time.monotonic()), None
            if turn is not None and self.match.hands and not self.match.is_over():
                return max(0.0, self._between_since + turn - time.monotonic()), None
            return 3600.0, None
        now = time.monotonic()
        best: tuple[float, int | None] = (3600.0, None)
        for seat in state.to_act():
            due = self._seat_due(seat, now)
            if due is None:
                continue
            wait = max(0.0, due - now)
            if wait < best[0]:
                best = (wait, seat)
        return best

    def _all_bots(self) -> bool:
        return all(seat.kind == "bot" for seat in self.seats)

    def _seat_due(self, seat: int, now: float) -> float | None:
        """When the server decides for a seat that must decide (None: it waits for its player)."""
        since = self._since.get(seat, now)
        s = self.seats[seat]
        if (
            s.kind == "bot"
            or s.autoplay
            or s.away
            or (self.opts.autoplay_absent and not self.connected(seat))
        ):
            return since + self.opts.bot_delay_ms / 1000
        turn = self.turn_seconds
        if turn is not None:
            return since + turn
        if not self.connected(seat):
            return since + ABSENT_SECONDS  # no timer: still, a vanished player never blocks
        return None

    async def _step(self) -> bool:
        """Make the automatic decision that is due, if any; whether something happened."""
        self.flush_pending()
        wait, seat = self._due()
        if wait > 0:
            return False
        state = self.state
        if state is None:
            return self._maybe_deal()
        if seat is None:
            return False
        s = self.seats[seat]
        bot = self.bots.get(seat) if s.kind == "bot" else self._auto_bot()
        assert bot is not None
        view = BotView.of(state, seat)
        before = len(state.actions)
        rng = random.Random(self.rng.getrandbits(64))
        spec = (s.bot or bot.name) if s.kind == "bot" else autoplay_bot_name()
        try:
            # Off the event loop, in the server's bounded pool (botpool).
            action = await botpool.POOL.act(spec, view, rng.getrandbits(64))
        except Exception as exc:
            log.error("bot %s failed (%s); playing a random legal action", spec, exc)
            action = rng.choice(view.legal)
        if self.state is not state or len(state.actions) != before or seat not in state.to_act():
            return True  # someone acted meanwhile; look again
        due = self._seat_due(seat, time.monotonic())
        if due is None or due > time.monotonic():
            return True  # the player took the seat back meanwhile (取消托管)
        if not state.can(seat, action):
            log.error("bot %s chose illegal %s; playing the first legal action", bot.name, action)
            action = state.legal_actions(seat)[0]
        if s.kind == "human" and not s.autoplay and state.phase != "claim":
            # The 托管 badge goes up on a turn everyone sees, never inside a claim window:
            # it would name the seat that had an option there (issue 13 §2).
            s.autoplay = True
            self.broadcast_room()
        self.apply(seat, action, auto=True)
        return True

    async def _drive(self) -> None:
        """Bots, timers and 托管, forever."""
        while not self.closed:
            try:
                if await self._step():
                    await asyncio.sleep(0)
                    continue
            except Exception:
                log.exception("room %s: automatic play failed", self.id)
                await asyncio.sleep(1)
            wait, _ = self._due()
            if wait <= 0:  # nothing could be done now: do not spin
                wait = 0.05
            self._wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout=max(wait, 0.001))

    def ensure_driver(self) -> None:
        """Start the automatic-play task on the running loop, once."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        if self._task is not None and self._loop is loop and not self._task.done():
            return
        self._loop = loop
        self._wake = asyncio.Event()
        self._task = loop.create_task(self._drive(), name=f"room-{self.id}")

    async def close(self) -> None:
        """Stop the automatic-play task."""
        self.closed = True
        task = self._task
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task


__all__ = ["HandDriver"]
