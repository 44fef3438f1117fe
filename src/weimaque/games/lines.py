"""The lines a bot is sent, protocol ``weimaque-bot/1`` (docs/bot-protocol.md), typed once.

A program playing a seat (``cmd:`` bots, :mod:`weimaque.games.maque.bots.external`) and a
remote bot of a server room of any game (``weimaque.server.edge.remote``) get the same lines,
built here, and answer with the same line, read here (:func:`read_answer`). ``KINDS`` lists the
lines sent; a test holds them to the protocol's table. Everything a line carries comes from the
seat's own view.

No ``from __future__ import annotations``: the ``NotRequired`` marks must be seen at run time.
"""

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal, NotRequired, TypedDict, get_args

PROTOCOL: Final = "weimaque-bot/1"
JSON = dict[str, Any]
#: How much of a bad line an error quotes.
QUOTE: Final = 200


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


def hello(seat: int, rules: str, options: Mapping[str, Any], time_limit_ms: int | None) -> Hello:
    """The first line: the protocol, the seat, the rules (a preset's id) and every rule option
    of the hand."""
    return {
        "type": "hello",
        "protocol": PROTOCOL,
        "seat": seat,
        "rules": rules,
        "options": dict(options),
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


@dataclass(frozen=True, slots=True)
class Answer:
    """A bot's answer to a request: its ``id`` (None when not an integer) and its action, the
    notation (``"出三"``) or an action id (docs/env.md)."""

    id: int | None
    action: str | int


def read_answer(line: str) -> Answer | str:
    """The answer of one line, or what is wrong with it (quoting the line)."""
    quoted = line.strip()[:QUOTE]
    try:
        data = json.loads(line)
    except (ValueError, RecursionError):  # RecursionError: nested past Python's limit
        return f"not JSON: {quoted!r}"
    if not isinstance(data, Mapping):
        return f"not a JSON object: {quoted!r}"
    rid = data.get("id")
    rid = rid if isinstance(rid, int) and not isinstance(rid, bool) else None
    action = data.get("action")
    if isinstance(action, str):
        return Answer(rid, action)
    action_id = data.get("action_id")
    if isinstance(action_id, int) and not isinstance(action_id, bool):
        return Answer(rid, action_id)
    return f"no 'action' string or 'action_id' int: {quoted!r}"
