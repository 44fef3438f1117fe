"""``POST /api/score``: the 算息 page's calculator, through the seam's ``Calculator`` capability
(docs/protocol.md §1): the request's ``game`` (default 偎麻雀) answers it, with the same scorer
and errors as ``wmq score``."""

from __future__ import annotations

from typing import Any

from weimaque.errors import (
    InvalidMeld,
    InvalidNotation,
    RuleConfigError,
    TooManyCopies,
    UnknownCard,
    WeimaqueError,
    WinningCardError,
    WrongCardCount,
    quoted,
)
from weimaque.games import BadRequest, Calculator, UnknownGame, get_game

#: Error codes by the error class (most specific first), for the page's translations.
_CODES: tuple[tuple[type[WeimaqueError], str], ...] = (
    (BadRequest, "bad_request"),
    (RuleConfigError, "bad_rules"),
    (UnknownCard, "unknown_card"),
    (TooManyCopies, "too_many_copies"),
    (InvalidMeld, "invalid_meld"),
    (WinningCardError, "winning_card"),
    (WrongCardCount, "wrong_card_count"),
    (InvalidNotation, "bad_hand"),
)
#: The game a request without ``game`` asks (the 算息 page's first calculator).
DEFAULT_GAME = "maque"


class ScoreError(WeimaqueError):
    """A refused score request, with a machine-readable code (HTTP 400)."""

    def __init__(self, code: str, message: str) -> None:
        """An error with its code."""
        super().__init__(message)
        self.code = code


def score_request(raw: Any) -> dict[str, Any]:
    """Answer ``{"game": "sandingguai", "table": "…"}`` or 偎麻雀's ``{"hand": "碰:七七七 …",
    "rules": "anxiang", "source": "self", "last": false}`` with the game's explained result."""
    if not isinstance(raw, dict):
        raise ScoreError("bad_request", "the body must be a JSON object")
    request = dict(raw)
    name = request.pop("game", DEFAULT_GAME)
    if not isinstance(name, str):
        raise ScoreError("bad_game", f"game must be a game id, not {quoted(name)}")
    try:
        game = get_game(name)
    except UnknownGame as exc:
        raise ScoreError("bad_game", str(exc)) from exc
    if "calculate" not in game.info.capabilities or not isinstance(game, Calculator):
        raise ScoreError("bad_game", f"game {quoted(name)} has no calculator")
    try:
        return game.calculate(request)
    except WeimaqueError as exc:
        code = next((c for kind, c in _CODES if isinstance(exc, kind)), "bad_hand")
        if code == "bad_hand" and "table" in request:
            code = "bad_table"
        raise ScoreError(code, str(exc)) from exc


__all__ = ["ScoreError", "score_request"]
