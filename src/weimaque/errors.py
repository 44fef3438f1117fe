"""The project's error kinds: every one is a ``ValueError`` that quotes the bad input."""

from __future__ import annotations


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


class IllegalAction(WeimaqueError):
    """An action the rules do not allow in the current state."""
