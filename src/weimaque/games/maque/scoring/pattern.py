"""The shape of one 名堂: a pure function of the context, with declared family and replacements."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from weimaque.games.maque.rules.config import PATTERN_NAMES
from weimaque.games.maque.scoring.context import Context


@dataclass(frozen=True, slots=True)
class Pattern:
    """One 名堂 (RULES §7.2).

    ``units`` says how many times it applies (0: not at all; 口 for 印胡, reds over 9 for 多红).
    ``replaces`` lists keys it cancels when it applies; within a ``family`` only the highest value
    scores. ``alt`` picks the preset's alternative value (单吊 when 对子胡).
    """

    key: str
    units: Callable[[Context], int]
    family: str | None = None
    replaces: tuple[str, ...] = ()
    alt: Callable[[Context], bool] | None = None

    @property
    def name(self) -> str:
        """The Chinese name."""
        return PATTERN_NAMES[self.key]


def flag(test: Callable[[Context], bool]) -> Callable[[Context], int]:
    """Units of a yes/no pattern."""

    def units(ctx: Context) -> int:
        return 1 if test(ctx) else 0

    return units
