"""The Starlette app of ``wmq serve``: the static UI, the HTTP API and ``/ws/{room_id}``.

The protocol is documented in ``docs/protocol.md``. The app is built from the server's
packages: the shared state of one server (:mod:`.edge.context`), the HTTP endpoints
(:mod:`.edge.api`, :mod:`.players`), the player's socket (:mod:`.edge.sockets`), the remote
bots' (:mod:`.edge.remote`); rooms live in :mod:`.table.rooms`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from pathlib import Path

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.types import ASGIApp, Receive, Scope, Send

from weimaque.server.base.limits import Limits, SameOrigin, SecurityHeaders, client_address
from weimaque.server.cluster.leases import ClusterConfig
from weimaque.server.edge import api, scrape, sockets
from weimaque.server.edge.context import Server, error_response, server_of, web_dir
from weimaque.server.edge.forward import RoomRouter
from weimaque.server.edge.shell import UI_LIBRARY, ShellFiles, service_worker
from weimaque.server.players import clubapi, passkeyapi, playerapi
from weimaque.server.store.store import Store
from weimaque.server.table.options import quoted
from weimaque.server.table.rooms import Room

log = logging.getLogger("weimaque.server")

# ----------------------------------------------------------------------------- pages
# Every page is drawn by the browser UI from its path (docs/web.md).


async def index(request: Request) -> Response:
    return server_of(request).index_response()


async def score_page(request: Request) -> Response:
    return server_of(request).index_response()


async def share(request: Request) -> Response:
    """``/r/{room_id}``: the room's page, 404 (still the page) for an unknown room."""
    s = server_of(request)
    response = s.index_response()
    found = await s.room_or_404(request)
    if not isinstance(found, Room):
        # The page itself draws the styled "no such room" screen, with a way back.
        response.status_code = found.status_code
    return response


async def unknown_path(request: Request) -> Response:
    """Any other address: an API caller gets a JSON error, a person the styled page that says
    there is nothing there (drawn by the UI, with the way back to the lobby), both 404."""
    if request.url.path.startswith("/api/"):
        return error_response(404, "not_found", f"no endpoint {quoted(request.url.path)}")
    response = server_of(request).index_response()
    response.status_code = 404
    return response


async def http_error(request: Request, exc: Exception) -> Response:
    """A request the routes refuse (a method a path does not take): the API's JSON error, with
    the status and headers Starlette gives it."""
    assert isinstance(exc, HTTPException)
    code = "method_not_allowed" if exc.status_code == 405 else "bad_request"
    message = f"{request.method} {quoted(request.url.path)}: {exc.detail}"
    response = error_response(exc.status_code, code, message)
    response.headers.update(exc.headers or {})
    return response


async def metrics_endpoint(request: Request) -> Response:
    """``/metrics``: the process's Prometheus metrics, to a scraper on this machine or at a
    ``--trust-proxy`` address that connects directly; anyone else finds nothing there
    (:mod:`.edge.scrape`, docs/scale.md)."""
    s = server_of(request)
    if not scrape.may_scrape(request, s.trusted):
        return await unknown_path(request)
    return scrape.exposition(request.app.state.metrics)


async def worker(request: Request) -> Response:
    """``/sw.js``: the service worker of the installed app (:mod:`.edge.shell`), from the root so
    that it controls every page; never cached by HTTP, so a new version is seen at once."""
    text = service_worker(server_of(request).web)
    headers = {"cache-control": "no-cache", "service-worker-allowed": "/"}
    return Response(text, media_type="text/javascript", headers=headers)


async def manifest(request: Request) -> Response:
    """``/manifest.webmanifest``: the web app manifest (name, icons, full screen, landscape),
    revalidated as the static files are."""
    path = server_of(request).web / "manifest.webmanifest"
    headers = {"cache-control": "no-cache"}
    return FileResponse(path, media_type="application/manifest+json", headers=headers)


class ApiRateLimit:
    """ASGI middleware: at most ``Limits.http_rate`` API requests a second per address."""

    def __init__(self, app: ASGIApp, server: Server) -> None:
        """Wrap ``app``."""
        self.app = app
        self.budget = server.requests

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Answer 429 to an address over its rate."""
        path = str(scope.get("path", ""))
        if scope["type"] == "http" and path.startswith("/api/") and path != "/api/live":
            refused = await self.budget.over(client_address(scope), "requests")
            if refused is not None:
                await refused(scope, receive, send)
                return
        await self.app(scope, receive, send)


def create_app(
    db: str | Path | None = None,
    store: Store | None = None,
    limits: Limits | None = None,
    web: Path | None = None,
    cluster: ClusterConfig | None = None,
    trusted: tuple[str, ...] = (),
) -> Starlette:
    """The app over a SQLite store (``db`` path; default ``$WMQ_DB`` or ``./weimaque.db``),
    serving the browser UI of ``web`` (default: the package's own, :func:`web_dir`); with
    ``cluster``, one process of many (docs/scale.md), behind the ``trusted`` proxies."""
    limits = limits or Limits()
    server = Server(store if store is not None else Store(db), limits, web, cluster, trusted)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        restored = server.manager.restore_all()
        if restored:
            log.info("restored %d rooms", restored)
        server.manager.start()
        listening = None
        if server.cluster is not None:
            server.cluster.start()
            listening = asyncio.get_running_loop().create_task(server.listen_for_removals())
        try:
            yield
        finally:
            if listening is not None:
                listening.cancel()
                with contextlib.suppress(BaseException):
                    await listening
            await server.close()

    routes: list[Route | WebSocketRoute | Mount] = [
        Route("/", index),
        Route("/r/{room_id}", share),
        Route("/score", score_page),
        Route("/api/score", api.score_api, methods=["POST"]),
        Route("/api/tidy", api.tidy_api, methods=["POST"]),
        Route("/api/health", api.health),
        Route("/api/live", api.live),
        Route("/metrics", metrics_endpoint),
        Route("/api/presets", api.presets),
        Route("/api/games", api.games),
        Route("/api/rooms", api.create_room, methods=["POST"]),
        Route("/api/rooms", api.list_rooms, methods=["GET"]),
        Route("/api/rooms/{room_id}", api.room_info),
        Route("/api/numbers/{number}", api.room_by_number),
        Route("/api/rooms/{room_id}/hands", api.hands),
        Route("/api/rooms/{room_id}/record", api.match_record),
        Route("/api/rooms/{room_id}/seats/{seat}/free", api.free_seat, methods=["POST"]),
        Route("/api/rooms/{room_id}/seats/{seat}/bot", api.seat_bot, methods=["POST"]),
        Route("/api/rooms/{room_id}/hands/{number}", api.hand),
        Route("/api/rooms/{room_id}/hands/{number}/replay", api.hand_replay),
        Route("/api/rooms/{room_id}/hands/{number}/review", api.hand_review),
        Route("/me", index),
        Route("/clubs/{club_id}", index),
        Route("/c/{code}", index),
        Route("/p/{code}", index),
        Route("/api/players", playerapi.create_player, methods=["POST"]),
        Route("/api/players/transfer", playerapi.redeem_transfer, methods=["POST"]),
        Route("/api/players/passkey/options", passkeyapi.sign_in_options, methods=["POST"]),
        Route("/api/players/passkey", passkeyapi.sign_in, methods=["POST"]),
        Route("/api/me/passkeys/options", passkeyapi.register_options, methods=["POST"]),
        Route("/api/me/passkeys", passkeyapi.register, methods=["POST"]),
        Route("/api/me/passkeys", passkeyapi.list_passkeys, methods=["GET"]),
        Route("/api/me/passkeys/{passkey}", passkeyapi.rename_passkey, methods=["PATCH"]),
        Route("/api/me/passkeys/{passkey}", passkeyapi.remove_passkey, methods=["DELETE"]),
        Route("/api/players/{player_id}/matches", playerapi.player_matches),
        Route("/api/me", playerapi.me, methods=["GET"]),
        Route("/api/me", playerapi.rename, methods=["PATCH"]),
        Route("/api/me/devices", playerapi.list_devices),
        Route("/api/me/devices/{device}", playerapi.remove_device, methods=["DELETE"]),
        Route("/api/me/signout", playerapi.sign_out, methods=["POST"]),
        Route("/api/me/signout/all", playerapi.sign_out_everywhere, methods=["POST"]),
        Route("/api/me/transfer", playerapi.start_transfer, methods=["POST"]),
        Route("/api/me/matches", playerapi.my_matches),
        Route("/api/me/stats", playerapi.my_stats),
        Route("/api/replays/{code}", playerapi.replay),
        Route("/api/replays/{code}/review", playerapi.replay_review),
        Route("/api/clubs", clubapi.create_club, methods=["POST"]),
        Route("/api/clubs/join", clubapi.join, methods=["POST"]),
        Route("/api/clubs/{club_id}", clubapi.club, methods=["GET"]),
        Route("/api/clubs/{club_id}", clubapi.update_club, methods=["PATCH"]),
        Route("/api/clubs/{club_id}/invites", clubapi.invite, methods=["POST"]),
        Route("/api/clubs/{club_id}/invites", clubapi.list_invites, methods=["GET"]),
        Route(
            "/api/clubs/{club_id}/invites/{invite_id}", clubapi.revoke_invite, methods=["DELETE"]
        ),
        Route("/api/clubs/{club_id}/members/{player_id}", clubapi.member, methods=["POST"]),
        Route("/api/clubs/{club_id}/leave", clubapi.leave, methods=["POST"]),
        Route("/api/clubs/{club_id}/leaderboard", clubapi.leaderboard),
        Route("/api/clubs/{club_id}/tables", clubapi.open_table, methods=["POST"]),
        WebSocketRoute("/ws/{room_id}", sockets.ws_endpoint),
        *server.remote.routes(),
    ]
    web = server.web
    if web.is_dir():
        routes.append(Route("/sw.js", worker))
        routes.append(Route("/manifest.webmanifest", manifest))
        routes.append(Mount("/static", ShellFiles(directory=web), name="static"))
        if not (web / UI_LIBRARY).is_file():
            log.warning("the browser UI's library %s is missing: run `make setup`", UI_LIBRARY)
    routes.append(Route("/{path:path}", unknown_path, methods=["GET", "HEAD"]))
    # A foreign page's request is refused before a cluster relays it (the relay drops Origin).
    middleware = [
        Middleware(SecurityHeaders),
        Middleware(ApiRateLimit, server=server),
        Middleware(SameOrigin),
    ]
    if server.cluster is not None:
        middleware.append(Middleware(RoomRouter, server=server))
    app = Starlette(
        routes=routes,
        lifespan=lifespan,
        middleware=middleware,
        exception_handlers={HTTPException: http_error},
    )
    app.state.server = server
    # The server's own series, read when ``/metrics`` is scraped.
    app.state.metrics = scrape.registry_of(server)
    app.state.manager = server.manager
    app.state.store = server.store
    app.state.limits = limits
    return app


__all__ = ["UI_LIBRARY", "create_app", "web_dir"]
