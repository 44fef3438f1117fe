"""Remote bots: the JSON-lines bot protocol (docs/bot-protocol.md) over a WebSocket, in a room.

The room's creator gets a ``creator_token`` when the room is created. With it,
``POST /api/rooms/{room_id}/bot-token`` ``{"creator_token": …, "seat": 2, "name": "my bot"}``
reserves a free seat for a bot and returns its ``bot_token`` (a seat token: keep it secret). The
bot then opens ``/ws/{room_id}/bot``, sends ``{"type": "join", "protocol": "weimaque-bot/1",
"token": …}`` and from then on speaks exactly the stdio protocol: it receives ``hello``, ``event``,
``request``, ``end`` and ``new_hand`` lines (as text frames) and answers each request with
``{"id": …, "action": …}``.

Underneath, the bot is an ordinary connection of the room holding the seat's token (:class:`Link`
translates the room's messages, which are built from the seat's own views only, into the bot
protocol). The room's rules for a seat apply: its turn timer and 托管 decide for a bot that does
not answer in time; an answer the room refuses comes back as ``{"type": "error", …}`` followed by
a fresh request. After each hand the bot is counted ready for the next one.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
from collections.abc import Mapping
from typing import Any

import orjson
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from weimaque.games import lines
from weimaque.games.lines import PROTOCOL
from weimaque.server.base.limits import (
    CLOSE_SILENT,
    BodyError,
    Counter,
    Limits,
    RateLimiter,
    client_address,
    closing_level,
    origin_allowed,
    read_json,
    run_connection,
    send_within,
)
from weimaque.server.cluster.manager import RestoreBusy, RoomManager
from weimaque.server.table.options import quoted
from weimaque.server.table.rooms import Room
from weimaque.server.table.seats import Conn, hash_token, new_token
from weimaque.server.wire.common import PROTOCOL_VERSION
from weimaque.server.wire.protocol import ProtocolError, clean_name, is_token, parse_client

log = logging.getLogger("weimaque.server")

#: Close codes of the bot socket: unknown room, refused join, a cap reached, a foreign page's
#: ``Origin`` (the handshake's HTTP 403); no join line in time is ``limits.CLOSE_SILENT``.
CLOSE_NO_ROOM = 4404
CLOSE_REFUSED = 4401
CLOSE_FULL = 4429
CLOSE_ORIGIN = 4403
MAX_NAME = 24


class RemoteBots:
    """Creator tokens of the rooms of one server, the bot-token endpoint and the bot socket."""

    def __init__(
        self, manager: RoomManager, limits: Limits | None = None, conns: Counter | None = None
    ) -> None:
        self.manager = manager
        #: the same bounds as players' sockets: queue, write timeout, message rate
        self.limits = limits if limits is not None else Limits()
        #: open sockets per address, shared with the players' sockets (``conns_per_address``)
        self.conns = conns if conns is not None else Counter()
        self.creators: dict[str, str] = {}

    def creator_token(self, room: Room) -> str:
        """Issue the creator token of a new room (kept in memory: a restart forgets it)."""
        token = secrets.token_urlsafe(18)
        self.creators[room.id] = token
        return token

    def routes(self) -> list[Route | WebSocketRoute]:
        """The HTTP endpoint and the WebSocket of remote bots."""
        return [
            Route("/api/rooms/{room_id}/bot-token", self.issue, methods=["POST"]),
            WebSocketRoute("/ws/{room_id}/bot", self.socket),
        ]

    async def issue(self, request: Request) -> Response:
        """Reserve a free seat for a bot; answer its bot token."""
        room_id = str(request.path_params["room_id"])
        try:
            room = await self.manager.fetch(room_id) if len(room_id) <= 64 else None
        except RestoreBusy as exc:
            return _error(503, "busy", str(exc))
        if room is None:
            return _error(404, "room_not_found", f"no room {quoted(room_id)}")
        try:
            # JSON only, bounded like every other body (`max_body`, docs/protocol.md §6).
            raw = await read_json(request.stream(), request.headers, self.limits.max_body)
        except BodyError as exc:
            return _error(exc.status, exc.code, exc.message)
        raw = {} if raw is None else raw
        if not isinstance(raw, dict):
            return _error(400, "bad_request", f"expected creator_token, seat, name: {quoted(raw)}")
        unknown = sorted(quoted(k, 30) for k in set(raw) - {"creator_token", "seat", "name"})
        if unknown:
            return _error(400, "bad_request", f"unknown fields {', '.join(unknown[:5])}")
        creator = raw.get("creator_token")
        # The creator token is kept hashed with the room (it survives a restart).
        known = room.creator
        if not is_token(creator) or known is None:
            return _error(403, "bad_token", "only the room's creator may issue a bot token")
        if not secrets.compare_digest(hash_token(str(creator)), known):
            return _error(403, "bad_token", "only the room's creator may issue a bot token")
        seat_id = raw.get("seat")
        seats = len(room.seating.seats)  # the table's shape (its game and rules)
        if not isinstance(seat_id, int) or isinstance(seat_id, bool) or seat_id not in range(seats):
            return _error(400, "bad_seat", f"seat must be 0..{seats - 1}, not {quoted(seat_id)}")
        name = raw.get("name", f"bot{seat_id + 1}")
        if not isinstance(name, str) or not 1 <= len(name) <= MAX_NAME:
            return _error(
                400, "bad_request", f"name must be 1..{MAX_NAME} characters: {quoted(name)}"
            )
        refused = room.recorder.refused()
        if refused is not None:  # its lease is not trusted: nothing is changed (docs/scale.md)
            message = f"this server may not change the room now ({refused}); try again"
            return _error(503, "storage_unavailable", message)
        seat = room.seating.seats[seat_id]
        if seat.kind == "bot" or seat.taken:
            # Never a taken seat, mid-hand or not: whoever held the new token would read the
            # hand its player holds.
            return _error(400, "seat_taken", f"seat {seat_id} is not free")
        bot_token = new_token()
        seat.token = hash_token(bot_token)  # kept hashed, like every seat token
        seat.name = clean_name(name) or f"bot{seat_id + 1}"
        # Offline until the bot connects (docs/protocol.md §3).
        room.seating.gone_at(seat_id, room.table.clock())
        room.save_seats()
        if not room.driver.maybe_deal():
            room.out.room_changed()
        body = {"v": PROTOCOL_VERSION, "seat": seat_id, "bot_token": bot_token}
        body["ws"] = f"/ws/{room_id}/bot"
        return JSONResponse(body, status_code=201)

    async def socket(self, websocket: WebSocket) -> None:
        """One remote bot: a join with its token, then the bot protocol both ways.

        The socket counts against its address's ``conns_per_address`` from the handshake on,
        and is closed if no valid join line comes within ``join_timeout`` seconds.
        """
        if not origin_allowed(websocket.headers):
            # A page on another site, as for players' sockets: refuse the handshake (HTTP 403).
            await websocket.close(code=CLOSE_ORIGIN)
            return
        address = client_address(websocket.scope)
        cap = self.limits.conns_per_address
        if not self.conns.add(address, cap):
            await websocket.accept()
            message = f"at most {cap} connections per address"
            await _refuse(websocket, "rate_limited", message, CLOSE_FULL)
            return
        try:
            await websocket.accept()
            await self._serve(websocket)
        finally:
            self.conns.remove(address)

    async def _serve(self, websocket: WebSocket) -> None:
        room_id = str(websocket.path_params["room_id"])
        try:
            room = await self.manager.fetch(room_id) if len(room_id) <= 64 else None
        except RestoreBusy:
            room = None
        if room is None:
            await _refuse(websocket, "room_not_found", "no such room", CLOSE_NO_ROOM)
            return
        if len(room.seating.conns) >= self.limits.conns_per_room:  # the players' socket's cap, too
            message = f"room {room.id} has {self.limits.conns_per_room} connections already"
            await _refuse(websocket, "rate_limited", message, CLOSE_FULL)
            return
        wait = self.limits.join_timeout
        try:
            first = json.loads(await asyncio.wait_for(websocket.receive_text(), wait))
        except TimeoutError:
            message = f"no join line within {wait:g} s"
            await _refuse(websocket, "join_timeout", message, CLOSE_SILENT)
            return
        except (ValueError, KeyError, RecursionError, WebSocketDisconnect):
            await _refuse(websocket, "bad_join", "the first line must be a JSON join")
            return
        token = first.get("token") if isinstance(first, dict) else None
        if not isinstance(first, dict) or first.get("type") != "join" or not isinstance(token, str):
            await _refuse(websocket, "bad_join", 'expected {"type": "join", "token": …}')
            return
        if first.get("protocol", PROTOCOL) != PROTOCOL:
            await _refuse(websocket, "bad_protocol", f"this server speaks {PROTOCOL}")
            return
        seat = room.seat_of_token(token)
        if not isinstance(seat, int):
            await _refuse(websocket, "bad_token", "this room holds no seat with that token")
            return
        limits = self.limits
        link = Link(room, limits.queue_messages)
        conn = link.conn = room.connect(link)
        budget = RateLimiter(limits.ws_burst, 1.0 / limits.ws_rate, max_keys=1)

        async def reader() -> None:
            told = 0.0
            while link.failed is None:
                text = await websocket.receive_text()
                if not budget.allow(""):
                    now = asyncio.get_running_loop().time()
                    if now - told >= 1.0:  # one notice a second; the rest are dropped
                        told = now
                        link.notice("rate_limited", "too many lines; slow down")
                    continue
                link.answer(text)

        link.room_message({"type": "join", "token": token})
        await run_connection(
            websocket,
            reader(),
            link.pump(websocket, limits.send_timeout),
            leave=lambda: room.disconnect(conn),
            failed=lambda: link.failed,
            stop_writer=lambda: link.out.put_nowait(None),
        )


class Link:
    """One remote bot's connection: room messages in, bot-protocol lines out, answers back."""

    def __init__(self, room: Room, limit: int = 256) -> None:
        self.room = room
        self.conn: Conn | None = None
        #: lines for the bot, at most ``limit`` waiting: a bot that stops reading is dropped
        self.out: asyncio.Queue[Mapping[str, Any] | None] = asyncio.Queue()
        self.limit = limit
        self.failed: str | None = None
        self.hand = 0
        self.sent = 0
        self.next_id = 0
        self.pending: int | None = None
        #: the room's number of the decision the pending request asks (docs/protocol.md §2.2)
        self.decision: int | None = None
        self.seat: int | None = None
        self.observation: dict[str, Any] | None = None
        self.last: Mapping[str, Any] | None = None

    # ------------------------------------------------------------------ room → bot

    def send(self, message: Mapping[str, Any]) -> None:
        """A room message for this connection (never blocks): translated for the bot."""
        kind = message.get("type")
        if kind == "welcome" and self.seat is None and isinstance(message.get("seat"), int):
            self.seat = message["seat"]
            setup = self.room.table.setup
            rules = setup.rules_info()["id"]
            self._out(lines.hello(self.seat, rules, setup.rule_options(), None))
        elif kind in ("snapshot", "events"):
            self._view(message)
        elif kind == "hand_end":
            self._end(message)
        elif kind == "error" and message.get("code") != "hand_in_progress":
            error = message.get("error") or message
            self._out(lines.error(error.get("code"), error.get("message")))
            if self.last is not None:
                self._request(self.last)

    def _view(self, message: Mapping[str, Any]) -> None:
        observation = message.get("observation")
        number = message.get("hand_number", 0)
        if observation is None or not number:
            return
        if number != self.hand:
            if self.hand:
                self._out(lines.new_hand())
            self.hand, self.sent = number, 0
        events = message["history"] if message["type"] == "snapshot" else message["events"]
        first = 0 if message["type"] == "snapshot" else int(message.get("from", 0))
        for k, event in enumerate(events):
            if first + k >= self.sent:
                self._out(lines.event(event))
                self.sent = first + k + 1
        self.observation = observation
        if message.get("to_act"):
            self._request(message)
        else:
            self.pending, self.last = None, None

    def _request(self, message: Mapping[str, Any]) -> None:
        self.next_id += 1
        self.pending, self.last = self.next_id, message
        self.decision = message.get("decision")
        timer = message.get("timer")
        legal = message.get("legal_actions") or []
        assert self.seat is not None
        self._out(
            lines.request(
                self.next_id,
                self.seat,
                None if not timer else timer.get("left_ms"),
                message["observation"],
                [a["text"] for a in legal],
                [a["id"] for a in legal],
            )
        )

    def _end(self, message: Mapping[str, Any]) -> None:
        self.pending, self.last = None, None
        payload = {k: v for k, v in message.items() if k not in ("v", "type", "re")}
        self._out(lines.end(self.observation, payload))
        if not payload.get("match_over"):
            self.out.put_nowait({"type": "_next"})  # ready for the next hand

    def _out(self, line: Mapping[str, Any]) -> None:
        if self.failed is not None:
            return
        if self.out.qsize() >= self.limit:
            self.fail(f"the bot fell {self.limit} lines behind")
            return
        self.out.put_nowait(line)

    def notice(self, code: str, message: str) -> None:
        """An error line for the bot."""
        self._out(lines.error(code, message))

    def fail(self, reason: str) -> None:
        """Stop writing: the connection is to be closed and the seat counts as absent."""
        if self.failed is None:
            self.failed = reason
            log.log(
                closing_level(reason),
                "room %s: closing a remote bot's connection: %s",
                self.room.id,
                reason,
            )
            self.out.put_nowait(None)

    async def pump(self, websocket: WebSocket, timeout: float = 10.0) -> None:
        """Write the bot's lines; a ``_next`` marker tells the room this seat is ready."""
        while (line := await self.out.get()) is not None:
            if line.get("type") == "_next":
                self.room_message({"type": "next"})
                continue
            try:
                # orjson refuses what cannot be sent (a lone surrogate) instead of dying later.
                text = orjson.dumps(line).decode()
            except TypeError as exc:
                self.fail(f"line not sendable: {exc}")
                return
            problem = await send_within(websocket, text, timeout)
            if problem is not None:
                self.fail(problem)
                return

    # ------------------------------------------------------------------ bot → room

    def room_message(self, fields: dict[str, Any]) -> None:
        """Hand a message to the room as this connection; a refusal goes back to the bot."""
        assert self.conn is not None
        try:
            self.room.handle(self.conn, parse_client(json.dumps({"v": PROTOCOL_VERSION, **fields})))
        except ProtocolError as exc:
            self.send(exc.to_message())

    def answer(self, text: str) -> None:
        """One line from the bot: the answer to the pending request."""
        answer = lines.read_answer(text)
        if isinstance(answer, str):
            self._out(lines.error("garbage", answer))
            if self.last is not None:
                self._request(self.last)
            return
        if answer.id is None or answer.id != self.pending:
            return  # a late answer to an earlier request
        self.pending = None
        act = {
            "type": "act",
            "action": answer.action,
            "hand": self.hand,
            "decision": self.decision,
        }
        self.room_message(act)


def _error(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status)


async def _refuse(
    websocket: WebSocket, code: str, message: str, close: int = CLOSE_REFUSED
) -> None:
    with contextlib.suppress(Exception):
        await websocket.send_text(json.dumps(lines.error(code, message)))
        await websocket.close(code=close)


__all__ = ["Link", "RemoteBots"]
