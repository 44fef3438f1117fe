"""The preset registry: TOML files under ``presets/``, looked up by id or alias (RULES §7.3)."""

from __future__ import annotations

import functools
from importlib import resources
from typing import Final

from weimaque import presets
from weimaque.errors import RuleConfigError, quoted
from weimaque.games.maque.rules.config import PatternValue, RuleConfig, check_options

DEFAULT_PRESET: Final = "anxiang"

#: Preset ids in the order they are listed (RULES §7.3).
PRESET_IDS: Final = (
    "anxiang",
    "anxiang-old",
    "laomingtang",
    "xiaozhuo",
    "dazhuo",
    "pinghu",
    "xiaomingtang",
    "xiaozuo",
    "dazuo",
    "jiaqiang",
    "chaoji",
)

#: The app tiers of RULES §7.4 (全名堂, 钻石, 至尊), listed after the presets of §7.3.
APP_PRESET_IDS: Final = ("quanmingtang", "zuanshi", "zhizun")

_TOP_KEYS: Final = frozenset(
    {
        "id",
        "name",
        "name_en",
        "source",
        "aliases",
        "description",
        "description_zh",
        "options",
        "patterns",
        "optional_patterns",
        "names",
    }
)


def parse_preset(text: str, origin: str = "<string>") -> RuleConfig:
    """Build a ``RuleConfig`` from the text of one preset TOML file."""
    data = presets.read_preset(text, origin, _TOP_KEYS)
    options = check_options(data.get("options", {}))
    patterns = {k: PatternValue.from_toml(k, v) for k, v in data.get("patterns", {}).items()}
    optional = {
        k: PatternValue.from_toml(k, v) for k, v in data.get("optional_patterns", {}).items()
    }
    names = data.get("names", {})
    if not (isinstance(names, dict) and all(isinstance(v, str) for v in names.values())):
        raise RuleConfigError(f"{origin}: 'names' must be a table of display names")
    return RuleConfig(
        id=data["id"],
        name=data["name"],
        name_en=data["name_en"],
        source=data["source"],
        description=data["description"],
        description_zh=data["description_zh"],
        aliases=data["aliases"],
        patterns=patterns,
        optional_patterns=optional,
        names=names,
        **options,
    )


@functools.cache
def _load_all() -> dict[str, RuleConfig]:
    folder = resources.files("weimaque.games.maque.rules") / "presets"
    out: dict[str, RuleConfig] = {}
    for preset_id in (*PRESET_IDS, *APP_PRESET_IDS):
        resource = folder / f"{preset_id}.toml"
        config = parse_preset(resource.read_text(encoding="utf-8"), f"presets/{preset_id}.toml")
        if config.id != preset_id:
            raise RuleConfigError(f"presets/{preset_id}.toml declares id {config.id!r}")
        out[preset_id] = config
    return out


@functools.cache
def _by_name() -> dict[str, RuleConfig]:
    table: dict[str, RuleConfig] = {}
    for config in _load_all().values():
        for name in (config.id, *config.aliases):
            if name in table:
                raise RuleConfigError(f"preset name {name!r} is used twice")
            table[name] = config
    return table


def get_rules(name: str | RuleConfig = DEFAULT_PRESET) -> RuleConfig:
    """A preset by id or alias; a ``RuleConfig`` is returned as is."""
    if isinstance(name, RuleConfig):
        return name
    config = _by_name().get(name) if isinstance(name, str) else None
    if config is None:
        raise RuleConfigError(
            f"unknown rules preset {quoted(name)}; "
            f"known: {', '.join((*PRESET_IDS, *APP_PRESET_IDS))}"
        )
    return config


def list_rules(*, app: bool = False) -> list[RuleConfig]:
    """The presets of RULES §7.3 in their order; with ``app``, the app tiers of §7.4 after them."""
    ids = (*PRESET_IDS, *APP_PRESET_IDS) if app else PRESET_IDS
    table = _load_all()
    return [table[i] for i in ids]


def overrides_of(config: RuleConfig) -> dict[str, object]:
    """What a rule set changes from its preset: options, and 名堂 enabled or disabled."""
    base = get_rules(config.id)
    out: dict[str, object] = {
        name: value for name, value in config.options().items() if value != getattr(base, name)
    }
    enabled = [k for k in config.patterns if k not in base.patterns]
    disabled = [k for k in base.patterns if k not in config.patterns]
    if enabled:
        out["enable_patterns"] = enabled
    if disabled:
        out["disable_patterns"] = disabled
    return out


def rules_with(preset: str, overrides: dict[str, object] | None = None) -> RuleConfig:
    """A preset with room overrides applied (the inverse of ``overrides_of``)."""
    return get_rules(preset).with_options(**(overrides or {}))
