"""Rooms: three seats held by secret tokens, bots, spectators, a turn timer with 托管, persistence.

No web imports here: a connection is any object with a non-blocking ``send(message)``. Every
message about the hand is built from ``observation(state, viewer)`` and ``event.view(viewer)``
only (RULES §2.1, §4.3), with viewer = the seat, ``"shouxing"`` or ``"public"``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final, Literal, Protocol

from weimaque.bots import REGISTRY, Bot, BotView, get_bot
from weimaque.errors import IllegalAction, InvalidNotation, WeimaqueError
from weimaque.game.actions import Action
from weimaque.game.events import Event, Viewer, Won
from weimaque.game.observation import observation
from weimaque.game.record import replay, start_from_record
from weimaque.game.state import NUM_SEATS, GameState
from weimaque.match import Match, Settlement
from weimaque.rules.config import RuleConfig
from weimaque.rules.registry import overrides_of, rules_with
from weimaque.server.protocol import (
    Act,
    AnyClientMessage,
    ErrorCode,
    Join,
    Next,
    Ping,
    ProtocolError,
    Sit,
    Spectate,
    server_message,
)
from weimaque.server.store import Store

log = logging.getLogger("weimaque.server")

SeatId = int | Literal["shouxing"]
Status = Literal["waiting", "playing", "between_hands", "over"]
MAX_BOT_DELAY_MS: Final = 10_000
MAX_TURN_SECONDS: Final = 3600

#: The rule options a room may choose (docs/protocol.md §1), besides the 名堂 switches.
ROOM_OPTIONS: Final = (
    "min_xi",
    "wei_face_up",
    "holder_may_not_chi",
    "dealer_rotation",
    "first_dealer",
    "shouxing",
    "shouxing_liuju_reward",
    "liuzi",
    "liuzi_dealer",
    "liuzi_other",
    "deng_value",
    "liuzi_min_xi",
    "match_hands",
    "score_target",
)

#: Lists of 名堂 keys a room turns on (from the preset's optional ones) or off.
PATTERN_SWITCHES: Final = ("enable_patterns", "disable_patterns")


class Client(Protocol):
    """A connection: ``send`` queues one message and never blocks."""

    def send(self, message: dict[str, Any]) -> None:
        """Queue a message for this connection."""
        ...


class RoomError(WeimaqueError):
    """Bad room options (answered with HTTP 400)."""

    def __init__(self, code: str, message: str) -> None:
        """An error with a machine-readable code."""
        super().__init__(message)
        self.code = code


@dataclass(slots=True)
class Seat:
    """One of the three seats (or the 守醒's): a person by token, or a bot."""

    kind: Literal["human", "bot"]
    bot: str | None = None
    token: str | None = None
    name: str | None = None
    ready: bool = False
    autoplay: bool = False

    @property
    def taken(self) -> bool:
        """A bot, or a person holding the token."""
        return self.kind == "bot" or self.token is not None

    def to_store(self) -> dict[str, Any]:
        """Stored form (with the token)."""
        return {"kind": self.kind, "bot": self.bot, "token": self.token, "name": self.name}


@dataclass(frozen=True, slots=True)
class RoomOptions:
    """What a room was created with (``POST /api/rooms``)."""

    preset: str = "anxiang"
    options: dict[str, Any] = field(default_factory=dict)
    bots: dict[int, str] = field(default_factory=dict)
    turn_seconds: int | None = None
    autoplay_absent: bool = False
    bot_delay_ms: int = 400
    seed: int | None = None

    @staticmethod
    def from_json(raw: Any) -> RoomOptions:
        """Check a JSON request body; raise ``RoomError`` quoting what is wrong."""
        if raw is None:
            raw = {}
        if not isinstance(raw, dict):
            raise RoomError("bad_request", "the body must be a JSON object")
        known = {
            "preset",
            "options",
            "bots",
            "turn_seconds",
            "autoplay_absent",
            "bot_delay_ms",
            "seed",
        }
        unknown = sorted(set(raw) - known)
        if unknown:
            raise RoomError("bad_request", f"unknown fields {unknown}; known: {sorted(known)}")
        preset = raw.get("preset", "anxiang")
        if not isinstance(preset, str):
            raise RoomError("bad_request", f"preset must be a string, not {preset!r}")
        options = raw.get("options") or {}
        if not isinstance(options, dict):
            raise RoomError("bad_options", f"options must be an object, not {options!r}")
        bad = sorted(k for k in options if k not in (*ROOM_OPTIONS, *PATTERN_SWITCHES))
        if bad:
            raise RoomError("bad_options", f"a room may not set {bad}; it may set {ROOM_OPTIONS}")
        for switch in PATTERN_SWITCHES:
            keys = options.get(switch, [])
            if not isinstance(keys, list) or not all(isinstance(k, str) for k in keys):
                raise RoomError("bad_options", f"{switch} must be a list of keys: {keys!r}")
        bots_raw = raw.get("bots") or {}
        if not isinstance(bots_raw, dict):
            raise RoomError("bad_request", f"bots must be an object seat → kind, not {bots_raw!r}")
        bots: dict[int, str] = {}
        for key, kind in bots_raw.items():
            if str(key) not in ("0", "1", "2") or not isinstance(kind, str):
                raise RoomError("bad_bots", f"bad bot seat {key!r}: {kind!r}")
            bots[int(key)] = kind
        turn = raw.get("turn_seconds")
        if turn is not None and (
            not isinstance(turn, int) or isinstance(turn, bool) or not 1 <= turn <= MAX_TURN_SECONDS
        ):
            raise RoomError("bad_request", f"turn_seconds must be 1..{MAX_TURN_SECONDS} or null")
        absent = raw.get("autoplay_absent", False)
        if not isinstance(absent, bool):
            raise RoomError("bad_request", f"autoplay_absent must be a boolean, not {absent!r}")
        delay = raw.get("bot_delay_ms", 400)
        if (
            not isinstance(delay, int)
            or isinstance(delay, bool)
            or not 0 <= delay <= MAX_BOT_DELAY_MS
        ):
            raise RoomError("bad_request", f"bot_delay_ms must be 0..{MAX_BOT_DELAY_MS}")
        seed = raw.get("seed")
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
            raise RoomError("bad_request", f"seed must be an integer or null, not {seed!r}")
        return RoomOptions(preset, dict(options), bots, turn, absent, delay, seed)

    def to_json(self) -> dict[str, Any]:
        """Stored form."""
        return {
            "preset": self.preset,
            "options": self.options,
            "bots": {str(k): v for k, v in self.bots.items()},
            "turn_seconds": self.turn_seconds,
            "autoplay_absent": self.autoplay_absent,
            "bot_delay_ms": self.bot_delay_ms,
            "seed": self.seed,
        }


def autoplay_bot_name() -> str:
    """The 托管 bot: ``greedy`` when the server has it, else ``random``."""
    return "greedy" if "greedy" in REGISTRY else "random"


@dataclass(eq=False, slots=True)
class Conn:
    """One open connection to a room."""

    client: Client
    seat: SeatId | None = None

    def send(self, message: dict[str, Any]) -> None:
        """Queue a message; a broken client never breaks the room."""
        try:
            self.client.send(message)
        except Exception:  # pragma: no cover - a dead connection is dropped by its own reader
            log.exception("send failed")


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


def replay_steps(record: dict[str, Any]) -> list[dict[str, Any]]:
    """A finished hand as steps: each action with its events and the full view after it."""
    state = start_from_record(record)
    steps: list[dict[str, Any]] = [
        {
            "action": None,
            "seat": None,
            "events": [v for e in state.events if (v := e.view("all")) is not None],
            "observation": observation(state, "all"),
        }
    ]
    for seat, text in record["actions"]:
        events = state.apply(int(seat), Action.parse(text))
        steps.append(
            {
                "action": text,
                "seat": int(seat),
                "events": [v for e in events if (v := e.view("all")) is not None],
                "observation": observation(state, "all"),
            }
        )
    return steps


class Room:
    """A table of three seats playing one match (RULES §8.6)."""

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
            "turn_seconds": self.opts.turn_seconds,
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

    # ----------------------------------------------------------------- views

    @staticmethod
    def viewer_of(conn: Conn) -> Viewer:
        """The engine viewer of a connection: its seat, the 守醒, or the public."""
        if conn.seat is None:
            return "public"
        return conn.seat

    def _timer(self, seat: SeatId | None) -> dict[str, Any] | None:
        turn = self.opts.turn_seconds
        if turn is None or not isinstance(seat, int) or seat not in self._since:
            return None
        if self.seats[seat].kind == "bot":
            return None
        left = self._since[seat] + turn - time.monotonic()
        return {
            "deadline_ms": int((time.time() + left) * 1000),
            "left_ms": max(0, int(left * 1000)),
            "seconds": turn,
        }

    def _legal(self, seat: SeatId | None) -> list[dict[str, Any]]:
        state = self.state
        if state is None or not isinstance(seat, int):
            return []
        return [{"text": str(a), "id": a.id} for a in state.legal_actions(seat)]

    def _view_fields(self, conn: Conn) -> dict[str, Any]:
        state = self.state
        seat = conn.seat
        legal = self._legal(seat)
        return {
            "observation": None if state is None else observation(state, self.viewer_of(conn)),
            "legal_actions": legal,
            "to_act": bool(legal),
            "timer": self._timer(seat) if legal else None,
        }

    def _displayed(self) -> GameState | None:
        """The hand shown in a snapshot: the one in progress, or the last one finished."""
        if self.state is not None:
            return self.state
        return self._last_state

    def snapshot(self, conn: Conn, re: Any = None) -> dict[str, Any]:
        """The full view of one connection."""
        viewer = self.viewer_of(conn)
        shown = self._displayed()
        fields = self._view_fields(conn)
        if self.state is None and shown is not None:
            fields["observation"] = observation(shown, viewer)
        history = (
            [] if shown is None else [v for e in shown.events if (v := e.view(viewer)) is not None]
        )
        return server_message(
            "snapshot",
            re,
            room=self.info(),
            you=self._you(conn),
            hand_number=self.hand_number,
            **fields,
            history=history,
            event_count=len(history),
            match=self.match_info(),
            last_hand=self.last_hand if self.state is None else None,
        )

    def _you(self, conn: Conn) -> dict[str, Any]:
        seat = conn.seat
        if seat is None:
            return {"seat": None, "role": "spectator", "name": None}
        s = self._seat(seat)
        return {
            "seat": seat,
            "role": "shouxing" if seat == "shouxing" else "player",
            "name": s.name,
        }

    def _seat(self, seat: SeatId) -> Seat:
        if seat == "shouxing":
            assert self.shouxing is not None
            return self.shouxing
        return self.seats[seat]

    def _welcome(self, conn: Conn, re: Any) -> dict[str, Any]:
        seat = conn.seat
        s = None if seat is None else self._seat(seat)
        you = self._you(conn)
        return server_message(
            "welcome",
            re,
            room_id=self.id,
            seat=seat,
            role=you["role"],
            token=None if s is None else s.token,
            name=you["name"],
            protocol=1,
        )

    def broadcast(self, message: dict[str, Any]) -> None:
        """Send the same (public) message to every connection."""
        for conn in list(self.conns):
            conn.send(message)

    def broadcast_room(self) -> None:
        """Tell everyone the room changed."""
        self.broadcast(server_message("room", room=self.info()))

    def send_snapshots(self) -> None:
        """A fresh snapshot to every connection (a new hand)."""
        for conn in list(self.conns):
            conn.send(self.snapshot(conn))

    # ----------------------------------------------------------------- connections

    def connect(self, client: Client) -> Conn:
        """A new connection (a spectator until ``join``/``sit``)."""
        conn = Conn(client)
        self.conns.add(conn)
        self.ensure_driver()
        return conn

    def disconnect(self, conn: Conn) -> None:
        """A connection closed."""
        self.conns.discard(conn)
        if conn.seat is not None:
            self.broadcast_room()
        self._wake.set()

    def handle(self, conn: Conn, msg: AnyClientMessage) -> None:
        """Handle one parsed client message; raise ``ProtocolError`` for a refused one."""
        self.ensure_driver()
        if isinstance(msg, Ping):
            conn.send(server_message("pong", msg.id, t=msg.t, server_ms=int(time.time() * 1000)))
        elif isinstance(msg, Join):
            self._join(conn, msg)
        elif isinstance(msg, Sit):
            self._sit(conn, msg)
        elif isinstance(msg, Spectate):
            conn.seat = None
            conn.send(self._welcome(conn, msg.id))
            conn.send(self.snapshot(conn, msg.id))
            self.broadcast_room()
        elif isinstance(msg, Act):
            self._act(conn, msg)
        elif isinstance(msg, Next):
            self._next(conn, msg)

    def _fail(self, code: ErrorCode, message: str, msg: AnyClientMessage) -> ProtocolError:
        return ProtocolError(code, message, msg.model_dump(exclude_none=True), msg.id)

    def _join(self, conn: Conn, msg: Join) -> None:
        if msg.token is not None:
            seat = self.seat_of_token(msg.token)
            if seat is None:
                conn.seat = None
                conn.send(self._welcome(conn, msg.id))
                conn.send(self.snapshot(conn, msg.id))
                raise self._fail("bad_token", "this room holds no seat with that token", msg)
            conn.seat = seat
            if msg.name is not None:
                self._seat(seat).name = msg.name
                self._save_seats()
        conn.send(self._welcome(conn, msg.id))
        conn.send(self.snapshot(conn, msg.id))
        self.broadcast_room()
        self._wake.set()

    def seat_of_token(self, token: str) -> SeatId | None:
        """The seat a token holds, compared in constant time."""
        found: SeatId | None = None
        for s, seat in enumerate(self.seats):
            if seat.token is not None and secrets.compare_digest(seat.token, token):
                found = s
        if (
            self.shouxing is not None
            and self.shouxing.token is not None
            and secrets.compare_digest(self.shouxing.token, token)
        ):
            found = "shouxing"
        return found

    def _sit(self, conn: Conn, msg: Sit) -> None:
        if conn.seat is not None:
            raise self._fail(
                "already_seated", f"this connection already holds seat {conn.seat}", msg
            )
        seat_id = msg.seat
        if seat_id == "shouxing":
            if self.shouxing is None:
                raise self._fail("bad_seat", "these rules seat no 守醒 (RULES §2.1)", msg)
            seat = self.shouxing
            default = "守醒"
        else:
            if not 0 <= seat_id < NUM_SEATS:
                raise self._fail("bad_seat", f"no seat {seat_id}; seats are 0, 1, 2", msg)
            seat = self.seats[seat_id]
            if seat.kind == "bot":
                raise self._fail("bad_seat", f"seat {seat_id} is played by a bot", msg)
            default = f"玩家{seat_id + 1}"
        if seat.taken:
            raise self._fail("seat_taken", f"seat {seat_id} is taken", msg)
        seat.token = secrets.token_urlsafe(18)
        seat.name = msg.name or default
        conn.seat = seat_id
        self._save_seats()
        conn.send(self._welcome(conn, msg.id))
        if not self._maybe_deal(conn, msg.id):
            conn.send(self.snapshot(conn, msg.id))
            self.broadcast_room()

    def _act(self, conn: Conn, msg: Act) -> None:
        seat = conn.seat
        if not isinstance(seat, int):
            raise self._fail("not_seated", "only a seated player may act", msg)
        state = self.state
        if state is None:
            raise self._fail("no_hand", "no hand is in progress", msg)
        if msg.hand is not None and msg.hand != self.hand_number:
            raise self._fail(
                "stale", f"hand {msg.hand} is not the current hand {self.hand_number}", msg
            )
        try:
            action = (
                Action.from_id(msg.action)
                if isinstance(msg.action, int)
                else Action.parse(msg.action)
            )
        except InvalidNotation as exc:
            raise self._fail("bad_action", str(exc), msg) from exc
        if seat not in state.to_act():
            raise self._fail("not_your_turn", f"seat {seat} need not decide now", msg)
        try:
            state.verify(seat, action)
        except IllegalAction as exc:
            raise self._fail("illegal_action", str(exc), msg) from exc
        self._seat(seat).autoplay = False
        self.apply(seat, action, auto=False, origin=conn, re=msg.id)

    def _next(self, conn: Conn, msg: Next) -> None:
        seat = conn.seat
        if not isinstance(seat, int):
            raise self._fail("not_seated", "only a seated player may start the next hand", msg)
        if self.match.is_over():
            raise self._fail("match_over", "the match is over", msg)
        if self.state is not None:
            raise self._fail("hand_in_progress", "the hand is not over", msg)
        self.seats[seat].ready = True
        if not self._maybe_deal(conn, msg.id):
            self.broadcast_room()

    # ----------------------------------------------------------------- the hand

    def _all_taken(self) -> bool:
        return all(s.taken for s in self.seats)

    def _ready_to_deal(self) -> bool:
        if self.state is not None or self.match.is_over() or not self._all_taken():
            return False
        if not self.match.hands:
            return True
        humans = [s for s, seat in enumerate(self.seats) if seat.kind == "human"]
        connected = [s for s in humans if self.connected(s)]
        if all(self.seats[s].ready for s in connected) and (
            not humans or any(self.seats[s].ready for s in connected)
        ):
            return True
        turn = self.opts.turn_seconds
        return turn is not None and time.monotonic() - self._between_since >= turn

    def _maybe_deal(self, origin: Conn | None = None, re: Any = None) -> bool:
        """Deal the next hand if the room is ready; send everyone a snapshot."""
        if not self._ready_to_deal():
            return False
        state = self.match.start_hand()
        for seat in self.seats:
            seat.ready = False
        self.last_hand = None
        self._last_state = None
        if self.store is not None:
            assert state.seed is not None
            self.store.start_hand(
                self.id,
                self.hand_number,
                self.rules.id,
                overrides_of(self.rules),
                state.seed,
                state.dealer,
            )
        self._track()
        for conn in list(self.conns):
            conn.send(self.snapshot(conn, re if conn is origin else None))
        if state.is_terminal():  # a deal win is decided by actions, but be safe
            self._end_hand()
        self._wake.set()
        return True

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
        state = self.state
        assert state is not None
        first = len(state.events)
        state.apply(seat, action)
        new: list[Event] = state.events[first:]
        if self.store is not None:
            self.store.save_actions(self.id, [[s, str(a)] for s, a in state.actions])
        self._since.pop(seat, None)
        self._track()
        for conn in list(self.conns):
            viewer = self.viewer_of(conn)
            views = [v for e in new if (v := e.view(viewer)) is not None]
            # Count only what this viewer saw: a gap would betray a hidden event, such as
            # another seat's declined 胡 (RULES §3.1.5).
            seen = sum(1 for e in state.events[:first] if e.view(viewer) is not None)
            own = conn.seat == seat
            if not views and not own:
                continue
            actor = None
            if own or action.kind == "discard":
                actor = {"seat": seat, "action": str(action), "auto": auto}
            conn.send(
                server_message(
                    "events",
                    re if conn is origin else None,
                    hand_number=self.hand_number,
                    **{"from": seen},
                    events=views,
                    actor=actor,
                    **self._view_fields(conn),
                )
            )
        if state.is_terminal():
            self._end_hand()
        self._wake.set()

    def _end_hand(self) -> None:
        state = self.state
        assert state is not None and state.result is not None
        number = self.hand_number
        settlement = self.match.finish_hand()
        record = self.match.hands[-1]
        self._last_state = state
        self.last_hand = self._hand_end(number, state, settlement)
        self._between_since = time.monotonic()
        for seat in self.seats:
            seat.ready = False
            seat.autoplay = False
        self._since.clear()
        if self.store is not None:
            self.store.finish_hand(
                self.id, number, record, self.match.ledger(), self.match.is_over()
            )
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

    def _hand_end(self, number: int, state: GameState, settlement: Settlement) -> dict[str, Any]:
        r = state.result
        assert r is not None
        won = next((e for e in reversed(state.events) if isinstance(e, Won)), None)
        return {
            "hand_number": number,
            "result": {
                "winner": r.winner,
                "chou": r.chou,
                "card": None if won is None else won.view("public")["card"],
                "source": r.source,
                "deal_pattern": r.deal_pattern,
                "total": 0 if r.breakdown is None else r.breakdown.total,
                "hand": None if won is None else won.view("public")["hand"],
            },
            "breakdown": None if r.breakdown is None else r.breakdown.to_dict(),
            "settlement": settlement.to_dict(),
            "ledger": self.match.ledger(),
            "scores": list(self.match.scores),
            "final_pool_share": None
            if self.match.final_share is None
            else list(self.match.final_share),
            "match_over": self.match.is_over(),
            "record_url": f"/api/rooms/{self.id}/hands/{number}",
        }

    def _save_seats(self) -> None:
        if self.store is not None:
            self.store.save_seats(self.id, self.seats_json())

    def seats_json(self) -> dict[str, Any]:
        """Stored form of the seats."""
        return {
            "seats": [s.to_store() for s in self.seats],
            "shouxing": None if self.shouxing is None else self.shouxing.to_store(),
        }

    # ----------------------------------------------------------------- bots, timer, 托管

    def _auto_bot(self) -> Bot:
        if self._auto is None:
            self._auto = get_bot(autoplay_bot_name())
        return self._auto

    def _due(self) -> tuple[float, int | None]:
        """(seconds until the next automatic decision, its seat or None)."""
        state = self.state
        if state is None:
            turn = self.opts.turn_seconds
            if turn is not None and self.match.hands and not self.match.is_over():
                return max(0.0, self._between_since + turn - time.monotonic()), None
            return 3600.0, None
        now = time.monotonic()
        best: tuple[float, int | None] = (3600.0, None)
        delay = self.opts.bot_delay_ms / 1000
        for seat in state.to_act():
            since = self._since.get(seat, now)
            s = self.seats[seat]
            if (
                s.kind == "bot"
                or s.autoplay
                or (self.opts.autoplay_absent and not self.connected(seat))
            ):
                due = since + delay
            elif self.opts.turn_seconds is not None:
                due = since + self.opts.turn_seconds
            else:
                continue
            wait = max(0.0, due - now)
            if wait < best[0]:
                best = (wait, seat)
        return best

    async def _step(self) -> bool:
        """Make the automatic decision that is due, if any; whether something happened."""
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
        try:
            if bot.name == "random":
                action = bot.act(view, rng)
            else:
                action = await asyncio.to_thread(bot.act, view, rng)
        except Exception:
            log.exception("bot %s failed; playing a random legal action", bot.name)
            action = rng.choice(view.legal)
        if self.state is not state or len(state.actions) != before or seat not in state.to_act():
            return True  # someone acted meanwhile; look again
        if not state.can(seat, action):
            log.error("bot %s chose illegal %s; playing the first legal action", bot.name, action)
            action = state.legal_actions(seat)[0]
        if s.kind == "human" and not s.autoplay:
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


class RoomManager:
    """All rooms of a server, created, looked up and restored from the store."""

    def __init__(self, store: Store | None = None, new_id: Callable[[], str] | None = None) -> None:
        """A manager over an optional store."""
        self.store = store
        self.rooms: dict[str, Room] = {}
        self._new_id = new_id or (lambda: secrets.token_urlsafe(6))

    def create(self, opts: RoomOptions) -> Room:
        """Create a room from checked options; raise ``RoomError`` for bad rules or bots."""
        try:
            rules = rules_with(opts.preset, dict(opts.options))
        except WeimaqueError as exc:
            raise RoomError("bad_options", str(exc)) from exc
        for seat, spec in opts.bots.items():
            try:
                get_bot(spec)
            except WeimaqueError as exc:
                raise RoomError("bad_bots", f"seat {seat}: {exc}") from exc
        seed = opts.seed if opts.seed is not None else secrets.randbits(63)
        room_id = self._new_id()
        while room_id in self.rooms:
            room_id = self._new_id()
        room = Room(room_id, opts, rules, seed, self.store)
        if self.store is not None:
            self.store.create_room(
                room_id, opts.to_json(), room.seats_json(), rules.id, overrides_of(rules), seed
            )
        self.rooms[room_id] = room
        room.ensure_driver()
        room._maybe_deal()  # three bots: play at once
        return room

    def get(self, room_id: str) -> Room | None:
        """A room by id (restored from the store on first use)."""
        room = self.rooms.get(room_id)
        if room is None and self.store is not None:
            room = self.restore(room_id)
        return room

    def restore(self, room_id: str) -> Room | None:
        """Rebuild a room from the store by replaying its finished hands and its current one."""
        assert self.store is not None
        data = self.store.load(room_id)
        if data is None:
            return None
        opts = RoomOptions.from_json(data.config)
        rules = rules_with(opts.preset, dict(opts.options))
        seats = [
            Seat(s["kind"], s.get("bot"), s.get("token"), s.get("name"))
            for s in data.seats["seats"]
        ]
        sx_raw = data.seats.get("shouxing")
        shouxing = (
            None if sx_raw is None else Seat("human", None, sx_raw.get("token"), sx_raw.get("name"))
        )
        room = Room(room_id, opts, rules, data.seed, self.store, seats, shouxing, data.created)
        match = room.match
        last: GameState | None = None
        settlement: Settlement | None = None
        for record in data.hands:
            match.current = replay(record)
            last = match.current
            settlement = match.finish_hand()
        if last is not None and settlement is not None:
            room._last_state = last
            room.last_hand = room._hand_end(len(match.hands), last, settlement)
        cur = data.current
        if cur is not None and not match.is_over():
            state = match.start_hand()
            if state.seed != cur["seed"] or state.dealer != cur["dealer"]:
                raise WeimaqueError(f"room {room_id}: stored hand does not follow the match")
            for seat, text in cur["actions"]:
                state.apply(int(seat), Action.parse(text))
            room.last_hand = None
            room._last_state = None
            room._track()
            if state.is_terminal():
                room._end_hand()
        self.rooms[room_id] = room
        return room

    def restore_all(self) -> int:
        """Restore every stored room that is not over; how many."""
        if self.store is None:
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
        """Start the automatic play of every room (inside the running loop)."""
        for room in self.rooms.values():
            room.ensure_driver()
            room._maybe_deal()

    async def close(self) -> None:
        """Stop every room's task."""
        for room in list(self.rooms.values()):
            await room.close()

    def hand_record(self, room_id: str, number: int) -> dict[str, Any] | None:
        """A finished hand's record (never the hand in progress)."""
        room = self.get(room_id)
        if room is None or not 1 <= number <= len(room.match.hands):
            return None
        return room.match.hands[number - 1]


__all__ = [
    "Client",
    "Conn",
    "Room",
    "RoomError",
    "RoomManager",
    "RoomOptions",
    "Seat",
    "autoplay_bot_name",
    "hand_summary",
    "replay_steps",
]
