"""The Starlette app of ``wmq serve``: the static UI, the HTTP API and ``/ws/{room_id}``.

The protocol is documented in ``docs/protocol.md``; rooms live in :mod:`weimaque.server.rooms`.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import logging
import secrets
from collections.abc import AsyncIterator, Mapping
from importlib import resources
from pathlib import Path
from typing import Any, Final

import orjson
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.websockets import WebSocket

from weimaque.bots import REGISTRY, SPEC_BOUNDS, check_spec, get_bot
from weimaque.errors import WeimaqueError
from weimaque.rules.config import OPTION_NAMES, PATTERN_NAMES, RuleConfig
from weimaque.rules.registry import DEFAULT_PRESET, list_rules
from weimaque.server import botpool
from weimaque.server.fairqueue import FairQueue, Refused
from weimaque.server.limits import (
    CLOSE_SILENT,
    BodyError,
    Counter,
    Limits,
    RateLimiter,
    SecurityHeaders,
    client_address,
    origin_allowed,
    read_json,
    run_connection,
    send_within,
)
from weimaque.server.manager import RestoreBusy, RoomManager
from weimaque.server.options import (
    DEFAULT_NEXT_SECONDS,
    DEFAULT_TURN_SECONDS,
    DEFAULT_VOTE_SECONDS,
    ROOM_OPTIONS,
    RoomError,
    RoomOptions,
    autoplay_bot_name,
    quoted,
)
from weimaque.server.persist import answer_written, written
from weimaque.server.protocol import (
    PROTOCOL_VERSION,
    ProtocolError,
    clean_text,
    error_message,
    is_token,
    parse_client,
)
from weimaque.server.remote import RemoteBots
from weimaque.server.rooms import Room
from weimaque.server.scoreapi import ScoreError, score_request
from weimaque.server.seats import SeatId, hash_token
from weimaque.server.store import Store
from weimaque.server.views import replay_steps

log = logging.getLogger("weimaque.server")

#: The bot behind the 复盘 endpoint: an iteration budget, so a review is the same every time.
REVIEW_BOT: Final = "mcts:iters=300"
#: Reviews kept in memory (they are computed again when asked for after that).
REVIEWS_KEPT: Final = 256

_PLACEHOLDER: Final = """<!doctype html>
<html lang="zh"><head><meta charset="utf-8"><title>安乡偎麻雀</title></head>
<body><h1>安乡偎麻雀</h1><p>The web UI is not installed. The API is at /api/presets.</p></body>
</html>
"""


#: The rendering library of the browser UI, installed by ``make setup`` (npm ci, docs/web.md).
UI_LIBRARY: Final = "node_modules/preact/dist/preact.mjs"


def web_dir() -> Path:
    """The folder of the static UI (``src/weimaque/web``)."""
    return Path(str(resources.files("weimaque") / "web"))


class _Encoder:
    """JSON text of server messages, remembering the last one (a broadcast encodes once)."""

    def __init__(self) -> None:
        self._last: tuple[object, str] | None = None

    def __call__(self, message: Mapping[str, Any]) -> str:
        last = self._last
        if last is not None and last[0] is message:
            return last[1]
        # orjson: compact UTF-8, refuses a lone surrogate (JSONEncodeError, a TypeError) and
        # writes NaN as null, so the text is always standard JSON. It is the server's hottest
        # step after the game itself (bench/server.py), several times faster than json.dumps.
        text = orjson.dumps(message, option=orjson.OPT_NON_STR_KEYS).decode()
        self._last = (message, text)
        return text


encode_message = _Encoder()


class QueueClient:
    """A connection's bounded outgoing queue, drained by one writer task.

    A message that cannot be encoded, or a queue that overflows (a reader that stopped reading),
    marks the connection ``failed``: the writer stops and the connection is closed.
    """

    def __init__(self, limit: int = 256, label: str = "") -> None:
        """An empty queue of at most ``limit`` messages."""
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()
        self.limit = limit
        self.label = label
        self.failed: str | None = None

    def send(self, message: Mapping[str, Any]) -> None:
        """Queue a message (never blocks); a full queue or a bad message fails the connection."""
        if self.failed is not None:
            return
        try:
            text = encode_message(message)
        except (ValueError, TypeError) as exc:  # UnicodeEncodeError is a ValueError
            log.error("%s: message %r not sendable: %s", self.label, message.get("type"), exc)
            self.fail("unsendable message")
            return
        if self.queue.qsize() >= self.limit:
            self.fail(f"reader fell {self.limit} messages behind")
            return
        self.queue.put_nowait(text)

    def fail(self, reason: str) -> None:
        """Stop sending: the connection is to be closed."""
        if self.failed is None:
            self.failed = reason
            log.warning("%s: closing the connection: %s", self.label, reason)
            self.queue.put_nowait(None)

    def close(self) -> None:
        """Stop the writer."""
        self.queue.put_nowait(None)


def _error(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status)


MAX_SEED: Final = 2**63 - 1
#: The most hands a match of a room created over HTTP may have (RULES §8.6's match).
MAX_MATCH_HANDS: Final = 100
#: How long creating a room waits for it to be written before answering 503.
CREATE_WAIT_SECONDS: Final = 10.0
#: Addresses whose rooms in play are counted before those with none left are forgotten.
MAX_ADDRESSES: Final = 10_000


def check_room_body(raw: Any) -> None:
    """Refuse what ``RoomOptions`` would pass but a server must not: unbounded bots, big seeds."""
    if not isinstance(raw, dict):
        return
    bots = raw.get("bots")
    if isinstance(bots, dict):
        for seat, spec in bots.items():
            try:
                check_spec(spec)
            except WeimaqueError as exc:
                raise RoomError("bad_bots", f"seat {ascii(seat)[:8]}: {exc}") from exc
    seed = raw.get("seed")
    if isinstance(seed, int) and not isinstance(seed, bool) and not 0 <= seed <= MAX_SEED:
        raise RoomError("bad_request", f"seed must be within 0..{MAX_SEED}, not {quoted(seed)}")
    options = raw.get("options")
    hands = options.get("match_hands") if isinstance(options, dict) else None
    if (
        hands is not None
        and isinstance(hands, int)
        and not isinstance(hands, bool)
        and not 1 <= hands <= MAX_MATCH_HANDS
    ):
        raise RoomError(
            "bad_options", f"match_hands must be 1..{MAX_MATCH_HANDS}, not {quoted(hands)}"
        )


def _preset_json(config: RuleConfig) -> dict[str, Any]:
    return {
        "id": config.id,
        "name": config.name,
        "name_en": config.name_en,
        "description": config.description,
        "aliases": list(config.aliases),
        "options": {k: v for k, v in config.options().items() if k in ROOM_OPTIONS},
        "patterns": {k: str(v) for k, v in config.patterns.items()},
        "optional_patterns": {k: str(v) for k, v in config.optional_patterns.items()},
    }


def _option_types() -> dict[str, Any]:
    base = RuleConfig()
    out: dict[str, Any] = {}
    for name in ROOM_OPTIONS:
        assert name in OPTION_NAMES
        value = getattr(base, name)
        if name == "dealer_rotation":
            out[name] = ["keep_or_next", "winner_deals"]
        elif name == "first_dealer":
            out[name] = ["seat0", "random"]
        else:
            out[name] = "bool" if isinstance(value, bool) else "int"
    out["enable_patterns"] = "list of keys of the preset's optional_patterns"
    out["disable_patterns"] = "list of keys of the preset's patterns"
    return out


class ApiRateLimit:
    """ASGI middleware: at most ``Limits.http_rate`` API requests a second per address."""

    def __init__(self, app: ASGIApp, limits: Limits) -> None:
        """Wrap ``app``."""
        self.app = app
        self.limiter = RateLimiter(limits.http_burst, 1.0 / limits.http_rate)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Answer 429 to an address over its rate."""
        if scope["type"] == "http" and str(scope.get("path", "")).startswith("/api/"):
            address = client_address(scope)
            if not self.limiter.allow(address):
                wait = max(1, int(self.limiter.retry_after(address) + 0.999))
                response = _error(429, "rate_limited", f"too many requests; retry in {wait} s")
                response.headers["retry-after"] = str(wait)
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


def create_app(
    db: str | Path | None = None, store: Store | None = None, limits: Limits | None = None
) -> Starlette:
    """The app over a SQLite store (``db`` path; default ``$WMQ_DB`` or ``./weimaque.db``)."""
    store = store if store is not None else Store(db)
    limits = limits or Limits()
    manager = RoomManager(store, limits=limits)
    # Players' and bots' sockets of one address count together.
    ws_per_address = Counter()
    remote = RemoteBots(manager, limits, ws_per_address)
    web = web_dir()
    pool = botpool.configure(limits.bot_workers)
    room_limiter = RateLimiter(limits.room_burst, limits.room_interval)
    # One budget for all the sockets of an address: many sockets are no way around the rate.
    address_budget = RateLimiter(limits.ws_address_burst, 1.0 / limits.ws_address_rate)

    def index_response() -> Response:
        index = web / "index.html"
        if index.is_file():
            return FileResponse(index, media_type="text/html")
        return HTMLResponse(_PLACEHOLDER)

    async def room_or_404(request: Request) -> Room | JSONResponse:
        room_id = str(request.path_params["room_id"])
        try:
            room = await manager.fetch(room_id) if len(room_id) <= 64 else None
        except RestoreBusy as exc:
            return _error(503, "busy", str(exc))
        if room is None:
            return _error(404, "room_not_found", f"no room {quoted(room_id)}")
        return room

    #: The rooms each address created that are not over, for the per-address caps.
    created_by: dict[str, set[str]] = {}

    def live_rooms(address: str) -> list[Room]:
        """The rooms ``address`` created that are in memory and not over."""
        ids = created_by.get(address, set())
        live = []
        for room_id in list(ids):
            room = manager.rooms.get(room_id)
            if room is None or room.status == "over":
                ids.discard(room_id)  # over, or left memory (where it plays no more)
            else:
                live.append(room)
        if not ids:
            created_by.pop(address, None)
        return live

    def too_many_rooms(address: str, bots_only: bool) -> JSONResponse | None:
        """429 when ``address`` has its share of rooms (of rooms of bots only, ``bots_only``)."""
        live = live_rooms(address)
        if len(live) >= limits.rooms_per_address:
            message = f"at most {limits.rooms_per_address} rooms per address that are not over"
            return _error(429, "rate_limited", message)
        if bots_only and sum(r._all_bots() for r in live) >= limits.bot_rooms_per_address:
            message = (
                f"at most {limits.bot_rooms_per_address} rooms of bots only per address "
                "that are not over"
            )
            return _error(429, "rate_limited", message)
        return None

    def store_failing() -> JSONResponse | None:
        if store.failing is None:
            return None
        return _error(503, "storage_unavailable", f"the store cannot write: {store.failing}")

    async def index(request: Request) -> Response:
        return index_response()

    async def unknown_path(request: Request) -> Response:
        if request.url.path.startswith("/api/"):
            return _error(404, "not_found", f"no endpoint {quoted(request.url.path)}")
        response = index_response()
        response.status_code = 404
        return response

    async def share(request: Request) -> Response:
        response = index_response()
        found = await room_or_404(request)
        if isinstance(found, JSONResponse):
            # The page itself draws the styled "no such room" screen, with a way back.
            response.status_code = found.status_code
        return response

    async def score_page(request: Request) -> Response:
        return index_response()

    async def score_api(request: Request) -> Response:
        try:
            raw = await read_json(request.stream(), request.headers, limits.max_body) or {}
        except BodyError as exc:
            return _error(exc.status, exc.code, exc.message)
        try:
            result = score_request(raw)
        except ScoreError as exc:
            return _error(400, exc.code, str(exc))
        return JSONResponse({"v": PROTOCOL_VERSION, **result})

    async def health(request: Request) -> Response:
        failing = store.failing
        body: dict[str, Any] = {
            "ok": failing is None,
            "v": PROTOCOL_VERSION,
            "rooms_in_memory": len(manager.rooms),
            "store": "ok" if failing is None else "failing",
            "writes_waiting": store.pending(),
        }
        if failing is not None:
            body["reason"] = failing
        return JSONResponse(body, status_code=200 if failing is None else 503)

    async def presets(request: Request) -> Response:
        return JSONResponse(
            {
                "v": PROTOCOL_VERSION,
                "default": DEFAULT_PRESET,
                "presets": [_preset_json(c) for c in list_rules()],
                "room_options": _option_types(),
                # The UI labels 名堂 checkboxes and a room's enabled/disabled 名堂 with these.
                "pattern_names": dict(PATTERN_NAMES),
                "bots": sorted(k for k in REGISTRY if k in SPEC_BOUNDS),
                "turn_seconds": DEFAULT_TURN_SECONDS,
                "next_seconds": DEFAULT_NEXT_SECONDS,
                "vote_seconds": DEFAULT_VOTE_SECONDS,
            }
        )

    async def create_room(request: Request) -> Response:
        try:
            raw = await read_json(request.stream(), request.headers, limits.max_body)
        except BodyError as exc:
            return _error(exc.status, exc.code, exc.message)
        address = client_address(request.scope)
        failing = store_failing()
        if failing is not None:
            return failing
        if not room_limiter.allow(address):
            wait = max(1, int(room_limiter.retry_after(address) + 0.999))
            response = _error(429, "rate_limited", f"too many new rooms; retry in {wait} s")
            response.headers["retry-after"] = str(wait)
            return response
        try:
            check_room_body(raw)
            opts = RoomOptions.from_json(raw)
        except RoomError as exc:
            return _error(400, exc.code, str(exc))
        refused = too_many_rooms(address, bots_only=len(opts.bots) == 3)
        if refused is not None:
            return refused
        try:
            room = manager.create(opts)
        except RoomError as exc:
            return _error(400, exc.code, str(exc))
        created_by.setdefault(address, set()).add(room.id)
        if len(created_by) > MAX_ADDRESSES:  # forget the addresses with no room in play
            for other in list(created_by):
                live_rooms(other)
        keys = manager.issue_keys(room)
        # Answered once the room is in the store: a room id given out is never lost.
        try:
            await asyncio.wait_for(written(store.barrier()), CREATE_WAIT_SECONDS)
        except TimeoutError:
            return _error(503, "storage_unavailable", f"the store cannot write: {store.failing}")
        return JSONResponse(
            {
                "v": PROTOCOL_VERSION,
                "room_id": room.id,
                "url": f"/r/{room.id}",
                "ws": f"/ws/{room.id}",
                "room": room.info(),
                # Shown once: the creator frees seats and issues bot tokens (docs/bot-protocol.md)
                # with the first, and invites the 守醒 with the other.
                **keys,
            },
            status_code=201,
        )

    async def creator_request(
        request: Request, fields: frozenset[str]
    ) -> tuple[Room, dict[str, Any]] | JSONResponse:
        """The room and the body of a creator's request: JSON, bounded, with its token."""
        room = await room_or_404(request)
        if isinstance(room, JSONResponse):
            return room
        try:
            raw = await read_json(request.stream(), request.headers, limits.max_body)
        except BodyError as exc:
            return _error(exc.status, exc.code, exc.message)
        if not isinstance(raw, dict):
            return _error(400, "bad_request", f"the body must be a JSON object, not {quoted(raw)}")
        unknown = sorted(quoted(k, 30) for k in set(raw) - fields)
        if unknown:
            return _error(400, "bad_request", f"unknown fields {', '.join(unknown[:5])}")
        token = raw.get("creator_token")
        if (
            room.creator is None
            or not is_token(token)
            or not secrets.compare_digest(hash_token(str(token)), room.creator)
        ):
            return _error(403, "forbidden", "only the room's creator (creator_token) may do this")
        return room, raw

    def seat_param(request: Request, shouxing: bool) -> SeatId | JSONResponse:
        text = str(request.path_params["seat"])
        if text == "shouxing" and shouxing:
            return "shouxing"
        if text in ("0", "1", "2"):
            return int(text)
        known = "0, 1, 2 and shouxing" if shouxing else "0, 1 and 2"
        return _error(400, "bad_seat", f"seats are {known}, not {quoted(text)}")

    async def free_seat(request: Request) -> Response:
        found = await creator_request(request, frozenset({"creator_token"}))
        if isinstance(found, JSONResponse):
            return found
        room, _ = found
        seat = seat_param(request, shouxing=True)
        if isinstance(seat, JSONResponse):
            return seat
        if room.state is not None:
            # Whoever sat in a seat freed mid-hand would read the hand its player held.
            return _error(409, "hand_in_progress", "a seat is freed only between hands")
        if not room.free_seat(seat):
            return _error(409, "bad_seat", f"seat {seat} is not held by a person")
        return JSONResponse({"v": PROTOCOL_VERSION, "room": room.info()})

    async def seat_bot(request: Request) -> Response:
        found = await creator_request(request, frozenset({"creator_token", "bot"}))
        if isinstance(found, JSONResponse):
            return found
        room, raw = found
        seat = seat_param(request, shouxing=False)
        if isinstance(seat, JSONResponse):
            return seat
        assert isinstance(seat, int)
        spec = raw.get("bot", autoplay_bot_name())
        if not isinstance(spec, str):
            return _error(400, "bad_bots", f"bot must be a bot kind, not {quoted(spec)}")
        try:
            check_spec(spec)
            kind = get_bot(spec)
        except WeimaqueError as exc:
            return _error(400, "bad_bots", f"bot {quoted(spec)}: {clean_text(str(exc), 300)}")
        del kind
        if room.seats[seat].kind == "bot":
            return _error(409, "bad_seat", f"seat {seat} is played by a bot already")
        if room.present(seat):
            return _error(
                409,
                "seat_connected",
                f"seat {seat}'s player is connected: only a gone player's "
                "seat (or an empty one) is given to a bot",
            )
        if sum(s.kind == "bot" for s in room.seats) == 2:  # it becomes a room of bots only
            address = client_address(request.scope)
            refused = too_many_rooms(address, bots_only=True)
            if refused is not None:
                return refused
            created_by.setdefault(address, set()).add(room.id)
        room.give_to_bot(seat, spec)
        return JSONResponse({"v": PROTOCOL_VERSION, "room": room.info()})

    async def list_rooms(request: Request) -> Response:
        # Public rooms, and the rooms whose ids the asker names (its own, from its browser).
        asked = {i for i in request.query_params.get("ids", "").split(",")[:50] if i}
        rooms = [
            r
            for r in manager.rooms.values()
            if r.status != "over" and (r.opts.public or r.id in asked)
        ]

        rooms.sort(key=lambda r: -r.created)
        return JSONResponse({"v": PROTOCOL_VERSION, "rooms": [r.info() for r in rooms[:50]]})

    async def room_info(request: Request) -> Response:
        room = await room_or_404(request)
        if isinstance(room, JSONResponse):
            return room
        return JSONResponse({"v": PROTOCOL_VERSION, "room": room.info()})

    async def hands(request: Request) -> Response:
        room = await room_or_404(request)
        if isinstance(room, JSONResponse):
            return room
        return JSONResponse(
            {
                "v": PROTOCOL_VERSION,
                "room_id": room.id,
                "match_number": room.match_number,
                "hands": room.all_summaries(),
                "ledger": room.match.ledger(),
            }
        )

    async def match_record(request: Request) -> Response:
        room = await room_or_404(request)
        if isinstance(room, JSONResponse):
            return room
        # The finished hands only (each with its revealed commitment): what ``wmq verify`` reads.
        # Each hand's own seed is shown once the hand is over, the match seed once the match is
        # (docs/fairness.md): ``wmq verify`` then checks that every deal follows from it.
        record = room.match.record()
        if room.match.is_over():
            record["seed_text"] = str(record["seed"])
        else:
            record.pop("seed", None)
        record["room_id"] = room.id
        record["match_number"] = room.match_number
        record["first_hand"] = room.first_hand
        record["hands"] = list(room.match.hands)
        return JSONResponse(record)

    async def finished(request: Request) -> tuple[Room, int, int, dict[str, Any]] | JSONResponse:
        room = await room_or_404(request)
        if isinstance(room, JSONResponse):
            return room
        text = str(request.path_params["number"])
        if not text.isdecimal() or len(text) > 12:
            return _error(404, "hand_not_found", f"hand numbers are integers, not {quoted(text)}")
        number = int(text)
        found = room.hand_record(number)
        if found is None:
            if number == room.hand_number and room.state is not None:
                return _error(404, "hand_not_finished", f"hand {number} is still being played")
            return _error(404, "hand_not_found", f"no finished hand {number}")
        match, record = found
        return room, number, match, record

    async def hand(request: Request) -> Response:
        found = await finished(request)
        if isinstance(found, JSONResponse):
            return found
        room, number, match, record = found
        return JSONResponse(
            {
                "v": PROTOCOL_VERSION,
                "room_id": room.id,
                "number": number,
                "match": match,
                "record": record,
            }
        )

    async def hand_replay(request: Request) -> Response:
        found = await finished(request)
        if isinstance(found, JSONResponse):
            return found
        room, number, _, record = found
        steps = await asyncio.to_thread(replay_steps, record)
        return JSONResponse(
            {"v": PROTOCOL_VERSION, "room_id": room.id, "number": number, "steps": steps}
        )

    # 复盘 costs seconds of search: it runs in a process of its own (never on the event loop's
    # interpreter lock, never in the bots' pool), one review at a time, the addresses that wait
    # served in turn, each with a budget of its own (docs/protocol.md §6); the last
    # REVIEWS_KEPT results are kept and served to anyone.
    review_pool = botpool.BotPool(1)

    async def compute_review(key: tuple[str, int, int], record: dict[str, Any]) -> dict[str, Any]:
        return await review_pool.review(record, key[2], REVIEW_BOT)

    reviews: FairQueue[tuple[str, int, int], dict[str, Any]] = FairQueue(
        compute_review,
        limits.reviews_per_address,
        limits.reviews_waiting,
        REVIEWS_KEPT,
        what="reviews",
    )

    async def hand_review(request: Request) -> Response:
        """复盘 of one seat of a finished hand (bots.review), computed once and kept."""
        found = await finished(request)
        if isinstance(found, JSONResponse):
            return found
        room, number, _, record = found
        seat_text = request.query_params.get("seat")
        if seat_text not in ("0", "1", "2"):
            return _error(400, "bad_seat", f"seat must be 0, 1 or 2, not {quoted(seat_text)}")
        seat = int(seat_text)
        key = (room.id, number, seat)
        try:
            result = await reviews.get(key, record, client_address(request.scope))
        except Refused as exc:
            response = _error(429, "busy", exc.message)
            response.headers["retry-after"] = str(exc.retry_after)
            return response
        except Exception as exc:  # the review process failed (logged by the queue)
            message = f"the review could not be computed ({type(exc).__name__}); try again"
            return _error(503, "review_failed", message)
        body: dict[str, Any] = {"v": PROTOCOL_VERSION, "room_id": room.id, "number": number}
        body.update(copy.deepcopy(result))
        for d in body["decisions"]:
            d["hand"] = number
        return JSONResponse(body)

    async def refuse(websocket: WebSocket, code: int, error: Mapping[str, Any]) -> None:
        await websocket.accept()
        with contextlib.suppress(Exception):
            await websocket.send_text(encode_message(error))
            await websocket.close(code=code)

    async def ws_endpoint(websocket: WebSocket) -> None:
        if not origin_allowed(websocket.headers):
            # A page on another site: refuse the handshake (HTTP 403).
            await websocket.close(code=4403)
            return
        address = client_address(websocket.scope)
        room_id = str(websocket.path_params["room_id"])
        try:
            room = await manager.fetch(room_id) if len(room_id) <= 64 else None
        except RestoreBusy as exc:
            await refuse(websocket, 4429, error_message("rate_limited", str(exc)))
            return
        if room is None:
            shown = room_id[:64].encode("utf-8", "replace").decode("utf-8")
            await refuse(
                websocket, 4404, error_message("room_not_found", f"no room {shown!r}", shown)
            )
            return
        if len(room.conns) >= limits.conns_per_room:
            message = f"room {room_id} has {limits.conns_per_room} connections already"
            await refuse(websocket, 4429, error_message("room_full", message))
            return
        if not ws_per_address.add(address, limits.conns_per_address):
            message = f"at most {limits.conns_per_address} connections per address"
            await refuse(websocket, 4429, error_message("rate_limited", message))
            return
        try:
            await websocket.accept()
            await serve_socket(websocket, room, address)
        finally:
            ws_per_address.remove(address)

    async def serve_socket(websocket: WebSocket, room: Room, address: str) -> None:
        client = QueueClient(limits.queue_messages, f"room {room.id} client {address}")
        conn = room.connect(client)
        budget = RateLimiter(limits.ws_burst, 1.0 / limits.ws_rate, max_keys=1)
        told = 0.0
        silent = False

        async def writer() -> None:
            while (text := await client.queue.get()) is not None:
                problem = await send_within(websocket, text, limits.send_timeout)
                if problem is not None:
                    client.fail(problem)
                    return
                answer_written()

        async def reader() -> None:
            nonlocal told, silent
            first = True
            while client.failed is None:
                if first:
                    # A socket that never speaks is closed: it holds a connection and a
                    # descriptor, and receives the room's broadcasts, for nothing.
                    try:
                        frame = await asyncio.wait_for(websocket.receive(), limits.join_timeout)
                    except TimeoutError:
                        silent = True
                        return
                    first = False
                else:
                    frame = await websocket.receive()
                if frame["type"] == "websocket.disconnect":
                    return
                if not budget.allow("") or not address_budget.allow(address):
                    now = asyncio.get_running_loop().time()
                    if now - told >= 1.0:  # one notice a second; the rest are dropped
                        told = now
                        client.send(error_message("rate_limited", "too many messages; slow down"))
                    continue
                data = frame.get("text")
                if data is None:
                    data = frame.get("bytes") or b""
                try:
                    answered = room.handle(conn, parse_client(data))
                    answer_written()
                    if answered is not None:  # an action: answered once it is stored
                        await answered
                except ProtocolError as exc:
                    client.send(exc.to_message())
                except Exception as exc:
                    # One line, not a traceback per message: a bad client must not flood the log.
                    log.error("room %s: message failed: %s: %s", room.id, type(exc).__name__, exc)
                    client.send(error_message("internal", "internal server error", None))

        await run_connection(
            websocket,
            reader(),
            writer(),
            leave=lambda: room.disconnect(conn),
            failed=lambda: client.failed,
            stop_writer=client.close,
        )
        if silent:
            reason = f"no message within {limits.join_timeout:g} s"
            with contextlib.suppress(Exception):
                await asyncio.wait_for(websocket.close(CLOSE_SILENT, reason), timeout=1)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        restored = manager.restore_all()
        if restored:
            log.info("restored %d rooms", restored)
        manager.start()
        try:
            yield
        finally:
            await manager.close()
            pool.close()
            await reviews.close()
            review_pool.close()
            store.close()

    routes: list[Route | WebSocketRoute | Mount] = [
        Route("/", index),
        Route("/r/{room_id}", share),
        Route("/score", score_page),
        Route("/api/score", score_api, methods=["POST"]),
        Route("/api/health", health),
        Route("/api/presets", presets),
        Route("/api/rooms", create_room, methods=["POST"]),
        Route("/api/rooms", list_rooms, methods=["GET"]),
        Route("/api/rooms/{room_id}", room_info),
        Route("/api/rooms/{room_id}/hands", hands),
        Route("/api/rooms/{room_id}/record", match_record),
        Route("/api/rooms/{room_id}/seats/{seat}/free", free_seat, methods=["POST"]),
        Route("/api/rooms/{room_id}/seats/{seat}/bot", seat_bot, methods=["POST"]),
        Route("/api/rooms/{room_id}/hands/{number}", hand),
        Route("/api/rooms/{room_id}/hands/{number}/replay", hand_replay),
        Route("/api/rooms/{room_id}/hands/{number}/review", hand_review),
        WebSocketRoute("/ws/{room_id}", ws_endpoint),
        *remote.routes(),
    ]
    if web.is_dir():
        routes.append(Mount("/static", StaticFiles(directory=web), name="static"))
        if not (web / UI_LIBRARY).is_file():
            log.warning("the browser UI's library %s is missing: run `make setup`", UI_LIBRARY)
    # Any other address: an API caller gets a JSON error, a person the styled page that says
    # there is nothing there (drawn by the UI, with the way back to the lobby), both 404.
    routes.append(Route("/{path:path}", unknown_path, methods=["GET", "HEAD"]))
    middleware = [Middleware(SecurityHeaders), Middleware(ApiRateLimit, limits=limits)]
    app = Starlette(routes=routes, lifespan=lifespan, middleware=middleware)
    app.state.manager = manager
    app.state.store = store
    app.state.limits = limits
    return app
