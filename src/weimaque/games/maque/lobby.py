"""偎麻雀's presets as the lobby's 偎麻雀 form reads them (``GET /api/presets``, docs/protocol.md
§1), offered to a server through the seam's ``"presets"`` capability."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from weimaque.games.maque.bots import REGISTRY, SPEC_BOUNDS
from weimaque.games.maque.rules.config import OPTION_NAMES, PATTERN_NAMES, RuleConfig
from weimaque.games.maque.rules.registry import DEFAULT_PRESET, list_rules


def preset_json(config: RuleConfig, room_options: Sequence[str]) -> dict[str, Any]:
    """One preset: its names, family, the options a room may change and its 名堂."""
    return {
        "id": config.id,
        "name": config.name,
        "name_en": config.name_en,
        "description": config.description,
        "description_zh": config.description_zh,
        # "seed": a preset of RULES §7.3; "app": one of the apps' tiers of RULES §7.4.
        "family": config.mingtang_rules,
        "aliases": list(config.aliases),
        "options": {k: v for k, v in config.options().items() if k in room_options},
        "patterns": {k: str(v) for k, v in config.patterns.items()},
        "optional_patterns": {k: str(v) for k, v in config.optional_patterns.items()},
    }


def option_types(room_options: Sequence[str]) -> dict[str, Any]:
    """Each option a room may set: its choices, or ``"bool"`` / ``"int"``."""
    base = RuleConfig()
    out: dict[str, Any] = {}
    for name in room_options:
        if name not in OPTION_NAMES:
            raise ValueError(f"{name!r} is no option of 偎麻雀's rules")
        value = getattr(base, name)
        if name == "dealer_rotation":
            out[name] = ["keep_or_next", "winner_deals"]
        elif name == "first_dealer":
            out[name] = ["seat0", "random"]
        elif name == "liuzi_when":  # RULES §8.5.1
            out[name] = ["deal", "chou", "start_and_chou"]
        elif name == "shouxing_sees":  # RULES §2.1.2
            out[name] = ["all", "dealer"]
        else:
            out[name] = "bool" if isinstance(value, bool) else "int"
    out["enable_patterns"] = "list of keys of the preset's optional_patterns"
    out["disable_patterns"] = "list of keys of the preset's patterns"
    return out


def presets_info(room_options: Sequence[str]) -> dict[str, Any]:
    """The default preset, every preset a room may choose, the options' types, the 名堂 names
    (the page labels its checkboxes with them) and the bots a room may seat."""
    return {
        "default": DEFAULT_PRESET,
        "presets": [preset_json(c, room_options) for c in list_rules(app=True)],
        "room_options": option_types(room_options),
        "pattern_names": dict(PATTERN_NAMES),
        "bots": sorted(k for k in REGISTRY if k in SPEC_BOUNDS),
    }


__all__ = ["option_types", "preset_json", "presets_info"]
