"""The state of a room: its seats, match and connections, and the public room information.

The room is built in layers, one module each: this base (state and RoomInfo), the views sent to
connections (:mod:`.views`), the hand driver with its timer, bots and 托管 (:mod:`.driver`) and
the message handling (:mod:`.rooms`).
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable
from typing import Any, Literal

from weimaque.bots import Bot, get_bot
from weimaque.game.events import Viewer
from weimaque.game.state import NUM_SEATS, GameState
from weimaque.match import Match
from weimaque.rules.config import RuleConfig
from weimaque.rules.registry import overrides_of
from weimaque.server.gate import Gate
from weimaque.server.numbers import HintCache
from weimaque.server.options import DEFAULT_TURN_SECONDS, RoomOptions
from weimaque.server.persist import Recorder
from weimaque.server.seats import Conn, Seat, SeatId
from weimaque.server.store import Store

Status = Literal["waiting", "playing", "between_hands", "over"]


def hand_summary(number: int, record: dict[str, Any], room_id: str) -> dict[str, Any]:
    """The summary of a finished hand (no deal, no actions)."""
    result = record.get("result") or {}
    return {
        "number": number,
        "dealer": record["dealer"],
        "winner": result.get("winner"),
        "total": result.get("total", 0),
        "chou": result.get("winner") is None,
        "settlement": record.get("settlement"),
        "record_url": f"/api/rooms/{room_id}/hands/{number}",
    }


class RoomBase:
    """A table of three seats playing one match (RULES §8.6): its state."""

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
        self._since: dict[int, float] = {}
        #: Viewers waiting for a claim window to close (issue 13 §2; :mod:`.gate`).
        self.gate = Gate()
        #: Per viewer: (events counted, how many of them it sees), for the ``from`` field.
        self._counted: dict[Viewer, tuple[int, int]] = {}
        self.hint_cache = HintCache()
        #: Events of the hand in progress each viewer was shown (see ``RoomViews.send_events``).
        self._seen: dict[Viewer, int] = {}
        #: News built on the next turn of the loop (``RoomViews.send_events``).
        self._pending: list[Callable[[], None]] = []
        self._flush_scheduled = False
        self._between_since = time.monotonic()
        self._wake = asyncio.Event()
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
        """1-based number of the current (or last) hand; 0 before the first deal."""
        return len(self.match.hands) + (1 if self.match.current is not None else 0)

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

    def info(self) -> dict[str, Any]:
        """RoomInfo (docs/protocol.md §1)."""
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
                    "autoplay": seat.autoplay,
                    "away": seat.away,
                    "no_timer": seat.no_timer,
                    "ready": seat.kind == "bot" or seat.ready,
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
            "public": self.opts.public,
            # A chosen seed makes a practice room: everyone sees it before sitting down.
            "practice": self.opts.seed is not None,
            **({} if self.opts.seed is None else {"practice_seed": self.opts.seed}),
            "turn_seconds": self.turn_seconds,
            "no_timer_asked": self.opts.turn_seconds is None,
            "autoplay_absent": self.opts.autoplay_absent,
            "bot_delay_ms": self.opts.bot_delay_ms,
            "hand_number": self.hand_number,
            "hands_played": len(self.match.hands),
            "match_hands": self.rules.match_hands,
            "match_over": self.match.is_over(),
        }

    def summaries(self) -> list[dict[str, Any]]:
        """Summaries of the finished hands."""
        return [hand_summary(n + 1, rec, self.id) for n, rec in enumerate(self.match.hands)]

    def match_info(self) -> dict[str, Any]:
        """Match totals for snapshots."""
        return {
            "scores": list(self.match.scores),
            "ledger": self.match.ledger(),
            "hands_played": len(self.match.hands),
            "match_hands": self.rules.match_hands,
            "over": self.match.is_over(),
            "hands": self.summaries(),
        }

    def _seat(self, seat: SeatId) -> Seat:
        if seat == "shouxing":
            assert self.shouxing is not None
            return self.shouxing
        return self.seats[seat]

    def _save_seats(self) -> None:
        self.recorder.seats(self.seats_json())

    def seats_json(self) -> dict[str, Any]:
        """Stored form of the seats."""
        return {
            "seats": [s.to_store() for s in self.seats],
            "shouxing": None if self.shouxing is None else self.shouxing.to_store(),
        }


__all__ = ["RoomBase", "Status", "hand_summary"]
