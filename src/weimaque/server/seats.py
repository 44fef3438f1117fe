"""Seats and connections: who holds which seat (by secret token) and who is listening."""

from __future__ import annotations

import logging
import secrets
from dataclasses import dataclass
from typing import Any, Literal, Protocol

log = logging.getLogger("weimaque.server")

SeatId = int | Literal["shouxing"]


class Client(Protocol):
    """A connection: ``send`` queues one message and never blocks."""

    def send(self, message: dict[str, Any]) -> None:
        """Queue a message for this connection."""
        ...


@dataclass(slots=True)
class Seat:
    """One of the three seats (or the 守醒's): a person by token, or a bot."""

    kind: Literal["human", "bot"]
    bot: str | None = None
    token: str | None = None
    name: str | None = None
    ready: bool = False
    autoplay: bool = False

    @property
    def taken(self) -> bool:
        """A bot, or a person holding the token."""
        return self.kind == "bot" or self.token is not None

    def to_store(self) -> dict[str, Any]:
        """Stored form (with the token)."""
        return {"kind": self.kind, "bot": self.bot, "token": self.token, "name": self.name}


@dataclass(eq=False, slots=True)
class Conn:
    """One open connection to a room."""

    client: Client
    seat: SeatId | None = None

    def send(self, message: dict[str, Any]) -> None:
        """Queue a message; a broken client never breaks the room."""
        try:
            self.client.send(message)
        except Exception:  # pragma: no cover - a dead connection is dropped by its own reader
            log.exception("send failed")


def new_token() -> str:
    """A fresh secret seat token."""
    return secrets.token_urlsafe(18)


def find_token(seats: list[Seat], shouxing: Seat | None, token: str) -> SeatId | None:
    """The seat a token holds, compared in constant time."""
    found: SeatId | None = None
    for s, seat in enumerate(seats):
        if seat.token is not None and secrets.compare_digest(seat.token, token):
            found = s
    if (
        shouxing is not None
        and shouxing.token is not None
        and secrets.compare_digest(shouxing.token, token)
    ):
        found = "shouxing"
    return found


__all__ = ["Client", "Conn", "Seat", "SeatId", "find_token", "new_token"]
