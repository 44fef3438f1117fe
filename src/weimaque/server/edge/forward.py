"""The way to a room another process of the cluster owns (docs/scale.md).

The load balancer sends every request of a room to one process by the room's id, so a room's
players normally reach its owner. When they do not (the balancer's hash moved while a process
came back, a client connects to a process directly), :class:`RoomRouter` finds the room's owner
in Redis and relays the request there: a socket frame by frame, an HTTP request whole. A room that
no process holds is claimed by the process that was asked, and restored there from the store.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from typing import TYPE_CHECKING, Final

from starlette.datastructures import Headers
from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.websockets import WebSocket, WebSocketDisconnect

from weimaque.server.base import metrics
from weimaque.server.base.limits import client_address, origin_allowed
from weimaque.server.cluster.leases import Cluster, ClusterUnavailable

if TYPE_CHECKING:
    import httpx

    from weimaque.server.edge.context import Server

log = logging.getLogger("weimaque.server")

#: The paths of one room: its sockets (players', bots') and its API.
ROOM_PATH: Final = re.compile(r"^/(?:ws|api/rooms)/([A-Za-z0-9_-]{1,64})(?:/|$)")

#: Headers a relayed request keeps (no hop-by-hop header, no Host: the owner's is its own).
KEPT_HEADERS: Final = ("cookie", "authorization", "content-type", "accept", "accept-language")

#: Close code that asks a client to connect again soon (the owner could not be reached).
CLOSE_TRY_AGAIN: Final = 1013

#: Seconds to reach an owner before the client is told to try again.
CONNECT_SECONDS: Final = 2.0


class RoomRouter:
    """ASGI middleware: a room's requests reach the process that owns it."""

    def __init__(self, app: ASGIApp, server: Server) -> None:
        """Route for the rooms of ``server``, a member of a cluster."""
        assert server.cluster is not None
        self.app = app
        self.manager = server.manager
        self.cluster: Cluster = server.cluster
        self.max_message = server.limits.max_message
        #: The owner refuses a larger body (docs/protocol.md §6): so does the relay, unread.
        self.max_body = server.limits.max_body
        self._http: httpx.AsyncClient | None = None
        server.closing.append(self.close)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve the room here when this process holds (or now takes) it, else relay."""
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        found = ROOM_PATH.match(str(scope.get("path", "")))
        if found is None or self.manager.holds(found[1]):
            await self.app(scope, receive, send)
            return
        room_id = found[1]
        try:
            owner = await self.cluster.claim(room_id)
        except ClusterUnavailable as exc:
            await self._unavailable(scope, receive, send, str(exc))
            return
        if owner is None or owner == self.cluster.config.node_url:
            await self.app(scope, receive, send)  # ours now: restored from the store
            return
        if scope["type"] == "websocket":
            await self._relay_socket(scope, receive, send, owner)
        else:
            await self._relay_http(scope, receive, send, owner)

    async def _unavailable(self, scope: Scope, receive: Receive, send: Send, why: str) -> None:
        text = f"the cluster cannot place the room now ({why}); try again"
        if scope["type"] == "websocket":
            # Nothing was asked yet, so nothing failed: the close says "again soon", and the
            # client reconnects as after any dropped socket (its reason names the cause).
            websocket = WebSocket(scope, receive, send)
            await websocket.accept()
            with contextlib.suppress(Exception):
                await websocket.close(CLOSE_TRY_AGAIN, text[:120])
            return
        from starlette.responses import JSONResponse

        body = {"error": {"code": "storage_unavailable", "message": text}}
        response = JSONResponse(body, status_code=503, headers={"retry-after": "1"})
        await response(scope, receive, send)

    def _headers(self, scope: Scope) -> dict[str, str]:
        """The headers of the relayed request: the kept ones and the client's address."""
        headers: dict[str, str] = {}
        for raw_name, raw_value in scope.get("headers", []):
            name = raw_name.decode("latin-1").lower()
            if name in KEPT_HEADERS:
                headers[name] = raw_value.decode("latin-1")
        headers["x-forwarded-for"] = client_address(scope)
        return headers

    async def _relay_socket(self, scope: Scope, receive: Receive, send: Send, owner: str) -> None:
        """Relay a WebSocket to the owner, frame by frame, both ways, until either side ends."""
        from websockets.asyncio.client import connect
        from websockets.exceptions import ConnectionClosed

        websocket = WebSocket(scope, receive, send)
        if not origin_allowed(websocket.headers):
            await websocket.close(code=4403)  # checked here: the owner sees no Origin
            return
        query = scope.get("query_string", b"").decode("latin-1")
        uri = "ws" + owner[len("http") :] + scope["path"] + (f"?{query}" if query else "")
        try:
            upstream = await connect(
                uri,
                additional_headers=self._headers(scope),
                open_timeout=CONNECT_SECONDS,
                max_size=self.max_message,
                max_queue=None,
                compression=None,
            )
        except Exception as exc:  # refused, timed out, or a handshake it did not finish
            # Its owner is gone or cut off: its lease runs out and a later try takes it over.
            log.info("room relay to %s failed: %s: %s", owner, type(exc).__name__, exc)
            await self._unavailable(scope, receive, send, f"its server {owner} does not answer")
            return
        await websocket.accept()
        metrics.WS_RELAYED.inc()
        metrics.RELAY_SOCKETS.inc()

        async def inward() -> None:
            with contextlib.suppress(ConnectionClosed):
                async for message in upstream:
                    metrics.FROM_OWNER.inc(len(message))
                    if isinstance(message, str):
                        await websocket.send_text(message)
                    else:
                        await websocket.send_bytes(message)

        async def outward() -> None:
            with contextlib.suppress(WebSocketDisconnect, ConnectionClosed):
                while True:
                    frame = await websocket.receive()
                    if frame["type"] == "websocket.disconnect":
                        return
                    if frame.get("text") is not None:
                        metrics.TO_OWNER.inc(len(frame["text"]))
                        await upstream.send(frame["text"])
                    elif frame.get("bytes") is not None:
                        metrics.TO_OWNER.inc(len(frame["bytes"]))
                        await upstream.send(frame["bytes"])

        tasks = [asyncio.ensure_future(inward()), asyncio.ensure_future(outward())]
        try:
            await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        finally:
            metrics.RELAY_SOCKETS.dec()
            for task in tasks:
                task.cancel()
            for task in tasks:
                with contextlib.suppress(BaseException):
                    await task
            await upstream.close()
            code = upstream.close_code or 1000
            with contextlib.suppress(Exception):
                await websocket.close(code=code if code != 1006 else CLOSE_TRY_AGAIN)

    async def _relay_http(self, scope: Scope, receive: Receive, send: Send, owner: str) -> None:
        """Relay an HTTP request of the room to its owner; answer what it answers."""
        import httpx

        if self._http is None:
            self._http = httpx.AsyncClient(timeout=10.0)
        metrics.HTTP_RELAYED.inc()
        body = await self._bounded_body(scope, receive)
        if isinstance(body, Response):
            await body(scope, receive, send)
            return
        metrics.TO_OWNER.inc(len(body))
        query = scope.get("query_string", b"").decode("latin-1")
        url = owner + scope["path"] + (f"?{query}" if query else "")
        try:
            answer = await self._http.request(
                scope["method"], url, content=body, headers=self._headers(scope)
            )
        except httpx.HTTPError as exc:
            why = f"its server {owner} does not answer ({type(exc).__name__})"
            await self._unavailable(scope, receive, send, why)
            return
        metrics.FROM_OWNER.inc(len(answer.content))
        kept = {
            k: v
            for k, v in answer.headers.items()
            if k.lower() in ("content-type", "retry-after", "set-cookie", "cache-control")
        }
        await Response(answer.content, answer.status_code, kept)(scope, receive, send)

    async def _bounded_body(self, scope: Scope, receive: Receive) -> bytes | Response:
        """The request's body, read only while it stays within the owner's ``max_body``:
        a declared ``Content-Length`` over it is refused before a byte is read, a chunked body
        as soon as it passes it (the 413 the owner would answer, quoting the limit)."""
        from starlette.requests import Request

        from weimaque.server.edge.context import error_response

        limit = self.max_body
        too_large = error_response(413, "too_large", f"the body must be at most {limit} bytes")
        declared = Headers(scope=scope).get("content-length")
        if declared is not None and (
            not declared.isdigit() or len(declared) > 18 or int(declared) > limit
        ):
            metrics.RELAY_REFUSED.inc()
            return too_large
        body = bytearray()
        async for chunk in Request(scope, receive).stream():
            body += chunk
            if len(body) > limit:
                metrics.RELAY_REFUSED.inc()
                return too_large
        return bytes(body)

    async def close(self) -> None:
        """Close the relay's HTTP client."""
        if self._http is not None:
            await self._http.aclose()
            self._http = None


__all__ = ["CLOSE_TRY_AGAIN", "ROOM_PATH", "RoomRouter"]
