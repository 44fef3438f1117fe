"""Rooms: three seats held by secret tokens, bots, spectators, a turn timer with 托管, matches one
after another (解散 by vote, 再来一局), persistence.

No web imports here: a connection is any object with a non-blocking ``send(message)``. A room is
made of parts with one job each, one module each:

- :mod:`.seats`: the seats, their tokens and the connections (``Seating``);
- :mod:`.table`: the match at those seats and the room's public information (``Table``);
- :mod:`.driver`: dealing, applying actions, ending hands and matches (``HandDriver``);
- :mod:`.views`: the messages sent to each connection, built from per-viewer engine views only
  (``Views``), through the room's :mod:`.broadcast` (``Broadcaster``);
- :mod:`.autoplay`: bots, the turn timer, 托管 and the room's deadlines, in one task
  (``AutoPlay``), with each decision's clock from :mod:`.clocks`;
- this module: the room that holds them, answering client messages and the creator's seat
  controls;
- :mod:`.options` and :mod:`.votes`: the options a room is created with, a vote to 解散 and the
  再来一局 window; :mod:`..store.persist` and :mod:`..cluster.manager`: writing rooms to the
  store, and the rooms of a server.
"""

from __future__ import annotations

import asyncio
import logging
import math
import secrets
import time
from collections.abc import Awaitable
from concurrent.futures import Future
from typing import Any

from weimaque.errors import WeimaqueError
from weimaque.games.protocol import GameAction, Rotation, SeatBot
from weimaque.server.base.limits import RateLimiter
from weimaque.server.store.persist import Recorder, on_loop
from weimaque.server.store.store import Store, StoreUnavailable
from weimaque.server.table.autoplay import AutoPlay
from weimaque.server.table.broadcast import Broadcaster
from weimaque.server.table.clocks import DecisionClocks
from weimaque.server.table.driver import HandDriver
from weimaque.server.table.gate import Viewer
from weimaque.server.table.options import (
    MAX_BOT_DELAY_MS,
    MAX_TURN_SECONDS,
    OFFLINE_GRACE_S,
    PATTERN_SWITCHES,
    ROOM_OPTIONS,
    RoomError,
    RoomOptions,
    autoplay_bot_name,
)
from weimaque.server.table.seats import Client, Conn, Seat, Seating, hash_token, new_token
from weimaque.server.table.table import DECISION_SPAN, Setup, Status, Table, hand_summary
from weimaque.server.table.views import Views, replay_steps
from weimaque.server.wire import messages
from weimaque.server.wire.common import ErrorCode, SeatId
from weimaque.server.wire.protocol import (
    Act,
    AnyClientMessage,
    Autoplay,
    Chat,
    Dissolve,
    Hints,
    Join,
    Leave,
    Next,
    NoTimer,
    Ping,
    ProtocolError,
    Rematch,
    Sit,
    Spectate,
    Vote,
)
from weimaque.server.wire.quickchat import CHAT_BURST, CHAT_INTERVAL

log = logging.getLogger("weimaque.server")

#: The messages that change a room (its seats, its match, a vote, 再来一局): a process whose
#: lease on the room is not trusted applies none of them (docs/scale.md); an ``act``'s write
#: would be refused as well (``Recorder.append``). A ``join`` that sets a name or claims a seat for
#: its player changes the seats.
_CHANGES = (Act, Sit, Leave, Next, Autoplay, NoTimer, Dissolve, Vote, Rematch)


class Room:
    """A table of three seats playing matches (RULES §8.6), answering its connections.

    A room is made of parts with one job each, reached directly: its ``seating`` (seats,
    tokens, connections), its ``table`` (the match at those seats, the hand in progress, and
    every state change of them, by its transitions), the ``driver`` that deals, applies and
    ends hands and matches, the ``views`` sent to each connection through the broadcaster
    ``out``, the ``auto`` play that keeps its clocks, and the ``recorder`` that stores it. The
    room itself answers client messages and the creator's seat controls.
    """

    def __init__(
        self,
        room_id: str,
        opts: RoomOptions,
        seed: int,
        store: Store | None,
        seats: list[Seat] | None = None,
        shouxing: Seat | None = None,
        created: float | None = None,
        setup: Setup | None = None,
        persons: list[Seat] | None = None,
    ) -> None:
        """A room; use ``RoomManager.create`` or ``RoomManager.restore`` (``setup``: what it
        plays, ``Setup.of(opts)`` when not given; ``persons``: the stored persons' places of a
        table where they take turns at the seats)."""
        setup = setup if setup is not None else Setup.of(opts)
        if setup.shape.persons:
            # Persons take turns at the seats (RULES §2.1.1): their places, by person; where
            # each sits follows from the match (``place``). ``bots`` are keyed by person.
            seating = Seating(
                [],
                None,
                OFFLINE_GRACE_S,
                persons
                or [
                    Seat("bot", opts.bots[p], name=opts.bots[p])
                    if p in opts.bots
                    else Seat("human")
                    for p in range(setup.shape.persons)
                ],
            )
        else:
            seating = Seating(
                seats
                or [
                    Seat("bot", opts.bots[s], name=opts.bots[s])
                    if s in opts.bots
                    else Seat("human")
                    for s in range(setup.shape.seats)
                ],
                shouxing or (Seat("human") if "shouxing" in setup.extra_viewers() else None),
                OFFLINE_GRACE_S,
            )
        #: The room's id (``Table.id``).
        self.id = room_id
        self.seating = seating
        self.table = table = Table(room_id, opts, setup, seed, seating, created)
        if seating.persons is not None:
            seating.place(self._seat_persons())
        self.recorder = Recorder(store, room_id)
        #: The decision clock of each seat that must decide now.
        self.clocks = DecisionClocks(lambda: table.clock())
        #: Everything sent to more than one connection, in order (:mod:`.broadcast`).
        self.out = Broadcaster(seating.conns, lambda: messages.room(table.info()))
        self.views = Views(table, self.clocks, self.out)
        self.driver = HandDriver(table, self.views, self.recorder, self.clocks, self._wake)
        self.driver.placed = self._place
        bots = {s: self.bot(seat.bot) for s, seat in enumerate(seating.seats) if seat.bot}
        self.auto = AutoPlay(self.driver, self.clocks, bots)
        #: Quick chat's budget, per seat (weimaque.server.wire.quickchat).
        self.chat_budget = RateLimiter(CHAT_BURST, CHAT_INTERVAL, max_keys=8)
        #: Hashes of the creator's token (frees seats) and of the 守醒 invitation, if issued.
        self.creator: str | None = None
        self.invite: str | None = None
        #: Actions being written for connections (kept until done).
        self._acts: set[asyncio.Task[None]] = set()

    def _wake(self) -> None:
        self.auto.wake()

    def _seat_persons(self) -> tuple[int, ...]:
        """The person at each seat of the hand in progress or the next (the match's
        ``"rotation"`` capability, RULES §2.1.1)."""
        play = self.table.match
        assert isinstance(play, Rotation)
        return play.seat_persons()

    def _place(self) -> None:
        """Where persons take turns at the seats (RULES §2.1.1): put them at the seats of the
        hand in progress (called as it is dealt), or between hands where the last one was
        played (its record's ``seat_persons``), the one sitting out at the 守醒's place. Bots
        follow their persons; each connection that moved is told its new seat (a welcome: the
        deal's snapshots follow, held as the claim-window rule holds them)."""
        table = self.table
        if self.seating.persons is None:
            return
        last = table.records[-1].get("seat_persons") if table.records else None
        if table.hand is None and isinstance(last, list):
            order = tuple(int(p) for p in last)
        else:
            order = self._seat_persons()
        before = self.seating.where()
        moved = self.seating.place(order)
        after = self.seating.where()
        table.persons_moved({before[k]: after[k] for k in before if k in after})
        self.auto.bots = {
            s: self.bot(seat.bot) for s, seat in enumerate(self.seating.seats) if seat.bot
        }
        for conn in moved:
            conn.send(self.views.welcome(conn, None))

    # ----------------------------------------------------------------- what others ask of it

    def bot(self, spec: str) -> SeatBot:
        """A bot of the room's game for its rules (``Game.bot``)."""
        setup = self.table.setup
        return setup.game.bot(spec, setup.variant, setup.options)

    @property
    def match(self) -> Any:
        """The match being played: the game's own object where its ``MatchPlay`` wraps one
        (an adapter's ``match``), for tests and tools that know the game."""
        play = self.table.match
        return getattr(play, "match", play)

    @property
    def state(self) -> Any:
        """The hand in progress, or None: the game's own object where its ``Hand`` wraps one
        (an adapter's ``state``), for tests and tools that know the game."""
        hand = self.table.hand
        return getattr(hand, "state", hand)

    def info(self) -> dict[str, Any]:
        """RoomInfo (docs/protocol.md §1)."""
        return self.table.info()

    def decision_of(self, viewer: Viewer) -> int | None:
        """The decision number the viewer's views show now (None between hands)."""
        return self.views.decision_of(viewer)

    def seat_of_token(self, token: str) -> SeatId | None:
        """The seat a token holds, compared in constant time."""
        return self.seating.find(token)

    def start(self) -> None:
        """Start the room's automatic play on the running loop, once."""
        self.auto.start()

    async def play(self, seat: int, action: int | GameAction, auto: bool = True) -> bool:
        """Write and then apply a verified action of the seat that must decide; whether it was
        applied (``HandDriver.play``)."""
        return await self.driver.play(seat, action, auto)

    def stop(self) -> None:
        """Stop the room's automatic play at once (its task ends on the loop)."""
        self.auto.stop()

    async def close(self) -> None:
        """Stop the room's automatic play, and wait for it to end."""
        await self.auto.close()

    def save_seats(self) -> None:
        """Store the seats as they are now."""
        self.recorder.seats(self.seating.to_store())

    # ----------------------------------------------------------------- connections

    def connect(
        self, client: Client, player: tuple[str, str] | None = None, address: str = ""
    ) -> Conn:
        """A new connection (a spectator until ``join``/``sit``) of ``player`` (signed in,
        (id, name)) from ``address``."""
        conn = Conn(client, player=player, address=address)
        self.seating.conns.add(conn)
        self.start()
        return conn

    def disconnect(self, conn: Conn) -> None:
        """A connection closed; a seat left with none starts its offline grace (protocol §3)."""
        self.out.flush()
        self.seating.left(conn, self.table.clock())
        if conn.seat is not None or self.driver.presence():
            self.out.room_changed()
        self._wake()

    def handle(self, conn: Conn, msg: AnyClientMessage) -> Awaitable[None] | None:
        """Handle one parsed client message; raise ``ProtocolError`` for a refused one.

        An action in a room with a store is answered once it is written: then the result is an
        awaitable, done when the connection has had its answer (the caller awaits it before the
        connection's next message, so that its messages keep their order).
        """
        self.out.flush()
        self.start()
        if isinstance(msg, _CHANGES) or (
            isinstance(msg, Join) and (msg.name is not None or msg.claim)
        ):
            refused = self.recorder.refused()
            if refused is not None:
                # Not this process's to change now (docs/scale.md): nothing is applied, and the
                # client tries again, here once the lease is renewed or at the room's new owner.
                raise self._fail(
                    "storage_unavailable",
                    f"this server may not change the room now ({refused}); nothing was applied:"
                    " try again",
                    msg,
                )
        if isinstance(msg, Act):
            return self._act(conn, msg)
        if isinstance(msg, Ping):
            conn.send(messages.pong(msg.id, msg.t, int(time.time() * 1000)))
        elif isinstance(msg, Join):
            self._join(conn, msg)
        elif isinstance(msg, Sit):
            self._sit(conn, msg)
        elif isinstance(msg, Spectate):
            self._spectate(conn, msg)
        elif isinstance(msg, Next):
            self._next(conn, msg)
        elif isinstance(msg, Leave):
            self._leave(conn, msg)
        elif isinstance(msg, Autoplay):
            self._autoplay(conn, msg)
        elif isinstance(msg, NoTimer):
            self._no_timer(conn, msg)
        elif isinstance(msg, Hints):
            conn.hints = msg.on
            conn.send(self.views.snapshot(conn, msg.id))
        elif isinstance(msg, Dissolve):
            self._propose(conn, msg)
        elif isinstance(msg, Vote):
            self._vote(conn, msg)
        elif isinstance(msg, Rematch):
            self._rematch(conn, msg)
        elif isinstance(msg, Chat):
            self._chat(conn, msg)
        return None

    def _fail(
        self,
        code: ErrorCode,
        message: str,
        msg: AnyClientMessage,
        retry_after: int | None = None,
    ) -> ProtocolError:
        return ProtocolError(code, message, msg.model_dump(exclude_none=True), msg.id, retry_after)

    def _join(self, conn: Conn, msg: Join) -> None:
        if msg.hints is not None:
            conn.hints = msg.hints
        seat: SeatId | None = None
        if msg.token is not None:
            seat = self.seat_of_token(msg.token)
            if seat is None:
                conn.seat = None
                conn.send(self.views.welcome(conn, msg.id))
                conn.send(self.views.snapshot(conn, msg.id))
                raise self._fail("bad_token", "this room holds no seat with that token", msg)
            conn.token = msg.token
        elif msg.claim:
            seat = self._claim(conn, msg)
        if seat is not None:
            if isinstance(seat, int):
                # Back from offline: the player plays again at once, on the decision's own clock
                # (docs/protocol.md §3: nothing but the decision's end restarts it).
                self.seating.back(seat)
            if msg.watch:
                self._watch(conn, seat)
            else:
                back = conn.held == seat
                conn.seat, conn.held = seat, None
                if isinstance(seat, int):
                    s = self.seating.seats[seat]
                    s.away = False
                    if back:
                        # Sitting back after watching: the player plays again, with what is
                        # left of the decision's clock.
                        s.autoplay = False
                    if not s.autoplay:
                        self.table.attend(seat)
            if msg.name is not None:
                self.seating.seat(seat).name = msg.name
                self.save_seats()
        conn.send(self.views.welcome(conn, msg.id))
        conn.send(self.views.snapshot(conn, msg.id))
        self.driver.presence()
        self.out.room_changed()
        self._wake()

    def _claim(self, conn: Conn, msg: Join) -> SeatId:
        """A signed-in player takes the seat they hold here on this connection: a fresh token
        for it, and the connections that held it (another device) are told and become
        spectators (docs/protocol.md §7.2)."""
        if conn.player is None:
            raise self._fail("not_seated", "only a signed-in player claims a seat", msg)
        seat_id = self.seat_of_player(conn.player[0])
        if seat_id is None:
            raise self._fail("not_seated", "you hold no seat at this table", msg)
        token = new_token()
        self.seating.seat(seat_id).token = hash_token(token)
        self.save_seats()
        for other in list(self.seating.conns):
            if other is not conn and seat_id in (other.seat, other.held):
                other.seat = other.held = other.token = None
                other.send(messages.elsewhere(seat_id))
                other.send(self.views.welcome(other, None))
                other.send(self.views.snapshot(other, None))
        conn.token = token
        return seat_id

    def seat_of_player(self, player_id: str) -> SeatId | None:
        """The seat (or the 守醒's) a signed-in player holds here: at most one (§7.2)."""
        ids: list[SeatId] = [*range(len(self.seating.seats))]
        if self.seating.shouxing is not None:
            ids.append("shouxing")
        for seat_id in ids:
            seat = self.seating.seat(seat_id)
            if seat.kind == "human" and seat.token is not None and seat.player == player_id:
                return seat_id
        return None

    def _watch(self, conn: Conn, seat: SeatId) -> None:
        """The connection keeps the seat's token but watches; 托管 plays the seat meanwhile."""
        conn.seat, conn.held = None, seat
        if isinstance(seat, int) and not self.seating.connected(seat):
            self.seating.seats[seat].away = True
            self._wake()

    def _spectate(self, conn: Conn, msg: Spectate) -> None:
        seat = conn.seat
        if seat is not None:
            self._watch(conn, seat)
        conn.send(self.views.welcome(conn, msg.id))
        conn.send(self.views.snapshot(conn, msg.id))
        self.out.room_changed()

    def _leave(self, conn: Conn, msg: Leave) -> None:
        seat_id = conn.seat if conn.seat is not None else conn.held
        if seat_id is None:
            raise self._fail("not_seated", "this connection holds no seat to leave", msg)
        # Alone: no other person at the table, a 守醒 included (he settles with it, RULES §8.4).
        alone = self.driver.voters() == [seat_id] and not self.table.is_over()
        if alone and isinstance(seat_id, int) and self.table.hand is not None:
            # A player against bots leaves mid-hand: 托管 plays the hand out (it counts), and
            # the match ends with it (docs/protocol.md §2.4).
            self.driver.leave_after_hand(seat_id)
            self._answer_room(conn, msg.id)
            return
        if self.table.hand is not None:
            raise self._fail(
                "hand_in_progress",
                "a seat may be left only between hands; with other players at the table, "
                "propose 解散 (dissolve) to end the match",
                msg,
            )
        if alone and self.table.records:
            self.driver.dissolve("leave")  # the match ends as it stands
        # Leaving revokes the token: no connection keeps it.
        self.driver.clear_seat(seat_id)
        self.save_seats()
        self.driver.notify_freed([seat_id], conn, msg.id)
        self.driver.presence()
        self._after_seats_changed()

    def _after_seats_changed(self) -> None:
        """Tell everyone; a vote or a 再来一局 window may be decided by who is seated now."""
        self.driver.settle_vote()
        self.driver.settle_rematch()
        self.out.room_changed()
        self._wake()

    def _autoplay(self, conn: Conn, msg: Autoplay) -> None:
        seat = conn.seat
        if not isinstance(seat, int):
            raise self._fail("not_seated", "only a seated player has 托管", msg)
        s = self.seating.seats[seat]
        s.autoplay = msg.on
        s.away = False
        if msg.on:
            s.ready = True
        else:
            self.table.attend(seat)
        # 取消托管 gives the player the turn back with what is left of the decision's clock,
        # as a real table's timer keeps running (docs/protocol.md §3).
        conn.send(self.views.snapshot(conn, msg.id))
        self.out.room_changed()
        self._wake()

    def _no_timer(self, conn: Conn, msg: NoTimer) -> None:
        seat = conn.seat
        if not isinstance(seat, int):
            raise self._fail("not_seated", "only a seated player agrees on the timer", msg)
        if self.table.opts.turn_seconds is not None:
            raise self._fail(
                "bad_message", f"this room has a {self.table.opts.turn_seconds} s timer", msg
            )
        # The room's timer changes from the next decision: a running clock keeps its own.
        self.seating.seats[seat].no_timer = msg.agree
        self.save_seats()
        conn.send(self.views.snapshot(conn, msg.id))
        self.out.room_changed()
        self._wake()

    def _sit(self, conn: Conn, msg: Sit) -> None:
        if msg.hints is not None:
            conn.hints = msg.hints
        if conn.seat is not None or conn.held is not None:
            held = conn.seat if conn.seat is not None else conn.held
            raise self._fail("already_seated", f"this connection already holds seat {held}", msg)
        seat_id = msg.seat
        if seat_id == "shouxing":
            if self.seating.shouxing is None:
                raise self._fail("bad_seat", "these rules seat no 守醒 (RULES §2.1)", msg)
            seat = self.seating.shouxing
            person = self.seating.person_of("shouxing")
            if person is None:
                default = "守醒"
                self._check_invite(conn, msg)
            else:
                # a person's place who sits this hand out (RULES §2.1.1): anyone may take it
                default = f"玩家{person + 1}"
        else:
            if not 0 <= seat_id < len(self.seating.seats):
                names = ", ".join(str(k) for k in range(len(self.seating.seats)))
                raise self._fail("bad_seat", f"no seat {seat_id}; seats are {names}", msg)
            seat = self.seating.seats[seat_id]
            if seat.kind == "bot":
                raise self._fail("bad_seat", f"seat {seat_id} is played by a bot", msg)
            person = self.seating.person_of(seat_id)
            default = f"玩家{(seat_id if person is None else person) + 1}"
        if seat.taken:
            raise self._fail("seat_taken", f"seat {seat_id} is taken", msg)
        if conn.player is not None:
            held = self.seat_of_player(conn.player[0])
            if held is not None:  # one seat per player at a table (docs/protocol.md §7.2)
                raise self._fail(
                    "already_seated",
                    f"you hold seat {held} at this table already; join with claim to play it",
                    msg,
                )
        token = new_token()
        seat.token = hash_token(token)
        seat.name = msg.name or default
        if conn.player is not None:  # a signed-in player's seat is theirs (protocol §7.2)
            seat.player, seat.name = conn.player
        conn.seat, conn.token = seat_id, token
        self.save_seats()
        conn.send(self.views.welcome(conn, msg.id))
        if not self.driver.maybe_deal(conn, msg.id):
            conn.send(self.views.snapshot(conn, msg.id))
            self.out.room_changed()

    def _check_invite(self, conn: Conn, msg: Sit) -> None:
        """The 守醒 sees all three hands: by the creator's invitation, never a seat's holder."""
        if (
            self.invite is None
            or msg.invite is None
            or not secrets.compare_digest(hash_token(msg.invite), self.invite)
        ):
            raise self._fail(
                "bad_token", "the 守醒 seat is taken only with the creator's invitation", msg
            )
        if conn.token is not None or conn.held is not None:
            raise self._fail("forbidden", "a player who holds a seat may not sit as 守醒", msg)

    def free_seat(self, seat_id: SeatId) -> bool:
        """Free a person's seat (its token no longer holds it); whether it was held.

        Only between hands (``POST …/free`` refuses during a hand): a seat freed mid-hand could
        be taken by someone who would then read the hand its player held.
        """
        if seat_id == "shouxing":
            seat = self.seating.shouxing
        elif isinstance(seat_id, int) and 0 <= seat_id < len(self.seating.seats):
            seat = self.seating.seats[seat_id]
        else:
            seat = None
        if seat is None or seat.kind != "human" or seat.token is None:
            return False
        self.driver.clear_seat(seat_id)
        self.save_seats()
        self.driver.notify_freed([seat_id])
        self._after_seats_changed()
        return True

    def give_to_bot(self, seat_id: int, spec: str) -> None:
        """The creator gives a person's seat to a server bot ``spec`` (checked by the caller: the
        seat is empty or its player has no open connection). Allowed mid-hand: the bot shows
        nothing to anyone. The seat's token stops working."""
        bot = self.bot(spec)
        seat = self.seating.seats[seat_id]
        held = seat.token is not None
        self.driver.clear_seat(seat_id)
        seat.kind, seat.bot, seat.name = "bot", spec, spec
        self.auto.bots[seat_id] = bot
        self.save_seats()
        if held:
            self.driver.notify_freed([seat_id])
        if not self.driver.maybe_deal():
            self._after_seats_changed()
        else:
            self._wake()

    def _act(self, conn: Conn, msg: Act) -> Awaitable[None] | None:
        seat, action = self._check_act(conn, msg)
        if not self.recorder.durable:
            self._accept(conn, msg, seat, action)
            return None
        if self.driver.acting.take():  # no other action being written: straight to the store
            return self._write_act(conn, msg, seat, action)
        task = asyncio.get_running_loop().create_task(self._act_in_turn(conn, msg))
        self._acts.add(task)
        task.add_done_callback(self._acts.discard)
        # Shielded: a connection that closes meanwhile never stops an action being written.
        return asyncio.shield(task)

    async def _act_in_turn(self, conn: Conn, msg: Act) -> None:
        """Wait for the actions written before this one, check it again, then write it."""
        await self.driver.acting.acquire()
        try:
            seat, action = self._check_act(conn, msg)
        except ProtocolError as exc:
            self.driver.acting.release()
            conn.send(exc.to_message())
            return
        await self._write_act(conn, msg, seat, action)

    def _write_act(self, conn: Conn, msg: Act, seat: int, action: int) -> asyncio.Future[None]:
        """Write a checked action (``acting`` held); once it is written, answer and apply it.

        Done when the connection has its answer: the ``ack``, or ``storage_unavailable`` with
        nothing applied. The lock is released then, whatever happens to the connection.
        """
        loop = asyncio.get_running_loop()
        answered: asyncio.Future[None] = loop.create_future()
        hand, actions = self.table.hand, self.table.actions
        assert hand is not None
        before = len(actions)
        text = self.views.text(action)
        try:
            written = self.recorder.append(self.table.hand_number, before, seat, text)
            assert written is not None
        except BaseException:
            self.driver.acting.release()
            raise

        def finish(done: Future[None]) -> None:  # on the loop, once the writer is done
            try:
                failed = done.exception()
                if isinstance(failed, StoreUnavailable):
                    text = f"the action was not stored ({failed}); nothing was applied: try again"
                    conn.send(self._fail("storage_unavailable", text, msg).to_message())
                elif failed is not None:
                    log.error("room %s: an action failed: %s", self.id, failed)
                    conn.send(self._fail("internal", "internal server error", msg).to_message())
                elif (
                    self.table.hand is hand
                    and self.table.actions is actions
                    and len(actions) == before
                ):
                    self._accept(conn, msg, seat, action)
                else:  # dropped by a vote to 解散 meanwhile (its write removes the action)
                    conn.send(self._fail("no_hand", "the hand is over", msg).to_message())
            finally:
                self.driver.acting.release()
                if not answered.done():
                    answered.set_result(None)

        on_loop(written, finish)
        return answered

    def _check_act(self, conn: Conn, msg: Act) -> tuple[int, int]:
        """The seat and the action of an ``act`` the room accepts now (else ``ProtocolError``)."""
        seat = conn.seat
        if not isinstance(seat, int):
            raise self._fail("not_seated", "only a seated player may act", msg)
        hand = self.table.hand
        if hand is None:
            if msg.decision >= DECISION_SPAN:  # a hand's decision: that hand is over
                raise self._fail(
                    "stale", f"decision {msg.decision} is gone; no hand is in progress", msg
                )
            raise self._fail("no_hand", "no hand is in progress", msg)
        if msg.hand is not None and msg.hand != self.table.hand_number:
            raise self._fail(
                "stale", f"hand {msg.hand} is not the current hand {self.table.hand_number}", msg
            )
        decision = self.decision_of(seat)
        if msg.decision != decision:
            # Answered already (from another connection of the seat, or by 托管) or superseded:
            # never applied to a decision its sender did not see (docs/protocol.md §2.2).
            raise self._fail(
                "stale",
                f"decision {msg.decision} is gone; seat {seat} is at decision {decision}",
                msg,
            )
        game = self.table.game
        try:
            # By id or by its text form (docs/protocol.md §2.1).
            action = (
                game.action(msg.action).id
                if isinstance(msg.action, int)
                else game.parse_action(msg.action).id
            )
        except WeimaqueError as exc:
            raise self._fail("bad_action", str(exc), msg) from exc
        if seat not in hand.to_act():
            raise self._fail("not_your_turn", f"seat {seat} need not decide now", msg)
        try:
            hand.verify(seat, action)
        except WeimaqueError as exc:
            raise self._fail("illegal_action", str(exc), msg) from exc
        return seat, action

    def _accept(self, conn: Conn, msg: Act, seat: int, action: int) -> None:
        """Answer an accepted (and, with a store, written) action, then apply it."""
        self.seating.seat(seat).autoplay = False
        self.table.attend(seat)
        # Accepted: said at once, the same whether or not a claim window will hold the events
        # (their ``events`` message, with ``re``, comes when this seat is settled; see .gate).
        game = self.table.game
        actor = messages.Actor(seat=seat, action=self.views.text(action), auto=False)
        self.out.flush()  # older news first: the order of messages never changes
        # A 出 leaves the hand at once, and its card lies in the middle, whether or not a
        # window will hold what follows (the game's rule of what a seat is shown meanwhile).
        hand = self.table.hand
        extras = self.views.extras
        shown = None
        if extras is not None and extras.public_action(action) and hand is not None:
            shown = game.answered(hand.view(seat), action).to_json()
        conn.send(messages.ack(msg.id, actor, shown))
        self.driver.apply(seat, action, auto=False, origin=conn, re=msg.id)

    def _next(self, conn: Conn, msg: Next) -> None:
        seat = conn.seat
        if not isinstance(seat, int):
            raise self._fail("not_seated", "only a seated player may start the next hand", msg)
        if self.table.is_over():
            raise self._fail("match_over", "the match is over", msg)
        if self.table.hand is not None:
            raise self._fail("hand_in_progress", "the hand is not over", msg)
        self.seating.seats[seat].ready = True
        if not self.driver.maybe_deal(conn, msg.id):
            # Said at once to the one who pressed; everyone else hears it with the next change.
            conn.send(messages.room(self.info(), msg.id))
            self.out.room_changed()

    # ----------------------------------------------------------------- 解散 and 再来一局

    def _propose(self, conn: Conn, msg: Dissolve) -> None:
        seat = conn.seat
        if seat is None:
            raise self._fail("not_seated", "only a person at the table may propose to 解散", msg)
        if self.table.is_over():
            raise self._fail("match_over", "the match is over", msg)
        if self.table.vote is not None:
            raise self._fail(
                "vote_open", f"a vote to 解散 proposed by seat {self.table.vote.by} is open", msg
            )
        now = self.table.clock()
        refused = self.table.refused.get(seat)
        seconds = self.table.opts.vote_seconds
        if refused is not None and now < refused + seconds:
            wait = math.ceil(refused + seconds - now)
            raise self._fail(
                "rate_limited",
                f"seat {seat}'s proposal was refused; it may propose again in {wait} s",
                msg,
                retry_after=wait,
            )
        self.table.open_vote(seat, seconds)
        self.driver.settle_vote()
        self._answer_room(conn, msg.id)

    def _vote(self, conn: Conn, msg: Vote) -> None:
        seat = conn.seat
        if seat is None:
            raise self._fail("not_seated", "only a person at the table votes", msg)
        vote = self.table.vote
        if vote is None:
            raise self._fail("no_vote", "no vote is open", msg)
        if seat in vote.answers:
            said = "agreed" if vote.answers[seat] else "refused"
            raise self._fail("already_voted", f"seat {seat} has {said} already", msg)
        self.table.answer_vote(seat, msg.agree)
        self.driver.settle_vote()
        self._answer_room(conn, msg.id)

    def _rematch(self, conn: Conn, msg: Rematch) -> None:
        seat = conn.seat if conn.seat is not None else conn.held
        if seat is None:
            raise self._fail("not_seated", "only a seated player chooses 再来一局", msg)
        if not self.table.is_over():
            raise self._fail("match_not_over", "再来一局 is chosen once the match is over", msg)
        self.table.choose_rematch(seat, self.table.opts.vote_seconds)
        self.driver.settle_rematch()
        self._answer_room(conn, msg.id)

    # ----------------------------------------------------------------- quick chat

    def _chat(self, conn: Conn, msg: Chat) -> None:
        """A seated player's (or the 守醒's) phrase or emote, to every connection."""
        seat = conn.seat
        if seat is None:
            raise self._fail("not_seated", "only a seated player may chat", msg)
        budget = self.chat_budget
        if not budget.allow(str(seat), self.table.clock()):
            wait = math.ceil(budget.retry_after(str(seat)))
            raise self._fail(
                "rate_limited",
                f"seat {seat} chats too fast: {CHAT_BURST} at once, then one every "
                f"{CHAT_INTERVAL:g} s; try again in {wait} s",
                msg,
                retry_after=wait,
            )
        self.out.send_all(messages.chat(seat, phrase=msg.phrase, emote=msg.emote))

    def _answer_room(self, conn: Conn, re: object) -> None:
        """The room as it now stands, to the sender (with ``re``) and, coalesced, to all."""
        if conn in self.seating.conns:
            conn.send(messages.room(self.info(), re))
        self.out.room_changed()
        self._wake()


__all__ = [
    "MAX_BOT_DELAY_MS",
    "MAX_TURN_SECONDS",
    "PATTERN_SWITCHES",
    "ROOM_OPTIONS",
    "Client",
    "Conn",
    "Room",
    "RoomError",
    "RoomOptions",
    "Seat",
    "SeatId",
    "Status",
    "autoplay_bot_name",
    "hand_summary",
    "replay_steps",
]
