"""The hand driver: dealing, applying actions, ending hands and matches, 解散 and 再来一局.

It acts on the room's table (:mod:`.table`) and has the views (:mod:`.views`) tell each
connection what it may see. Everything it does to a hand is stored first (:mod:`..store.persist`):
an action is written before it is applied, one at a time (``ActionLock``).
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

from weimaque.errors import WeimaqueError
from weimaque.games.fairness import commitment, new_secret, reveal
from weimaque.games.protocol import GameAction, Hand
from weimaque.server.store.accounts import new_code
from weimaque.server.store.persist import Recorder, on_loop
from weimaque.server.store.store import StoredRoom
from weimaque.server.table.clocks import DecisionClocks
from weimaque.server.table.seats import Conn
from weimaque.server.table.table import Table
from weimaque.server.table.views import Views
from weimaque.server.wire import messages
from weimaque.server.wire.common import SeatId


class ActionLock:
    """Actions of one room written and applied one at a time, in the order they came.

    Like ``asyncio.Lock``, but a free lock is taken at once (``take``), without waiting for a
    turn of the event loop: a player's action costs one hop to the store's writer and back.
    """

    def __init__(self) -> None:
        """A free lock."""
        self.held = False
        self._waiting: deque[asyncio.Future[None]] = deque()

    def take(self) -> bool:
        """Take the lock if it is free; whether it was."""
        if self.held:
            return False
        self.held = True
        return True

    async def acquire(self) -> None:
        """Wait for the lock (in order) and take it."""
        if self.take():
            return
        turn = asyncio.get_running_loop().create_future()
        self._waiting.append(turn)
        try:
            await turn
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():
                self.release()  # it was handed over just as the waiter went away
            raise

    def release(self) -> None:
        """Hand the lock to the next waiter, or free it."""
        while self._waiting:
            turn = self._waiting.popleft()
            if not turn.done():
                turn.set_result(None)
                return
        self.held = False

    async def __aenter__(self) -> None:
        await self.acquire()

    async def __aexit__(self, *exc: object) -> None:
        self.release()


class HandDriver:
    """Deals, applies and ends the hands of a table; ends and starts its matches."""

    def __init__(
        self,
        table: Table,
        views: Views,
        recorder: Recorder,
        clocks: DecisionClocks,
        wake: Callable[[], None],
    ) -> None:
        """The driver of ``table``; ``wake`` tells the automatic play the table changed."""
        self.table = table
        self.seating = table.seating
        self.views = views
        self.out = views.out
        self.recorder = recorder
        self.clocks = clocks
        self.wake = wake
        #: Held while an action is written and applied: one at a time, in order.
        self.acting = ActionLock()
        #: Called as a hand is dealt (or a room restored): where persons take turns at the
        #: seats, they move to this hand's (RULES §2.1.1; the room's ``_place``).
        self.placed: Callable[[], None] = lambda: None

    # ----------------------------------------------------------------- the hand

    def ready_to_deal(self) -> bool:
        """Whether the next hand may be dealt now (docs/protocol.md §2.4).

        A match's first hand is dealt as soon as the seats are taken. Later ones: once somebody
        pressed 下一局 and nobody the deal waits for (``decides_next``) still has to, or when the
        countdown ends; a table of bots deals after its bot delay. With no countdown, a seat under
        托管 (or watched) whose player is connected presses 下一局 by itself once the bot delay
        has passed since the hand's end (``auto_ready_at``), as a bot does. A resting room (no
        person holding a seat is connected) deals nothing: a seat left to 托管 by a player who
        went presses nothing.
        """
        if (
            self.table.hand is not None
            or self.table.is_over()
            or not self.seating.all_taken()
            or self.table.resting()
        ):
            return False
        if self.recorder.failing is not None:
            return False  # a hand nobody could act in: dealt once the store writes again
        if not self.table.records:
            return True
        if self.seating.all_bots():
            return self.table.clock() >= self.table.between_since + self.table.auto_delay()
        pressed = any(seat.ready for seat in self.seating.seats if seat.kind == "human")
        auto = self.auto_ready_at()
        pressed = pressed or (auto is not None and self.table.clock() >= auto)
        if pressed and not any(
            self.table.decides_next(s) and not self.seating.seats[s].ready
            for s in range(self.table.shape.seats)
        ):
            return True
        deadline = self.table.next_deadline
        return deadline is not None and self.table.clock() >= deadline

    def auto_ready_at(self) -> float | None:
        """When the seats under 托管 press 下一局 by themselves at a table with no countdown
        (docs/protocol.md §2.4): the bot delay after the hand's end, where a person's seat is
        under 托管 or watched and its player is connected (None: no such seat, or a countdown
        deals the next hand). An offline seat presses nothing."""
        table = self.table
        if table.opts.next_seconds is not None:
            return None
        for s, seat in enumerate(self.seating.seats):
            if (
                seat.kind == "human"
                and seat.taken
                and (seat.autoplay or seat.away)
                and self.seating.present(s)
                and s not in self.seating.offline
            ):
                return table.between_since + table.auto_delay()
        return None

    def presence(self) -> bool:
        """Note whether the room rests now (no person holding a seat connected: no countdown,
        no deal, its match closed after ``rest_seconds``; docs/protocol.md §2.4); a player
        back restarts the countdown. Whether anything changed."""
        table = self.table
        if table.resting():
            return table.rest()
        if not table.wake():
            return False
        self.maybe_deal()
        return True

    def close_if_idle(self) -> bool:
        """Close the match of a room nobody came back to in time, as it stands (a hand in
        progress is played out by 托管 first); whether it did."""
        deadline = self.table.rest_deadline()
        if deadline is None or self.table.hand is not None or self.table.clock() < deadline:
            return False
        self.dissolve("idle")
        return True

    def resume(self, stored: StoredRoom, deal_of: Callable[[int], tuple[str, str] | None]) -> None:
        """The table as the store left it (a room read back, docs/protocol.md §5): its finished
        hands replayed, a 解散 kept, the hand in progress dealt again with its stored actions
        (``deal_of`` gives a hand's stored commitment and secret). Nothing is sent."""
        table = self.table
        last: Hand | None = None
        deltas: tuple[int, ...] = ()
        records: list[dict[str, Any]] = []
        extras = self.views.extras
        for record in stored.hands:
            if extras is not None:
                last, deltas = extras.rebook(table.match, record)
            else:
                # The match deals its hands again from its seed; each takes its actions.
                last = table.match.next_hand()
                for seat, text in record["actions"]:
                    last.apply(int(seat), self._action_id(text))
                deltas = table.match.finish(last)
            booked = self._booked(last, deltas)
            # What a replay cannot give back: the revealed commitment, the deal as dealt and
            # the hand's 回放码.
            for key in ("fairness", "deal", "replay_code", "seat_persons"):
                if key in record:
                    booked[key] = record[key]
            records.append(booked)
        table.restore(
            stored.match_number,
            stored.archive,
            records,
            last,
            lambda hand: self.views.hand_end(table.hand_number, hand, deltas),
        )
        if stored.dissolved and not table.is_over():
            # Ended early (解散): settled as it stood, the hand then in progress dropped.
            table.end_match(stored.ended_by)
        current = stored.current
        if current is None or table.is_over():
            self.placed()  # between hands: the persons where the last hand was played
        if current is not None and not table.is_over():
            hand = table.deal_hand()
            self.placed()  # the persons at this hand's seats (RULES §2.1.1)
            if hand.seed != current["seed"] or hand.dealer != current["dealer"]:
                raise WeimaqueError(f"room {table.id}: stored hand does not follow the match")
            gate = self.views.gate
            gate.dealt(hand)
            for seat, text in current["actions"]:
                table.apply(int(seat), self._action_id(text), via=gate.replay)
            found = deal_of(table.hand_number)
            if found is not None:
                table.commit_deal(*found)
            self.track()
            if hand.is_terminal():
                self.end_hand()
        elif not table.is_over() and table.records:
            self.countdown()  # between hands: a fresh countdown to the next deal

    def _action_id(self, text: str) -> int:
        """The id of an action's stored text form."""
        return self.table.game.parse_action(text).id

    def _booked(self, hand: Hand, deltas: tuple[int, ...]) -> dict[str, Any]:
        """The record of the hand the match has just booked, with its settlement (the game's
        own, where it keeps one: its ``"table"`` capability)."""
        extras = self.views.extras
        if extras is not None:
            return extras.booked(self.table.match)
        record = dict(hand.record())
        outcome = hand.outcome()
        winners = [] if outcome is None else list(outcome.winners)
        record["settlement"] = {"seats": list(deltas), "winners": winners}
        return record

    def countdown(self) -> bool:
        """Between hands with every seat taken: start the countdown if none runs; whether it did.

        It starts when a hand ends, and again when the table fills after a seat was left empty
        (a seat emptied between hands stops it), or when a player comes back to a resting room
        (which runs none).
        """
        seconds = self.table.opts.next_seconds
        if (
            seconds is None
            or self.table.next_deadline is not None
            or self.table.status != "between_hands"
            or not self.seating.all_taken()
            or self.table.resting()
        ):
            return False
        self.table.start_countdown(seconds)
        return True

    def maybe_deal(self, origin: Conn | None = None, re: Any = None) -> bool:
        """Deal the next hand if the room is ready; send everyone a snapshot."""
        self.out.flush()
        if self.countdown():
            self.out.room_changed()
        if not self.ready_to_deal():
            return False
        state = self.table.deal_hand()
        self.placed()  # persons taking turns at the seats sit where this hand puts them
        for seat in self.seating.seats:
            seat.ready = False
        # Who plays this hand themselves from its deal (docs/protocol.md §7.4).
        for s, seat in enumerate(self.seating.seats):
            if seat.kind == "human" and self.seating.connected(s) and not seat.autoplay:
                self.table.attend(s)
        self._commit(state.seed)
        self.recorder.hand_started(self.table.hand_number, self.table.setup.rules_info(), state)
        self.track()
        self.views.send_deal(origin, re)
        if state.is_terminal():  # a deal win is decided by actions, but be safe
            self.end_hand()
        self.wake()
        return True

    def _commit(self, seed: int | None) -> None:
        """Commit to the new hand's seed with a fresh secret, stored before anyone plays."""
        if seed is None:  # a hand dealt from explicit cards (tests) has no seed to commit to
            return
        secret = new_secret()
        published = commitment(secret, seed)
        self.table.commit_deal(published, secret)
        self.recorder.deal(self.table.hand_number, published, secret)

    def _reveal(self, record: dict[str, Any], hand: Hand) -> None:
        """Add the revealed secret and the deal to a finished hand's record (the deal as the
        game gives it, less what the record says already: its dealer)."""
        if self.table.deal_secret is not None and hand.seed is not None:
            record["fairness"] = reveal(self.table.deal_secret, hand.seed)
            record["deal"] = {k: v for k, v in hand.deal().items() if k not in record}

    def track(self) -> None:
        """Start the decision clock of each seat posed a decision (docs/protocol.md §3).

        A clock starts with the turn timer then in force and runs until the decision ends: a
        seat's action (``apply``) or the end of the hand. Nothing else restarts it.
        """
        hand = self.table.hand
        self.clocks.track(() if hand is None else hand.to_act(), self.table.turn_seconds)

    async def logged(self, seat: int, action: int) -> bool:
        """Write a verified action as the next of the hand in progress, before it is applied
        (the caller holds ``acting``); whether the hand is still where it was, to apply it.

        Raise ``StoreUnavailable`` when the store cannot write it: then nothing was written.
        Only a vote to 解散 can drop the hand meanwhile, and its write removes the action again.
        """
        table = self.table
        hand, actions = table.hand, table.actions
        assert hand is not None
        before = len(actions)
        text = self.views.text(action)
        await self.recorder.action(table.hand_number, before, seat, text)
        return table.hand is hand and table.actions is actions and len(actions) == before

    async def play(self, seat: int, action: int | GameAction, auto: bool = True) -> bool:
        """Write and then apply a verified action (an id, or the game's action) of the seat that
        must decide; whether it was applied (no connection is answered: the driver's and the
        tests' way to act)."""
        action_id = action if isinstance(action, int) else action.id
        async with self.acting:
            hand = self.table.hand
            if hand is None or action_id not in hand.legal_actions(seat):
                return False
            if not await self.logged(seat, action_id):
                return False
            self.apply(seat, action_id, auto=auto)
            return True

    def apply(
        self,
        seat: int,
        action: int,
        auto: bool,
        origin: Conn | None = None,
        re: Any = None,
    ) -> None:
        """Apply a verified action and send each connection what it may see of it.

        In a room with a store the action is in the store already (``logged``).
        """
        self.out.flush()
        hand = self.table.hand
        assert hand is not None
        first = len(hand.events())
        before = hand.clone()
        new = self.table.apply(seat, action)
        self.clocks.end(seat)
        self.track()
        self.views.send_events(new, first, seat, action, auto, origin, re, before)
        if hand.is_terminal():
            self.end_hand()
        self.wake()

    def end_hand(self) -> None:
        """The hand in progress is over: settle it, store it, tell the table."""
        self.out.flush()  # the last action's news goes out with the hand still in place
        table = self.table
        hand = table.hand
        assert hand is not None and hand.is_terminal()
        number = table.hand_number
        deltas = table.match.finish(hand)
        record = self._booked(hand, deltas)
        if self.seating.persons is not None:
            # who played each seat, persons taking turns at the seats (RULES §2.1.1)
            record["seat_persons"] = [self.seating.person_of(s) for s in range(table.shape.seats)]
        record["replay_code"] = new_code()  # the hand's 回放码 (docs/protocol.md §7.4)
        self._reveal(record, hand)
        last = table.end_hand(record, lambda hand: self.views.hand_end(number, hand, deltas))
        last["fairness"] = record.get("fairness")
        for seat in self.seating.seats:
            seat.ready = False  # 托管 stays on until its player cancels it
        self.clocks.clear()
        over = table.is_over()
        played, ranked = self.counts()
        if not over:
            self.countdown()
        # The hand's end follows from its last action, stored before it was applied: a restart
        # ends the hand again if this write has not been made (the store keeps trying it).
        self.recorder.hand_finished(
            number,
            record,
            table.ledger(),
            over,
            match=table.match_number,
            players=[
                (s.player, s.name, s.bot if s.kind == "bot" else None)
                for s in (self.seating.persons or self.seating.seats)  # per person: §2.1.1
            ],
            club=table.opts.club,
            played=played,
            ranked=ranked,
        )
        self.out.send_all(messages.hand_end(last))
        if over:
            self.out.send_all(self.match_end())
        elif table.closing:
            # A player left mid-hand: the hand was played out, and the match ends with it.
            self.dissolve("leave")
            return
        self.out.room_changed()

    def counts(self) -> tuple[bool, bool]:
        """Whether the hand now ending counts for 战绩 (a person played it themselves, not
        托管 all through) and for a 亲友圈's leaderboard (two people played it, at a table
        with no chosen seed); docs/protocol.md §7.4."""
        table = self.table
        people = {s for s, seat in enumerate(self.seating.seats) if seat.kind == "human"}
        attended = table.attended & people
        return bool(attended), len(attended) >= 2 and table.opts.seed is None

    def match_end(self) -> messages.MatchEnd:
        """The ``match_end`` message: the current match's totals as they stand now."""
        table = self.table
        scores = table.scores()
        ranking = sorted(range(len(scores)), key=lambda s: (-scores[s], s))
        extras = self.views.extras
        summary = {} if extras is None else extras.match_summary(table.match)
        return messages.match_end(
            match_number=table.match_number,
            dissolved=table.dissolved,
            ended_by=table.ended_by,
            hands_played=len(table.records),
            ledger=table.ledger(),
            scores=scores,
            final_pool_share=summary.get("final_pool_share"),
            ranking=ranking,
            hands=table.summaries(),
            # Over, the match shows the seed every deal came from (docs/fairness.md).
            seed=table.seed,
        )

    # ----------------------------------------------------------------- 解散 and 再来一局

    def settle_vote(self) -> None:
        """Close the open vote if it is decided: passed (the match ends now) or refused."""
        vote = self.table.vote
        if vote is None or self.recorder.refused() is not None:
            return  # a process whose lease is not trusted decides nothing (docs/scale.md)
        now = self.table.clock()
        refused = vote.refused_by()
        voters = self.voters()
        present = self.seating.present
        if refused:
            self.table.close_vote(refused_at=now)
            self.out.send_all(messages.vote_result(passed=False, by=vote.by, refused_by=refused))
            self.out.room_changed()
        elif vote.passed(voters, now, present):
            self.table.close_vote(refused_at=None)
            self.out.send_all(messages.vote_result(passed=True, by=vote.by, refused_by=[]))
            if self.table.hand is not None and voters == [vote.by]:
                # Nobody but bots to agree: the hand is not dropped (no deal is redealt at
                # will); 托管 plays it out, it counts, and the match ends with it.
                self.leave_after_hand(vote.by)
            else:
                self.dissolve()
        elif now >= vote.deadline:
            # Lapsed: a silent player whose connection dropped has not agreed.
            absent = vote.absent(voters, present)
            self.table.close_vote(refused_at=now)
            self.out.send_all(
                messages.vote_result(passed=False, by=vote.by, refused_by=[], absent=absent)
            )
            self.out.room_changed()

    def voters(self) -> list[SeatId]:
        """Who votes to 解散: every person at the table, the 守醒 too (docs/protocol.md §2.4)."""
        seating = self.seating
        out: list[SeatId] = [
            s for s, seat in enumerate(seating.seats) if seat.kind == "human" and seat.taken
        ]
        sx = seating.shouxing
        if sx is not None and sx.kind == "human" and sx.taken:  # a bot agrees without answering
            out.append("shouxing")
        return out

    def leave_after_hand(self, seat: SeatId) -> None:
        """The seat's player leaves a match played against bots only, mid-hand: 托管 plays the
        hand out, and the match ends as it stands when the hand does (docs/protocol.md §2.4)."""
        self.table.close_after_hand()
        if isinstance(seat, int):
            self.seating.seats[seat].autoplay = True
        self.out.room_changed()
        self.wake()

    def dissolve(self, how: str = "vote") -> None:
        """The match ends now, settled as it stands; a hand in progress is dropped unseen.

        ``how``: 解散 by a vote, a player who left a match against bots, or a room nobody
        came back to (closed idle).
        """
        self.out.flush()
        abandoned = self.table.hand_number if self.table.hand is not None else None
        # The dropped hand's deal is never revealed: it was not played out.
        self.table.end_match(how)
        self.clocks.clear()
        replies = self.views.reset().replies
        self.wake()
        # The end is announced once it is written: a table told the match is over finds it
        # over after a restart (docs/protocol.md, "What is acknowledged is stored").
        done = self.recorder.match_ended(self.table.ledger(), abandoned, how)
        if done is None:
            self._announce_dissolved(replies)
        else:
            on_loop(done, lambda finished: self._dissolved(finished, replies))

    def _dissolved(self, done: Future[None], replies: dict[Conn, Any]) -> None:
        """The dissolution's write is done: announced if it was made. One refused because a
        newer owner holds the room (docs/scale.md) is not: the room is let go meanwhile."""
        if not done.cancelled() and done.exception() is None:
            self._announce_dissolved(replies)

    def _announce_dissolved(self, replies: dict[Conn, Any]) -> None:
        """Tell the table the dissolved match is over: its end, then everyone's view of the
        table without the dropped hand (answers held by a claim window go out with it)."""
        self.out.send_all(self.match_end())
        for conn in list(self.seating.conns):
            conn.send(self.views.snapshot(conn, replies.pop(conn, None)))
        self.out.room_changed()

    def settle_rematch(self) -> None:
        """Start the next match if the 再来一局 window is decided; close it if nobody chose."""
        rematch = self.table.rematch
        if rematch is None or self.recorder.refused() is not None:
            return  # a process whose lease is not trusted decides nothing (docs/scale.md)
        now = self.table.clock()
        seated = self.seating.people()
        if rematch.ready(seated, now):
            self.start_match({s for s in seated if s in rematch.chosen})
        elif now >= rematch.deadline:
            self.table.close_rematch()
            self.out.room_changed()

    def start_match(self, keep: set[SeatId]) -> None:
        """再来一局: the next match, same rules, a fresh seed; people not in ``keep`` lose their
        seats (bots keep theirs)."""
        self.out.flush()
        freed = [s for s in self.seating.people() if s not in keep]
        for seat_id in freed:
            self.clear_seat(seat_id)
        self.table.next_match()
        self.views.reset()
        for s, seat in enumerate(self.seating.seats):
            seat.ready = False
            if s in keep:
                seat.autoplay = False  # they chose to play on: they are at the table
        table = self.table
        self.recorder.match_started(table.match_number, table.seed, self.seating.to_store())
        self.notify_freed(freed)
        if not self.maybe_deal():
            self.views.send_snapshots()
        self.out.room_changed()
        self.wake()

    def clear_seat(self, seat_id: SeatId) -> None:
        """A person's seat is given up: its token stops working (its connections are told by
        ``notify_freed``). A seat emptied between hands stops the countdown."""
        self.seating.clear(seat_id)
        if self.table.hand is None:
            self.table.stop_countdown()

    def notify_freed(self, freed: list[SeatId], origin: Conn | None = None, re: Any = None) -> None:
        """The connections of freed seats become spectators: a welcome and a snapshot each."""
        for conn in list(self.seating.conns):
            seat = conn.seat if conn.seat is not None else conn.held
            if seat is None or seat not in freed:
                continue
            conn.seat = conn.held = conn.token = None
            reply = re if conn is origin else None
            conn.send(self.views.welcome(conn, reply))
            conn.send(self.views.snapshot(conn, reply))
