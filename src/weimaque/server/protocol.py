"""The typed WebSocket messages of ``docs/protocol.md`` (version 1) and their strict parsing.

``parse_client`` turns any text into a client message or a ``ProtocolError`` carrying the error
code and an echo of the input; it never raises anything else, so a bad frame never ends a
connection.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Final, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
    ValidationError,
)

PROTOCOL_VERSION: Final = 1
MAX_MESSAGE: Final = 64 * 1024
ECHO_LIMIT: Final = 1000

ErrorCode = Literal[
    "bad_json",
    "unsupported_version",
    "unknown_type",
    "bad_message",
    "bad_token",
    "bad_seat",
    "seat_taken",
    "already_seated",
    "not_seated",
    "no_hand",
    "not_your_turn",
    "bad_action",
    "illegal_action",
    "stale",
    "hand_in_progress",
    "match_over",
    "room_not_found",
    "too_large",
    "internal",
]

MessageId = StrictStr | StrictInt
Name = Annotated[StrictStr, Field(min_length=1, max_length=24)]


class ClientMessage(BaseModel):
    """Fields every client message has."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    v: Literal[1]
    id: MessageId | None = None


class Join(ClientMessage):
    """Join the room, optionally reclaiming a seat by its token."""

    type: Literal["join"]
    token: Annotated[StrictStr, Field(max_length=200)] | None = None
    name: Name | None = None
    #: With a token: keep the seat but watch (旁观) instead of playing it.
    watch: StrictBool = False


class Sit(ClientMessage):
    """Take a free human seat (or the 守醒 seat, RULES §2.1)."""

    type: Literal["sit"]
    seat: StrictInt | Literal["shouxing"]
    name: Name | None = None


class Act(ClientMessage):
    """Take an action, as text (``出三``) or action id."""

    type: Literal["act"]
    action: Annotated[StrictStr, Field(max_length=40)] | StrictInt
    hand: StrictInt | None = None


class Next(ClientMessage):
    """Ready for the next hand."""

    type: Literal["next"]


class Spectate(ClientMessage):
    """Stop acting for a seat; watch the public view."""

    type: Literal["spectate"]


class Leave(ClientMessage):
    """Give up one's seat for good (离座); only between hands."""

    type: Literal["leave"]


class Autoplay(ClientMessage):
    """Turn 托管 on or off for one's seat."""

    type: Literal["autoplay"]
    on: StrictBool


class Hints(ClientMessage):
    """Ask for 听 hints (or stop them) on this connection."""

    type: Literal["hints"]
    on: StrictBool


class NoTimer(ClientMessage):
    """In a room created without a timer: agree (or not) to play without one."""

    type: Literal["no_timer"]
    agree: StrictBool


class Ping(ClientMessage):
    """Keep-alive; answered by ``pong``."""

    type: Literal["ping"]
    t: Any = None


AnyClientMessage = Join | Sit | Act | Next | Spectate | Leave | Autoplay | Hints | NoTimer | Ping
MESSAGE_TYPES: Final[dict[str, type[ClientMessage]]] = {
    "join": Join,
    "sit": Sit,
    "act": Act,
    "next": Next,
    "spectate": Spectate,
    "leave": Leave,
    "autoplay": Autoplay,
    "hints": Hints,
    "no_timer": NoTimer,
    "ping": Ping,
}


class ProtocolError(Exception):
    """A client error that is answered with an ``error`` message."""

    def __init__(self, code: ErrorCode, message: str, echo: Any = None, re: Any = None) -> None:
        """An error with its protocol code, text, the offending input and its ``id``."""
        super().__init__(message)
        self.code: ErrorCode = code
        self.message = message
        self.echo = echo
        self.re = re

    def to_message(self) -> dict[str, Any]:
        """The ``error`` message."""
        return error_message(self.code, self.message, self.echo, self.re)


def error_message(
    code: ErrorCode, message: str, echo: Any = None, re: Any = None
) -> dict[str, Any]:
    """An ``error`` server message."""
    out: dict[str, Any] = {"v": PROTOCOL_VERSION, "type": "error"}
    if re is not None:
        out["re"] = re
    out.update(code=code, message=message, echo=echo)
    return out


def _echo_text(text: str) -> str:
    return text if len(text) <= ECHO_LIMIT else text[:ECHO_LIMIT]


def _describe(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors()[:4]:
        where = ".".join(str(p) for p in err["loc"]) or "message"
        parts.append(f"{where}: {err['msg']}")
    return "; ".join(parts)


def parse_client(text: str | bytes) -> AnyClientMessage:
    """Parse one frame into a client message, or raise ``ProtocolError``."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ProtocolError("bad_json", "binary frame is not UTF-8 text", None) from exc
    if len(text) > MAX_MESSAGE:
        raise ProtocolError("too_large", f"message over {MAX_MESSAGE} bytes", _echo_text(text))
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise ProtocolError("bad_json", f"not JSON: {exc}", _echo_text(text)) from exc
    if not isinstance(data, dict):
        raise ProtocolError("bad_json", "a message must be a JSON object", data)
    raw_id = data.get("id")
    re = raw_id if isinstance(raw_id, str | int) and not isinstance(raw_id, bool) else None
    if data.get("v") != PROTOCOL_VERSION:
        raise ProtocolError(
            "unsupported_version",
            f"unsupported protocol version {data.get('v')!r}; this server speaks v=1",
            data,
            re,
        )
    kind = data.get("type")
    model = MESSAGE_TYPES.get(kind) if isinstance(kind, str) else None
    if model is None:
        known = ", ".join(MESSAGE_TYPES)
        raise ProtocolError(
            "unknown_type", f"unknown message type {kind!r}; known: {known}", data, re
        )
    try:
        message = model.model_validate(data)
    except ValidationError as exc:
        raise ProtocolError(
            "bad_message", f"bad {kind} message: {_describe(exc)}", data, re
        ) from exc
    assert isinstance(
        message, Join | Sit | Act | Next | Spectate | Leave | Autoplay | Hints | NoTimer | Ping
    )
    return message


def server_message(kind: str, re: Any = None, **fields: Any) -> dict[str, Any]:
    """A server message: ``{"v": 1, "type": kind, ["re": re], **fields}``."""
    out: dict[str, Any] = {"v": PROTOCOL_VERSION, "type": kind}
    if re is not None:
        out["re"] = re
    out.update(fields)
    return out
