"""Rules as data: ``RuleConfig`` and the preset registry (RULES §7.3)."""

from weimaque.games.maque.rules.config import PATTERN_NAMES, PatternValue, RuleConfig
from weimaque.games.maque.rules.registry import (
    APP_PRESET_IDS,
    DEFAULT_PRESET,
    PRESET_IDS,
    get_rules,
    list_rules,
    overrides_of,
    parse_preset,
    rules_with,
)

__all__ = [
    "APP_PRESET_IDS",
    "DEFAULT_PRESET",
    "PATTERN_NAMES",
    "PRESET_IDS",
    "PatternValue",
    "RuleConfig",
    "get_rules",
    "list_rules",
    "overrides_of",
    "parse_preset",
    "rules_with",
]
