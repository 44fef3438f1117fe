"""Seats and connections: who holds which seat (by secret token) and who is listening.

``Seating`` is one room's part of that: its seats, the connections open to it, and which
persons' seats have been left without a connection (offline, docs/protocol.md §3).
"""

from __future__ import annotations

import hashlib
import logging
import math
import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from weimaque.server.wire.common import SeatId

log = logging.getLogger("weimaque.server")


class Client(Protocol):
    """A connection: ``send`` queues one message and never blocks."""

    def send(self, message: Mapping[str, Any]) -> None:
        """Queue a message for this connection."""
        ...

    def fail(self, reason: str) -> None:
        """Close the connection (the client reconnects, or is gone for good)."""
        ...


@dataclass(slots=True)
class Seat:
    """One of the three seats (or the 守醒's): a person by token, or a bot."""

    kind: Literal["human", "bot"]
    bot: str | None = None
    #: The SHA-256 of the seat's token (the token itself is only ever with its holder).
    token: str | None = None
    name: str | None = None
    ready: bool = False
    #: 托管: the server's bot plays this seat (after a timeout, or on the player's request).
    autoplay: bool = False
    #: The seat's player chose to watch (旁观) and keeps the token; 托管 plays meanwhile.
    away: bool = False
    #: In a room created without a timer: this seat's player agrees to play without one.
    no_timer: bool = False
    #: The signed-in player holding the seat (docs/protocol.md §7.2); None for a guest.
    player: str | None = None

    @property
    def taken(self) -> bool:
        """A bot, or a person holding the token."""
        return self.kind == "bot" or self.token is not None

    def to_store(self) -> dict[str, Any]:
        """Stored form (with the token's hash)."""
        return {
            "kind": self.kind,
            "bot": self.bot,
            "token": self.token,
            "name": self.name,
            "no_timer": self.no_timer,
            "player": self.player,
        }


@dataclass(eq=False, slots=True)
class Conn:
    """One open connection to a room."""

    client: Client
    seat: SeatId | None = None
    #: The token this connection sat or joined with (sent back in ``welcome``), if any.
    token: str | None = None
    #: The seat whose token this connection holds while it watches (旁观), to sit back.
    held: SeatId | None = None
    #: Whether this connection asked for 听 hints.
    hints: bool = False
    #: The signed-in player of the socket, (id, name); None for a guest.
    player: tuple[str, str] | None = None
    #: The network address the socket came from (never sent to anyone).
    address: str = ""

    def send(self, message: Mapping[str, Any]) -> None:
        """Queue a message; a broken client never breaks the room."""
        try:
            self.client.send(message)
        except Exception:  # pragma: no cover - a dead connection is dropped by its own reader
            log.exception("send failed")


class Seating:
    """A room's three seats (and the 守醒's), the connections open to it, and who is offline.

    At a table whose persons take turns at the seats (``TableShape.persons``; 偎麻雀's four
    with a rotating 守醒, RULES §2.1.1) ``persons`` holds each person's place, and each hand
    ``place`` puts them at the seats the match names: the one who sits out holds the 守醒's
    place (``"shouxing"``) for that hand.
    """

    def __init__(
        self,
        seats: list[Seat],
        shouxing: Seat | None,
        grace: float,
        persons: list[Seat] | None = None,
    ) -> None:
        """Seats as given; ``grace``: seconds a person's seat may have no open connection
        before it is offline (托管 plays it; docs/protocol.md §3); ``persons``: the persons'
        places at a table where they take turns at the seats (placed by ``place``)."""
        self.seats = seats
        self.shouxing = shouxing
        self.persons = persons
        self.grace = grace
        self.conns: set[Conn] = set()
        #: When each person's seat lost its last open connection.
        self.gone: dict[int, float] = {}
        #: The persons' seats now marked offline.
        self.offline: set[int] = set()

    def seat(self, seat: SeatId) -> Seat:
        """The seat ``seat`` (a number, or the 守醒's where the rules seat one)."""
        if seat == "shouxing":
            assert self.shouxing is not None
            return self.shouxing
        return self.seats[seat]

    def find(self, token: str) -> SeatId | None:
        """The seat a token holds, compared in constant time."""
        return find_token(self.seats, self.shouxing, token)

    def connected(self, seat: SeatId) -> bool:
        """Whether a connection is open for the seat."""
        return any(c.seat == seat for c in self.conns)

    def present(self, seat: SeatId) -> bool:
        """Whether the seat's player has an open connection (playing or watching, 旁观)."""
        return any(c.seat == seat or c.held == seat for c in self.conns)

    def anyone_present(self) -> bool:
        """Whether any person holding one of the three seats has an open connection."""
        return any(seat.kind == "human" and self.present(s) for s, seat in enumerate(self.seats))

    def all_taken(self) -> bool:
        """Whether every seat (every person's place, where persons take turns) is a bot's or
        held by a person."""
        if self.persons is not None:
            return all(s.taken for s in self.persons)
        return all(s.taken for s in self.seats)

    def place(self, order: tuple[int, ...]) -> list[Conn]:
        """Put the persons at the seats of the next hand: ``order[seat]`` is the person at
        ``seat``; the one left out sits out as 守醒 (RULES §2.1.1). A connection follows its
        person to the new seat; the connections that moved."""
        assert self.persons is not None
        persons = self.persons
        before = self.where()
        seats = [persons[p] for p in order]
        out = [s for p, s in enumerate(persons) if p not in order]
        after: dict[int, SeatId] = {id(s): k for k, s in enumerate(seats)}
        after[id(out[0])] = "shouxing"
        moved_to = {before[k]: after[k] for k in after if k in before}
        self.seats[:] = seats
        self.shouxing = out[0]
        # offline marks and grace follow the person; the one sitting out has none
        self.gone = {
            int(to): t for frm, t in self.gone.items() if isinstance(to := moved_to[frm], int)
        }
        self.offline = {int(to) for frm in self.offline if isinstance(to := moved_to[frm], int)}
        moved = []
        for conn in self.conns:
            seat, held = conn.seat, conn.held
            if seat is not None and moved_to[seat] != seat:
                conn.seat = moved_to[seat]
                moved.append(conn)
            if held is not None and moved_to[held] != held:
                conn.held = moved_to[held]
                moved.append(conn)
        return moved

    def where(self) -> dict[int, SeatId]:
        """Each person's place now, by the ``id`` of the :class:`Seat` the person holds."""
        out: dict[int, SeatId] = {id(s): k for k, s in enumerate(self.seats)}
        if self.shouxing is not None:
            out[id(self.shouxing)] = "shouxing"
        return out

    def person_of(self, seat: SeatId) -> int | None:
        """The person holding ``seat`` now, where persons take turns at the seats."""
        if self.persons is None:
            return None
        held = self.seat(seat)
        return next(p for p, s in enumerate(self.persons) if s is held)

    def all_bots(self) -> bool:
        """Whether bots play all three seats."""
        return all(seat.kind == "bot" for seat in self.seats)

    def people(self) -> list[SeatId]:
        """The seats held by a person (the 守醒's too)."""
        out: list[SeatId] = [s for s, seat in enumerate(self.seats) if seat.kind == "human"]
        if self.shouxing is not None:
            out.append("shouxing")
        return [s for s in out if self.seat(s).token is not None]

    def left(self, conn: Conn, now: float) -> None:
        """A connection closed at ``now``; a seat left with none starts its offline grace."""
        self.conns.discard(conn)
        seat = conn.seat if conn.seat is not None else conn.held
        if isinstance(seat, int) and not self.present(seat):
            self.gone_at(seat, now)

    def gone_at(self, seat: int, now: float) -> None:
        """The seat has no open connection from ``now`` on: its offline grace starts."""
        self.gone[seat] = now

    def back(self, seat: int) -> None:
        """The seat's player is back: it is not offline, and no grace runs."""
        self.gone.pop(seat, None)
        self.offline.discard(seat)

    def gone_since(self, seat: int, now: float) -> float:
        """When the seat's player lost their last connection (a seat never connected since the
        room was loaded counts from the first time it is asked about)."""
        return self.gone.setdefault(seat, now)

    def here(self) -> set[SeatId | None]:
        """Every seat an open connection plays or watches from (``present`` of them all at
        once: the room's clocks ask of every seat after each action)."""
        out: set[SeatId | None] = set()
        for c in self.conns:
            out.add(c.seat)
            out.add(c.held)
        return out

    def offline_by(self, seat: int, now: float, here: set[SeatId | None] | None = None) -> bool:
        """Whether a person's seat has had no open connection for the grace at ``now``
        (``here``: the seats present, if known)."""
        s = self.seats[seat]
        return (
            s.kind == "human"
            and s.taken
            and not (seat in here if here is not None else self.present(seat))
            and now >= self.gone_since(seat, now) + self.grace
        )

    def mark_offline(self, now: float) -> bool:
        """Raise (or lower) each seat's offline mark; whether any changed.

        The mark goes up when the grace has passed since the seat's last connection closed:
        a time that depends on nothing else (never on whether the seat has an option in a
        claim window, which nobody else may learn, docs/protocol.md §2.3).
        """
        changed = False
        here = self.here()
        for s in range(len(self.seats)):
            offline = self.offline_by(s, now, here)
            if offline != (s in self.offline):
                changed = True
                if offline:
                    self.offline.add(s)
                else:
                    self.offline.discard(s)
        return changed

    def next_offline(self, now: float) -> float:
        """When the next seat without a connection goes offline (inf: none will)."""
        here = self.here()
        times = [
            self.gone_since(s, now) + self.grace
            for s, seat in enumerate(self.seats)
            if seat.kind == "human" and seat.taken and s not in self.offline and s not in here
        ]
        return min(times, default=math.inf)

    def clear(self, seat_id: SeatId) -> None:
        """A person's seat is given up: its token stops working, its marks go."""
        seat = self.seat(seat_id)
        seat.token = seat.name = seat.player = None
        seat.ready = seat.autoplay = seat.away = seat.no_timer = False
        if isinstance(seat_id, int):
            self.back(seat_id)

    def same_network(self) -> bool:
        """Whether two seats are held from one network address now (docs/protocol.md §7.2)."""
        seen: dict[str, int] = {}
        for conn in self.conns:
            seat = conn.seat
            if (
                isinstance(seat, int)
                and conn.address
                and seen.setdefault(conn.address, seat) != seat
            ):
                return True
        return False

    def to_store(self) -> dict[str, Any]:
        """Stored form of the seats (and of the persons' places, in person order, where they
        take turns at the seats: where each sits follows from the match)."""
        out = {
            "seats": [s.to_store() for s in self.seats],
            "shouxing": None if self.shouxing is None else self.shouxing.to_store(),
        }
        if self.persons is not None:
            out["persons"] = [s.to_store() for s in self.persons]
        return out


def new_token() -> str:
    """A fresh secret seat token."""
    return secrets.token_urlsafe(18)


_HASHED = re.compile(r"^[0-9a-f]{64}$")
_TOKEN = re.compile(r"^[A-Za-z0-9_-]{16,64}$")


def hash_token(token: str) -> str:
    """What is kept of a token: its SHA-256 (a stolen database gives no seat away)."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def stored_hash(value: str | None) -> str | None:
    """A stored token field as a hash (databases written before tokens were hashed hold them)."""
    if value is None or _HASHED.fullmatch(value):
        return value
    return hash_token(value)


def find_token(seats: list[Seat], shouxing: Seat | None, token: str) -> SeatId | None:
    """The seat a token holds, its hash compared in constant time."""
    if not isinstance(token, str) or _TOKEN.fullmatch(token) is None:
        return None  # not a token at all (and never hashed: it may not even be valid text)
    digest = hash_token(token)
    found: SeatId | None = None
    for s, seat in enumerate(seats):
        if seat.token is not None and secrets.compare_digest(seat.token, digest):
            found = s
    if (
        shouxing is not None
        and shouxing.token is not None
        and secrets.compare_digest(shouxing.token, digest)
    ):
        found = "shouxing"
    return found


__all__ = [
    "Client",
    "Conn",
    "Seat",
    "Seating",
    "find_token",
    "hash_token",
    "new_token",
    "stored_hash",
]
