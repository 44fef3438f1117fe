"""The HTTP API of 亲友圈 (docs/protocol.md §7.5): clubs, invitations, members, tables and
leaderboards. To anyone who is not a member, a club does not exist (404, §7.6).
"""

from __future__ import annotations

import time
from typing import Any, Final, Literal

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from weimaque.errors import WeimaqueError
from weimaque.server.base.limits import client_address
from weimaque.server.edge.api import check_room_body, open_room
from weimaque.server.edge.context import Server, server_of
from weimaque.server.edge.context import error_response as _error
from weimaque.server.players.playerapi import (
    body,
    checked_name,
    days_param,
    game_param,
    signed_in,
    since,
    with_player,
    write,
)
from weimaque.server.players.variants import asked_json, contest_json, variant_param
from weimaque.server.store import accounts
from weimaque.server.store.accounts import ADMINS, Player, Role
from weimaque.server.table.options import RoomError, RoomOptions, quoted
from weimaque.server.table.table import Setup
from weimaque.server.wire.common import PROTOCOL_VERSION

#: Invitations last 1..MAX_INVITE_HOURS hours (DEFAULT_INVITE_HOURS when not said).
DEFAULT_INVITE_HOURS: Final = 24
MAX_INVITE_HOURS: Final = 168
#: The leaderboard's period when ``days`` is not given.
DEFAULT_BOARD_DAYS: Final = 30
#: Clubs one player may own.
MAX_OWNED: Final = 20


def _no_club(club_id: str) -> JSONResponse:
    return _error(404, "club_not_found", f"no club {quoted(club_id, 40)}")


async def _member(
    request: Request, *, admin: bool = False, pending: bool = False
) -> tuple[Server, Player, dict[str, Any], Role] | JSONResponse:
    """The signed-in player, the club of the path and the player's role there; 404 for a
    non-member (and for a member waiting for approval, unless ``pending``); 403 for a member
    where an admin is needed."""
    s = server_of(request)
    player = await signed_in(request)
    if isinstance(player, JSONResponse):
        return player
    club_id = str(request.path_params["club_id"])[:64]
    role = await s.read(lambda db: accounts.role_of(db, club_id, player.id))
    club = None if role is None else await s.read(lambda db: accounts.club_row(db, club_id))
    if club is None or role is None or (role == "pending" and not pending):
        return _no_club(club_id)
    if admin and role not in ADMINS:
        return _error(403, "forbidden", "only the club's owner and admins may do this")
    return s, player, club, role


def _rules_error(rules: Any) -> str | None:
    """Why ``rules`` cannot be a club's default body of ``POST /api/rooms`` (None: it can)."""
    try:
        check_room_body(rules)  # 偎麻雀's bots within the server's bounds
        Setup.of(RoomOptions.from_json(rules))  # the game, its preset, options and bots
    except (RoomError, WeimaqueError) as exc:
        return str(exc)
    return None


async def _club_json(s: Server, club: dict[str, Any], role: Role) -> dict[str, Any]:
    club_id = club["id"]
    everyone = await s.read(lambda db: accounts.members(db, club_id))
    members: list[dict[str, Any]] = []
    pending: list[dict[str, Any]] = []
    online = await s.online_among([m["player"]["id"] for m in everyone])
    for m in everyone:
        m["online"] = m["player"]["id"] in online
        (pending if m["role"] == "pending" else members).append(m)
    ids = await s.read(lambda db: accounts.open_rooms(db, club=club_id))
    open_ = await s.rooms_named(
        ids, lambda r: r.table.opts.club == club_id and r.table.status != "over"
    )
    tables = [r.info() for r in open_]
    out = {
        "id": club_id,
        "name": club["name"],
        "approval": club["approval"],
        "rules": club["rules"],
        "role": role,
        "members": members,
        "tables": tables,
    }
    if role in ADMINS:
        out["pending"] = pending
    return out


@with_player
async def create_club(request: Request, s: Server, player: Player) -> Response:
    """``POST /api/clubs``: a new club, owned by the player."""
    raw = await body(request, frozenset({"name", "approval", "rules"}), frozenset({"name"}))
    if isinstance(raw, JSONResponse):
        return raw
    name = checked_name(raw["name"], "a club's name")
    if isinstance(name, JSONResponse):
        return name
    approval = raw.get("approval", False)
    if not isinstance(approval, bool):
        return _error(400, "bad_request", f"approval must be a boolean, not {quoted(approval)}")
    rules = raw.get("rules", {})
    problem = _rules_error(rules)
    if problem is not None:
        return _error(400, "bad_options", f"rules: {problem}")
    owned = await s.read(lambda db: accounts.clubs_of(db, player.id))
    if sum(c["role"] == "owner" for c in owned) >= MAX_OWNED:
        return _error(429, "rate_limited", f"a player owns at most {MAX_OWNED} clubs")
    club_id = accounts.new_id()
    failed = await write(
        s, lambda db: accounts.create_club(db, club_id, name, player.id, approval, rules)
    )
    if failed is not None:
        return failed
    club = await s.read(lambda db: accounts.club_row(db, club_id))
    assert club is not None
    return JSONResponse(
        {"v": PROTOCOL_VERSION, "club": await _club_json(s, club, "owner")}, status_code=201
    )


async def club(request: Request) -> Response:
    """``GET /api/clubs/{id}``: the club, as its member sees it."""
    found = await _member(request, pending=True)
    if isinstance(found, JSONResponse):
        return found
    s, _, club_row, role = found
    if role == "pending":  # waiting: the club's name, nothing of its members or tables
        info = {"id": club_row["id"], "name": club_row["name"], "role": role}
        return JSONResponse({"v": PROTOCOL_VERSION, "club": info})
    return JSONResponse({"v": PROTOCOL_VERSION, "club": await _club_json(s, club_row, role)})


async def update_club(request: Request) -> Response:
    """``PATCH /api/clubs/{id}``: the club's name, approval or default rules (an admin)."""
    found = await _member(request, admin=True)
    if isinstance(found, JSONResponse):
        return found
    s, _, club_row, role = found
    raw = await body(request, frozenset({"name", "approval", "rules"}))
    if isinstance(raw, JSONResponse):
        return raw
    fields: dict[str, Any] = {}
    if "name" in raw:
        name = checked_name(raw["name"], "a club's name")
        if isinstance(name, JSONResponse):
            return name
        fields["name"] = name
    if "approval" in raw:
        if not isinstance(raw["approval"], bool):
            return _error(
                400, "bad_request", f"approval must be a boolean: {quoted(raw['approval'])}"
            )
        fields["approval"] = raw["approval"]
    if "rules" in raw:
        problem = _rules_error(raw["rules"])
        if problem is not None:
            return _error(400, "bad_options", f"rules: {problem}")
        fields["rules"] = raw["rules"] or {}
    club_id = club_row["id"]
    failed = await write(s, lambda db: accounts.update_club(db, club_id, fields))
    if failed is not None:
        return failed
    changed = await s.read(lambda db: accounts.club_row(db, club_id))
    assert changed is not None
    return JSONResponse({"v": PROTOCOL_VERSION, "club": await _club_json(s, changed, role)})


def _bounded(raw: dict[str, Any], name: str, default: int, top: int) -> int | JSONResponse:
    """An integer field of 1..``top`` (``default`` when absent), or the 400 quoting it."""
    value = raw.get(name, default)
    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= top:
        return _error(400, "bad_request", f"{name} must be 1..{top}, not {quoted(value)}")
    return value


async def invite(request: Request) -> Response:
    """``POST /api/clubs/{id}/invites {"hours"?, "uses"?}``: an invitation code (an admin),
    good for ``uses`` joins (1 by default) until it expires; at most
    ``accounts.MAX_LIVE_INVITES`` good ones per club."""
    found = await _member(request, admin=True)
    if isinstance(found, JSONResponse):
        return found
    s, player, club_row, _ = found
    raw = await body(request, frozenset({"hours", "uses"}))
    if isinstance(raw, JSONResponse):
        return raw
    hours = _bounded(raw, "hours", DEFAULT_INVITE_HOURS, MAX_INVITE_HOURS)
    if isinstance(hours, JSONResponse):
        return hours
    uses = _bounded(raw, "uses", 1, accounts.MAX_INVITE_USES)
    if isinstance(uses, JSONResponse):
        return uses
    refused = await s.invite_budget.over(client_address(request.scope), "new invitations")
    if refused is not None:
        return refused
    code = accounts.new_code()
    made = accounts.Invite(
        id=accounts.new_id(),
        hash=accounts.digest(code),
        club_id=club_row["id"],
        by=player.id,
        expires=time.time() + hours * 3600,
        max_uses=uses,
    )
    stored: list[bool] = []
    failed = await write(s, lambda db: stored.append(accounts.add_invite(db, made)))
    if failed is not None:
        return failed
    if not stored or not stored[0]:
        return _error(
            429,
            "too_many_invites",
            f"a club has at most {accounts.MAX_LIVE_INVITES} invitations at once: "
            "revoke one or wait for one to expire",
        )
    return JSONResponse(
        {
            "v": PROTOCOL_VERSION,
            "id": made.id,
            "code": code,
            "url": f"/c/{code}",
            "expires": made.expires,
            "uses": uses,
        },
        status_code=201,
    )


async def list_invites(request: Request) -> Response:
    """``GET /api/clubs/{id}/invites``: the club's good invitations (an admin), without codes."""
    found = await _member(request, admin=True)
    if isinstance(found, JSONResponse):
        return found
    s, _, club_row, _ = found
    club_id = club_row["id"]
    rows = await s.read(lambda db: accounts.invites(db, club_id))
    return JSONResponse({"v": PROTOCOL_VERSION, "invites": rows})


async def revoke_invite(request: Request) -> Response:
    """``DELETE /api/clubs/{id}/invites/{invite_id}``: the invitation stops working (an
    admin)."""
    found = await _member(request, admin=True)
    if isinstance(found, JSONResponse):
        return found
    s, _, club_row, _ = found
    club_id = club_row["id"]
    invite_id = str(request.path_params["invite_id"])[:64]
    done: list[int] = []
    failed = await write(s, lambda db: done.append(accounts.revoke_invite(db, club_id, invite_id)))
    if failed is not None:
        return failed
    if not done or not done[0]:
        return _error(404, "not_found", f"no invitation {quoted(invite_id)} in this club")
    return JSONResponse({"v": PROTOCOL_VERSION, "revoked": invite_id})


@with_player
async def join(request: Request, s: Server, player: Player) -> Response:
    """``POST /api/clubs/join``: join the club of an invitation (or wait for approval)."""
    raw = await body(request, frozenset({"code"}), frozenset({"code"}))
    if isinstance(raw, JSONResponse):
        return raw
    refused = await s.guessed(request)
    if refused is not None:
        return refused
    code = accounts.normal_code(raw["code"])
    if code is None:
        return _error(404, "bad_code", f"not an invitation: {quoted(raw['code'], 40)}")
    joined: list[tuple[str, Role] | Literal["removed"] | None] = []
    digest = accounts.digest(code)
    failed = await write(
        s, lambda db: joined.append(accounts.join_by_invite(db, digest, player.id))
    )
    if failed is not None:
        return failed
    result = joined[0] if joined else None
    if result is None:
        return _error(404, "bad_code", "that invitation is wrong, spent, revoked or has expired")
    await s.right_guess(request)
    if result == "removed":
        return _error(
            403,
            "removed",
            "you were removed from this club: only a new invitation from an admin lets you back in",
        )
    club_id, role = result
    club_row = await s.read(lambda db: accounts.club_row(db, club_id))
    assert club_row is not None
    info: dict[str, Any]
    if role == "pending":
        info = {"id": club_id, "name": club_row["name"], "role": role}
    else:
        info = await _club_json(s, club_row, role)
    return JSONResponse({"v": PROTOCOL_VERSION, "club": info, "role": role})


ACTIONS: Final = ("approve", "remove", "admin", "member")


async def member(request: Request) -> Response:
    """``POST /api/clubs/{id}/members/{player_id}``: approve or remove (an admin), make an
    admin or a member again (the owner)."""
    found = await _member(request, admin=True)
    if isinstance(found, JSONResponse):
        return found
    s, player, club_row, role = found
    raw = await body(request, frozenset({"action"}), frozenset({"action"}))
    if isinstance(raw, JSONResponse):
        return raw
    action = raw["action"]
    if action not in ACTIONS:
        return _error(400, "bad_request", f"action must be one of {ACTIONS}, not {quoted(action)}")
    club_id = club_row["id"]
    other = str(request.path_params["player_id"])[:64]
    theirs = await s.read(lambda db: accounts.role_of(db, club_id, other))
    if theirs is None:
        return _error(404, "not_found", f"no member {quoted(other)} in this club")
    if theirs == "owner" or other == player.id:
        return _error(409, "forbidden", "the owner's role and your own are not changed here")
    new: Role | None
    if action == "approve":
        if theirs != "pending":
            return _error(409, "bad_request", f"{other} is not waiting for approval")
        new = "member"
    elif action == "remove":
        if theirs == "admin" and role != "owner":
            return _error(403, "forbidden", "only the owner removes an admin")
        new = None
    else:
        if role != "owner":
            return _error(403, "forbidden", "only the owner makes or unmakes admins")
        if theirs == "pending":
            return _error(409, "bad_request", f"{other} is waiting for approval")
        new = "admin" if action == "admin" else "member"
    if new is None:
        failed = await write(s, lambda db: accounts.remove_member(db, club_id, other))
    else:
        failed = await write(s, lambda db: accounts.set_role(db, club_id, other, new))
    if failed is not None:
        return failed
    if new is None:
        # Removal is removal: their sockets at the club's tables close, their seats go as a
        # departing player's do (docs/protocol.md §7.5), on every process of a cluster.
        await s.removed_from_club(club_id, other)
    return JSONResponse({"v": PROTOCOL_VERSION, "club": await _club_json(s, club_row, role)})


async def leave(request: Request) -> Response:
    """``POST /api/clubs/{id}/leave``: the player leaves (the owner cannot)."""
    found = await _member(request, pending=True)
    if isinstance(found, JSONResponse):
        return found
    s, player, club_row, role = found
    if role == "owner":
        return _error(409, "forbidden", "the owner cannot leave the club")
    club_id = club_row["id"]
    failed = await write(s, lambda db: accounts.set_role(db, club_id, player.id, None))
    if failed is not None:
        return failed
    return JSONResponse({"v": PROTOCOL_VERSION, "left": club_id})


async def leaderboard(request: Request) -> Response:
    """``GET /api/clubs/{id}/leaderboard?days=N&game=ID&variant=ID``: the members' figures at
    the club's tables, of one game (the club's own by default) and of one variant when asked
    (every variant of the game by default), with ``variants``: those the club's ranked hands of
    the game were played at over the period (docs/protocol.md §7.5)."""
    found = await _member(request)
    if isinstance(found, JSONResponse):
        return found
    s, _, club_row, _ = found
    days = days_param(request, DEFAULT_BOARD_DAYS)
    if isinstance(days, JSONResponse):
        return days
    game = game_param(request, str(club_row["game"]))
    if isinstance(game, JSONResponse):
        return game
    assert game is not None
    contest = variant_param(request, game)
    if isinstance(contest, JSONResponse):
        return contest
    club_id = club_row["id"]
    start = since(days)
    rows = await s.read_booked(lambda db: accounts.leaderboard(db, club_id, start, game, contest))
    played = await s.read(lambda db: accounts.board_variants(db, club_id, start, game))
    asked = asked_json(game, contest)
    return JSONResponse(
        {
            "v": PROTOCOL_VERSION,
            "days": days,
            "game": game,
            "variant": asked,
            "variants": [contest_json(game, v, n) for v, n in played],
            "rows": rows,
        }
    )


async def open_table(request: Request) -> Response:
    """``POST /api/clubs/{id}/tables``: a club table (an admin), the club's rules filling
    what the body leaves out."""
    found = await _member(request, admin=True)
    if isinstance(found, JSONResponse):
        return found
    s, _, club_row, _ = found
    raw = await body(request, frozenset(RoomOptions.__dataclass_fields__) - {"club"})
    if isinstance(raw, JSONResponse):
        return raw
    rules = dict(club_row["rules"] or {})
    merged = {**rules, **raw}
    if isinstance(rules.get("options"), dict) and isinstance(raw.get("options"), dict):
        merged["options"] = {**rules["options"], **raw["options"]}
    return await open_room(s, request, merged, club=club_row["id"])


__all__ = [
    "club",
    "create_club",
    "invite",
    "join",
    "leaderboard",
    "leave",
    "list_invites",
    "member",
    "open_table",
    "revoke_invite",
    "update_club",
]
