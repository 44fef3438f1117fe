"""weimaque: the reference implementation of 安乡偎麻雀 (Anxiang Wei Maque)."""

from weimaque.errors import (
    IllegalAction,
    InvalidNotation,
    RuleConfigError,
    WeimaqueError,
)
from weimaque.rules import RuleConfig, get_rules, list_rules
from weimaque.scoring import Breakdown, Wait, score, waits

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
