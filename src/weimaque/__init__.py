"""weimaque: the reference implementation of 安乡偎麻雀 (Anxiang Wei Maque), and a platform for
the games played beside it (docs/new-game.md).

The calculator's names (``weimaque.score``, ``weimaque.waits``, ``weimaque.RuleConfig`` …) are
偎麻雀's, from :mod:`weimaque.games.maque`; they load on first use, so that importing the platform
(the server, the arena) does not load a game it does not host.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from weimaque.errors import (
    IllegalAction,
    InvalidNotation,
    RuleConfigError,
    WeimaqueError,
)

if TYPE_CHECKING:
    from weimaque.games.maque.rules import RuleConfig, get_rules, list_rules
    from weimaque.games.maque.scoring import Breakdown, Wait, score
    from weimaque.games.maque.scoring.waits import waits

#: Name → the module of 偎麻雀 it comes from.
_LAZY = {
    "RuleConfig": "weimaque.games.maque.rules",
    "get_rules": "weimaque.games.maque.rules",
    "list_rules": "weimaque.games.maque.rules",
    "Breakdown": "weimaque.games.maque.scoring",
    "Wait": "weimaque.games.maque.scoring",
    "score": "weimaque.games.maque.scoring",
    "waits": "weimaque.games.maque.scoring",
}


def __getattr__(name: str) -> Any:
    """Load a calculator name on first use (PEP 562)."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'weimaque' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "Breakdown",
    "IllegalAction",
    "InvalidNotation",
    "RuleConfig",
    "RuleConfigError",
    "Wait",
    "WeimaqueError",
    "get_rules",
    "list_rules",
    "score",
    "waits",
]
__version__ = "0.1.0"
