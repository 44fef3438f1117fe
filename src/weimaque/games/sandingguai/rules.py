"""``RuleConfig`` of 三丁拐: every option of SDG §11 as one frozen, validated value, and the
preset registry (``presets/*.toml``, looked up by id or alias).

Rules are data: the engine reads these fields and never asks which preset it plays.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from types import MappingProxyType
from typing import Any, Final

import weimaque.presets as presets
from weimaque.errors import RuleConfigError, quoted

DEFAULT_PRESET: Final = "sandingguai"
#: Preset ids in the order they are listed (SDG §11).
PRESET_IDS: Final = ("sandingguai", "baike-3p")


@dataclass(frozen=True, slots=True)
class RuleConfig:
    """A complete, validated rule set of 三丁拐 (SDG §11); defaults are preset ``sandingguai``."""

    id: str = "sandingguai"
    name: str = "三丁拐"
    name_en: str = "Sandingguai"
    source: str = ""
    description: str = ""
    description_zh: str = ""
    aliases: tuple[str, ...] = ()

    # SDG §1.1, §5.3, §2.4
    tiles: int = 108
    max_suits: int = 2
    dingque: bool = False
    # SDG §6.2: 番 (fan_mode "add": F = max(pinghu, qingyise + shape + baoting); "highest":
    # the table value of (清一色?, shape) + baoting)
    fan_mode: str = "add"
    fan_pinghu: int = 1
    fan_daduizi: int = 5
    fan_qidui: int = 10
    fan_longqidui: int = 20
    fan_qingyise: int = 10
    fan_qing_daduizi: int = 15
    fan_qing_qidui: int = 20
    fan_qing_longqidui: int = 30
    fan_baoting: int = 10
    fan_dandiao: int = 0
    fan_tianhu: int = 0
    fan_dihu: int = 0
    # SDG §9.2.1
    zimo_bonus: int = 1
    gangshanghua_bonus: int = 0
    # SDG §5.1, §5.2, §9.1
    passport: str = "kong_or_big"
    passport_from_baoting_discarder: bool = True
    pass_lock: str = "same_face"
    multi_ron: bool = True
    # SDG §9.2.1, §7.9
    qianggang_pay: str = "all"
    qianggang_burn: str = "kong_only"
    repao_burn: bool = True
    repao_transfer_kong: bool = True
    # SDG §4.6, §9.2.2
    baoting_window: str = "first_discard"
    shabao: int = 10
    shabao_on_zimo: bool = False
    # SDG §7
    wugu: bool = True
    wugu_value: int = 1
    fanji: str = "up"
    shuzi_ji: bool = False
    jinji_multiplier: int = 2
    mantangji: bool = False
    chongfeng: bool = True
    chongfeng_per_kind: bool = False
    zeren_multiplier: int = 2
    baoji_scope: str = "discarded"
    # SDG §8
    gang_an: int = 2
    gang_bu: int = 1
    gang_dian: int = 1
    baogang: bool = False
    # SDG §9.3, §4.7
    chaque: str = "three_suit_flat"
    chaque_amount: int = 20
    chahu_penalty: int = 20
    chaque_on_win: bool = False
    yuanque: int = 0
    huang_settle_ji: bool = False
    huang_settle_gang: bool = False
    # SDG §9.5, §2.3, §9.6, §10
    dealer_stake: str = "multiply"
    dealer_scope: str = "all"
    dealer_rotation: str = "winner"
    first_dealer: str = "seat0"
    match_hands: int = 8
    angang_public: bool = False

    def __post_init__(self) -> None:
        for name, choices in CHOICES.items():
            value = getattr(self, name)
            if value not in choices:
                raise RuleConfigError(
                    f"option {name!r} must be one of {choices}, not {quoted(value)}"
                )
        for name, (low, high) in RANGES.items():
            value = getattr(self, name)
            if not low <= value <= high:
                raise RuleConfigError(f"option {name!r} must be {low}..{high}, not {quoted(value)}")
        if self.dingque and self.tiles != 108:
            raise RuleConfigError(f"option 'dingque' needs 108 tiles, not {quoted(self.tiles)}")
        if self.chaque == "per_tile" and not self.dingque:
            raise RuleConfigError("option 'chaque' = 'per_tile' needs 'dingque' (SDG §9.3)")
        if self.yuanque and not self.dingque:
            raise RuleConfigError(f"option 'yuanque' = {self.yuanque} needs 'dingque' (SDG §9.4)")

    def with_options(self, **overrides: Any) -> RuleConfig:
        """A copy with some options changed, validated like a preset."""
        return dataclasses.replace(self, **check_options(overrides))

    def options(self) -> dict[str, object]:
        """Every option with its value (no identity fields)."""
        return {name: getattr(self, name) for name in OPTION_NAMES}

    def overrides(self) -> dict[str, object]:
        """The options that differ from this rule set's preset."""
        base = get_rules(self.id) if self.id in _load_all() else RuleConfig()
        return {k: v for k, v in self.options().items() if getattr(base, k) != v}


#: The string options and their choices (SDG §11).
CHOICES: Final[Mapping[str, tuple[Any, ...]]] = MappingProxyType(
    {
        "tiles": (108, 72),
        "max_suits": (2, 3),
        "fan_mode": ("add", "highest"),
        "passport": ("kong_or_big", "kong_only", "none"),
        "pass_lock": ("same_face", "any", "off"),
        "qianggang_pay": ("all", "discard"),
        "qianggang_burn": ("kong_only", "all"),
        "baoting_window": ("first_discard", "dealt_hand"),
        "fanji": ("up", "down", "both", "self", "off"),
        "baoji_scope": ("discarded", "exposed", "all"),
        "chaque": ("three_suit_flat", "per_tile", "off"),
        "dealer_stake": ("multiply", "add", "none"),
        "dealer_scope": ("all", "hand"),
        "dealer_rotation": ("winner", "next_seat"),
        "first_dealer": ("seat0", "random"),
    }
)
#: The range of every other integer option: wide enough for any table, small enough that no
#: score grows past what a ledger stores.
RANGES: Final[Mapping[str, tuple[int, int]]] = MappingProxyType(
    {
        **{
            name: (0, 1000)
            for name in (
                "fan_pinghu",
                "fan_daduizi",
                "fan_qidui",
                "fan_longqidui",
                "fan_qingyise",
                "fan_qing_daduizi",
                "fan_qing_qidui",
                "fan_qing_longqidui",
                "fan_baoting",
                "fan_dandiao",
                "fan_tianhu",
                "fan_dihu",
                "zimo_bonus",
                "gangshanghua_bonus",
                "shabao",
                "wugu_value",
                "gang_an",
                "gang_bu",
                "gang_dian",
                "chaque_amount",
                "chahu_penalty",
                "yuanque",
            )
        },
        "jinji_multiplier": (1, 100),
        "zeren_multiplier": (0, 100),
        "match_hands": (1, 10_000),
    }
)

_IDENTITY: Final = frozenset(
    {"id", "name", "name_en", "source", "description", "description_zh", "aliases"}
)
OPTION_NAMES: Final[tuple[str, ...]] = tuple(
    f.name for f in dataclasses.fields(RuleConfig) if f.name not in _IDENTITY
)
_DEFAULTS: Final = RuleConfig()


def check_options(raw: Mapping[str, object]) -> dict[str, Any]:
    """Check option names and value types against ``RuleConfig``'s fields; quote what is wrong."""
    return presets.check_options(raw, OPTION_NAMES, _DEFAULTS)


_TOP_KEYS: Final = frozenset(
    {"id", "name", "name_en", "source", "aliases", "description", "description_zh", "options"}
)


def parse_preset(text: str, origin: str = "<string>") -> RuleConfig:
    """Build a ``RuleConfig`` from the text of one preset TOML file."""
    data = presets.read_preset(text, origin, _TOP_KEYS)
    return RuleConfig(
        id=data["id"],
        name=data["name"],
        name_en=data["name_en"],
        source=data["source"],
        description=data["description"],
        description_zh=data["description_zh"],
        aliases=data["aliases"],
        **check_options(data.get("options", {})),
    )


@functools.cache
def _load_all() -> dict[str, RuleConfig]:
    folder = resources.files("weimaque.games.sandingguai") / "presets"
    out: dict[str, RuleConfig] = {}
    for preset_id in PRESET_IDS:
        text = (folder / f"{preset_id}.toml").read_text(encoding="utf-8")
        rules = parse_preset(text, f"{preset_id}.toml")
        if rules.id != preset_id:
            raise RuleConfigError(f"{preset_id}.toml declares id {rules.id!r}")
        out[preset_id] = rules
    return out


@functools.cache
def _aliases() -> dict[str, str]:
    out: dict[str, str] = {}
    for preset_id, rules in _load_all().items():
        for name in (preset_id, rules.name, *rules.aliases):
            out[name.lower()] = preset_id
    return out


def get_rules(name: str = DEFAULT_PRESET, **overrides: Any) -> RuleConfig:
    """The preset with this id or alias, with ``overrides`` applied."""
    if not isinstance(name, str):
        raise RuleConfigError(f"preset name must be a string, not {quoted(name)}")
    preset_id = _aliases().get(name.lower())
    if preset_id is None:
        raise RuleConfigError(
            f"unknown 三丁拐 preset {quoted(name)} (known: {', '.join(PRESET_IDS)})"
        )
    rules = _load_all()[preset_id]
    return rules.with_options(**overrides) if overrides else rules
