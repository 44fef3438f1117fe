"""The HTTP API of a server (docs/protocol.md §1): rooms, seats, hands, records, 复盘, 算息.

Each endpoint is a function of the request alone, reading its server's shared parts with
:func:`~weimaque.server.edge.context.server_of`; :mod:`.app` routes to them.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import dataclasses
import secrets
from collections.abc import Callable
from typing import Any, Final

import orjson
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from weimaque.errors import WeimaqueError
from weimaque.games import (
    BadRequest,
    PresetList,
    Reviewing,
    TableExtras,
    Tidier,
    UnknownGame,
    get_game,
)
from weimaque.games.registry import list_games
from weimaque.server.base.limits import BodyError, client_address, read_json
from weimaque.server.cluster.leases import ClusterUnavailable
from weimaque.server.edge.context import Server, server_of
from weimaque.server.edge.context import error_response as _error
from weimaque.server.edge.fairqueue import Refused
from weimaque.server.edge.scoreapi import ScoreError, score_request
from weimaque.server.store import accounts
from weimaque.server.store.accounts import NUMBER_DIGITS, Player
from weimaque.server.store.persist import written
from weimaque.server.store.store import StoreUnavailable
from weimaque.server.table.options import (
    DEFAULT_GAME,
    DEFAULT_NEXT_SECONDS,
    DEFAULT_TURN_SECONDS,
    DEFAULT_VOTE_SECONDS,
    ROOM_OPTIONS,
    RoomError,
    RoomOptions,
    autoplay_bot_name,
    game_id,
    quoted,
)
from weimaque.server.table.rooms import Room
from weimaque.server.table.seats import hash_token
from weimaque.server.table.table import Setup
from weimaque.server.table.views import replay_steps
from weimaque.server.wire.common import PROTOCOL_VERSION, SeatId
from weimaque.server.wire.protocol import clean_text, is_token

MAX_SEED: Final = 2**63 - 1
#: Numbers tried for a new room before it is left without one.
NUMBER_TRIES: Final = 8
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
    # A game's bots have bounds a server keeps (``TableExtras.check_bot``, docs/protocol.md §1);
    # a game without them checks its bots (``Game.bot``) when the room is set up.
    game = get_game(game_id(raw.get("game", DEFAULT_GAME))) if isinstance(bots, dict) else None
    if isinstance(bots, dict) and isinstance(game, TableExtras):
        for seat, spec in bots.items():
            try:
                game.check_bot(spec)
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


async def _answer(request: Request, answer: Callable[[Any], dict[str, Any]]) -> Response:
    """A stateless request: its JSON body answered by ``answer``, whose ScoreError is a 400."""
    s = server_of(request)
    try:
        raw = await read_json(request.stream(), request.headers, s.limits.max_body) or {}
    except BodyError as exc:
        return _error(exc.status, exc.code, exc.message)
    try:
        result = answer(raw)
    except ScoreError as exc:
        return _error(400, exc.code, str(exc))
    return JSONResponse({"v": PROTOCOL_VERSION, **result})


async def score_api(request: Request) -> Response:
    """A hand scored (docs/protocol.md ``POST /api/score``)."""
    return await _answer(request, score_request)


def tidy_request(raw: Any) -> dict[str, Any]:
    """理牌 by the game the request names (default 偎麻雀) through its ``"tidy"`` capability
    (``Tidier``); ``ScoreError`` with the game's code for what it cannot read."""
    request = dict(raw) if isinstance(raw, dict) else raw
    name = request.pop("game", DEFAULT_GAME) if isinstance(request, dict) else DEFAULT_GAME
    try:
        game = get_game(name) if isinstance(name, str) else None
    except UnknownGame:
        game = None
    if not isinstance(game, Tidier):
        raise ScoreError("bad_game", f"no game {quoted(name)} with 理牌")
    try:
        return game.tidy(request)
    except BadRequest as exc:
        raise ScoreError(exc.code, str(exc)) from exc


async def tidy_api(request: Request) -> Response:
    """理牌's grouping of a hand (docs/protocol.md ``POST /api/tidy``)."""
    return await _answer(request, tidy_request)


async def health(request: Request) -> Response:
    """What works: the store and, in a cluster, Redis (docs/scale.md); 503 when either fails."""
    s = server_of(request)
    failing = s.store.failing
    body: dict[str, Any] = {
        "ok": failing is None,
        "v": PROTOCOL_VERSION,
        "rooms_in_memory": len(s.manager.rooms),
        "store": "ok" if failing is None else "failing",
        "writes_waiting": s.store.pending(),
    }
    if failing is not None:
        body["reason"] = failing
    if s.cluster is not None:
        cut_off = await s.cluster.ping()
        body["cluster"] = {
            "node": s.cluster.config.node_url,
            "redis": "ok" if cut_off is None else "failing",
            "leases": len(s.cluster.until),
        }
        if cut_off is not None:
            body["ok"] = False
            body["cluster"]["reason"] = cut_off
    return JSONResponse(body, status_code=200 if body["ok"] else 503)


async def live(request: Request) -> Response:
    """200 while the process serves, whatever its store does: a load balancer's health check
    (a table whose store fails waits with its sockets open; docs/scale.md)."""
    return JSONResponse({"v": PROTOCOL_VERSION, "live": True})


async def presets(request: Request) -> Response:
    # The default game's presets as its own rule form reads them (``PresetList``); the page
    # labels 名堂 checkboxes and a room's enabled/disabled 名堂 with its names.
    game = get_game(DEFAULT_GAME)
    listed = game.presets(ROOM_OPTIONS) if isinstance(game, PresetList) else {}
    return JSONResponse(
        {
            "v": PROTOCOL_VERSION,
            **listed,
            "turn_seconds": DEFAULT_TURN_SECONDS,
            "next_seconds": DEFAULT_NEXT_SECONDS,
            "vote_seconds": DEFAULT_VOTE_SECONDS,
        }
    )


async def games(request: Request) -> Response:
    """Every game this server hosts, with its rule options, presets and bots (docs/protocol.md
    §1): what a page renders its game choice and rule forms from."""
    return JSONResponse(
        {
            "v": PROTOCOL_VERSION,
            "default": DEFAULT_GAME,
            "games": [
                {
                    "info": g.info.to_json(),
                    "schema": g.schema.to_json(),
                    "bots": [b.to_json() for b in g.bots],
                }
                for g in list_games()
            ],
        }
    )


async def create_room(request: Request) -> Response:
    s = server_of(request)
    try:
        raw = await read_json(request.stream(), request.headers, s.limits.max_body)
    except BodyError as exc:
        return _error(exc.status, exc.code, exc.message)
    return await open_room(s, request, raw)


async def open_room(s: Server, request: Request, raw: Any, club: str | None = None) -> Response:
    """Create a room from the body ``raw`` of ``POST /api/rooms`` (a table of ``club``)."""
    address = client_address(request.scope)
    failing = s.store_failing()
    if failing is not None:
        return failing
    refused = await s.room_budget.over(address, "new rooms")
    if refused is not None:
        return refused
    try:
        check_room_body(raw)
        opts = RoomOptions.from_json(raw)
        if club is not None:
            opts = dataclasses.replace(opts, club=club)
        seats = Setup.of(opts, bots=False).shape.seats  # its bots are made once, by the room
    except RoomError as exc:
        return _error(400, exc.code, str(exc))
    bots_only = len(opts.bots) == seats
    refused = await s.too_many_rooms(address, bots_only=bots_only)
    if refused is not None:
        return refused
    try:
        room = await s.manager.open(opts)
    except RoomError as exc:
        return _error(400, exc.code, str(exc))
    except ClusterUnavailable as exc:
        return _error(503, "storage_unavailable", f"no room can be placed now: {exc}")
    await s.made_room(address, room, bots_only=bots_only)
    if len(s.created_by) > MAX_ADDRESSES:  # forget the addresses with no room in play
        for other in list(s.created_by):
            s.live_rooms(other)
    keys = s.manager.issue_keys(room)
    await give_number(s, room)
    # Answered once the room is in the store: a room id given out is never lost.
    try:
        await asyncio.wait_for(written(s.store.barrier()), CREATE_WAIT_SECONDS)
    except TimeoutError:
        return _error(503, "storage_unavailable", f"the store cannot write: {s.store.failing}")
    await s.manager.hand_off(room)
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


async def give_number(s: Server, room: Room) -> None:
    """Give a new room a six-digit number that no room in play has (docs/protocol.md §1);
    a room left without one (the store refused every try) is joined by its link alone."""
    for _ in range(NUMBER_TRIES):
        if s.store.failing is not None:
            return
        number = str(secrets.randbelow(9 * 10 ** (NUMBER_DIGITS - 1)) + 10 ** (NUMBER_DIGITS - 1))
        given: list[bool] = []

        def give(db: Any, number: str = number, given: list[bool] = given) -> None:
            given.append(accounts.give_number(db, number, room.id))

        try:
            await written(s.store.write(give))
        except StoreUnavailable:
            continue  # another process gave it at the same moment, or the store failed
        if given and given[0]:
            room.table.number = number
            return


async def room_by_number(request: Request) -> Response:
    """``GET /api/numbers/{number}``: the room a six-digit number names, to join it. A wrong
    number is a guess (docs/protocol.md §7.6): an address has a budget of them."""
    s = server_of(request)
    text = str(request.path_params["number"])
    refused = await s.guessed(request)
    if refused is not None:
        return refused
    found = None
    if len(text) == NUMBER_DIGITS and text.isascii() and text.isdigit():
        found = await s.read(lambda db: accounts.room_of_number(db, text))
    if found is not None:
        room_id, club = found
        if club is not None:  # a club's table is no room to anyone but its members
            player = await s.player_of(request)
            role = None
            if isinstance(player, Player):
                pid = player.id
                role = await s.read(lambda db: accounts.role_of(db, club, pid))
            if role is None or role == "pending":
                found = None
    if found is None:
        return _error(404, "room_not_found", f"no room in play has the number {quoted(text, 20)}")
    await s.right_guess(request)
    room_id = found[0]
    return JSONResponse(
        {"v": PROTOCOL_VERSION, "room_id": room_id, "number": text, "url": f"/r/{room_id}"}
    )


async def creator_request(
    s: Server, request: Request, fields: frozenset[str]
) -> tuple[Room, dict[str, Any]] | JSONResponse:
    """The room and the body of a creator's request: JSON, bounded, with its token."""
    room = await s.room_or_404(request)
    if isinstance(room, JSONResponse):
        return room
    try:
        raw = await read_json(request.stream(), request.headers, s.limits.max_body)
    except BodyError as exc:
        return _error(exc.status, exc.code, exc.message)
    if not isinstance(raw, dict):
        return _error(400, "bad_request", f"the body must be a JSON object, not {quoted(raw)}")
    unknown = sorted(quoted(k, 30) for k in set(raw) - fields)
    if unknown:
        return _error(400, "bad_request", f"unknown fields {', '.join(unknown[:5])}")
    refused = room.recorder.refused()
    if refused is not None:  # its lease is not trusted: nothing is changed (docs/scale.md)
        message = f"this server may not change the room now ({refused}); try again"
        return _error(503, "storage_unavailable", message)
    token = raw.get("creator_token")
    if (
        room.creator is None
        or not is_token(token)
        or not secrets.compare_digest(hash_token(str(token)), room.creator)
    ):
        return _error(403, "forbidden", "only the room's creator (creator_token) may do this")
    return room, raw


def seat_param(request: Request, shouxing: bool, seats: int = 3) -> SeatId | JSONResponse:
    """The seat a path names: ``0`` … ``seats - 1``, or (``shouxing``) the 守醒's."""
    text = str(request.path_params["seat"])
    if text == "shouxing" and shouxing:
        return "shouxing"
    if text in [str(k) for k in range(seats)]:
        return int(text)
    names = [str(k) for k in range(seats)]
    known = ", ".join(names) + " and shouxing" if shouxing else ", ".join(names[:-1])
    if not shouxing:
        known += f" and {names[-1]}"
    return _error(400, "bad_seat", f"seats are {known}, not {quoted(text)}")


async def free_seat(request: Request) -> Response:
    s = server_of(request)
    found = await creator_request(s, request, frozenset({"creator_token"}))
    if isinstance(found, JSONResponse):
        return found
    room, _ = found
    seat = seat_param(request, shouxing=True, seats=len(room.seats))
    if isinstance(seat, JSONResponse):
        return seat
    if room.table.hand is not None:
        # Whoever sat in a seat freed mid-hand would read the hand its player held.
        return _error(409, "hand_in_progress", "a seat is freed only between hands")
    if not room.free_seat(seat):
        return _error(409, "bad_seat", f"seat {seat} is not held by a person")
    return JSONResponse({"v": PROTOCOL_VERSION, "room": room.info()})


async def seat_bot(request: Request) -> Response:
    s = server_of(request)
    found = await creator_request(s, request, frozenset({"creator_token", "bot"}))
    if isinstance(found, JSONResponse):
        return found
    room, raw = found
    seat = seat_param(request, shouxing=False, seats=len(room.seats))
    if isinstance(seat, JSONResponse):
        return seat
    assert isinstance(seat, int)
    spec = raw.get("bot", autoplay_bot_name(room.table.game.info.id))
    if not isinstance(spec, str):
        return _error(400, "bad_bots", f"bot must be a bot kind, not {quoted(spec)}")
    try:
        game = room.table.game
        if isinstance(game, TableExtras):
            game.check_bot(spec)  # the bounds a server keeps (docs/protocol.md §1)
        room.bot(spec)
    except WeimaqueError as exc:
        return _error(400, "bad_bots", f"bot {quoted(spec)}: {clean_text(str(exc), 300)}")
    if room.seats[seat].kind == "bot":
        return _error(409, "bad_seat", f"seat {seat} is played by a bot already")
    if room.seating.present(seat):
        return _error(
            409,
            "seat_connected",
            f"seat {seat}'s player is connected: only a gone player's "
            "seat (or an empty one) is given to a bot",
        )
    if sum(s.kind == "bot" for s in room.seats) == 2:  # it becomes a room of bots only
        address = client_address(request.scope)
        refused = await s.too_many_rooms(address, bots_only=True)
        if refused is not None:
            return refused
        await s.made_room(address, room, bots_only=True)
    room.give_to_bot(seat, spec)
    return JSONResponse({"v": PROTOCOL_VERSION, "room": room.info()})


async def list_rooms(request: Request) -> Response:
    # Public rooms, and the rooms whose ids the asker names (its own, from its browser).
    s = server_of(request)
    asked = {i for i in request.query_params.get("ids", "").split(",")[:50] if i}
    listed: dict[str, tuple[float, dict[str, Any]]] = {
        r.id: (r.table.created, r.info())
        for r in s.manager.rooms.values()
        if r.status != "over" and r.opts.club is None and (r.opts.public or r.id in asked)
    }
    if s.cluster is not None:
        # The other processes' rooms, as their owners last wrote them (docs/scale.md).
        with contextlib.suppress(ClusterUnavailable):
            for room_id, text in (await s.cluster.lobby()).items():
                entry = orjson.loads(text)
                if room_id not in listed and (entry["public"] or room_id in asked):
                    listed[room_id] = (float(entry["created"]), entry["info"])
    rooms = sorted(listed.values(), key=lambda found: -found[0])
    return JSONResponse({"v": PROTOCOL_VERSION, "rooms": [info for _, info in rooms[:50]]})


async def room_info(request: Request) -> Response:
    s = server_of(request)
    room = await s.room_or_404(request)
    if isinstance(room, JSONResponse):
        return room
    return JSONResponse({"v": PROTOCOL_VERSION, "room": room.info()})


async def hands(request: Request) -> Response:
    s = server_of(request)
    room = await s.room_or_404(request)
    if isinstance(room, JSONResponse):
        return room
    return JSONResponse(
        {
            "v": PROTOCOL_VERSION,
            "room_id": room.id,
            "match_number": room.table.match_number,
            "hands": room.table.all_summaries(),
            "ledger": room.table.ledger(),
        }
    )


async def match_record(request: Request) -> Response:
    s = server_of(request)
    room = await s.room_or_404(request)
    if isinstance(room, JSONResponse):
        return room
    # The finished hands only (each with its revealed commitment): what ``wmq verify`` reads.
    # Each hand's own seed is shown once the hand is over, the match seed once the match is
    # (docs/fairness.md): ``wmq verify`` then checks that every deal follows from it.
    record = room.table.match_record()
    if room.table.is_over():
        record["seed_text"] = str(record["seed"])
    else:
        record.pop("seed", None)
    record["room_id"] = room.id
    record["match_number"] = room.table.match_number
    record["first_hand"] = room.table.first_hand
    return JSONResponse(record)


async def finished(
    s: Server, request: Request
) -> tuple[Room, int, int, dict[str, Any]] | JSONResponse:
    room = await s.room_or_404(request)
    if isinstance(room, JSONResponse):
        return room
    text = str(request.path_params["number"])
    if not text.isdecimal() or len(text) > 12:
        return _error(404, "hand_not_found", f"hand numbers are integers, not {quoted(text)}")
    number = int(text)
    found = room.hand_record(number)
    if found is None:
        if number == room.hand_number and room.table.hand is not None:
            return _error(404, "hand_not_finished", f"hand {number} is still being played")
        return _error(404, "hand_not_found", f"no finished hand {number}")
    match, record = found
    return room, number, match, record


async def hand(request: Request) -> Response:
    s = server_of(request)
    found = await finished(s, request)
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
    s = server_of(request)
    found = await finished(s, request)
    if isinstance(found, JSONResponse):
        return found
    room, number, _, record = found
    steps = await asyncio.to_thread(replay_steps, record, room.table.game)
    return JSONResponse(
        {"v": PROTOCOL_VERSION, "room_id": room.id, "number": number, "steps": steps}
    )


async def hand_review(request: Request) -> Response:
    """复盘 of one seat of a finished hand, by the game's ``"review"`` capability (its search
    bot, ``Reviewing``), computed once and kept."""
    s = server_of(request)
    found = await finished(s, request)
    if isinstance(found, JSONResponse):
        return found
    room, number, _, record = found
    if "review" not in room.table.game.info.capabilities:
        game = room.table.game.info.id
        return _error(404, "no_review", f"game {quoted(game)} offers no 复盘")
    body = await review_of(s, request, room.id, number, record)
    if isinstance(body, JSONResponse):
        return body
    return JSONResponse({"v": PROTOCOL_VERSION, "room_id": room.id, "number": number, **body})


async def review_of(
    s: Server, request: Request, room_id: str, number: int, record: dict[str, Any]
) -> dict[str, Any] | JSONResponse:
    """复盘 of the seat ``?seat=N`` of hand ``number`` of a room (its ``record``): the body's
    review fields, or the error to answer."""
    named = record.get("game")
    game = get_game(named if isinstance(named, str) else DEFAULT_GAME)
    if "review" not in game.info.capabilities or not isinstance(game, Reviewing):
        return _error(404, "no_review", f"game {quoted(game.info.id)} offers no 复盘")
    seat_text = request.query_params.get("seat")
    if seat_text not in ("0", "1", "2"):
        return _error(400, "bad_seat", f"seat must be 0, 1 or 2, not {quoted(seat_text)}")
    seat = int(seat_text)
    key = (room_id, number, seat)
    try:
        result = await s.reviews.get(key, record, client_address(request.scope))
    except Refused as exc:
        response = _error(429, "busy", exc.message)
        response.headers["retry-after"] = str(exc.retry_after)
        return response
    except Exception as exc:  # the review process failed (logged by the queue)
        message = f"the review could not be computed ({type(exc).__name__}); try again"
        return _error(503, "review_failed", message)
    body: dict[str, Any] = copy.deepcopy(result)
    for d in body["decisions"]:
        d["hand"] = number
    return body


__all__ = [
    "check_room_body",
    "create_room",
    "free_seat",
    "games",
    "hand",
    "hand_replay",
    "hand_review",
    "hands",
    "health",
    "list_rooms",
    "match_record",
    "open_room",
    "presets",
    "review_of",
    "room_by_number",
    "room_info",
    "score_api",
    "seat_bot",
    "tidy_api",
]
