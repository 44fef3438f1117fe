"""Seats and connections: who holds which seat (by secret token) and who is listening."""

from __future__ import annotations

import hashlib
import logging
import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, Protocol

log = logging.getLogger("weimaque.server")

SeatId = int | Literal["shouxing"]


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
    "SeatId",
    "find_token",
    "hash_token",
    "new_token",
    "stored_hash",
]
