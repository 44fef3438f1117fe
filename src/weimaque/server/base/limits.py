"""What one client may cost the server: sizes, rates and counts, and the HTTP hardening.

Every bound lives in :class:`Limits` (``wmq serve`` options set them); the helpers here enforce
them without knowing about rooms: a token bucket per client address, a counter of open
WebSockets per address, a bounded JSON body reader, the security headers of every response and
the ``Origin`` check of the WebSocket.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
import types
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Coroutine, Generator
from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from starlette.websockets import WebSocket, WebSocketDisconnect

#: Content-Security-Policy of every response: the UI is same-origin modules and CSS only (the
#: UI sets a few inline styles; no inline script runs).
CSP: Final = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; connect-src 'self'; font-src 'self'; object-src 'none'; "
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
SECURITY_HEADERS: Final = (
    (b"content-security-policy", CSP.encode()),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
)


@dataclass(frozen=True, slots=True)
class Limits:
    """The bounds of one server (defaults suit a public server on a small machine)."""

    #: largest WebSocket message, checked by the WebSocket layer before any decoding
    max_message: int = 64 * 1024
    #: largest HTTP request body (``POST /api/rooms``)
    max_body: int = 16 * 1024
    #: messages waiting to be written to one connection before it counts as a stalled reader
    queue_messages: int = 256
    #: seconds one write may take before the connection counts as a stalled reader
    send_timeout: float = 10.0
    #: open WebSockets in one room, and from one client address (all rooms, players' and bots'
    #: sockets together); HTTP connections of one address that have no request in progress
    #: are counted apart, against the same cap
    conns_per_room: int = 64
    conns_per_address: int = 256
    #: open TCP connections of the whole server (HTTP and WebSocket), kept below the process's
    #: file descriptor limit whatever this says
    max_connections: int = 4096
    #: seconds a WebSocket may stay open before its first message (a bot's: a valid join line)
    join_timeout: float = 5.0
    #: seconds an HTTP connection may take to send a complete request head, from its opening
    #: or from the end of its previous response
    head_timeout: float = 10.0
    #: rooms one address may create: a burst, then one per ``room_interval`` seconds
    room_burst: int = 60
    room_interval: float = 2.0
    #: rooms one address created that may be in play (not over) at once, and of those rooms of
    #: three bots
    rooms_per_address: int = 30
    bot_rooms_per_address: int = 4
    #: the least pause (ms) before an automatic move at a table where no person holding a seat
    #: is connected (three bots, or players gone and 托管 playing), whatever its bot_delay_ms
    unattended_delay_ms: int = 100
    #: HTTP API requests of one address: a burst, then ``http_rate`` per second
    http_burst: int = 200
    http_rate: float = 50.0
    #: WebSocket messages of one connection: a burst, then ``ws_rate`` per second
    ws_burst: int = 200
    ws_rate: float = 50.0
    #: WebSocket messages of all the connections of one address together
    ws_address_burst: int = 400
    ws_address_rate: float = 200.0
    #: seconds an absent person keeps a seat between hands (or before the first deal)
    seat_grace: float = 300.0
    #: seconds a room without connections stays in memory (it stays in SQLite for good)
    idle_evict: float = 600.0
    #: seconds a resting room (no person holding a seat connected) waits for one of them
    #: before its match is closed as it stands (docs/protocol.md §2.4)
    rest_seconds: float = 300.0
    #: threads or processes thinking for bots, server-wide
    bot_workers: int = 1
    #: 复盘 requests of one address being computed or waiting, and of the whole server
    reviews_per_address: int = 2
    reviews_waiting: int = 16
    #: The search's iterations per decision of a 复盘 (the same budget, the same review)
    review_iters: int = 300
    #: Wrong keys, transfer codes, invitations and 回放码 per address (docs/protocol.md §7.6),
    #: then one every ``guess_interval`` seconds
    guess_burst: int = 20
    guess_interval: float = 3.0
    #: Wrong guesses at one target whatever the addresses (a player's passkey; all transfer
    #: codes together), then one every ``target_guess_interval`` seconds
    target_guess_burst: int = 60
    target_guess_interval: float = 1.0
    #: New players per address, then one every ``player_interval`` seconds
    player_burst: int = 10
    player_interval: float = 30.0
    #: New club invitations per address, then one every ``invite_interval`` seconds (a club
    #: also holds at most ``accounts.MAX_LIVE_INVITES`` good ones)
    invite_burst: int = 20
    invite_interval: float = 10.0


class RateLimiter:
    """Token buckets per key (a client address), the oldest keys forgotten past ``max_keys``."""

    def __init__(self, burst: int, interval: float, max_keys: int = 10_000) -> None:
        """``burst`` tokens per key, refilled one per ``interval`` seconds."""
        self.burst = float(burst)
        self.interval = interval
        self.max_keys = max_keys
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def allow(self, key: str, now: float | None = None) -> bool:
        """Take one token for ``key``; False when its bucket is empty."""
        now = time.monotonic() if now is None else now
        tokens, since = self._buckets.pop(key, (self.burst, now))
        if self.interval > 0:
            tokens = min(self.burst, tokens + (now - since) / self.interval)
        allowed = tokens >= 1.0
        self._buckets[key] = (tokens - 1.0 if allowed else tokens, now)
        while len(self._buckets) > self.max_keys:
            self._buckets.popitem(last=False)
        return allowed

    def forgive(self, key: str) -> None:
        """Give back the token ``key`` last took (what it did turned out to be no abuse)."""
        found = self._buckets.get(key)
        if found is not None:
            self._buckets[key] = (min(self.burst, found[0] + 1.0), found[1])

    def retry_after(self, key: str) -> float:
        """Seconds until ``key`` has a token again."""
        tokens, _ = self._buckets.get(key, (self.burst, 0.0))
        return max(0.0, (1.0 - tokens) * self.interval)


class Counter:
    """Open things per key (WebSockets per address)."""

    def __init__(self) -> None:
        """No key counted."""
        self.counts: dict[str, int] = {}

    def add(self, key: str, cap: int) -> bool:
        """Count one more for ``key`` unless it already has ``cap``."""
        n = self.counts.get(key, 0)
        if n >= cap:
            return False
        self.counts[key] = n + 1
        return True

    def remove(self, key: str) -> None:
        """One fewer for ``key``."""
        n = self.counts.get(key, 0) - 1
        if n <= 0:
            self.counts.pop(key, None)
        else:
            self.counts[key] = n


class BodyError(Exception):
    """A request body that is refused, with its HTTP status and error code."""

    def __init__(self, status: int, code: str, message: str) -> None:
        """The status (400, 413, 415), the code and an explanation."""
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


async def read_json(receive: AsyncIterator[bytes], headers: Headers, limit: int) -> Any:
    """Read a JSON body of at most ``limit`` bytes from ``request.stream()``.

    The content type must be ``application/json`` (so a page elsewhere cannot send it as a plain
    form); an empty body is ``None``.
    """
    ctype = headers.get("content-type", "").split(";")[0].strip().lower()
    if ctype != "application/json":
        shown = ascii(ctype[:60])
        raise BodyError(415, "bad_content_type", f"the body must be application/json, not {shown}")
    declared = headers.get("content-length")
    if declared is not None and (
        not declared.isdigit() or len(declared) > 18 or int(declared) > limit
    ):
        raise BodyError(413, "too_large", f"the body must be at most {limit} bytes")
    body = bytearray()
    async for chunk in receive:
        body += chunk
        if len(body) > limit:
            raise BodyError(413, "too_large", f"the body must be at most {limit} bytes")
    if not body.strip():
        return None
    try:
        return json.loads(bytes(body).decode("utf-8"), parse_constant=_not_a_number)
    except (ValueError, RecursionError) as exc:
        raise BodyError(400, "bad_json", f"not JSON: {exc}") from exc


def _not_a_number(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def origin_allowed(headers: Headers) -> bool:
    """A WebSocket ``Origin`` must name the host it connects to; clients sending none pass.

    Browsers always send ``Origin``, so a page on another site cannot open a socket in its
    visitors' name; scripts and tests that send none are not browsers and are let through.
    """
    origin = headers.get("origin")
    if origin is None:
        return True
    host = headers.get("host", "")
    try:
        parts = urlsplit(origin)
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and bool(parts.netloc) and parts.netloc == host


#: Methods that change something: a browser's such request to the API must come from a page of
#: this server (docs/protocol.md §6).
UNSAFE_METHODS: Final = frozenset({"POST", "PUT", "PATCH", "DELETE"})


def foreign_request(method: str, headers: Headers) -> str | None:
    """Why a request that changes something comes from another site's page, or None.

    A request signed with ``Authorization: Bearer`` is a program's (a page elsewhere cannot make
    the browser send the key): it passes. Any other (it may ride on the cookie) must name this
    server as its ``Origin``; without an ``Origin``, a browser's ``Sec-Fetch-Site`` must not
    say another site made it. A program that sends neither is let through.
    """
    if method not in UNSAFE_METHODS:
        return None
    if headers.get("authorization", "")[:7].lower() == "bearer ":
        return None
    origin = headers.get("origin")
    if origin is not None:
        if origin_allowed(headers):
            return None
        return f"a request from the page of {origin[:80]!a} (Origin is not this server)"
    site = headers.get("sec-fetch-site")
    if site is not None and site.lower() not in ("same-origin", "none"):
        return f"a request made by another site's page (Sec-Fetch-Site: {site[:20]!a})"
    return None


class SameOrigin:
    """ASGI middleware: ``/api/`` requests that change something, from another site's page
    (:func:`foreign_request`), are answered ``403 forbidden_origin``."""

    def __init__(self, app: ASGIApp) -> None:
        """Wrap ``app``."""
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Refuse a foreign page's request; pass anything else on."""
        if scope["type"] == "http" and str(scope.get("path", "")).startswith("/api/"):
            why = foreign_request(str(scope.get("method", "")), Headers(scope=scope))
            if why is not None:
                body = json.dumps(
                    {"error": {"code": "forbidden_origin", "message": f"refused: {why}"}}
                ).encode()
                await send(
                    {
                        "type": "http.response.start",
                        "status": 403,
                        "headers": [
                            (b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode()),
                        ],
                    }
                )
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)


class SecurityHeaders:
    """ASGI middleware adding :data:`SECURITY_HEADERS` to every HTTP response."""

    def __init__(self, app: ASGIApp) -> None:
        """Wrap ``app``."""
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass the request on; add the headers to the response start."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                have = {k.lower() for k, _ in message.get("headers", [])}
                extra = [(k, v) for k, v in SECURITY_HEADERS if k not in have]
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await self.app(scope, receive, send_with_headers)


def client_address(scope: Scope) -> str:
    """The client's address: the peer of the socket, or where a ``--trust-proxy`` peer says the
    request came from (uvicorn's proxy headers set ``client`` from its ``X-Forwarded-For``,
    docs/scale.md); a trusted peer's request without one counts as the peer's own."""
    client = scope.get("client")
    return str(client[0]) if client else "unknown"


#: Close code of a connection dropped for falling behind or for a message it could not be sent.
CLOSE_BEHIND: Final = 1008
#: Close code of a WebSocket that sent nothing (a bot: no valid join line) in ``join_timeout``.
CLOSE_SILENT: Final = 4408


#: Why a write did not go out when the client had closed its socket: a player leaving.
CLIENT_GONE: Final = "the client closed the connection"


def closing_level(reason: str) -> int:
    """How loudly the end of a connection is logged: a client that left is nobody's failure
    (debug); anything else that stops a connection is a warning."""
    return logging.DEBUG if reason == CLIENT_GONE else logging.WARNING


@types.coroutine
def _resume(coro: Coroutine[Any, Any, None], pending: Any) -> Generator[Any, Any, None]:
    """Go on awaiting ``coro``, which has yielded ``pending`` to the loop: what ``await`` does
    with a coroutine after its first step (values and exceptions passed through both ways)."""
    try:
        while True:
            try:
                sent = yield pending
            except BaseException as exc:  # a cancellation (the timeout) goes to ``coro``
                pending = coro.throw(exc)
            else:
                pending = coro.send(sent)
    except StopIteration:
        return


async def send_within(websocket: WebSocket, text: str, timeout: float) -> str | None:
    """Send one message within ``timeout`` seconds; None, or why the connection must go.

    A send whose socket takes it at once (nearly every one: the transport buffers it) finishes
    in its first step, and needs no timer; only one that waits for the socket to drain (the
    client reads too slowly, docs/protocol.md §6) is timed. The writer sends several messages
    per action, so this is one of the server's hottest awaits (bench/server.py).
    """
    coro = websocket.send_text(text)
    try:
        try:
            pending = coro.send(None)
        except StopIteration:
            # Sent at once; the loop still takes its turn between two messages, so one room's
            # burst of news never holds back another room's answers (bench/server.py's p99).
            await asyncio.sleep(0)
            return None
        async with asyncio.timeout(timeout):
            await _resume(coro, pending)
    except TimeoutError:
        return f"a write took over {timeout} s"
    except WebSocketDisconnect:
        return CLIENT_GONE
    except Exception as exc:
        return f"write failed: {type(exc).__name__}"
    return None


async def run_connection(
    websocket: WebSocket,
    reader: Coroutine[Any, Any, None],
    writer: Coroutine[Any, Any, None],
    *,
    leave: Callable[[], None],
    failed: Callable[[], str | None],
    stop_writer: Callable[[], None],
) -> None:
    """Run one socket's reader and bounded writer until either ends (a player's or a bot's).

    Then the connection leaves its room; a healthy writer gets a second to send what is queued
    (``stop_writer`` queues its end), and a failed connection is closed with ``CLOSE_BEHIND``.
    """
    write_task = asyncio.create_task(writer)
    read_task = asyncio.create_task(reader)
    try:
        await asyncio.wait({write_task, read_task}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        leave()
        read_task.cancel()
        if failed() is None:
            stop_writer()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.shield(write_task), timeout=1)
        write_task.cancel()
        for task in (read_task, write_task):
            with contextlib.suppress(BaseException):
                await task
        if failed() is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(websocket.close(code=CLOSE_BEHIND), timeout=1)
