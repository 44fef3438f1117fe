"""Players, their devices, 亲友圈, 战绩 and 回放码, as the store keeps them (docs/protocol.md §7).

Every secret (a player's key, a transfer code, an invitation, a 回放码) is kept as its SHA-256
and looked up by it: a secret never reaches the database or a log, and the time a lookup takes
tells nothing of it. The functions here are the SQL of those tables, run on the store's writer
(``Store.write``) or reader (``Store.read``); :mod:`..players.playerapi` and
:mod:`..players.clubapi` serve them.
The SQL is the one both engines run (:mod:`.sql`); a query neither can say alike asks the
connection's dialect.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, Literal

if TYPE_CHECKING:
    from weimaque.server.store.sql import Connection

#: Letters and digits a person reads and types without confusing them (no 0/O, 1/I/L).
ALPHABET: Final = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
#: Transfer codes, invitations and 回放码 are this many characters of ``ALPHABET``.
CODE_LENGTH: Final = 8
#: How long a transfer code stays good (once).
TRANSFER_SECONDS: Final = 300
#: The cookie holding a browser's key (docs/protocol.md §7.1).
COOKIE: Final = "wmq_player"
#: The longest name of a player or a club.
MAX_NAME: Final = 24
#: Devices (keys) one player holds at most: a new one past that signs out the one used
#: longest ago (docs/protocol.md §7.1).
MAX_DEVICES: Final = 20
#: A device not used for this long is signed out (its key stops working, its row goes).
DEVICE_IDLE_SECONDS: Final = 365 * 24 * 3600
#: Invitations of one club that may be good at once (docs/protocol.md §7.5).
MAX_LIVE_INVITES: Final = 20
#: The most joins one invitation may allow.
MAX_INVITE_USES: Final = 100
#: Characters of a player's id that tell two members of one name apart on a leaderboard.
TAG_LENGTH: Final = 4
#: The game of a room, a match or a club whose options name none (docs/protocol.md §7.3).
DEFAULT_GAME: Final = "maque"
#: Digits of a room's number (docs/protocol.md §1).
NUMBER_DIGITS: Final = 6

Role = Literal["owner", "admin", "member", "pending"]
ADMINS: Final = ("owner", "admin")

_KEY = re.compile(r"^[A-Za-z0-9_-]{43}$")


def digest(secret: str) -> str:
    """What is kept of a secret: its SHA-256."""
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def new_key() -> str:
    """A player's key (256 random bits)."""
    return secrets.token_urlsafe(32)


def new_id() -> str:
    """A public id (of a player, a device, a club): random, not secret."""
    return secrets.token_urlsafe(9)


def new_code() -> str:
    """A transfer code, an invitation or a 回放码."""
    return "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))


def is_key(text: object) -> bool:
    """Whether ``text`` has the shape of a key (anything else is never looked up)."""
    return isinstance(text, str) and _KEY.fullmatch(text) is not None


def normal_code(text: object) -> str | None:
    """A typed code as stored (dashes, spaces and case do not matter), or None if it cannot
    be one."""
    if not isinstance(text, str) or len(text) > 40:
        return None
    code = re.sub(r"[\s-]", "", text).upper()
    if len(code) != CODE_LENGTH or any(ch not in ALPHABET for ch in code):
        return None
    return code


def device_label(user_agent: str) -> str:
    """A device's name from its User-Agent: "Chrome · Android" (never the whole string)."""
    ua = user_agent[:400]
    browser = next(
        (
            name
            for token, name in (
                ("Edg/", "Edge"),
                ("Firefox/", "Firefox"),
                ("Chrome/", "Chrome"),
                ("Safari/", "Safari"),
                ("curl/", "curl"),
                ("python", "Python"),
            )
            if token in ua
        ),
        "Browser",
    )
    system = next(
        (
            name
            for token, name in (
                ("Android", "Android"),
                ("iPhone", "iPhone"),
                ("iPad", "iPad"),
                ("Windows", "Windows"),
                ("Mac OS", "macOS"),
                ("Linux", "Linux"),
            )
            if token in ua
        ),
        "",
    )
    return f"{browser} · {system}" if system else browser


@dataclass(frozen=True, slots=True)
class Player:
    """A signed-in player, as a request knows them."""

    id: str
    name: str
    #: The device (key) the request came with.
    device: str

    def to_json(self) -> dict[str, str]:
        """``{"id", "name"}``."""
        return {"id": self.id, "name": self.name}


# ----------------------------------------------------------------- players and devices


def create_player(db: Connection, player_id: str, name: str, device: Device) -> None:
    """A new player with their first device."""
    now = time.time()
    db.execute("INSERT INTO players (id, name, created) VALUES (?, ?, ?)", (player_id, name, now))
    add_device(db, player_id, device)


@dataclass(frozen=True, slots=True)
class Device:
    """A key being given to a device: its id, the key's hash and a label."""

    id: str
    hash: str
    label: str


def add_device(db: Connection, player_id: str, device: Device) -> None:
    """Another key of ``player_id``: past ``MAX_DEVICES`` the player's device used longest ago
    is signed out; every device unused for ``DEVICE_IDLE_SECONDS`` goes (``player_keys_seen``
    and ``player_keys_last_seen`` index both scans)."""
    now = time.time()
    db.execute("DELETE FROM player_keys WHERE last_seen < ?", (now - DEVICE_IDLE_SECONDS,))
    db.execute(
        "DELETE FROM player_keys WHERE id IN (SELECT id FROM player_keys WHERE player_id = ? "
        "ORDER BY last_seen DESC, id DESC LIMIT -1 OFFSET ?)"
        if db.dialect.name == "sqlite"
        else "DELETE FROM player_keys WHERE id IN (SELECT id FROM player_keys "
        "WHERE player_id = ? ORDER BY last_seen DESC, id DESC OFFSET ?)",
        (player_id, MAX_DEVICES - 1),
    )
    db.execute(
        "INSERT INTO player_keys (id, player_id, hash, label, created, last_seen) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        (device.id, player_id, device.hash, device.label, now, now),
    )


def player_of_key(db: Connection, key_hash: str) -> Player | None:
    """The player holding the key of this hash."""
    row = db.execute(
        "SELECT p.id, p.name, k.id FROM player_keys k JOIN players p ON p.id = k.player_id "
        "WHERE k.hash = ? AND k.last_seen >= ?",
        (key_hash, time.time() - DEVICE_IDLE_SECONDS),
    ).fetchone()
    return None if row is None else Player(row[0], row[1], row[2])


def seen(db: Connection, device: str, when: float) -> None:
    """A device was used (its ``last_seen``)."""
    db.execute("UPDATE player_keys SET last_seen = ? WHERE id = ?", (when, device))


def rename(db: Connection, player_id: str, name: str) -> None:
    db.execute("UPDATE players SET name = ? WHERE id = ?", (name, player_id))


def player_row(db: Connection, player_id: str) -> dict[str, Any] | None:
    row = db.execute("SELECT id, name, created FROM players WHERE id = ?", (player_id,)).fetchone()
    return None if row is None else {"id": row[0], "name": row[1], "created": row[2]}


def devices(
    db: Connection,
    player_id: str,
    current: str,
    *,
    limit: int = MAX_DEVICES,
    before: tuple[float, str] | None = None,
) -> tuple[list[dict[str, Any]], tuple[float, str] | None]:
    """The player's devices, used most recently first, at most ``limit`` after the cursor
    ``before`` (last_seen, id); and the next cursor (keyset on ``player_keys_seen``)."""
    after = "" if before is None else " AND (last_seen, id) < (?, ?)"
    rows = db.execute(
        f"SELECT id, label, created, last_seen FROM player_keys WHERE player_id = ?{after} "
        "ORDER BY last_seen DESC, id DESC LIMIT ?",
        (player_id, *(before or ()), limit + 1),
    ).fetchall()
    found = [
        {"id": i, "label": label, "created": c, "last_seen": s, "current": i == current}
        for i, label, c, s in rows[:limit]
    ]
    more = len(rows) > limit
    return found, (found[-1]["last_seen"], found[-1]["id"]) if more and found else None


def remove_device(db: Connection, player_id: str, device: str) -> int:
    """Sign a device out; how many were (0: not this player's)."""
    cur = db.execute("DELETE FROM player_keys WHERE id = ? AND player_id = ?", (device, player_id))
    return cur.rowcount


def add_transfer(db: Connection, code_hash: str, player_id: str, device: str) -> None:
    """A transfer code for ``player_id``, asked for on ``device`` (used now: the device a
    full list signs out is never the one that brings the new one in); the player's earlier
    codes stop working."""
    seen(db, device, time.time())
    # Two indexed deletes (``transfers_player``, ``transfers_expires``), not one scan.
    db.execute("DELETE FROM transfers WHERE player_id = ?", (player_id,))
    db.execute("DELETE FROM transfers WHERE expires < ?", (time.time(),))
    db.execute(
        "INSERT INTO transfers (hash, player_id, expires) VALUES (?, ?, ?)",
        (code_hash, player_id, time.time() + TRANSFER_SECONDS),
    )


def redeem_transfer(db: Connection, code_hash: str, device: Device) -> str | None:
    """Spend a transfer code: the player it signs in (with ``device`` added), or None.

    Spent by one statement: of two processes redeeming one code at once, the row goes to one
    delete alone (the other's waits for it, then finds nothing), so a code signs in once.
    """
    row = db.execute(
        "DELETE FROM transfers WHERE hash = ? RETURNING player_id, expires", (code_hash,)
    ).fetchone()
    if row is None:
        return None
    if row[1] < time.time():
        return None
    add_device(db, row[0], device)
    return str(row[0])


# ----------------------------------------------------------------- 亲友圈


def game_of(options: Any) -> str:
    """The game a room's options (or a club's ``rules``) name: their ``game``, else 偎麻雀."""
    game = options.get("game") if isinstance(options, dict) else None
    return game if isinstance(game, str) and game else DEFAULT_GAME


def create_club(
    db: Connection, club_id: str, name: str, owner: str, approval: bool, rules: Any
) -> None:
    now = time.time()
    db.execute(
        "INSERT INTO clubs (id, name, owner, approval, rules, created, game) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        (
            club_id,
            name,
            owner,
            int(approval),
            json.dumps(rules, ensure_ascii=False),
            now,
            game_of(rules),
        ),
    )
    db.execute(
        "INSERT INTO club_members (club_id, player_id, role, joined) VALUES (?, ?, 'owner', ?)",
        (club_id, owner, now),
    )


def role_of(db: Connection, club_id: str, player_id: str) -> Role | None:
    row = db.execute(
        "SELECT role FROM club_members WHERE club_id = ? AND player_id = ?", (club_id, player_id)
    ).fetchone()
    return None if row is None else row[0]


def club_row(db: Connection, club_id: str) -> dict[str, Any] | None:
    row = db.execute(
        "SELECT id, name, owner, approval, rules, created, game FROM clubs WHERE id = ?",
        (club_id,),
    ).fetchone()
    if row is None:
        return None
    return {
        "id": row[0],
        "name": row[1],
        "owner": row[2],
        "approval": bool(row[3]),
        "rules": json.loads(row[4]),
        "created": row[5],
        "game": row[6],
    }


def members(db: Connection, club_id: str) -> list[dict[str, Any]]:
    rows = db.execute(
        "SELECT p.id, p.name, m.role, m.joined FROM club_members m "
        "JOIN players p ON p.id = m.player_id WHERE m.club_id = ? ORDER BY m.joined",
        (club_id,),
    ).fetchall()
    return [{"player": {"id": i, "name": n}, "role": r, "joined": j} for i, n, r, j in rows]


def clubs_of(db: Connection, player_id: str) -> list[dict[str, Any]]:
    rows = db.execute(
        "SELECT c.id, c.name, m.role FROM club_members m JOIN clubs c ON c.id = m.club_id "
        "WHERE m.player_id = ? ORDER BY m.joined",
        (player_id,),
    ).fetchall()
    return [{"id": i, "name": n, "role": r} for i, n, r in rows]


def update_club(db: Connection, club_id: str, fields: dict[str, Any]) -> None:
    for column, value in fields.items():
        assert column in ("name", "approval", "rules")
        if column == "rules":
            db.execute("UPDATE clubs SET game = ? WHERE id = ?", (game_of(value), club_id))
            value = json.dumps(value, ensure_ascii=False)
        elif column == "approval":
            value = int(value)
        db.execute(f"UPDATE clubs SET {column} = ? WHERE id = ?", (value, club_id))


def set_role(db: Connection, club_id: str, player_id: str, role: Role | None) -> None:
    """A member's new role (None: they leave)."""
    if role is None:
        db.execute(
            "DELETE FROM club_members WHERE club_id = ? AND player_id = ?", (club_id, player_id)
        )
    else:
        db.execute(
            "UPDATE club_members SET role = ? WHERE club_id = ? AND player_id = ?",
            (role, club_id, player_id),
        )


def remove_member(db: Connection, club_id: str, player_id: str) -> None:
    """An admin removes a member: they leave, and no invitation made before now brings them
    back (docs/protocol.md §7.5)."""
    set_role(db, club_id, player_id, None)
    db.execute(
        "INSERT INTO club_removed (club_id, player_id, removed) VALUES (?, ?, ?) "
        "ON CONFLICT (club_id, player_id) DO UPDATE SET removed = excluded.removed",
        (club_id, player_id, time.time()),
    )


@dataclass(frozen=True, slots=True)
class Invite:
    """An invitation being made: its public id, its code's hash, its club, who makes it, when
    it expires and how many joins it allows."""

    id: str
    hash: str
    club_id: str
    by: str
    expires: float
    max_uses: int


def add_invite(db: Connection, invite: Invite) -> bool:
    """Store an invitation, unless its club has ``MAX_LIVE_INVITES`` good ones (False). The
    spent and expired ones go first (``club_invites_expires``, ``club_invites_club``)."""
    now = time.time()
    db.execute("DELETE FROM club_invites WHERE expires < ?", (now,))
    db.execute("DELETE FROM club_invites WHERE club_id = ? AND uses >= max_uses", (invite.club_id,))
    live = db.execute(
        "SELECT COUNT(*) FROM club_invites WHERE club_id = ? AND expires >= ?",
        (invite.club_id, now),
    ).fetchone()
    if int(live[0]) >= MAX_LIVE_INVITES:
        return False
    db.execute(
        "INSERT INTO club_invites (hash, club_id, expires, id, created, created_by, max_uses, "
        "uses) VALUES (?, ?, ?, ?, ?, ?, ?, 0)",
        (invite.hash, invite.club_id, invite.expires, invite.id, now, invite.by, invite.max_uses),
    )
    return True


def invites(db: Connection, club_id: str) -> list[dict[str, Any]]:
    """A club's good invitations, newest first: never their codes (only hashes are kept)."""
    rows = db.execute(
        "SELECT i.id, i.created, i.expires, i.max_uses, i.uses, p.id, p.name "
        "FROM club_invites i LEFT JOIN players p ON p.id = i.created_by "
        "WHERE i.club_id = ? AND i.expires >= ? AND i.uses < i.max_uses "
        "ORDER BY i.created DESC, i.id",
        (club_id, time.time()),
    ).fetchall()
    return [
        {
            "id": i,
            "created": c,
            "expires": e,
            "max_uses": m,
            "uses": u,
            "by": None if p is None else {"id": p, "name": n},
        }
        for i, c, e, m, u, p, n in rows
    ]


def revoke_invite(db: Connection, club_id: str, invite_id: str) -> int:
    """Revoke an invitation of ``club_id``; how many were (0: no such invitation)."""
    cur = db.execute("DELETE FROM club_invites WHERE id = ? AND club_id = ?", (invite_id, club_id))
    return cur.rowcount


def join_by_invite(
    db: Connection, code_hash: str, player_id: str
) -> tuple[str, Role] | Literal["removed"] | None:
    """Join the club of an invitation (or wait for approval), spending one of its uses:
    (club id, role); ``"removed"`` for a player removed from the club after the invitation
    was made; None for a wrong, spent or expired code. A member joining again keeps their
    role and spends nothing."""
    row = db.execute(
        "SELECT i.club_id, c.approval, i.created FROM club_invites i "
        "JOIN clubs c ON c.id = i.club_id WHERE i.hash = ? AND i.expires >= ? "
        "AND i.uses < i.max_uses",
        (code_hash, time.time()),
    ).fetchone()
    if row is None:
        return None
    club_id = str(row[0])
    have = role_of(db, club_id, player_id)
    if have is not None:
        return club_id, have
    removed = db.execute(
        "SELECT removed FROM club_removed WHERE club_id = ? AND player_id = ?",
        (club_id, player_id),
    ).fetchone()
    if removed is not None and float(removed[0]) >= float(row[2]):
        return "removed"
    db.execute("UPDATE club_invites SET uses = uses + 1 WHERE hash = ?", (code_hash,))
    role: Role = "pending" if row[1] else "member"
    db.execute(
        "INSERT INTO club_members (club_id, player_id, role, joined) VALUES (?, ?, ?, ?)",
        (club_id, player_id, role, time.time()),
    )
    return club_id, role


def share_club(db: Connection, a: str, b: str) -> list[str]:
    """The clubs ``a`` and ``b`` are both members of (pending members are not)."""
    rows = db.execute(
        "SELECT x.club_id FROM club_members x JOIN club_members y ON x.club_id = y.club_id "
        "WHERE x.player_id = ? AND y.player_id = ? AND x.role != 'pending' "
        "AND y.role != 'pending'",
        (a, b),
    ).fetchall()
    return [str(r[0]) for r in rows]


# ----------------------------------------------------------------- 战绩 and 回放码


@dataclass(frozen=True, slots=True)
class Contest:
    """One variant of a game at one table, counted apart (docs/protocol.md §7.3): the presets
    its hands are stored under (``variant``) and its table's ``persons``."""

    presets: tuple[str, ...]
    persons: int

    def where(self, prefix: str = "") -> tuple[str, list[Any]]:
        """The SQL condition on a row of ``hand_seats`` or ``match_seats`` and its arguments."""
        marks = ",".join("?" * len(self.presets))
        return (
            f" AND {prefix}variant IN ({marks}) AND {prefix}persons = ?",
            [*self.presets, self.persons],
        )


#: The match summaries of a room's match, summed again from its played hands' seats
#: (idempotent: a hand written twice, after a restart, is counted once; a hand nobody played
#: counts for nobody, §7.3). Parameters: room id, match.
MATCH_SEATS: Final = (
    "INSERT INTO match_seats (room_id, match, seat, holder, player_id, name, bot, club_id, "
    "started, last, hands, total, ranked, game, variant, persons) SELECT room_id, match, seat, "
    "COALESCE(player_id, ''), MAX(player_id), MAX(name), MAX(bot), MAX(club_id), "
    "MIN(finished), MAX(finished), COUNT(*), SUM(points), MIN(ranked), MAX(game), MAX(variant), "
    "MAX(persons) "
    "FROM hand_seats "
    "WHERE room_id = ? AND match = ? AND played = 1 "
    "GROUP BY room_id, match, seat, COALESCE(player_id, '') "
    "ON CONFLICT (room_id, match, seat, holder) DO UPDATE SET player_id = excluded.player_id, "
    "name = excluded.name, bot = excluded.bot, club_id = excluded.club_id, "
    "started = excluded.started, last = excluded.last, hands = excluded.hands, "
    "total = excluded.total, ranked = excluded.ranked, game = excluded.game, "
    "variant = excluded.variant, persons = excluded.persons"
)


def matches(
    db: Connection,
    player_id: str,
    *,
    limit: int,
    before: tuple[float, str, int] | None,
    clubs: list[str] | None = None,
    game: str | None = None,
    contest: Contest | None = None,
) -> tuple[list[dict[str, Any]], tuple[float, str, int] | None]:
    """The matches ``player_id`` sat in, newest first (by their last hand), at most ``limit``
    after the cursor ``before``; only those of ``clubs`` when given, of ``game`` when given
    (None: every game), of one ``contest`` of it when given (None: every variant). And the
    next cursor.

    One query: a keyset page of the player's rows of ``match_seats`` (index
    ``match_seats_player``, or ``match_seats_player_game`` for one game), joined with every
    seat of those matches, their room's match and their club; its cost is the page's, whatever
    the player's number of hands.
    """
    # A hand nobody played themselves (托管 all through) is in nobody's 战绩 (§7.4): such
    # hands are not summed into match_seats.
    where = "player_id = ?"
    args: list[Any] = [player_id]
    if game is not None:
        where += " AND game = ?"
        args.append(game)
    if contest is not None:
        sql, extra = contest.where()
        where += sql
        args += extra
    if clubs is not None:
        if not clubs:
            return [], None
        where += f" AND club_id IN ({','.join('?' * len(clubs))})"
        args += clubs
    if before is not None:
        where += " AND (last, room_id, match) < (?, ?, ?)"
        args += list(before)
    rows = db.execute(
        "SELECT me.room_id, me.match, me.seat, me.club_id, me.started, me.last, me.hands, "
        "me.total, o.seat, o.name, o.player_id, o.total, o.bot, o.last, m.number, m.over, "
        "m.rules, c.name, me.ranked, me.game, me.persons FROM (SELECT room_id, match, seat, "
        "club_id, started, last, hands, total, ranked, game, persons FROM match_seats "
        f"WHERE {where} "
        "ORDER BY last DESC, room_id DESC, match DESC LIMIT ?) me "
        "JOIN match_seats o ON o.room_id = me.room_id AND o.match = me.match "
        "LEFT JOIN matches m ON m.room_id = me.room_id "
        "LEFT JOIN clubs c ON c.id = me.club_id "
        "ORDER BY me.last DESC, me.room_id DESC, me.match DESC, me.seat, o.seat, o.last",
        (*args, limit + 1),
    ).fetchall()
    out: list[dict[str, Any]] = []
    seats: dict[int, dict[str, Any]] = {}
    for row in rows:
        room_id, match, seat, club_id, started, last, hands, total = row[:8]
        if not out or (out[-1]["room_id"], out[-1]["match"], out[-1]["seat"]) != (
            room_id,
            match,
            seat,
        ):
            number, over, rules, club_name, ranked, game_id, persons = row[14:21]
            seats = {}
            out.append(
                {
                    "room_id": room_id,
                    "match": match,
                    "game": game_id,
                    "rules": rules,
                    # The persons at its table (2, 3 or 4): with the preset, its contest.
                    "persons": persons,
                    "club": None if club_id is None else {"id": club_id, "name": club_name},
                    "started": started,
                    "last": last,
                    "hands": hands,
                    # Whether every hand of it counts on a leaderboard (no practice, no bots
                    # alone).
                    "ranked": bool(ranked),
                    "over": number is None or number != match or bool(over),
                    "seat": seat,
                    "total": int(total),
                    "players": seats,
                }
            )
        o_seat, o_name, o_player, o_total, o_bot = row[8:13]
        # A seat held by several holders in one match: one entry, its latest holder's name.
        got = seats.setdefault(
            o_seat, {"seat": o_seat, "name": None, "player_id": None, "bot": None, "total": 0}
        )
        got["total"] += int(o_total)
        got["name"] = o_name if o_name is not None else got["name"]
        got["player_id"] = o_player if o_player is not None else got["player_id"]
        got["bot"] = o_bot if o_bot is not None else got["bot"]
    more = len(out) > limit
    out = out[:limit]
    for found in out:
        players = [found["players"][k] for k in sorted(found["players"])]
        found["players"] = players
        found["place"] = 1 + sum(p["total"] > found["total"] for p in players)
    cursor = None
    if more and out:
        cursor = (out[-1]["last"], out[-1]["room_id"], out[-1]["match"])
    return out, cursor


#: A player's figures over their played hands (``stats``), in the order of its SELECT.
_FIGURES: Final = ("matches", "hands", "wins", "chou", "points", "biggest")
_FIGURES_SQL: Final = (
    "COUNT(DISTINCT room_id || '/' || match), COUNT(*), COALESCE(SUM(won), 0), "
    "COALESCE(SUM(chou), 0), COALESCE(SUM(points), 0), COALESCE(MAX(xi), 0)"
)


def stats(
    db: Connection,
    player_id: str,
    since: float,
    game: str = DEFAULT_GAME,
    contest: Contest | None = None,
) -> dict[str, int]:
    """The player's totals over their played hands of ``game`` since ``since``, of one
    ``contest`` only when given (None: every variant of the game; index
    ``hand_seats_player_game``)."""
    where = "player_id = ? AND game = ? AND finished >= ? AND played = 1"
    args: list[Any] = [player_id, game, since]
    if contest is not None:
        sql, extra = contest.where()
        where += sql
        args += extra
    row = db.execute(f"SELECT {_FIGURES_SQL} FROM hand_seats WHERE {where}", args).fetchone()
    return {k: int(v) for k, v in zip(_FIGURES, row, strict=True)}


def stats_by_variant(
    db: Connection, player_id: str, since: float, game: str = DEFAULT_GAME
) -> list[tuple[str | None, int | None, dict[str, int]]]:
    """The player's totals over their played hands of ``game`` since ``since``, one per
    contest they played (preset, persons), most hands first (docs/protocol.md §7.3)."""
    rows = db.execute(
        f"SELECT variant, persons, {_FIGURES_SQL} FROM hand_seats "
        "WHERE player_id = ? AND game = ? AND finished >= ? AND played = 1 "
        "GROUP BY variant, persons ORDER BY COUNT(*) DESC, variant, persons",
        (player_id, game, since),
    ).fetchall()
    return [
        (
            None if r[0] is None else str(r[0]),
            None if r[1] is None else int(r[1]),
            {k: int(v) for k, v in zip(_FIGURES, r[2:], strict=True)},
        )
        for r in rows
    ]


def leaderboard(
    db: Connection,
    club_id: str,
    since: float,
    game: str = DEFAULT_GAME,
    contest: Contest | None = None,
) -> list[dict[str, Any]]:
    """The club's members (removed ones are not) by their points over the ranked hands of
    ``game`` at its tables since ``since``, of one ``contest`` only when given (None: every
    variant of the game): hands two people played, at tables with no chosen seed (§7.5;
    index ``hand_seats_club_game``)."""
    where = "h.club_id = ? AND h.game = ? AND h.finished >= ? AND h.ranked = 1"
    args: list[Any] = [club_id, game, since]
    if contest is not None:
        sql, extra = contest.where("h.")
        where += sql
        args += extra
    rows = db.execute(
        "SELECT h.player_id, p.name, SUM(h.points), COUNT(DISTINCT h.room_id || '/' || h.match), "
        "COUNT(*), SUM(h.won), MAX(h.xi) FROM hand_seats h JOIN players p ON p.id = h.player_id "
        "JOIN club_members m ON m.club_id = h.club_id AND m.player_id = h.player_id "
        f"WHERE {where} AND m.role != 'pending' "
        "GROUP BY h.player_id, p.name ORDER BY SUM(h.points) DESC, p.name, h.player_id",
        args,
    ).fetchall()
    names: dict[str, int] = {}
    for row in rows:
        names[row[1]] = names.get(row[1], 0) + 1
    return [
        {
            # Two members of one name are told apart by the start of their ids.
            "player": {
                "id": i,
                "name": n,
                "label": n if names[n] == 1 else f"{n}#{i[:TAG_LENGTH]}",
            },
            "points": int(points),
            "matches": int(m),
            "hands": int(hands),
            "wins": int(wins),
            "win_rate": round(int(wins) / int(hands), 4) if hands else 0.0,
            "biggest": int(big),
        }
        for i, n, points, m, hands, wins, big in rows
    ]


def board_variants(
    db: Connection, club_id: str, since: float, game: str = DEFAULT_GAME
) -> list[tuple[str, int | None]]:
    """The contests (preset, persons) of ``game`` the club's ranked hands since ``since`` were
    played in, most hands first: the leaderboards it has (§7.5)."""
    rows = db.execute(
        "SELECT variant, persons FROM hand_seats WHERE club_id = ? AND game = ? "
        "AND finished >= ? AND ranked = 1 AND variant IS NOT NULL GROUP BY variant, persons "
        "ORDER BY COUNT(*) DESC, variant, persons",
        (club_id, game, since),
    ).fetchall()
    return [(str(r[0]), None if r[1] is None else int(r[1])) for r in rows]


def hand_seats(db: Connection, room_id: str, number: int) -> tuple[list[dict[str, Any]], int]:
    """Who held the seats of a finished hand (seat, name, player id), and the hand's number in
    its match."""
    rows = db.execute(
        "SELECT seat, name, player_id, match, bot FROM hand_seats "
        "WHERE room_id = ? AND number = ? "
        "ORDER BY seat",
        (room_id, number),
    ).fetchall()
    if not rows:
        return [], number
    before = db.execute(
        "SELECT COUNT(DISTINCT number) FROM hand_seats WHERE room_id = ? AND match = ? "
        "AND number <= ?",
        (room_id, rows[0][3], number),
    ).fetchone()
    seats = [{"seat": s, "name": n, "player_id": p, "bot": b} for s, n, p, _, b in rows]
    return seats, int(before[0])


def room_number(db: Connection, room_id: str) -> str | None:
    """The six-digit number of a room (None: it has none)."""
    row = db.execute("SELECT number FROM room_numbers WHERE room_id = ?", (room_id,)).fetchone()
    return None if row is None else str(row[0])


def room_of_number(db: Connection, number: str) -> tuple[str, str | None] | None:
    """(room id, club id) of a room number, while its room is not over (None: no such)."""
    row = db.execute(
        "SELECT r.id, r.club_id FROM room_numbers n JOIN rooms r ON r.id = n.room_id "
        "WHERE n.number = ? AND r.status != 'over'",
        (number,),
    ).fetchone()
    return None if row is None else (str(row[0]), row[1])


def give_number(db: Connection, number: str, room_id: str) -> bool:
    """Give ``number`` to ``room_id`` if it is free (never given, or its room is over);
    whether it was."""
    row = db.execute(
        "SELECT r.status FROM room_numbers n LEFT JOIN rooms r ON r.id = n.room_id "
        "WHERE n.number = ?",
        (number,),
    ).fetchone()
    if row is None:
        db.execute("INSERT INTO room_numbers (number, room_id) VALUES (?, ?)", (number, room_id))
        return True
    if row[0] is not None and row[0] != "over":
        return False
    db.execute("UPDATE room_numbers SET room_id = ? WHERE number = ?", (room_id, number))
    return True


def open_rooms(db: Connection, *, player: str | None = None, club: str | None = None) -> list[str]:
    """The stored rooms not over where ``player`` holds a seat, or that are ``club``'s tables
    (in memory or not: a room idle long enough leaves memory and is restored when asked for)."""
    if club is not None:
        rows = db.execute(
            "SELECT id FROM rooms WHERE club_id = ? AND status != 'over' ORDER BY created",
            (club,),
        ).fetchall()
    else:
        rows = db.execute(
            f"SELECT r.id FROM rooms r WHERE r.status != 'over' AND {db.dialect.player_seated} "
            "ORDER BY r.created",
            (player,),
        ).fetchall()
    return [str(r[0]) for r in rows]


def replay_of(db: Connection, code_hash: str) -> tuple[str, int, int, dict[str, Any]] | None:
    """(room id, hand number, match number, hand record) of a 回放码: written with the hand,
    read without restoring its room."""
    row = db.execute(
        "SELECT c.room_id, c.number, h.match, h.record FROM replay_codes c "
        "JOIN hands h ON h.room_id = c.room_id AND h.number = c.number WHERE c.hash = ?",
        (code_hash,),
    ).fetchone()
    if row is None:
        return None
    return str(row[0]), int(row[1]), int(row[2]), dict(json.loads(row[3]))


def seat_rows(
    record: dict[str, Any],
    seats: list[tuple[str | None, str | None, str | None]],
) -> list[tuple[int, str | None, str | None, str | None, int, int, int, int]]:
    """(seat, player id, name, bot kind, points, won, 臭, 息 of a win) of each seat of a
    finished hand record, whose seats were held by ``seats`` (player id, name, bot kind)."""
    result = record.get("result") or {}
    settlement = record.get("settlement") or {}
    # 偎麻雀's record names its winner in its result; another game's table records the winners
    # in the settlement it keeps (``{"seats", "winners"}``, docs/protocol.md §2.2).
    winners = settlement.get("winners")
    if not isinstance(winners, list):
        winner = result.get("winner") if isinstance(result, dict) else None
        winners = [] if winner is None else [winner]
    points = settlement.get("seats") or [0] * len(seats)
    persons, by_person = record.get("seat_persons"), settlement.get("persons")
    if isinstance(persons, list) and isinstance(by_person, list) and len(by_person) == len(seats):
        # Persons taking turns at the seats (RULES §2.1.1, §8.6.1): a row per person, with what
        # the hand moved in the person's account (the 守醒's share of the one sitting out).
        points = by_person
        winners = [persons[w] for w in winners if isinstance(w, int) and 0 <= w < len(persons)]
    rows = []
    for seat, (player, name, bot) in enumerate(seats):
        won = seat in winners
        xi = int(result.get("total") or 0) if won and isinstance(result, dict) else 0
        figures = (int(points[seat]), int(won), int(not winners), xi)
        rows.append((seat, player, name, bot, *figures))
    return rows


__all__ = [
    "ADMINS",
    "ALPHABET",
    "CODE_LENGTH",
    "COOKIE",
    "DEVICE_IDLE_SECONDS",
    "MATCH_SEATS",
    "MAX_DEVICES",
    "MAX_INVITE_USES",
    "MAX_LIVE_INVITES",
    "MAX_NAME",
    "TRANSFER_SECONDS",
    "Device",
    "Invite",
    "Player",
    "Role",
    "device_label",
    "digest",
    "is_key",
    "new_code",
    "new_id",
    "new_key",
    "normal_code",
]


# ----------------------------------------------------------------- passkeys
# A player's passkeys are theirs to see, name and remove (docs/protocol.md §7.1).

#: The most passkeys one player holds.
MAX_PASSKEYS: Final = 10


def add_passkey(
    db: Connection, credential: str, player_id: str, public_key: bytes, count: int, name: str
) -> bool:
    """Keep a new passkey of ``player_id``; False when the credential is known already (to
    this player or another, even by a registration at the same moment on another process):
    the caller answers 409, and nothing is written."""
    cur = db.execute(
        "INSERT INTO passkeys (id, player_id, public_key, sign_count, created, name) "
        "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING",
        (credential, player_id, public_key, count, time.time(), name),
    )
    return bool(cur.rowcount == 1)


def passkey(db: Connection, credential: str) -> tuple[str, bytes, int] | None:
    """(player id, public key, sign count) of a credential."""
    row = db.execute(
        "SELECT player_id, public_key, sign_count FROM passkeys WHERE id = ?", (credential,)
    ).fetchone()
    return None if row is None else (str(row[0]), bytes(row[1]), int(row[2]))


def passkeys_of(db: Connection, player_id: str) -> list[dict[str, Any]]:
    """A player's passkeys, oldest first: ``{"id", "name", "created", "last_used"}``."""
    rows = db.execute(
        "SELECT id, name, created, last_used FROM passkeys WHERE player_id = ? ORDER BY created",
        (player_id,),
    ).fetchall()
    return [{"id": i, "name": n, "created": c, "last_used": u} for i, n, c, u in rows]


def rename_passkey(db: Connection, player_id: str, credential: str, name: str) -> int:
    """Name one of the player's passkeys; how many were (0: not theirs)."""
    cur = db.execute(
        "UPDATE passkeys SET name = ? WHERE id = ? AND player_id = ?", (name, credential, player_id)
    )
    return cur.rowcount


def remove_passkey(db: Connection, player_id: str, credential: str) -> int:
    """Forget one of the player's passkeys (it signs nobody in again); how many were."""
    cur = db.execute("DELETE FROM passkeys WHERE id = ? AND player_id = ?", (credential, player_id))
    return cur.rowcount


def sign_out_everywhere(db: Connection, player_id: str) -> tuple[int, int]:
    """Every device key, transfer code and passkey of the player gone: (devices, passkeys)."""
    devices = db.execute("DELETE FROM player_keys WHERE player_id = ?", (player_id,)).rowcount
    db.execute("DELETE FROM transfers WHERE player_id = ?", (player_id,))
    db.execute("DELETE FROM ceremonies WHERE player_id = ?", (player_id,))
    passkeys = db.execute("DELETE FROM passkeys WHERE player_id = ?", (player_id,)).rowcount
    return devices, passkeys


def passkey_used(db: Connection, credential: str, count: int, device: Device) -> str | None:
    """A passkey signed a device in: its new sign count and last use, the device's key; the
    player's id (None when the passkey was removed meanwhile)."""
    row = db.execute("SELECT player_id FROM passkeys WHERE id = ?", (credential,)).fetchone()
    if row is None:
        return None
    db.execute(
        "UPDATE passkeys SET sign_count = ?, last_used = ? WHERE id = ?",
        (count, time.time(), credential),
    )
    player_id = str(row[0])
    add_device(db, player_id, device)
    return player_id


# ----------------------------------------------------------------- ceremonies
# A ceremony's challenge is kept in the store, so that every process of a cluster finds it
# (docs/scale.md); it is good once, until ``expires``.


#: Ceremonies kept at once: past this the oldest go first (an address asking for options
#: without end fills no disk).
MAX_CEREMONIES: Final = 10_000


def keep_ceremony(
    db: Connection, ticket: str, challenge: bytes, player_id: str | None, seconds: float
) -> None:
    """Keep a challenge under ``ticket`` for ``seconds``; the expired ones go, and the oldest
    past ``MAX_CEREMONIES``."""
    now = time.time()
    db.execute("DELETE FROM ceremonies WHERE expires < ?", (now,))
    (kept,) = db.execute("SELECT COUNT(*) FROM ceremonies").fetchone()
    if int(kept) >= MAX_CEREMONIES:
        db.execute(
            "DELETE FROM ceremonies WHERE ticket IN "
            "(SELECT ticket FROM ceremonies ORDER BY expires LIMIT ?)",
            (int(kept) - MAX_CEREMONIES + 1,),
        )
    db.execute(
        "INSERT INTO ceremonies (ticket, challenge, player_id, expires) VALUES (?, ?, ?, ?)",
        (ticket, challenge, player_id, now + seconds),
    )


def take_ceremony(db: Connection, ticket: str) -> tuple[bytes, str | None] | None:
    """The challenge of ``ticket`` and whose ceremony it is, spent now (the one process whose
    delete removes the row has it); None when it is unknown, spent or expired."""
    row = db.execute(
        "SELECT challenge, player_id, expires FROM ceremonies WHERE ticket = ?", (ticket,)
    ).fetchone()
    if row is None:
        return None
    if db.execute("DELETE FROM ceremonies WHERE ticket = ?", (ticket,)).rowcount != 1:
        return None
    if float(row[2]) < time.time():
        return None
    return bytes(row[0]), None if row[1] is None else str(row[1])
