"""Every 名堂 of RULES §7.2 and §7.4.1, keyed by its pattern key, in the order of PATTERN_NAMES.

``PATTERNS`` are the meanings of RULES §7.2 (``mingtang_rules = "seed"``); ``APP_PATTERNS`` the
same table with the meanings of RULES §7.4.2 (``"app"``) in place: the two differ only in the
patterns the app modules declare.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

from weimaque.games.maque.rules.config import PATTERN_NAMES
from weimaque.games.maque.scoring.pattern import Pattern
from weimaque.games.maque.scoring.patterns import deal, ding, duidao, hand, red, shape, win, zhuo

_ALL = {
    p.key: p
    for p in (
        *red.PATTERNS,
        *shape.PATTERNS,
        *zhuo.PATTERNS,
        *win.PATTERNS,
        *hand.PATTERNS,
        *ding.PATTERNS,
        *duidao.PATTERNS,
        *deal.PATTERNS,
    )
}
_APP = {p.key: p for p in (*zhuo.APP_PATTERNS, *win.APP_PATTERNS, *duidao.APP_PATTERNS)}

#: Pattern key → pattern, in the order of PATTERN_NAMES (RULES §7.2, §7.4.1).
PATTERNS: Final[Mapping[str, Pattern]] = MappingProxyType({key: _ALL[key] for key in PATTERN_NAMES})

#: The same under ``mingtang_rules = "app"`` (RULES §7.4.2).
APP_PATTERNS: Final[Mapping[str, Pattern]] = MappingProxyType(
    {key: _APP.get(key, _ALL[key]) for key in PATTERN_NAMES}
)

_BY_RULES: Final[Mapping[str, Mapping[str, Pattern]]] = MappingProxyType(
    {"seed": PATTERNS, "app": APP_PATTERNS}
)


def patterns_for(mingtang_rules: str) -> Mapping[str, Pattern]:
    """The pattern table of a ``mingtang_rules`` value (RULES §7.4.2)."""
    return _BY_RULES[mingtang_rules]


__all__ = ["APP_PATTERNS", "PATTERNS", "Pattern", "patterns_for"]
