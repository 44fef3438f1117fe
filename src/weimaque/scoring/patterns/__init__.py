"""Every 名堂 of RULES §7.2, keyed by its pattern key, in the order of §7.2."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

from weimaque.rules.config import PATTERN_NAMES
from weimaque.scoring.pattern import Pattern
from weimaque.scoring.patterns import red, shape, win, zhuo

_ALL = {p.key: p for p in (*red.PATTERNS, *shape.PATTERNS, *zhuo.PATTERNS, *win.PATTERNS)}

#: Pattern key → pattern, in the order of RULES §7.2.
PATTERNS: Final[Mapping[str, Pattern]] = MappingProxyType({key: _ALL[key] for key in PATTERN_NAMES})

__all__ = ["PATTERNS", "Pattern"]
