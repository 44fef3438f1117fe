"""The state of a room: its seats, match and connections, and the public room information.

The room is built in layers, one module each: this base (state and RoomInfo), the views sent to
connections (:mod:`.views`), the hand driver with its timer, bots and 托管 (:mod:`.driver`) and
the message handling (:mod:`.rooms`).
"""

from __future__ import annotations

import asyncio
import random
import time
from collections import deque
from collections.abc import Callable
from typing import Any, Final, Literal

from weimaque.bots import Bot, get_bot
from weimaque.game.events import Viewer
from weimaque.game.state import NUM_SEATS, GameState
from weimaque.match import Match
from weimaque.rules.config import RuleConfig
from weimaque.rules.registry import overrides_of
from weimaque.server import messages
from weimaque.server.broadcast import Broadcaster
from weimaque.server.clocks import DecisionClocks, timed
from weimaque.server.gate import Gate
from weimaque.server.limits import RateLimiter
from weimaque.server.messages import Timer
from weimaque.server.numbers import HintCache
from weimaque.server.options import DEFAULT_TURN_SECONDS, OFFLINE_GRACE_S, RoomOptions
from weimaque.server.persist import Recorder
from weimaque.server.quickchat import CHAT_BURST, CHAT_INTERVAL
from weimaque.server.seats import Conn, Seat, SeatId
from weimaque.server.store import Store
from weimaque.server.votes import Rematch, Vote

Status = Literal["waiting", "playing", "between_hands", "over"]

#: Decision numbers per hand: a hand's decisions are numbered from ``hand_key * DECISION_SPAN``
#: (docs/protocol.md §2.2). A hand has far fewer events and actions than this (its stock holds
#: 22 cards), so numbers never repeat over a room's life.
DECISION_SPAN: Final = 10_000


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


def hand_summary(
    number: int, record: dict[str, Any], room_id: str, match: int = 1
) -> dict[str, Any]:
    """The summary of a finished hand (no deal, no actions): hand ``number`` of the room, played
    in its match ``match``."""
    result = record.get("result") or {}
    return {
        "number": number,
        "match": match,
        "dealer": record["dealer"],
        "winner": result.get("winner"),
        "total": result.get("total", 0),
        "chou": result.get("winner") is None,
        "settlement": record.get("settlement"),
        "record_url": f"/api/rooms/{room_id}/hands/{number}",
        "code": record.get("replay_code"),
    }


class RoomBase:
    """A table of three seats playing matches one after another (RULES §8.6): its state."""

    #: Seconds a person's seat may have no open connection before it is offline (托管 plays it).
    offline_grace: float = OFFLINE_GRACE_S
    #: The least pause before an automatic move where no person holding a seat is connected
    #: (the server's ``unattended_delay_ms``; docs/protocol.md §6).
    unattended_delay: float = 0.0

    def __init__(
        self,
        room_id: str,
        opts: RoomOptions,
        rules: RuleConfig,
        seed: int,
        store: Store | None,
        seats: list[Seat] | None = None,
        shouxing: Seat | None = None,
        created: float | None = None,
    ) -> None:
        """A room; use ``RoomManager.create`` or ``RoomManager.restore``."""
        self.id = room_id
        self.opts = opts
        self.rules = rules
        self.seed = seed
        self.store = store
        self.recorder = Recorder(store, room_id)
        self.created = created if created is not None else time.time()
        self.seats = seats or [
            Seat("bot", opts.bots[s], name=opts.bots[s]) if s in opts.bots else Seat("human")
            for s in range(NUM_SEATS)
        ]
        self.shouxing: Seat | None = shouxing or (Seat("human") if rules.shouxing else None)
        self.match = Match.new(rules, seed)
        self.bots: dict[int, Bot] = {
            s: get_bot(seat.bot) for s, seat in enumerate(self.seats) if seat.bot
        }
        self._auto: Bot | None = None
        self.rng = random.Random(f"{seed}:bots")
        self.conns: set[Conn] = set()
        self.last_hand: dict[str, Any] | None = None
        self._last_state: GameState | None = None
        #: The decision clock of each seat that must decide now.
        self.clocks = DecisionClocks(lambda: self.clock())
        #: Viewers waiting for a claim window to close (docs/protocol.md §2.3; :mod:`.gate`).
        self.gate = Gate()
        #: Per viewer: (events counted, how many of them it sees), for the ``from`` field.
        self._counted: dict[Viewer, tuple[int, int]] = {}
        self.hint_cache = HintCache()
        #: News built on the next turn of the loop (``RoomViews.send_events``).
        #: Everything sent to more than one connection, in order (:mod:`.broadcast`).
        self.out = Broadcaster(self.conns, lambda: messages.room(self.info()))
        #: The room's clock (monotonic seconds); a test may give a room a clock of its own.
        self.clock: Callable[[], float] = time.monotonic
        self._between_since = self.clock()
        #: The match's number in the room (1 for the first; 再来一局 starts the next).
        self.match_number = 1
        #: (match number, record) of every finished hand of the room's earlier matches.
        self.archive: list[tuple[int, dict[str, Any]]] = []
        #: The match was ended by a vote (解散).
        self.dissolved = False
        self.vote: Vote | None = None
        self.rematch: Rematch | None = None
        #: Quick chat's budget, per seat (weimaque.server.quickchat).
        self.chat_budget = RateLimiter(CHAT_BURST, CHAT_INTERVAL, max_keys=8)
        #: When each seat's last proposal to 解散 was refused.
        self._refused: dict[int, float] = {}
        #: When each person's seat lost its last open connection, and the seats now offline.
        self._gone: dict[int, float] = {}
        self.offline_seats: set[int] = set()
        #: Between hands: when the countdown deals the next hand (None: no countdown runs).
        self._next_deadline: float | None = None
        self._wake = asyncio.Event()
        #: Held while an action is written and applied: one at a time, in order.
        self.acting = ActionLock()
        #: Actions being written for connections (kept until done).
        self._acts: set[asyncio.Task[None]] = set()
        self._task: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self.closed = False

    # ----------------------------------------------------------------- state

    @property
    def state(self) -> GameState | None:
        """The hand in progress, or None."""
        return self.match.current

    @property
    def hand_number(self) -> int:
        """The room-wide number of the current (or last) hand; 0 before the room's first deal.

        Hands are numbered across the room's matches, so a number names one hand for good.
        """
        played = len(self.archive) + len(self.match.hands)
        return played + (1 if self.match.current is not None else 0)

    @property
    def hand_key(self) -> int:
        """A number of the current (or last) hand that grows with every hand dealt in the room.

        ``hand_number`` plus the matches before this one: a 解散 drops its hand and gives its
        number to the next hand dealt, which is the next match's, so only this never repeats.
        """
        return self.hand_number + self.match_number - 1

    @property
    def first_hand(self) -> int:
        """The room-wide number of the current match's first hand."""
        return len(self.archive) + 1

    @property
    def status(self) -> Status:
        """waiting, playing, between_hands or over."""
        if self.match.current is not None:
            return "playing"
        if self.match.is_over():
            return "over"
        return "between_hands" if self.match.hands else "waiting"

    @property
    def turn_seconds(self) -> int | None:
        """The turn timer in force: the room's, or none only while every player agrees.

        A room created without a timer (``turn_seconds`` null) plays without one only when every
        person at the table has agreed (``no_timer``); until then the default timer runs.
        """
        if self.opts.turn_seconds is not None:
            return self.opts.turn_seconds
        players = [s for s in self.seats if s.kind == "human"]
        if all(s.taken and s.no_timer for s in players):
            return None
        return DEFAULT_TURN_SECONDS

    def connected(self, seat: SeatId) -> bool:
        """Whether a connection is open for the seat."""
        return any(c.seat == seat for c in self.conns)

    def present(self, seat: SeatId) -> bool:
        """Whether the seat's player has an open connection (playing or watching, 旁观)."""
        return any(c.seat == seat or c.held == seat for c in self.conns)

    def gone_since(self, seat: int, now: float) -> float:
        """When the seat's player lost their last connection (a seat never connected since the
        room was loaded counts from the first time it is asked about)."""
        return self._gone.setdefault(seat, now)

    def decides_next(self, seat: int) -> bool:
        """Whether the seat's player is one the next deal waits for: a person at the table, not
        offline, not under 托管 nor watching (docs/protocol.md §2.4)."""
        s = self.seats[seat]
        return (
            s.kind == "human"
            and s.taken
            and seat not in self.offline_seats
            and not (s.autoplay or s.away)
            and not (self.opts.autoplay_absent and not self.present(seat))
        )

    def seat_ready(self, seat: int) -> bool:
        """RoomInfo's ``ready``: a bot, or a taken seat the next deal does not wait for."""
        s = self.seats[seat]
        if s.kind == "bot":
            return True
        return s.taken and (s.ready or not self.decides_next(seat))

    def seated_people(self) -> list[SeatId]:
        """The seats held by a person (the 守醒's too)."""
        out: list[SeatId] = [s for s, seat in enumerate(self.seats) if seat.kind == "human"]
        if self.shouxing is not None:
            out.append("shouxing")
        return [s for s in out if self._seat(s).token is not None]

    def info(self) -> dict[str, Any]:
        """RoomInfo (docs/protocol.md §1)."""
        now = self.clock()
        seats = []
        for s, seat in enumerate(self.seats):
            seats.append(
                {
                    "seat": s,
                    "kind": seat.kind,
                    "bot": seat.bot,
                    "taken": seat.taken,
                    "name": seat.name,
                    "connected": seat.kind == "bot" or self.connected(s),
                    "offline": s in self.offline_seats,
                    "autoplay": seat.autoplay,
                    "away": seat.away,
                    "no_timer": seat.no_timer,
                    "ready": self.seat_ready(s),
                    "player_id": seat.player,
                }
            )
        sx = self.shouxing
        return {
            "room_id": self.id,
            "status": self.status,
            "rules": {
                "id": self.rules.id,
                "name": self.rules.name,
                "overrides": overrides_of(self.rules),
            },
            "seats": seats,
            "shouxing": None
            if sx is None
            else {"taken": sx.taken, "name": sx.name, "connected": self.connected("shouxing")},
            "spectators": sum(1 for c in self.conns if c.seat is None),
            "same_network": self.same_network(),
            "club": self.opts.club,
            "public": self.opts.public,
            # A chosen seed makes a practice room: everyone sees it before sitting down.
            "practice": self.opts.seed is not None,
            **({} if self.opts.seed is None else {"practice_seed": self.opts.seed}),
            "turn_seconds": self.turn_seconds,
            "no_timer_asked": self.opts.turn_seconds is None,
            "autoplay_absent": self.opts.autoplay_absent,
            "bot_delay_ms": self.opts.bot_delay_ms,
            "next_seconds": self.opts.next_seconds,
            "vote_seconds": self.opts.vote_seconds,
            "hand_number": self.hand_number,
            "hands_played": len(self.match.hands),
            "match_hands": self.rules.match_hands,
            "match_over": self.match.is_over(),
            "match_number": self.match_number,
            "first_hand": self.first_hand,
            "dissolved": self.dissolved,
            "next_hand": self._next_hand_info(now),
            "vote": self._vote_info(now),
            "rematch": self._rematch_info(now),
        }

    def _next_hand_info(self, now: float) -> Timer | None:
        deadline, seconds = self._next_deadline, self.opts.next_seconds
        if deadline is None or seconds is None or self.status != "between_hands":
            return None
        return timed(deadline, now, seconds)

    def _vote_info(self, now: float) -> dict[str, Any] | None:
        vote = self.vote
        if vote is None:
            return None
        return {
            "kind": "dissolve",
            "by": vote.by,
            **timed(vote.deadline, now, vote.seconds),
            "answers": list(vote.answers),
        }

    def _rematch_info(self, now: float) -> dict[str, Any] | None:
        rematch = self.rematch
        if rematch is None:
            return None
        return {
            # A bot plays on in the next match: it has chosen.
            "chosen": [
                seat.kind == "bot" or s in rematch.chosen for s, seat in enumerate(self.seats)
            ],
            "shouxing": None if self.shouxing is None else "shouxing" in rematch.chosen,
            **timed(rematch.deadline, now, rematch.seconds),
        }

    def summaries(self) -> list[dict[str, Any]]:
        """Summaries of the current match's finished hands (numbered room-wide)."""
        first, match = self.first_hand, self.match_number
        return [
            hand_summary(first + n, rec, self.id, match) for n, rec in enumerate(self.match.hands)
        ]

    def all_summaries(self) -> list[dict[str, Any]]:
        """Summaries of every finished hand of the room, each with its match's number."""
        done = [(m, rec) for m, rec in self.archive]
        done += [(self.match_number, rec) for rec in self.match.hands]
        return [hand_summary(n, rec, self.id, m) for n, (m, rec) in enumerate(done, 1)]

    def hand_record(self, number: int) -> tuple[int, dict[str, Any]] | None:
        """(match number, record) of the room's finished hand ``number``, or None."""
        if 1 <= number <= len(self.archive):
            return self.archive[number - 1]
        index = number - self.first_hand
        if 0 <= index < len(self.match.hands):
            return self.match_number, self.match.hands[index]
        return None

    def match_info(self) -> dict[str, Any]:
        """Match totals for snapshots."""
        return {
            "number": self.match_number,
            "scores": list(self.match.scores),
            "ledger": self.match.ledger(),
            "hands_played": len(self.match.hands),
            "match_hands": self.rules.match_hands,
            "over": self.match.is_over(),
            "dissolved": self.dissolved,
            "hands": self.summaries(),
        }

    def _seat(self, seat: SeatId) -> Seat:
        if seat == "shouxing":
            assert self.shouxing is not None
            return self.shouxing
        return self.seats[seat]

    def _save_seats(self) -> None:
        self.recorder.seats(self.seats_json())

    def same_network(self) -> bool:
        """Whether two seats are held from one network address now (docs/protocol.md §7.2)."""
        seen: dict[str, int] = {}
        for conn in self.conns:
            seat = conn.seat
            if (
                isinstance(seat, int)
                and conn.address
                and seen.setdefault(conn.address, seat) != seat
            ):
                return True
        return False

    def seats_json(self) -> dict[str, Any]:
        """Stored form of the seats."""
        return {
            "seats": [s.to_store() for s in self.seats],
            "shouxing": None if self.shouxing is None else self.shouxing.to_store(),
        }


__all__ = [
    "DECISION_SPAN",
    "ActionLock",
    "RoomBase",
    "Status",
    "hand_summary",
    "timed",
]
