"""The player's WebSocket ``/ws/{room_id}`` (docs/protocol.md §2): one reader and one bounded
writer per connection, between the socket and its room.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Mapping
from time import perf_counter
from typing import Any

import orjson
from starlette.responses import JSONResponse
from starlette.websockets import WebSocket

from weimaque.server.base import metrics
from weimaque.server.base.limits import (
    CLOSE_SILENT,
    RateLimiter,
    client_address,
    closing_level,
    origin_allowed,
    run_connection,
    send_within,
)
from weimaque.server.cluster.manager import RestoreBusy
from weimaque.server.edge.context import Server, server_of
from weimaque.server.store.persist import answer_written
from weimaque.server.table.rooms import Room
from weimaque.server.wire.protocol import ProtocolError, error_message, parse_client

log = logging.getLogger("weimaque.server")


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
            log.log(closing_level(reason), "%s: closing the connection: %s", self.label, reason)
            self.queue.put_nowait(None)

    def close(self) -> None:
        """Stop the writer."""
        self.queue.put_nowait(None)


async def refuse(websocket: WebSocket, code: int, error: Mapping[str, Any]) -> None:
    await websocket.accept()
    with contextlib.suppress(Exception):
        await websocket.send_text(encode_message(error))
        await websocket.close(code=code)


async def ws_endpoint(websocket: WebSocket) -> None:
    s = server_of(websocket)
    if not origin_allowed(websocket.headers):
        # A page on another site: refuse the handshake (HTTP 403).
        await websocket.close(code=4403)
        return
    address = client_address(websocket.scope)
    room_id = str(websocket.path_params["room_id"])
    try:
        room = await s.manager.fetch(room_id) if len(room_id) <= 64 else None
    except RestoreBusy as exc:
        await refuse(websocket, 4429, error_message("rate_limited", str(exc)))
        return
    player = await s.player_of(websocket)
    if isinstance(player, JSONResponse):  # the address has spent its guesses
        await refuse(websocket, 4429, error_message("rate_limited", "too many wrong keys"))
        return
    if room is not None and not await s.may_see(websocket, room):
        room = None  # a club's table, to someone not of the club: no such room
    if room is None:
        shown = room_id[:64].encode("utf-8", "replace").decode("utf-8")
        await refuse(websocket, 4404, error_message("room_not_found", f"no room {shown!r}", shown))
        return
    if len(room.seating.conns) >= s.limits.conns_per_room:
        message = f"room {room_id} has {s.limits.conns_per_room} connections already"
        await refuse(websocket, 4429, error_message("room_full", message))
        return
    if not s.ws_per_address.add(address, s.limits.conns_per_address):
        message = f"at most {s.limits.conns_per_address} connections per address"
        await refuse(websocket, 4429, error_message("rate_limited", message))
        return
    signed = None if player is None else (player.id, player.name)
    if player is not None:
        s.arrived(player.id)
    try:
        await websocket.accept()
        await serve_socket(s, websocket, room, address, signed)
    finally:
        s.ws_per_address.remove(address)
        if player is not None:
            s.left(player.id)


async def serve_socket(
    s: Server,
    websocket: WebSocket,
    room: Room,
    address: str,
    player: tuple[str, str] | None = None,
) -> None:
    """Serve one accepted socket of ``room`` (of the signed-in ``player``: (id, name))."""
    client = QueueClient(s.limits.queue_messages, f"room {room.id} client {address}")
    conn = room.connect(client, player, address)
    budget = RateLimiter(s.limits.ws_burst, 1.0 / s.limits.ws_rate, max_keys=1)
    told = 0.0
    silent = False

    async def writer() -> None:
        while (text := await client.queue.get()) is not None:
            problem = await send_within(websocket, text, s.limits.send_timeout)
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
                    frame = await asyncio.wait_for(websocket.receive(), s.limits.join_timeout)
                except TimeoutError:
                    silent = True
                    return
                first = False
            else:
                frame = await websocket.receive()
            if frame["type"] == "websocket.disconnect" or client.failed is not None:
                return  # closing (a member removed from the club, a reader behind): unread
            if not budget.allow("") or not s.address_budget.allow(address):
                now = asyncio.get_running_loop().time()
                metrics.WS_MESSAGES_LIMITED.inc()
                if now - told >= 1.0:  # one notice a second; the rest are dropped
                    told = now
                    client.send(error_message("rate_limited", "too many messages; slow down"))
                continue
            data = frame.get("text")
            if data is None:
                data = frame.get("bytes") or b""
            try:
                started = perf_counter()
                answered = room.handle(conn, parse_client(data))
                answer_written()
                if answered is not None:  # an action: answered once it is stored
                    await answered
                    metrics.ACT_ACK.observe(perf_counter() - started)
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
        reason = f"no message within {s.limits.join_timeout:g} s"
        with contextlib.suppress(Exception):
            await asyncio.wait_for(websocket.close(CLOSE_SILENT, reason), timeout=1)


__all__ = ["QueueClient", "encode_message", "serve_socket", "ws_endpoint"]
