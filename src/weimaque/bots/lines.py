"""The lines a bot is sent, protocol ``weimaque-bot/1`` (docs/bot-protocol.md), typed once.

A program playing a seat (:mod:`weimaque.bots.external`) and a remote bot of a server room
(``weimaque.server.remote``) get the same lines, built here. ``KINDS`` lists them; a test holds
them to the protocol's table. Everything a line carries comes from the seat's own view.

No ``from __future__ import annotations``: the ``NotRequired`` marks must be seen at run time.
"""

from collections.abc import Mapping
from typing import Any, Final, Literal, NotRequired, TypedDict, get_args

from weimaque.rules.config import RuleConfig

PROTOCOL: Final = "weimaque-bot/1"
JSON = dict[str, Any]


class Hello(TypedDict):
    type: Literal["hello"]
    protocol: str
    seat: int
    rules: str
    options: JSON
    time_limit_ms: int | None


class Event(TypedDict):
    type: Literal["event"]
    event: JSON


class Request(TypedDict):
    type: Literal["request"]
    id: int
    seat: int
    time_limit_ms: int | None
    observation: JSON
    legal: list[str]
    legal_ids: list[int]


class End(TypedDict):
    type: Literal["end"]
    observation: JSON | None
    hand_end: NotRequired[JSON]


class NewHand(TypedDict):
    type: Literal["new_hand"]


class Error(TypedDict):
    type: Literal["error"]
    code: str | None
    message: str | None


Line = Hello | Event | Request | End | NewHand | Error

#: Each line's ``type`` and its ``TypedDict``.
KINDS: Final[dict[str, type]] = {
    get_args(kind.__annotations__["type"])[0]: kind for kind in get_args(Line)
}


def hello(seat: int, rules: RuleConfig, time_limit_ms: int | None) -> Hello:
    """The first line: the protocol, the seat, the rules and every rule option of the hand."""
    return {
        "type": "hello",
        "protocol": PROTOCOL,
        "seat": seat,
        "rules": rules.id,
        "options": rules.options(),
        "time_limit_ms": time_limit_ms,
    }


def event(view: Mapping[str, Any]) -> Event:
    """One event of the hand as the seat sees it (``Event.view(seat)``)."""
    return {"type": "event", "event": dict(view)}


def request(
    request_id: int,
    seat: int,
    time_limit_ms: int | None,
    observation: Mapping[str, Any],
    legal: list[str],
    legal_ids: list[int],
) -> Request:
    """The seat must decide: its observation and its legal actions (as text and as ids)."""
    return {
        "type": "request",
        "id": request_id,
        "seat": seat,
        "time_limit_ms": time_limit_ms,
        "observation": dict(observation),
        "legal": legal,
        "legal_ids": legal_ids,
    }


def end(observation: Mapping[str, Any] | None, hand_end: JSON | None = None) -> End:
    """The hand is over: the final view (in a server room also the ``hand_end`` payload)."""
    out: End = {"type": "end", "observation": None if observation is None else dict(observation)}
    if hand_end is not None:
        out["hand_end"] = hand_end
    return out


def new_hand() -> NewHand:
    """The same program plays another hand: events start over."""
    return {"type": "new_hand"}


def error(code: str | None, message: str | None) -> Error:
    """A refusal or a fault the bot is told of (in a server room)."""
    return {"type": "error", "code": code, "message": message}


__all__ = [
    "KINDS",
    "PROTOCOL",
    "End",
    "Error",
    "Event",
    "Hello",
    "Line",
    "NewHand",
    "Request",
    "end",
    "error",
    "event",
    "hello",
    "new_hand",
    "request",
]
