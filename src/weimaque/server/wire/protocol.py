"""What a client sends on its WebSocket (``docs/protocol.md``, version 1): typed, strictly parsed.

``parse_client`` turns any text into a client message or a ``ProtocolError`` carrying the error
code and a cleaned copy of the input; it never raises anything else, so a bad frame never ends a
connection. Nothing a client sends is ever sent back as it came: echoes, ids and names pass
through :func:`clean_echo`, :func:`safe_id` and :func:`clean_name`, so no reply can carry a lone
surrogate, ``NaN`` or an unbounded value.
"""

from __future__ import annotations

import json
import math
import re as regex
import unicodedata
from typing import TYPE_CHECKING, Annotated, Any, Final, Literal

import orjson
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    ValidationError,
    model_validator,
)

from weimaque.server.wire.common import (
    MAX_ID,
    PROTOCOL_VERSION,
    ErrorCode,
    has_surrogate,
    safe_id,
)
from weimaque.server.wire.quickchat import check_emote, check_phrase

if TYPE_CHECKING:
    from weimaque.server.wire.messages import Error

MAX_MESSAGE: Final = 64 * 1024
ECHO_LIMIT: Final = 1000
#: The most characters of any string sent back in an echo.
ECHO_TEXT: Final = 200
NAME_LENGTH: Final = 24
#: A seat, creator or invitation token: what ``secrets.token_urlsafe`` makes.
TOKEN_PATTERN: Final = r"^[A-Za-z0-9_-]{16,64}$"
_TOKEN_RE: Final = regex.compile(TOKEN_PATTERN)


def is_token(text: object) -> bool:
    """Whether ``text`` has the form of a token (checked before any comparison)."""
    return isinstance(text, str) and _TOKEN_RE.fullmatch(text) is not None


def clean_text(text: str, limit: int = ECHO_TEXT) -> str:
    """``text`` safe to send back: lone surrogates replaced, at most ``limit`` characters."""
    text = text[:limit]
    return text.encode("utf-8", "replace").decode("utf-8") if has_surrogate(text) else text


#: Unicode categories dropped from display names: controls, format characters (bidi overrides,
#: zero-width joiners and spaces), surrogates, private use and unassigned code points.
_NAME_DROP: Final = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


def clean_name(name: str, limit: int | None = NAME_LENGTH) -> str:
    """A display name: NFC, no control/bidi/zero-width characters, spaces collapsed, cut to
    ``limit`` characters (None: not cut)."""
    name = unicodedata.normalize("NFC", name)
    kept = "".join(
        " " if unicodedata.category(ch) == "Zs" else ch
        for ch in name
        if unicodedata.category(ch) not in _NAME_DROP
    )
    return " ".join(kept.split())[:limit]


def _check_token(text: str) -> str:
    if not is_token(text):
        raise ValueError("a token is 16 to 64 characters of A-Z a-z 0-9 _ -")
    return text


def clean_echo(value: Any, depth: int = 0) -> Any:
    """A bounded copy of client input that is always valid JSON and valid UTF-8."""
    if isinstance(value, str):
        return clean_text(value)
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value if -MAX_ID <= value <= MAX_ID else str(value)[:40] + "…"
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if depth >= 4:
        return "…"
    if isinstance(value, list):
        return [clean_echo(v, depth + 1) for v in value[:20]]
    if isinstance(value, dict):
        return {
            clean_text(str(k), 40): clean_echo(v, depth + 1) for k, v in list(value.items())[:20]
        }
    return None


MessageId = (
    Annotated[StrictStr, Field(max_length=64)] | Annotated[StrictInt, Field(ge=-MAX_ID, le=MAX_ID)]
)
Name = Annotated[StrictStr, Field(min_length=1, max_length=200), AfterValidator(clean_name)]
Token = Annotated[StrictStr, AfterValidator(_check_token)]


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
    #: Without a token: a signed-in player takes the seat they hold at this table, from
    #: whichever of their devices holds it now (docs/protocol.md §7.2).
    claim: StrictBool = False
    #: 听 hints for this connection from the answer on (as ``hints`` would ask); None: as it was.
    hints: StrictBool | None = None


class Sit(ClientMessage):
    """Take a free human seat, or the 守醒 seat (RULES §2.1) with the creator's invitation."""

    type: Literal["sit"]
    seat: StrictInt | Literal["shouxing"]
    name: Name | None = None
    invite: Token | None = None
    #: 听 hints for this connection from the answer on (as ``hints`` would ask); None: as it was.
    hints: StrictBool | None = None


class Act(ClientMessage):
    """Take an action, as text (``出三``) or action id, in the decision numbered ``decision``."""

    type: Literal["act"]
    action: Annotated[StrictStr, Field(max_length=40)] | StrictInt
    #: The ``decision`` of the view the action answers: required, so that an action is never
    #: applied to a decision its sender did not see.
    decision: Annotated[StrictInt, Field(ge=0, le=MAX_ID)]
    hand: StrictInt | None = None


class Next(ClientMessage):
    """Ready for the next hand."""

    type: Literal["next"]


class Spectate(ClientMessage):
    """Stop acting for a seat; watch the public view."""

    type: Literal["spectate"]


class Leave(ClientMessage):
    """Give up one's seat for good (离座), between hands; a player alone with bots leaves the
    match, mid-hand too (docs/protocol.md §2.1 ``leave``)."""

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


class Dissolve(ClientMessage):
    """Propose 解散房间: end the match now, if every other player agrees."""

    type: Literal["dissolve"]


class Vote(ClientMessage):
    """Answer the open vote (同意 or 拒绝)."""

    type: Literal["vote"]
    agree: StrictBool


class Rematch(ClientMessage):
    """再来一局: after the match, play another in this room."""

    type: Literal["rematch"]


class Ping(ClientMessage):
    """Keep-alive; answered by ``pong``."""

    type: Literal["ping"]
    t: (
        Annotated[StrictInt, Field(ge=-(2**63), le=2**63)]
        | Annotated[StrictFloat, Field(allow_inf_nan=False)]
        | Annotated[StrictStr, Field(max_length=64)]
        | None
    ) = None


class Chat(ClientMessage):
    """Say a fixed phrase, or show an emote, at one's seat (docs/protocol.md §2.1)."""

    type: Literal["chat"]
    phrase: Annotated[StrictStr, Field(max_length=200), AfterValidator(check_phrase)] | None = None
    emote: Annotated[StrictStr, Field(max_length=200), AfterValidator(check_emote)] | None = None

    @model_validator(mode="after")
    def _one_of(self) -> Chat:
        if (self.phrase is None) == (self.emote is None):
            raise ValueError("a chat names exactly one of phrase or emote")
        return self


AnyClientMessage = (
    Join
    | Sit
    | Act
    | Next
    | Spectate
    | Leave
    | Autoplay
    | Hints
    | NoTimer
    | Dissolve
    | Vote
    | Rematch
    | Chat
    | Ping
)
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
    "dissolve": Dissolve,
    "vote": Vote,
    "rematch": Rematch,
    "chat": Chat,
    "ping": Ping,
}


class ProtocolError(Exception):
    """A client error that is answered with an ``error`` message."""

    def __init__(
        self,
        code: ErrorCode,
        message: str,
        echo: Any = None,
        re: Any = None,
        retry_after: int | None = None,
    ) -> None:
        """An error with its protocol code, text, the offending input and its ``id``; a
        ``rate_limited`` one says in how many seconds to try again."""
        super().__init__(message)
        self.code: ErrorCode = code
        self.message = message
        self.echo = echo
        self.re = re
        self.retry_after = retry_after

    def to_message(self) -> Error:
        """The ``error`` message."""
        return error_message(self.code, self.message, self.echo, self.re, self.retry_after)


def error_message(
    code: ErrorCode, message: str, echo: Any = None, re: Any = None, retry_after: int | None = None
) -> Error:
    """An ``error`` server message; ``echo`` and ``message`` are cleaned of client input."""
    out: Error = {
        "v": PROTOCOL_VERSION,
        "type": "error",
        "code": code,
        "message": clean_text(message, ECHO_LIMIT),
        "echo": clean_echo(echo),
    }
    if retry_after is not None:
        out["retry_after"] = retry_after
    safe = safe_id(re)
    if safe is not None:
        out["re"] = safe
    return out


def _echo_text(text: str) -> str:
    return clean_text(text, ECHO_LIMIT)


def _describe(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors()[:4]:
        where = ".".join(clean_text(str(p), 40) for p in err["loc"]) or "message"
        parts.append(f"{where}: {clean_text(err['msg'], 120)}")
    return "; ".join(parts)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _walk_surrogates(value: Any, depth: int = 0) -> bool:
    """Whether any string (or key) in parsed JSON holds a lone surrogate."""
    if isinstance(value, str):
        return has_surrogate(value)
    if depth > 64:
        return False
    if isinstance(value, list):
        return any(_walk_surrogates(v, depth + 1) for v in value)
    if isinstance(value, dict):
        return any(has_surrogate(k) or _walk_surrogates(v, depth + 1) for k, v in value.items())
    return False


#: The types of a flat message's values (``_flat``).
_FLAT: Final = frozenset({str, int, bool, type(None)})


def _flat(text: str) -> dict[str, Any] | None:
    """The frame's object where ``json.loads`` would read the same: an object of strings,
    integers, booleans and nulls only, as nearly every client message is (read by orjson, which
    refuses a lone surrogate); None for anything else, read by the general path."""
    try:
        data = orjson.loads(text)
    except orjson.JSONDecodeError:
        return None
    if type(data) is not dict:
        return None
    for value in data.values():
        # orjson reads an integer past 64 bits as a float, json.loads as an int: a float, like
        # a nested value, goes the general way.
        if type(value) not in _FLAT:
            return None
    return data


def parse_client(text: str | bytes) -> AnyClientMessage:
    """Parse one frame into a client message, or raise ``ProtocolError``."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ProtocolError("bad_json", "binary frame is not UTF-8 text", None) from exc
    if len(text) > MAX_MESSAGE:
        raise ProtocolError("too_large", f"message over {MAX_MESSAGE} bytes", _echo_text(text))
    flat = _flat(text)
    if flat is not None:
        data: Any = flat  # no lone surrogate: orjson read it
    else:
        try:
            data = json.loads(text, parse_constant=_reject_constant)
        except (ValueError, RecursionError) as exc:
            raise ProtocolError("bad_json", f"not JSON: {exc}", _echo_text(text)) from exc
    if not isinstance(data, dict):
        raise ProtocolError("bad_json", "a message must be a JSON object", data)
    if flat is None and _walk_surrogates(data):
        raise ProtocolError(
            "bad_json", "the message holds a lone surrogate (not valid Unicode text)", data
        )
    re = safe_id(data.get("id"))
    version = data.get("v")
    if type(version) is not int or version != PROTOCOL_VERSION:
        raise ProtocolError(
            "unsupported_version",
            f"unsupported protocol version {clean_echo(version)!r}; this server speaks v=1",
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
    assert isinstance(message, AnyClientMessage)
    if isinstance(message, Join) and message.token is not None and not is_token(message.token):
        # Checked before any comparison: compare_digest refuses non-ASCII text.
        raise ProtocolError("bad_token", "this room holds no seat with that token", data, re)
    return message
