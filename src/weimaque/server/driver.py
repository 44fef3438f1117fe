"""The hand driver: dealing, applying actions, ending hands and matches, and the automatic play.

Bots, the turn timer, 托管 (a seat played by the server's bot when its player runs out of time,
is away or offline) and the room's clocks (the countdown to the next deal, the offline grace, a
vote to 解散 and the 再来一局 window) all run in one asyncio task per room, ``_drive``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import random
import secrets
from typing import Any

from weimaque.bots import Bot, BotView, get_bot
from weimaque.game.actions import Action
from weimaque.game.events import Event
from weimaque.game.state import NUM_SEATS
from weimaque.match import Match
from weimaque.server import botpool, messages
from weimaque.server.accounts import new_code
from weimaque.server.fairness import commitment, deal_json, new_secret, reveal
from weimaque.server.gate import Gate
from weimaque.server.options import autoplay_bot_name
from weimaque.server.persist import on_loop
from weimaque.server.seats import Conn, SeatId
from weimaque.server.store import StoreUnavailable
from weimaque.server.views import RoomViews

log = logging.getLogger("weimaque.server")


class HandDriver(RoomViews):
    """Deals, applies and ends hands; plays bots, timers and 托管."""

    _deal_secret: str | None = None

    # ----------------------------------------------------------------- the hand

    def _all_taken(self) -> bool:
        return all(s.taken for s in self.seats)

    def _ready_to_deal(self) -> bool:
        """Whether the next hand may be dealt now (docs/protocol.md §2.4).

        A match's first hand is dealt as soon as the seats are taken. Later ones: once somebody
        pressed 下一局 and nobody the deal waits for (``decides_next``) still has to, or when the
        countdown ends; a table of bots deals after its bot delay.
        """
        if self.state is not None or self.match.is_over() or not self._all_taken():
            return False
        if self.recorder.failing is not None:
            return False  # a hand nobody could act in: dealt once the store writes again
        if not self.match.hands:
            return True
        if self._all_bots():
            return self.clock() >= self._between_since + self._auto_delay()
        pressed = any(seat.ready for seat in self.seats if seat.kind == "human")
        if pressed and not any(
            self.decides_next(s) and not self.seats[s].ready for s in range(NUM_SEATS)
        ):
            return True
        deadline = self._next_deadline
        return deadline is not None and self.clock() >= deadline

    def _countdown(self) -> bool:
        """Between hands with every seat taken: start the countdown if none runs; whether it did.

        It starts when a hand ends, and again when the table fills after a seat was left empty
        (a seat emptied between hands stops it).
        """
        seconds = self.opts.next_seconds
        if (
            seconds is None
            or self._next_deadline is not None
            or self.status != "between_hands"
            or not self._all_taken()
        ):
            return False
        self._next_deadline = self.clock() + seconds
        return True

    def _maybe_deal(self, origin: Conn | None = None, re: Any = None) -> bool:
        """Deal the next hand if the room is ready; send everyone a snapshot."""
        self.out.flush()
        if self._countdown():
            self.out.room_changed()
        if not self._ready_to_deal():
            return False
        state = self.match.start_hand()
        for seat in self.seats:
            seat.ready = False
        self._next_deadline = None
        self.last_hand = None
        self._last_state = None
        self._commit(state.seed)
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
        """Start the decision clock of each seat posed a decision (docs/protocol.md §3).

        A clock starts with the turn timer then in force and runs until the decision ends: a
        seat's action (``apply``) or the end of the hand. Nothing else restarts it.
        """
        state = self.state
        self.clocks.track(() if state is None else state.to_act(), self.turn_seconds)

    async def _logged(self, seat: int, action: Action) -> bool:
        """Write a verified action as the next of the hand in progress, before it is applied
        (the caller holds ``acting``); whether the hand is still where it was, to apply it.

        Raise ``StoreUnavailable`` when the store cannot write it: then nothing was written.
        Only a vote to 解散 can drop the hand meanwhile, and its write removes the action again.
        """
        state = self.state
        assert state is not None
        before = len(state.actions)
        await self.recorder.action(self.hand_number, state, seat, action)
        return self.state is state and len(state.actions) == before

    async def play(self, seat: int, action: Action, auto: bool = True) -> bool:
        """Write and then apply a verified action of the seat that must decide; whether it was
        applied (no connection is answered: the driver's and the tests' way to act)."""
        async with self.acting:
            state = self.state
            if state is None or not state.can(seat, action):
                return False
            if not await self._logged(seat, action):
                return False
            self.apply(seat, action, auto=auto)
            return True

    def apply(
        self,
        seat: int,
        action: Action,
        auto: bool,
        origin: Conn | None = None,
        re: Any = None,
    ) -> None:
        """Apply a verified action and send each connection what it may see of it.

        In a room with a store the action is in the store already (``_logged``).
        """
        self.out.flush()
        state = self.state
        assert state is not None
        first = len(state.events)
        before = state.copy()
        state.apply(seat, action)
        new: list[Event] = state.events[first:]
        self.clocks.end(seat)
        self._track()
        self.send_events(new, first, seat, action, auto, origin, re, before)
        if state.is_terminal():
            self._end_hand()
        self._wake.set()

    def _end_hand(self) -> None:
        self.out.flush()  # the last action's news goes out with the hand still in place
        state = self.state
        assert state is not None and state.result is not None
        number = self.hand_number
        settlement = self.match.finish_hand()
        record = self.match.hands[-1]
        record["replay_code"] = new_code()  # the hand's 回放码 (docs/protocol.md §7.4)
        self._reveal(record, state)
        self._last_state = state
        self.last_hand = self._hand_end(number, state, settlement)
        self.last_hand["fairness"] = record.get("fairness")
        self._between_since = self.clock()
        for seat in self.seats:
            seat.ready = False  # 托管 stays on until its player cancels it
        self.clocks.clear()
        over = self.match.is_over()
        self._next_deadline = None
        if over:
            self.vote = None  # the match ended on its own: nothing left to vote on
        else:
            self._countdown()
        # The hand's end follows from its last action, stored before it was applied: a restart
        # ends the hand again if this write has not been made (the store keeps trying it).
        self.recorder.hand_finished(
            number,
            record,
            self.match.ledger(),
            over,
            match=self.match_number,
            players=[(s.player, s.name, s.bot if s.kind == "bot" else None) for s in self.seats],
            club=self.opts.club,
        )
        self.out.send_all(messages.hand_end(self.last_hand))
        if over:
            self.out.send_all(self._match_end())
        self.out.room_changed()

    def _match_end(self) -> messages.MatchEnd:
        """The ``match_end`` message: the current match's totals as they stand now."""
        match = self.match
        ranking = sorted(range(NUM_SEATS), key=lambda s: (-match.scores[s], s))
        return messages.match_end(
            match_number=self.match_number,
            dissolved=self.dissolved,
            hands_played=len(match.hands),
            ledger=match.ledger(),
            scores=list(match.scores),
            final_pool_share=None if match.final_share is None else list(match.final_share),
            ranking=ranking,
            hands=self.summaries(),
            # Over, the match shows the seed every deal came from (docs/fairness.md).
            seed=match.seed,
        )

    # ----------------------------------------------------------------- 解散 and 再来一局

    def _settle_vote(self) -> None:
        """Close the open vote if it is decided: passed (the match ends now) or refused."""
        vote = self.vote
        if vote is None:
            return
        now = self.clock()
        refused = vote.refused_by()
        voters = [s for s, seat in enumerate(self.seats) if seat.kind == "human" and seat.taken]
        if refused:
            self.vote = None
            self._refused[vote.by] = now
            self.out.send_all(messages.vote_result(passed=False, by=vote.by, refused_by=refused))
            self.out.room_changed()
        elif vote.passed(voters, now):
            self.vote = None
            self.out.send_all(messages.vote_result(passed=True, by=vote.by, refused_by=[]))
            self._dissolve()

    def _dissolve(self) -> None:
        """解散: the match ends now, settled as it stands; a hand in progress is dropped unseen."""
        self.out.flush()
        abandoned = self.hand_number if self.state is not None else None
        self.match.end_early()
        self.dissolved = True
        self.clocks.clear()
        self._counted.clear()
        # The dropped hand's deal is never revealed: it was not played out.
        self.deal_commitment = self._deal_secret = None
        self._next_deadline = None
        replies = self.gate.replies
        self.gate = Gate()
        self._wake.set()
        # The end is announced once it is written: a table told the match is over finds it
        # over after a restart (docs/protocol.md, "What is acknowledged is stored").
        done = self.recorder.match_ended(self.match.ledger(), abandoned)
        if done is None:
            self._announce_dissolved(replies)
        else:
            on_loop(done, lambda _: self._announce_dissolved(replies))

    def _announce_dissolved(self, replies: dict[Conn, Any]) -> None:
        """Tell the table the dissolved match is over: its end, then everyone's view of the
        table without the dropped hand (answers held by a claim window go out with it)."""
        self.out.send_all(self._match_end())
        for conn in list(self.conns):
            conn.send(self.snapshot(conn, replies.pop(conn, None)))
        self.out.room_changed()

    def _settle_rematch(self) -> None:
        """Start the next match if the 再来一局 window is decided; close it if nobody chose."""
        rematch = self.rematch
        if rematch is None:
            return
        now = self.clock()
        seated = self.seated_people()
        if rematch.ready(seated, now):
            self._start_match({s for s in seated if s in rematch.chosen})
        elif now >= rematch.deadline:
            self.rematch = None
            self.out.room_changed()

    def _next_seed(self) -> int:
        """The next match's seed: from the OS CSPRNG, or derived from a practice room's seed."""
        if self.opts.seed is None:
            return secrets.randbits(63)
        return random.Random(f"{self.opts.seed}:match:{self.match_number}").getrandbits(63)

    def _start_match(self, keep: set[SeatId]) -> None:
        """再来一局: the next match, same rules, a fresh seed; people not in ``keep`` lose their
        seats (bots keep theirs)."""
        self.out.flush()
        self.rematch = None
        freed = [s for s in self.seated_people() if s not in keep]
        for seat_id in freed:
            self._clear_seat(seat_id)
        self.archive.extend((self.match_number, rec) for rec in self.match.hands)
        self.match_number += 1
        self.seed = self._next_seed()
        self.match = Match.new(self.rules, self.seed)
        self.rng = random.Random(f"{self.seed}:bots")
        self.dissolved = False
        self.vote = None
        self._refused.clear()
        self.last_hand = None
        self._last_state = None
        self._next_deadline = None
        self.gate = Gate()
        for s, seat in enumerate(self.seats):
            seat.ready = False
            if s in keep:
                seat.autoplay = False  # they chose to play on: they are at the table
        self.recorder.match_started(self.match_number, self.seed, self.seats_json())
        self._notify_freed(freed)
        if not self._maybe_deal():
            self.send_snapshots()
        self.out.room_changed()
        self._wake.set()

    def _clear_seat(self, seat_id: SeatId) -> None:
        """A person's seat is given up: its token stops working (its connections are told by
        ``_notify_freed``). A seat emptied between hands stops the countdown."""
        seat = self._seat(seat_id)
        seat.token = seat.name = seat.player = None
        seat.ready = seat.autoplay = seat.away = seat.no_timer = False
        if isinstance(seat_id, int):
            self._gone.pop(seat_id, None)
            self.offline_seats.discard(seat_id)
        if self.state is None:
            self._next_deadline = None

    def _notify_freed(
        self, freed: list[SeatId], origin: Conn | None = None, re: Any = None
    ) -> None:
        """The connections of freed seats become spectators: a welcome and a snapshot each."""
        for conn in list(self.conns):
            seat = conn.seat if conn.seat is not None else conn.held
            if seat is None or seat not in freed:
                continue
            conn.seat = conn.held = conn.token = None
            reply = re if conn is origin else None
            conn.send(self._welcome(conn, reply))
            conn.send(self.snapshot(conn, reply))

    # ----------------------------------------------------------------- bots, timer, 托管

    def _auto_bot(self) -> Bot:
        if self._auto is None:
            self._auto = get_bot(autoplay_bot_name())
        return self._auto

    def _due(self) -> tuple[float, int | None]:
        """(seconds until the next automatic decision, its seat or None)."""
        state = self.state
        if state is None:
            return math.inf, None
        now = self.clock()
        best: tuple[float, int | None] = (math.inf, None)
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
        """When the server decides for a seat that must decide (None: it waits for its player).

        A bot, a seat under 托管 or watched by its player: after the bot delay. A person with no
        open connection: once the offline grace has passed (at once with ``autoplay_absent``),
        or when the turn timer runs out, whichever comes first.
        """
        clock = self.clocks.get(seat)
        since = now if clock is None else clock.since
        s = self.seats[seat]
        delay = self._auto_delay()
        if s.kind == "bot" or s.autoplay or s.away:
            return since + delay
        present = self.present(seat)
        if not present and self.opts.autoplay_absent:
            return since + delay
        turn = self.turn_seconds if clock is None else clock.seconds
        due = None if turn is None else since + turn
        if not present:
            offline = max(since, self.gone_since(seat, now) + self.offline_grace) + delay
            due = offline if due is None else min(due, offline)
        return due

    def _auto_delay(self) -> float:
        """Seconds before an automatic move: the room's ``bot_delay_ms``, and at least the
        server's ``unattended_delay_ms`` at a table where no person holding a seat is connected
        (a table of bots, or one its players left to 托管; docs/protocol.md §6)."""
        delay = self.opts.bot_delay_ms / 1000
        if delay < self.unattended_delay and not any(
            seat.kind == "human" and self.present(s) for s, seat in enumerate(self.seats)
        ):
            return self.unattended_delay
        return delay

    def _clocks(self, now: float) -> float:
        """When the next of the room's own clocks is due (offline marks, vote, 再来一局, deal)."""
        times = [math.inf]
        if self.recorder.failing is not None:
            times.append(now + 1.0)  # look again whether the store writes (a deal waits for it)
        for s, seat in enumerate(self.seats):
            if (
                seat.kind == "human"
                and seat.taken
                and s not in self.offline_seats
                and not self.present(s)
            ):
                times.append(self.gone_since(s, now) + self.offline_grace)
        if self.vote is not None:
            times.append(self.vote.deadline)
        if self.rematch is not None:
            times.append(self.rematch.deadline)
        if self.state is None and self.match.hands and not self.match.is_over():
            if self._all_bots():
                times.append(self._between_since + self._auto_delay())
            elif self._next_deadline is not None:
                times.append(self._next_deadline)
        return min(times)

    def _mark_offline(self, now: float) -> bool:
        """Raise (or lower) each seat's offline mark; whether any changed.

        The mark goes up when the grace has passed since the seat's last connection closed:
        a time that depends on nothing else (never on whether the seat has an option in a
        claim window, which nobody else may learn, docs/protocol.md §2.3).
        """
        changed = False
        for s in range(NUM_SEATS):
            offline = self._offline_by(s, now)
            if offline != (s in self.offline_seats):
                changed = True
                if offline:
                    self.offline_seats.add(s)
                else:
                    self.offline_seats.discard(s)
        return changed

    def _offline_by(self, seat: int, now: float) -> bool:
        """Whether a person's seat has had no open connection for the offline grace at ``now``."""
        s = self.seats[seat]
        return (
            s.kind == "human"
            and s.taken
            and not self.present(seat)
            and now >= self.gone_since(seat, now) + self.offline_grace
        )

    def _housekeep(self) -> bool:
        """Run the room's clocks that are due; whether anything happened."""
        now = self.clock()
        done = False
        if self._mark_offline(now):
            self.out.room_changed()
            done = True
        if self.vote is not None and now >= self.vote.deadline:
            self._settle_vote()
            done = True
        if self.rematch is not None and now >= self.rematch.deadline:
            self._settle_rematch()
            done = True
        if self.state is None and self._maybe_deal():
            done = True
        return done

    async def _step(self) -> bool:
        """Make the automatic decision that is due, if any; whether something happened."""
        self.out.flush()
        if self._housekeep():
            return True
        wait, seat = self._due()
        state = self.state
        if wait > 0 or state is None or seat is None:
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
        if not state.can(seat, action):
            log.error("bot %s chose illegal %s; playing the first legal action", bot.name, action)
            action = state.legal_actions(seat)[0]
        async with self.acting:  # looked at again once no action is being written
            if (
                self.state is not state
                or len(state.actions) != before
                or seat not in state.to_act()
            ):
                return True  # someone acted meanwhile; look again
            now = self.clock()
            due = self._seat_due(seat, now)
            if due is None or due > now:
                return True  # the player took the seat back meanwhile (取消托管, back online)
            absent = not self.present(seat) and (
                self.opts.autoplay_absent or self._offline_by(seat, now)
            )
            # Why the seat is played is decided now: the player may send 取消托管 while the
            # action is written, and that must not be taken for a timer running out.
            timed_out = (
                s.kind == "human"
                and not (s.autoplay or s.away or absent)
                and state.phase != "claim"
            )
            # Written first: what the table is shown is stored (StoreUnavailable: see _drive).
            if not await self._logged(seat, action):
                return True
            if timed_out:
                # The turn timer ran out: the 托管 badge goes up, on a turn everyone sees, never
                # inside a claim window (it would name the seat that had an option there). A
                # seat played because it is offline gets none: its player plays again on coming
                # back.
                s.autoplay = True
                self.out.room_changed()
            self.apply(seat, action, auto=True)
        return True

    async def _drive(self) -> None:
        """Bots, timers and 托管, forever."""
        while not self.closed:
            try:
                if await self._step():
                    await asyncio.sleep(0)
                    continue
            except StoreUnavailable as exc:
                # Nothing was applied; the move is chosen and tried again in a while.
                log.debug("room %s: an automatic move was not stored: %s", self.id, exc)
                await asyncio.sleep(1)
            except Exception:
                log.exception("room %s: automatic play failed", self.id)
                await asyncio.sleep(1)
            wait, _ = self._due()
            wait = min(wait, self._clocks(self.clock()) - self.clock(), 3600.0)
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
