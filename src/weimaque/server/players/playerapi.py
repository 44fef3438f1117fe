"""The HTTP API of players: signing in, devices, moving to another device, 战绩 and 回放码
(docs/protocol.md §7.1–§7.4, §7.6).

A request's player comes from the ``wmq_player`` cookie or ``Authorization: Bearer KEY``
(``Server.player_of``); the SQL is :mod:`..store.accounts`'s, run off the event loop.
"""

from __future__ import annotations

import asyncio
import functools
import io
import math
import time
from collections.abc import Awaitable, Callable
from typing import Any, Final

import segno
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from weimaque.games.protocol import UnknownGame
from weimaque.games.registry import get_game
from weimaque.server.base.limits import BodyError, client_address, read_json
from weimaque.server.edge.api import review_of
from weimaque.server.edge.context import DEAD_COOKIE, TRANSFER_CODES, Server, server_of
from weimaque.server.edge.context import error_response as _error
from weimaque.server.players.variants import asked_json, contest_json, variant_param
from weimaque.server.store import accounts
from weimaque.server.store.accounts import COOKIE, Device, Player
from weimaque.server.store.persist import written
from weimaque.server.store.store import StoreUnavailable
from weimaque.server.table.options import DEFAULT_GAME, quoted
from weimaque.server.table.rooms import Room
from weimaque.server.table.views import replay_steps
from weimaque.server.wire.common import PROTOCOL_VERSION
from weimaque.server.wire.protocol import clean_name

COOKIE_SECONDS: Final = 365 * 24 * 3600
MAX_DAYS: Final = 3650
MAX_PAGE: Final = 50


async def write(s: Server, op: Callable[[Any], object]) -> JSONResponse | None:
    """A write the answer waits for; the 503 to answer when the store cannot make it."""
    try:
        await written(s.store.write(op))
    except StoreUnavailable as exc:
        return _error(503, "storage_unavailable", f"the store cannot write: {exc}")
    return None


async def signed_in(request: Request) -> Player | JSONResponse:
    """The player of a request that needs one, or the 401 (or 429) to answer."""
    player = await server_of(request).player_of(request)
    if player is None:
        response = _error(401, "unauthorized", "sign in first (POST /api/players)")
        if request.scope.get(DEAD_COOKIE):  # signed out elsewhere: the browser forgets it
            response.delete_cookie(COOKIE, path="/")
        return response
    return player


Endpoint = Callable[[Request], Awaitable[Response]]


def with_player(
    endpoint: Callable[[Request, Server, Player], Awaitable[Response]],
) -> Endpoint:
    """An endpoint for a signed-in player: called with the request, its server and the player;
    a request without one is answered 401 (or 429, :func:`signed_in`)."""

    @functools.wraps(endpoint)
    async def answer(request: Request) -> Response:
        player = await signed_in(request)
        if isinstance(player, JSONResponse):
            return player
        return await endpoint(request, server_of(request), player)

    return answer


async def body(
    request: Request, fields: frozenset[str], required: frozenset[str] = frozenset()
) -> dict[str, Any] | JSONResponse:
    """A request's JSON object, bounded, with only ``fields`` and every one of ``required``."""
    s = server_of(request)
    try:
        raw = await read_json(request.stream(), request.headers, s.limits.max_body)
    except BodyError as exc:
        return _error(exc.status, exc.code, exc.message)
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        return _error(400, "bad_request", f"the body must be a JSON object, not {quoted(raw)}")
    unknown = sorted(quoted(k, 30) for k in set(raw) - fields)
    if unknown:
        return _error(400, "bad_request", f"unknown fields {', '.join(unknown[:5])}")
    missing = sorted(required - set(raw))
    if missing:
        return _error(400, "bad_request", f"missing fields {', '.join(missing)}")
    return raw


def checked_name(raw: Any, what: str = "name") -> str | JSONResponse:
    """A cleaned name of 1..``MAX_NAME`` characters, or the 400."""
    if not isinstance(raw, str) or len(raw) > 200:
        return _error(
            400, "bad_name", f"{what} must be text of 1..{accounts.MAX_NAME}: {quoted(raw)}"
        )
    name = clean_name(raw, None)  # a name too long is refused, not cut
    if not 1 <= len(name) <= accounts.MAX_NAME:
        return _error(
            400, "bad_name", f"{what} must be 1..{accounts.MAX_NAME} characters: {quoted(raw)}"
        )
    return name


def signed_in_response(
    request: Request,
    player: dict[str, Any],
    key: str,
    status: int = 200,
    extra: dict[str, Any] | None = None,
) -> JSONResponse:
    """The answer that gives a device its key, in the body (with ``extra`` fields) and as the
    session cookie (``Secure`` over https, a trusted balancer's scheme, docs/scale.md)."""
    response = JSONResponse(
        {"v": PROTOCOL_VERSION, "player": player, "key": key, **(extra or {})}, status_code=status
    )
    response.set_cookie(
        COOKIE,
        key,
        max_age=COOKIE_SECONDS,
        path="/",
        httponly=True,
        samesite="lax",
        secure=request.url.scheme == "https",
    )
    return response


def new_device(request: Request) -> tuple[str, Device]:
    """A new key and the device that will hold it."""
    key = accounts.new_key()
    label = accounts.device_label(request.headers.get("user-agent", ""))
    return key, Device(accounts.new_id(), accounts.digest(key), label)


def days_param(request: Request, default: int | None) -> int | JSONResponse | None:
    """``?days=N`` (1..MAX_DAYS), ``default`` when absent."""
    text = request.query_params.get("days")
    if text is None or text == "":
        return default
    if not text.isdecimal() or len(text) > 5 or not 1 <= int(text) <= MAX_DAYS:
        return _error(400, "bad_request", f"days must be 1..{MAX_DAYS}, not {quoted(text)}")
    return int(text)


def game_param(request: Request, default: str | None) -> str | JSONResponse | None:
    """``?game=ID`` (a registered game's id or alias, answered as its id; docs/protocol.md
    §7.3), ``default`` when absent (None: every game); an unknown one is the 400 quoting it."""
    text = request.query_params.get("game")
    if text is None or text == "":
        return default
    try:
        return get_game(text[:64]).info.id
    except UnknownGame as exc:
        return _error(400, "unknown_game", str(exc))


def since(days: int | None) -> float:
    return 0.0 if days is None else time.time() - days * 86400


# ----------------------------------------------------------------- endpoints


async def create_player(request: Request) -> Response:
    """``POST /api/players``: a new player and this device's key."""
    s = server_of(request)
    raw = await body(request, frozenset({"name"}), frozenset({"name"}))
    if isinstance(raw, JSONResponse):
        return raw
    name = checked_name(raw["name"])
    if isinstance(name, JSONResponse):
        return name
    refused = await s.player_budget.over(client_address(request.scope), "new players")
    if refused is not None:
        return refused
    player_id = accounts.new_id()
    key, device = new_device(request)
    failed = await write(s, lambda db: accounts.create_player(db, player_id, name, device))
    if failed is not None:
        return failed
    return signed_in_response(request, {"id": player_id, "name": name}, key, 201)


@with_player
async def me(request: Request, s: Server, player: Player) -> Response:
    """``GET /api/me``: the player, their clubs and their rooms not over."""
    row = await s.read(lambda db: accounts.player_row(db, player.id))
    clubs = await s.read(lambda db: accounts.clubs_of(db, player.id))

    def holds(room: Room) -> bool:
        return room.table.status != "over" and any(
            seat.player == player.id for seat in room.seating.seats
        )

    # Those in memory (a seat just taken may not be written yet) and those stored.
    ids = [r.id for r in s.manager.rooms.values() if holds(r)]
    stored = await s.read(lambda db: accounts.open_rooms(db, player=player.id))
    ids += [i for i in stored if i not in ids]
    held = await s.rooms_named(ids, holds)
    rooms = [r.info() for r in held]
    return JSONResponse({"v": PROTOCOL_VERSION, "player": row, "clubs": clubs, "rooms": rooms})


@with_player
async def rename(request: Request, s: Server, player: Player) -> Response:
    """``PATCH /api/me``: a new name (the seats the player holds keep theirs until they sit)."""
    raw = await body(request, frozenset({"name"}), frozenset({"name"}))
    if isinstance(raw, JSONResponse):
        return raw
    name = checked_name(raw["name"])
    if isinstance(name, JSONResponse):
        return name
    failed = await write(s, lambda db: accounts.rename(db, player.id, name))
    if failed is not None:
        return failed
    return JSONResponse({"v": PROTOCOL_VERSION, "player": {"id": player.id, "name": name}})


@with_player
async def list_devices(request: Request, s: Server, player: Player) -> Response:
    """``GET /api/me/devices?limit=N&before=CURSOR``: the player's devices, used most recently
    first, paged (docs/protocol.md §7.1)."""
    text = request.query_params.get("limit", str(accounts.MAX_DEVICES))
    if not text.isdecimal() or len(text) > 3 or not 1 <= int(text) <= MAX_PAGE:
        return _error(400, "bad_request", f"limit must be 1..{MAX_PAGE}, not {quoted(text)}")
    limit = int(text)
    before: tuple[float, str] | None = None
    cursor = request.query_params.get("before")
    if cursor:
        seen, _, device = cursor.partition("~")
        try:
            if not device or len(cursor) > 120 or not math.isfinite(float(seen)):
                raise ValueError
            before = (float(seen), device)
        except ValueError:
            return _error(400, "bad_request", f"not a cursor: {quoted(cursor, 60)}")
    found, nxt = await s.read(
        lambda db: accounts.devices(db, player.id, player.device, limit=limit, before=before)
    )
    after = None if nxt is None else f"{nxt[0]!r}~{nxt[1]}"
    return JSONResponse({"v": PROTOCOL_VERSION, "devices": found, "next": after})


@with_player
async def remove_device(request: Request, s: Server, player: Player) -> Response:
    """``DELETE /api/me/devices/{id}``: that device's key stops working."""
    device = str(request.path_params["device"])[:64]
    done: list[int] = []
    failed = await write(s, lambda db: done.append(accounts.remove_device(db, player.id, device)))
    if failed is not None:
        return failed
    if not done or not done[0]:
        return _error(404, "not_found", f"no device {quoted(device)}")
    response = JSONResponse({"v": PROTOCOL_VERSION, "removed": device})
    if device == player.device:
        response.delete_cookie(COOKIE, path="/")
    return response


@with_player
async def sign_out(request: Request, s: Server, player: Player) -> Response:
    """``POST /api/me/signout``: this device is signed out."""
    failed = await write(s, lambda db: accounts.remove_device(db, player.id, player.device))
    if failed is not None:
        return failed
    response = JSONResponse({"v": PROTOCOL_VERSION, "signed_out": True})
    response.delete_cookie(COOKIE, path="/")
    return response


@with_player
async def sign_out_everywhere(request: Request, s: Server, player: Player) -> Response:
    """``POST /api/me/signout/all``: every device signed out (this one's key too, whoever
    copied it), every transfer code and every passkey of the player gone; this device alone is
    signed in again, with a new key (docs/protocol.md §7.1)."""
    key, device = new_device(request)
    done: list[tuple[int, int]] = []

    def revoke(db: Any) -> None:
        done.append(accounts.sign_out_everywhere(db, player.id))
        accounts.add_device(db, player.id, device)

    failed = await write(s, revoke)
    if failed is not None:
        return failed
    devices, passkeys = done[0] if done else (0, 0)
    gone = {"devices": devices, "passkeys": passkeys}
    return signed_in_response(request, player.to_json(), key, extra=gone)


def qr_svg(text: str) -> str:
    """An SVG QR code of ``text`` (drawn by segno)."""
    out = io.BytesIO()
    segno.make(text, error="m").save(out, kind="svg", scale=4, border=2, xmldecl=False)
    return out.getvalue().decode("utf-8")


@with_player
async def start_transfer(request: Request, s: Server, player: Player) -> Response:
    """``POST /api/me/transfer``: a one-time code that signs another device in."""
    code = accounts.new_code()
    failed = await write(
        s, lambda db: accounts.add_transfer(db, accounts.digest(code), player.id, player.device)
    )
    if failed is not None:
        return failed
    page = f"{request.url.scheme}://{request.url.netloc}/me?code={code}"
    return JSONResponse(
        {
            "v": PROTOCOL_VERSION,
            "code": code,
            "expires_in": accounts.TRANSFER_SECONDS,
            "qr_svg": qr_svg(page),
        }
    )


async def redeem_transfer(request: Request) -> Response:
    """``POST /api/players/transfer``: this device signs in with another's code."""
    s = server_of(request)
    raw = await body(request, frozenset({"code"}), frozenset({"code"}))
    if isinstance(raw, JSONResponse):
        return raw
    # A guess at a code is counted for the address and for all transfer codes together, so
    # that many addresses guess no faster than one (docs/protocol.md §7.6).
    refused = await s.guessed(request) or await s.guessed_at(TRANSFER_CODES)
    if refused is not None:
        return refused
    code = accounts.normal_code(raw["code"])
    if code is None:
        return _error(404, "bad_code", f"not a transfer code: {quoted(raw['code'], 40)}")
    key, device = new_device(request)
    signed: list[str | None] = []
    failed = await write(
        s, lambda db: signed.append(accounts.redeem_transfer(db, accounts.digest(code), device))
    )
    if failed is not None:
        return failed
    player_id = signed[0] if signed else None
    if player_id is None:
        return _error(404, "bad_code", "that code is wrong, spent or expired")
    await s.right_guess(request, TRANSFER_CODES)
    row = await s.read(lambda db: accounts.player_row(db, player_id))
    assert row is not None
    return signed_in_response(request, {"id": row["id"], "name": row["name"]}, key)


def _rules_json(preset: str | None, game: str | None = None) -> dict[str, Any] | None:
    """A match's preset as its id and name, from its game's schema (docs/protocol.md §7.3)."""
    if preset is None:
        return None
    try:
        variant = get_game(game or DEFAULT_GAME).schema.variant(preset)
    except Exception:  # a game or a preset this server no longer has
        return {"id": preset, "name": preset}
    return {"id": variant.id, "name": variant.names.zh}


def _cursor(text: str | None) -> tuple[float, str, int] | JSONResponse | None:
    """``?before=CURSOR`` (the ``next`` of a page: ``TIME~ROOM~MATCH``), every number in it
    bounded (a finite time, a match number below 2**31), or the 400 quoting it."""
    if not text:
        return None
    parts = text.split("~")
    try:
        if len(parts) != 3 or len(text) > 120 or len(parts[2]) > 10:
            raise ValueError
        when, match = float(parts[0]), int(parts[2])
        if not (math.isfinite(when) and 0 <= when < 1e12 and 0 <= match < 2**31):
            raise ValueError
        return when, parts[1], match
    except ValueError:
        return _error(400, "bad_request", f"not a cursor: {quoted(text, 60)}")


def _matches_json(
    found: tuple[list[dict[str, Any]], tuple[float, str, int] | None],
) -> dict[str, Any]:
    rows, cursor = found
    for row in rows:
        game = row.get("game") or DEFAULT_GAME
        row["variant"] = contest_json(game, row["rules"], row.pop("persons"))
        row["rules"] = _rules_json(row["rules"], game)
    nxt = None if cursor is None else f"{cursor[0]!r}~{cursor[1]}~{cursor[2]}"
    return {"v": PROTOCOL_VERSION, "matches": rows, "next": nxt}


def _page(request: Request) -> tuple[int, tuple[float, str, int] | None] | JSONResponse:
    text = request.query_params.get("limit", "20")
    if not text.isdecimal() or len(text) > 3 or not 1 <= int(text) <= MAX_PAGE:
        return _error(400, "bad_request", f"limit must be 1..{MAX_PAGE}, not {quoted(text)}")
    cursor = _cursor(request.query_params.get("before"))
    if isinstance(cursor, JSONResponse):
        return cursor
    return int(text), cursor


@with_player
async def my_matches(request: Request, s: Server, player: Player) -> Response:
    """``GET /api/me/matches?game=ID&variant=ID``: 战绩, newest first, paged; every game's
    (every variant's) by default."""
    page = _page(request)
    if isinstance(page, JSONResponse):
        return page
    game = game_param(request, None)
    if isinstance(game, JSONResponse):
        return game
    contest = variant_param(request, game or DEFAULT_GAME)
    if isinstance(contest, JSONResponse):
        return contest
    if contest is not None and game is None:  # a variant is of one game (偎麻雀 by default)
        game = DEFAULT_GAME
    limit, before = page
    found = await s.read_booked(
        lambda db: accounts.matches(
            db, player.id, limit=limit, before=before, game=game, contest=contest
        )
    )
    return JSONResponse(_matches_json(found))


@with_player
async def my_stats(request: Request, s: Server, player: Player) -> Response:
    """``GET /api/me/stats?days=N&game=ID&variant=ID``: the player's totals of one game (偎麻雀
    by default) over the period, of one variant when asked (every variant by default), and
    ``by_variant``: the totals of each variant of the game they played (docs/protocol.md §7.3)."""
    days = days_param(request, None)
    if isinstance(days, JSONResponse):
        return days
    game = game_param(request, accounts.DEFAULT_GAME)
    if isinstance(game, JSONResponse):
        return game
    assert game is not None
    contest = variant_param(request, game)
    if isinstance(contest, JSONResponse):
        return contest
    start = since(days)
    totals = await s.read_booked(lambda db: accounts.stats(db, player.id, start, game, contest))
    each = await s.read(lambda db: accounts.stats_by_variant(db, player.id, start, game))
    by_variant = [{"variant": contest_json(game, v, n), **figures} for v, n, figures in each]
    asked = asked_json(game, contest)
    return JSONResponse(
        {
            "v": PROTOCOL_VERSION,
            "days": days,
            "game": game,
            "variant": asked,
            **totals,
            "by_variant": by_variant,
        }
    )


@with_player
async def player_matches(request: Request, s: Server, player: Player) -> Response:
    """``GET /api/players/{id}/matches?game=ID&variant=ID``: another's 战绩 at the clubs both
    belong to (every game's, every variant's, by default)."""
    other = str(request.path_params["player_id"])[:64]
    clubs = await s.read(lambda db: accounts.share_club(db, player.id, other))
    if not clubs and other != player.id:
        return _error(404, "not_found", f"no player {quoted(other)} you share a club with")
    page = _page(request)
    if isinstance(page, JSONResponse):
        return page
    game = game_param(request, None)
    if isinstance(game, JSONResponse):
        return game
    contest = variant_param(request, game or DEFAULT_GAME)
    if isinstance(contest, JSONResponse):
        return contest
    if contest is not None and game is None:
        game = DEFAULT_GAME
    limit, before = page
    only = None if other == player.id else clubs
    found = await s.read_booked(
        lambda db: accounts.matches(
            db, other, limit=limit, before=before, clubs=only, game=game, contest=contest
        )
    )
    return JSONResponse(_matches_json(found))


async def _coded(
    request: Request,
) -> tuple[Server, str, str, int, int, dict[str, Any]] | JSONResponse:
    """The hand of the path's 回放码: (server, code, room id, number, match, record)."""
    s = server_of(request)
    refused = await s.guessed(request)
    if refused is not None:
        return refused
    text = str(request.path_params["code"])
    code = accounts.normal_code(text)
    found = None
    if code is not None:
        found = await s.read(lambda db: accounts.replay_of(db, accounts.digest(code)))
    if found is None:
        return _error(404, "bad_code", f"no replay {quoted(text, 40)}")
    await s.right_guess(request)
    room_id, number, match, record = found
    assert code is not None
    return s, code, room_id, number, match, record


async def replay(request: Request) -> Response:
    """``GET /api/replays/{code}``: the replay of the hand of a 回放码, with who sat where and
    nothing of the room's other hands (not even the room's id)."""
    found = await _coded(request)
    if isinstance(found, JSONResponse):
        return found
    s, code, room_id, number, match, record = found
    steps = await asyncio.to_thread(replay_steps, record)
    seats, in_match = await s.read(lambda db: accounts.hand_seats(db, room_id, number))
    return JSONResponse(
        {
            "v": PROTOCOL_VERSION,
            "code": code,
            "number": in_match,
            "match": match,
            "seats": seats,
            "record": record,
            "steps": steps,
        }
    )


async def replay_review(request: Request) -> Response:
    """``GET /api/replays/{code}/review?seat=N``: 复盘 of one seat of a 回放码's hand."""
    found = await _coded(request)
    if isinstance(found, JSONResponse):
        return found
    s, code, room_id, number, _, record = found
    body = await review_of(s, request, room_id, number, record)
    if isinstance(body, JSONResponse):
        return body
    for d in body["decisions"]:
        d.pop("hand", None)
    return JSONResponse({"v": PROTOCOL_VERSION, "code": code, **body})


__all__ = [
    "COOKIE",
    "create_player",
    "list_devices",
    "me",
    "my_matches",
    "my_stats",
    "player_matches",
    "redeem_transfer",
    "remove_device",
    "rename",
    "replay",
    "replay_review",
    "sign_out",
    "sign_out_everywhere",
    "signed_in",
    "start_transfer",
    "with_player",
]
