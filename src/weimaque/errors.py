"""The project's error kinds: every one is a ``ValueError`` that quotes the bad input."""

from __future__ import annotations

from typing import Any


def quoted(value: Any, limit: int = 60) -> str:
    """``repr(value)`` cut to ``limit`` characters, for error messages that quote input.

    Never fails and never grows with the input: an integer of thousands of digits is shown by
    its size, a long string or a deep structure by its start.
    """
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 200:
        return f"<an integer of about {int(value.bit_length() * 0.30103)} digits>"
    if isinstance(value, str):
        text = ascii(value[: limit + 1])
    elif isinstance(value, (list, tuple, dict)):
        text = _short(value, limit)
    else:
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _short(value: Any, limit: int, depth: int = 0) -> str:
    """A bounded ``repr`` of nested lists and dicts (what a JSON document holds)."""
    if depth > 3 or limit <= 0:
        return "…"
    if isinstance(value, list | tuple):
        parts = [_short(v, limit // 2, depth + 1) for v in list(value[:8])]
        more = ", …" if len(value) > 8 else ""
        return "[" + ", ".join(parts) + more + "]"
    if isinstance(value, dict):
        items = list(value.items())[:8]
        parts = [f"{quoted(k, 20)}: {_short(v, limit // 2, depth + 1)}" for k, v in items]
        more = ", …" if len(value) > 8 else ""
        return "{" + ", ".join(parts) + more + "}"
    return quoted(value, max(8, limit))


class WeimaqueError(ValueError):
    """Base class of every error this package raises on bad input."""


class InvalidNotation(WeimaqueError):
    """Text that is not valid card or hand notation (RULES §1.3, §1.4)."""


class UnknownCard(InvalidNotation):
    """A character that is no card face, case letter or digit."""


class TooManyCopies(InvalidNotation):
    """A face appears more than four times in one description (RULES §1.3)."""


class InvalidMeld(InvalidNotation):
    """A meld segment that is not a valid group (RULES §1.2, §1.4)."""


class WinningCardError(InvalidNotation):
    """The ``win:`` segment is missing, doubled, or not exactly one card (RULES §1.4)."""


class WrongCardCount(InvalidNotation):
    """A hand description whose cards do not total 20 (RULES §1.4)."""


class RuleConfigError(WeimaqueError):
    """An unknown preset, unknown option, or invalid option value (RULES §7.3)."""


class RecordError(WeimaqueError):
    """A document that is not a hand or match record: too large, malformed, out of range."""


class IllegalAction(WeimaqueError):
    """An action the rules do not allow in the current state."""
