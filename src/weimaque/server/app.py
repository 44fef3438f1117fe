"""The Starlette app of ``wmq serve``: the static UI, the HTTP API and ``/ws/{room_id}``.

The protocol is documented in ``docs/protocol.md``; rooms live in :mod:`weimaque.server.rooms`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator
from importlib import resources
from pathlib import Path
from typing import Any, Final

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from weimaque.bots import REGISTRY
from weimaque.bots.review import review
from weimaque.rules.config import OPTION_NAMES, PATTERN_NAMES, RuleConfig
from weimaque.rules.registry import DEFAULT_PRESET, list_rules
from weimaque.server.manager import RoomManager
from weimaque.server.options import DEFAULT_TURN_SECONDS, ROOM_OPTIONS, RoomError, RoomOptions
from weimaque.server.protocol import PROTOCOL_VERSION, ProtocolError, error_message, parse_client
from weimaque.server.remote import RemoteBots
from weimaque.server.rooms import Room
from weimaque.server.scoreapi import ScoreError, score_request
from weimaque.server.store import Store
from weimaque.server.views import replay_steps

log = logging.getLogger("weimaque.server")

#: The bot behind the 复盘 endpoint: an iteration budget, so a review is the same every time.
REVIEW_BOT: Final = "mcts:iters=300"

_PLACEHOLDER: Final = """<!doctype html>
<html lang="zh"><head><meta charset="utf-8"><title>安乡偎麻雀</title></head>
<body><h1>安乡偎麻雀</h1><p>The web UI is not installed. The API is at /api/presets.</p></body>
</html>
"""


def web_dir() -> Path:
    """The folder of the static UI (``src/weimaque/web``)."""
    return Path(str(resources.files("weimaque") / "web"))


class QueueClient:
    """A connection's outgoing queue, drained by one writer task."""

    def __init__(self) -> None:
        """An empty queue."""
        self.queue: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()

    def send(self, message: dict[str, Any]) -> None:
        """Queue a message (never blocks)."""
        self.queue.put_nowait(message)

    def close(self) -> None:
        """Stop the writer."""
        self.queue.put_nowait(None)


def _error(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status)


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


def create_app(db: str | Path | None = None, store: Store | None = None) -> Starlette:
    """The app over a SQLite store (``db`` path; default ``$WMQ_DB`` or ``./weimaque.db``)."""
    store = store if store is not None else Store(db)
    manager = RoomManager(store)
    remote = RemoteBots(manager)
    web = web_dir()

    def index_response() -> Response:
        index = web / "index.html"
        if index.is_file():
            return FileResponse(index, media_type="text/html")
        return HTMLResponse(_PLACEHOLDER)

    def room_or_404(request: Request) -> Room | JSONResponse:
        room_id = str(request.path_params["room_id"])
        room = manager.get(room_id)
        if room is None:
            return _error(404, "room_not_found", f"no room {room_id!r}")
        return room

    async def index(request: Request) -> Response:
        return index_response()

    async def share(request: Request) -> Response:
        response = index_response()
        if manager.get(str(request.path_params["room_id"])) is None:
            # The page itself draws the styled "no such room" screen, with a way back.
            response.status_code = 404
        return response

    async def score_page(request: Request) -> Response:
        return index_response()

    async def score_api(request: Request) -> Response:
        body = await request.body()
        try:
            raw = json.loads(body) if body.strip() else {}
        except ValueError as exc:
            return _error(400, "bad_json", f"not JSON: {exc}")
        try:
            result = score_request(raw)
        except ScoreError as exc:
            return _error(400, exc.code, str(exc))
        return JSONResponse({"v": PROTOCOL_VERSION, **result})

    async def health(request: Request) -> Response:
        return JSONResponse({"ok": True, "v": PROTOCOL_VERSION})

    async def presets(request: Request) -> Response:
        return JSONResponse(
            {
                "v": PROTOCOL_VERSION,
                "default": DEFAULT_PRESET,
                "presets": [_preset_json(c) for c in list_rules()],
                "room_options": _option_types(),
                # The UI labels 名堂 checkboxes and a room's enabled/disabled 名堂 with these.
                "pattern_names": dict(PATTERN_NAMES),
                "bots": sorted(REGISTRY),
                "turn_seconds": DEFAULT_TURN_SECONDS,
            }
        )

    async def create_room(request: Request) -> Response:
        body = await request.body()
        try:
            raw = json.loads(body) if body.strip() else {}
        except ValueError as exc:
            return _error(400, "bad_json", f"not JSON: {exc}")
        try:
            room = manager.create(RoomOptions.from_json(raw))
        except RoomError as exc:
            return _error(400, exc.code, str(exc))
        return JSONResponse(
            {
                "v": PROTOCOL_VERSION,
                "room_id": room.id,
                "url": f"/r/{room.id}",
                "ws": f"/ws/{room.id}",
                "room": room.info(),
                # secret: lets the creator issue bot tokens (docs/bot-protocol.md)
                "creator_token": remote.creator_token(room),
            },
            status_code=201,
        )

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
        room = room_or_404(request)
        if isinstance(room, JSONResponse):
            return room
        return JSONResponse({"v": PROTOCOL_VERSION, "room": room.info()})

    async def hands(request: Request) -> Response:
        room = room_or_404(request)
        if isinstance(room, JSONResponse):
            return room
        return JSONResponse(
            {
                "v": PROTOCOL_VERSION,
                "room_id": room.id,
                "hands": room.summaries(),
                "ledger": room.match.ledger(),
            }
        )

    def finished(request: Request) -> tuple[Room, int, dict[str, Any]] | JSONResponse:
        room = room_or_404(request)
        if isinstance(room, JSONResponse):
            return room
        try:
            number = int(request.path_params["number"])
        except ValueError:
            return _error(404, "hand_not_found", "hand numbers are integers")
        record = manager.hand_record(room.id, number)
        if record is None:
            if number == room.hand_number and room.state is not None:
                return _error(404, "hand_not_finished", f"hand {number} is still being played")
            return _error(404, "hand_not_found", f"no finished hand {number}")
        return room, number, record

    async def hand(request: Request) -> Response:
        found = finished(request)
        if isinstance(found, JSONResponse):
            return found
        room, number, record = found
        return JSONResponse(
            {"v": PROTOCOL_VERSION, "room_id": room.id, "number": number, "record": record}
        )

    async def hand_replay(request: Request) -> Response:
        found = finished(request)
        if isinstance(found, JSONResponse):
            return found
        room, number, record = found
        steps = await asyncio.to_thread(replay_steps, record)
        return JSONResponse(
            {"v": PROTOCOL_VERSION, "room_id": room.id, "number": number, "steps": steps}
        )

    reviews: dict[tuple[str, int, int], dict[str, Any]] = {}

    async def hand_review(request: Request) -> Response:
        """复盘 of one seat of a finished hand (bots.review), computed once and kept."""
        found = finished(request)
        if isinstance(found, JSONResponse):
            return found
        room, number, record = found
        try:
            seat = int(request.query_params.get("seat", ""))
            if not 0 <= seat <= 2:
                raise ValueError(seat)
        except ValueError:
            seat_text = request.query_params.get("seat")
            return _error(400, "bad_seat", f"seat must be 0, 1 or 2, not {seat_text!r}")
        key = (room.id, number, seat)
        if key not in reviews:
            result = await asyncio.to_thread(review, record, seat, REVIEW_BOT, None)
            reviews[key] = result.to_dict()
        body = {"v": PROTOCOL_VERSION, "room_id": room.id, "number": number, **reviews[key]}
        for d in body["decisions"]:
            d["hand"] = number
        return JSONResponse(body)

    async def ws_endpoint(websocket: WebSocket) -> None:
        await websocket.accept()
        room_id = str(websocket.path_params["room_id"])
        room = manager.get(room_id)
        if room is None:
            await websocket.send_text(
                json.dumps(error_message("room_not_found", f"no room {room_id!r}", room_id))
            )
            await websocket.close(code=4404)
            return
        client = QueueClient()
        conn = room.connect(client)

        async def writer() -> None:
            while (message := await client.queue.get()) is not None:
                await websocket.send_text(
                    json.dumps(message, ensure_ascii=False, separators=(",", ":"))
                )

        write_task = asyncio.create_task(writer())
        try:
            while True:
                frame = await websocket.receive()
                if frame["type"] == "websocket.disconnect":
                    break
                data = frame.get("text")
                if data is None:
                    data = frame.get("bytes") or b""
                try:
                    room.handle(conn, parse_client(data))
                except ProtocolError as exc:
                    client.send(exc.to_message())
                except Exception:
                    log.exception("room %s: message failed", room_id)
                    client.send(error_message("internal", "internal server error", None))
                if write_task.done():
                    break
        except WebSocketDisconnect:
            pass
        finally:
            room.disconnect(conn)
            client.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(write_task, timeout=1)
            if not write_task.done():
                write_task.cancel()

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
        Route("/api/rooms/{room_id}/hands/{number}", hand),
        Route("/api/rooms/{room_id}/hands/{number}/replay", hand_replay),
        Route("/api/rooms/{room_id}/hands/{number}/review", hand_review),
        WebSocketRoute("/ws/{room_id}", ws_endpoint),
        *remote.routes(),
    ]
    if web.is_dir():
        routes.append(Mount("/static", StaticFiles(directory=web), name="static"))
        routes.append(Mount("/", StaticFiles(directory=web, html=True), name="web"))
    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.manager = manager
    app.state.store = store
    return app
