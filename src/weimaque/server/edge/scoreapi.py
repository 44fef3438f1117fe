"""``POST /api/score``: the 算息 page's calculator, the same scorer and errors as ``wmq score``."""

from __future__ import annotations

from typing import Any

from weimaque.errors import (
    InvalidMeld,
    InvalidNotation,
    TooManyCopies,
    UnknownCard,
    WeimaqueError,
    WinningCardError,
    WrongCardCount,
)
from weimaque.rules.registry import get_rules
from weimaque.scoring.scorer import score
from weimaque.server.table.numbers import breakdown_json

#: Error codes by the engine's error class (most specific first), for the page's translations.
_CODES: tuple[tuple[type[WeimaqueError], str], ...] = (
    (UnknownCard, "unknown_card"),
    (TooManyCopies, "too_many_copies"),
    (InvalidMeld, "invalid_meld"),
    (WinningCardError, "winning_card"),
    (WrongCardCount, "wrong_card_count"),
    (InvalidNotation, "bad_hand"),
)
MAX_HAND_TEXT = 400


class ScoreError(WeimaqueError):
    """A refused score request, with a machine-readable code (HTTP 400)."""

    def __init__(self, code: str, message: str) -> None:
        """An error with its code."""
        super().__init__(message)
        self.code = code


def score_request(raw: Any) -> dict[str, Any]:
    """Score ``{"hand": "碰:七七七 …", "rules": "anxiang", "source": "self", "last": false}``."""
    if not isinstance(raw, dict):
        raise ScoreError("bad_request", "the body must be a JSON object")
    unknown = sorted(set(raw) - {"hand", "rules", "source", "last"})
    if unknown:
        raise ScoreError(
            "bad_request", f"unknown fields {unknown}; known: hand, rules, source, last"
        )
    hand = raw.get("hand")
    if not isinstance(hand, str) or len(hand) > MAX_HAND_TEXT:
        raise ScoreError("bad_request", f"hand must be a string of at most {MAX_HAND_TEXT}")
    rules = raw.get("rules", "anxiang")
    source = raw.get("source", "self")
    last = raw.get("last", False)
    if not isinstance(rules, str) or not isinstance(source, str) or not isinstance(last, bool):
        raise ScoreError("bad_request", "rules and source are strings, last a boolean")
    try:
        config = get_rules(rules)
    except WeimaqueError as exc:
        raise ScoreError("bad_rules", str(exc)) from exc
    try:
        breakdown = score(hand, rules=config, source=source, last=last)
    except WeimaqueError as exc:
        code = next((c for kind, c in _CODES if isinstance(exc, kind)), "bad_hand")
        raise ScoreError(code, str(exc)) from exc
    return {"rules": config.id, "breakdown": breakdown_json(breakdown)}


__all__ = ["ScoreError", "score_request"]
