"""What both directions of a player's WebSocket share (docs/protocol.md §2): the protocol's
version, its error codes, how a seat is named, and the ``id`` a reply may carry back.

Below :mod:`.protocol` (what a client sends) and :mod:`.messages` (what the server sends).
"""

from __future__ import annotations

from typing import Final, Literal

PROTOCOL_VERSION: Final = 1
#: The largest integer a message carries as it is (JSON's safe integers).
MAX_ID: Final = 2**53

#: A seat: 0, 1 or 2 at the table, or ``"shouxing"``, the 守醒's (docs/protocol.md §0).
SeatId = int | Literal["shouxing"]

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
    "rate_limited",
    "forbidden",
    "room_full",
    "vote_open",
    "no_vote",
    "already_voted",
    "match_not_over",
    "storage_unavailable",
    "internal",
]


def has_surrogate(text: str) -> bool:
    """Whether ``text`` holds a lone surrogate (it cannot be sent as UTF-8)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def safe_id(raw: object) -> str | int | None:
    """A message ``id`` that may be sent back as ``re``: a short clean string or a safe int."""
    if isinstance(raw, bool):
        return None
    if isinstance(raw, int):
        return raw if -MAX_ID <= raw <= MAX_ID else None
    if isinstance(raw, str) and len(raw) <= 64 and not has_surrogate(raw):
        return raw
    return None


__all__ = [
    "MAX_ID",
    "PROTOCOL_VERSION",
    "ErrorCode",
    "SeatId",
    "has_surrogate",
    "safe_id",
]
