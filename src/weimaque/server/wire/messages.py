"""Every message the server sends on a player's WebSocket, typed (docs/protocol.md §2.2).

Each kind is a ``TypedDict`` built by the function of its name; ``ServerMessage`` is their
union, listed once, and docs/protocol.md §2.2 documents each kind and each of its fields (a
test holds the two together). ``re``, the ``id`` of the client message a reply answers, is
present only in replies. What a field holds is described in the protocol's text; the nested
objects (an observation, RoomInfo, a breakdown) stay plain JSON objects here.

No ``from __future__ import annotations``: the ``NotRequired`` marks must be seen at run time,
where ``__required_keys__`` says which fields every message of a kind carries.
"""

from typing import Any, Final, Literal, NotRequired, TypedDict, get_args

from weimaque.server.wire.common import PROTOCOL_VERSION, ErrorCode, SeatId, safe_id

#: An ``id`` sent back as ``re`` (:func:`weimaque.server.wire.protocol.safe_id`).
MessageId = str | int
JSON = dict[str, Any]


class Actor(TypedDict):
    """Who acted and how: ``auto`` for a 托管 decision."""

    seat: int
    action: str
    auto: bool


class LegalAction(TypedDict):
    """One legal action: its text and its id (:mod:`weimaque.games.maque.game.actions`)."""

    text: str
    id: int


class Timer(TypedDict):
    """A running clock: its deadline (epoch ms), what is left of it and its length."""

    deadline_ms: int
    left_ms: int
    seconds: int


class You(TypedDict):
    """The connection's own place at the table."""

    seat: SeatId | None
    role: Literal["player", "shouxing", "spectator"]
    name: str | None
    held: SeatId | None


class ViewFields(TypedDict):
    """The view of the hand that ``snapshot`` and ``events`` both carry."""

    observation: JSON | None
    legal_actions: list[LegalAction]
    to_act: bool
    timer: Timer | None
    turn_timer: Timer | None
    numbers: JSON | None
    hints: NotRequired[JSON | None]


class Welcome(TypedDict):
    v: int
    type: Literal["welcome"]
    re: NotRequired[MessageId]
    room_id: str
    seat: SeatId | None
    role: Literal["player", "shouxing", "spectator"]
    token: str | None
    name: str | None
    held: SeatId | None
    protocol: int


class Snapshot(ViewFields):
    v: int
    type: Literal["snapshot"]
    re: NotRequired[MessageId]
    room: JSON
    you: You
    hand_number: int
    decision: int | None
    history: list[JSON]
    event_count: int
    match: JSON
    last_hand: JSON | None
    commitment: str | None


# ``from`` is a Python keyword: this kind is spelled the functional way.
Events = TypedDict(
    "Events",
    {
        "v": int,
        "type": Literal["events"],
        "re": NotRequired[MessageId],
        "hand_number": int,
        "decision": int | None,
        "from": int,
        "events": list[JSON],
        "actor": Actor | None,
        "observation": JSON | None,
        "legal_actions": list[LegalAction],
        "to_act": bool,
        "timer": Timer | None,
        "turn_timer": Timer | None,
        "numbers": JSON | None,
        "hints": NotRequired[JSON | None],
    },
)


class Error(TypedDict):
    v: int
    type: Literal["error"]
    re: NotRequired[MessageId]
    code: ErrorCode
    message: str
    echo: Any
    #: With ``rate_limited``: whole seconds until it may be asked again.
    retry_after: NotRequired[int]


class Ack(TypedDict):
    v: int
    type: Literal["ack"]
    ack: MessageId | None
    actor: Actor
    #: With a 出: the actor's view once the card has left its hand (``answered_view``).
    observation: NotRequired[JSON]


class HandEnd(TypedDict):
    v: int
    type: Literal["hand_end"]
    hand_number: int
    result: JSON | None
    #: A game's own end (偎麻雀's, through its ``"table"`` capability): every seat's cards face
    #: up, their melds, the dead seats and the breakdown.
    hands: NotRequired[list[str]]
    melds: NotRequired[list[list[JSON]]]
    dead: NotRequired[list[bool]]
    breakdown: NotRequired[JSON | None]
    #: A game without one: the all-seeing view of the finished hand (``Hand.view("all")``).
    view: NotRequired[JSON]
    settlement: JSON
    ledger: JSON
    scores: list[int]
    final_pool_share: list[int] | None
    match_over: bool
    record_url: str
    fairness: JSON | None


class MatchEnd(TypedDict):
    v: int
    type: Literal["match_end"]
    match_number: int
    dissolved: bool
    #: How a match ended early: "vote" (解散), "leave" or "idle"; None when played out.
    ended_by: str | None
    hands_played: int
    ledger: JSON
    scores: list[int]
    final_pool_share: list[int] | None
    ranking: list[int]
    hands: list[JSON]
    seed: int
    seed_text: str


class VoteResult(TypedDict):
    v: int
    type: Literal["vote_result"]
    kind: Literal["dissolve"]
    passed: bool
    by: SeatId
    refused_by: list[SeatId]
    #: The silent seats whose player was not connected when the time was up (a lapsed vote).
    absent: list[SeatId]


class Room(TypedDict):
    v: int
    type: Literal["room"]
    re: NotRequired[MessageId]
    room: JSON


class Pong(TypedDict):
    v: int
    type: Literal["pong"]
    re: NotRequired[MessageId]
    t: Any
    server_ms: int


class Elsewhere(TypedDict):
    v: int
    type: Literal["elsewhere"]
    seat: SeatId


class Chat(TypedDict):
    v: int
    type: Literal["chat"]
    seat: SeatId
    phrase: str | None
    emote: str | None


ServerMessage = (
    Welcome
    | Snapshot
    | Events
    | Ack
    | HandEnd
    | MatchEnd
    | VoteResult
    | Room
    | Error
    | Pong
    | Chat
    | Elsewhere
)

#: Each kind's name (its ``type``) and its ``TypedDict``.
KINDS: Final[dict[str, type]] = {
    get_args(kind.__annotations__["type"])[0]: kind for kind in get_args(ServerMessage)
}


def _re(message: Any, re: object) -> None:
    """Add ``re`` to a reply (a message that answers nothing has none)."""
    safe = safe_id(re)
    if safe is not None:
        message["re"] = safe


def welcome(
    re: object,
    *,
    room_id: str,
    seat: SeatId | None,
    role: Literal["player", "shouxing", "spectator"],
    token: str | None,
    name: str | None,
    held: SeatId | None,
) -> Welcome:
    """Which seat (and token) a connection holds now."""
    out: Welcome = {
        "v": PROTOCOL_VERSION,
        "type": "welcome",
        "room_id": room_id,
        "seat": seat,
        "role": role,
        "token": token,
        "name": name,
        "held": held,
        "protocol": PROTOCOL_VERSION,
    }
    _re(out, re)
    return out


def snapshot(
    re: object,
    view: ViewFields,
    *,
    room: JSON,
    you: You,
    hand_number: int,
    decision: int | None,
    history: list[JSON],
    match: JSON,
    last_hand: JSON | None,
    commitment: str | None,
) -> Snapshot:
    """Everything a connection needs to draw the table from nothing."""
    out: Snapshot = {
        "v": PROTOCOL_VERSION,
        "type": "snapshot",
        "room": room,
        "you": you,
        "hand_number": hand_number,
        "decision": decision,
        "observation": view["observation"],
        "legal_actions": view["legal_actions"],
        "to_act": view["to_act"],
        "timer": view["timer"],
        "turn_timer": view["turn_timer"],
        "numbers": view["numbers"],
        "history": history,
        "event_count": len(history),
        "match": match,
        "last_hand": last_hand,
        "commitment": commitment,
    }
    if "hints" in view:
        out["hints"] = view["hints"]
    _re(out, re)
    return out


def events(
    re: object,
    view: ViewFields,
    *,
    hand_number: int,
    decision: int | None,
    first: int,
    events: list[JSON],
    actor: Actor | None,
) -> Events:
    """New events of the hand (from the viewer's ``first`` on) and the view after them."""
    out: Events = {
        "v": PROTOCOL_VERSION,
        "type": "events",
        "hand_number": hand_number,
        "decision": decision,
        "from": first,
        "events": events,
        "actor": actor,
        "observation": view["observation"],
        "legal_actions": view["legal_actions"],
        "to_act": view["to_act"],
        "timer": view["timer"],
        "turn_timer": view["turn_timer"],
        "numbers": view["numbers"],
    }
    if "hints" in view:
        out["hints"] = view["hints"]
    _re(out, re)
    return out


def ack(ack_id: object, actor: Actor, observation: JSON | None = None) -> Ack:
    """An action is accepted (and, with a store, written); ``observation``: the actor's view as
    its answer leaves it (sent with a 出, docs/protocol.md §2.3)."""
    out: Ack = {"v": PROTOCOL_VERSION, "type": "ack", "ack": safe_id(ack_id), "actor": actor}
    if observation is not None:
        out["observation"] = observation
    return out


def hand_end(payload: JSON) -> HandEnd:
    """A hand ended: ``payload`` is the room's ``last_hand`` (``Views.hand_end``)."""
    out: Any = {"v": PROTOCOL_VERSION, "type": "hand_end", **payload}
    missing = HandEnd.__required_keys__ - out.keys()
    assert not missing, f"hand_end without {sorted(missing)}"
    result: HandEnd = out
    return result


def match_end(
    *,
    match_number: int,
    dissolved: bool,
    ended_by: str | None = None,
    hands_played: int,
    ledger: JSON,
    scores: list[int],
    final_pool_share: list[int] | None,
    ranking: list[int],
    hands: list[JSON],
    seed: int,
) -> MatchEnd:
    """A match ended (played out or dissolved), with its seed now shown."""
    return {
        "v": PROTOCOL_VERSION,
        "type": "match_end",
        "match_number": match_number,
        "dissolved": dissolved,
        "ended_by": ended_by,
        "hands_played": hands_played,
        "ledger": ledger,
        "scores": scores,
        "final_pool_share": final_pool_share,
        "ranking": ranking,
        "hands": hands,
        "seed": seed,
        "seed_text": str(seed),
    }


def elsewhere(seat: SeatId) -> Elsewhere:
    """The seat this connection played is now played from another of its player's devices."""
    return {"v": PROTOCOL_VERSION, "type": "elsewhere", "seat": seat}


def vote_result(
    *,
    passed: bool,
    by: SeatId,
    refused_by: list[SeatId],
    absent: list[SeatId] | None = None,
) -> VoteResult:
    """A vote to 解散 closed."""
    return {
        "v": PROTOCOL_VERSION,
        "type": "vote_result",
        "kind": "dissolve",
        "passed": passed,
        "by": by,
        "refused_by": refused_by,
        "absent": absent or [],
    }


def room(info: JSON, re: object = None) -> Room:
    """The room changed (or, with ``re``, the answer to the sender's request)."""
    out: Room = {"v": PROTOCOL_VERSION, "type": "room", "room": info}
    _re(out, re)
    return out


def pong(re: object, t: Any, server_ms: int) -> Pong:
    """The answer to a ``ping``: its ``t`` and the server's clock."""
    out: Pong = {"v": PROTOCOL_VERSION, "type": "pong", "t": t, "server_ms": server_ms}
    _re(out, re)
    return out


def chat(seat: SeatId, *, phrase: str | None, emote: str | None) -> Chat:
    """A seat said a phrase or showed an emote (weimaque.server.wire.quickchat), to everyone."""
    return {"v": PROTOCOL_VERSION, "type": "chat", "seat": seat, "phrase": phrase, "emote": emote}


__all__ = [
    "KINDS",
    "Ack",
    "Actor",
    "Chat",
    "Error",
    "Events",
    "HandEnd",
    "LegalAction",
    "MatchEnd",
    "Pong",
    "Room",
    "ServerMessage",
    "Snapshot",
    "Timer",
    "ViewFields",
    "VoteResult",
    "Welcome",
    "You",
    "ack",
    "chat",
    "events",
    "hand_end",
    "match_end",
    "pong",
    "room",
    "snapshot",
    "vote_result",
    "welcome",
]
