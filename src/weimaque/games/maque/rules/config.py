"""``RuleConfig``: every option of the rules as one frozen, validated value (RULES §7.3)."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Final, Literal, cast

from weimaque import presets
from weimaque.errors import RuleConfigError, quoted

PatternMode = Literal["add", "mul"]

#: Every 名堂 key of RULES §7.2 with its Chinese name, in the order of §7.2.
PATTERN_NAMES: Final[Mapping[str, str]] = MappingProxyType(
    {
        "yin": "印胡",
        "chunyin": "纯印",
        "hong": "红胡",
        "duizi": "对子胡",
        "wudui": "乌对",
        "wu": "乌胡",
        "dian": "点胡",
        "manyuan": "满园花",
        "dazi": "大字胡",
        "xiaozi": "小字胡",
        "zhuo": "卓胡",
        "zimei": "姊妹卓",
        "sanluan": "三乱卓",
        "zimei_tuo": "姊妹卓带拖",
        "zusun": "祖孙卓",
        "siluan": "四乱卓",
        "zusun_tuo": "祖孙卓带拖",
        "bapengtou": "八碰头",
        "jia_bapengtou": "假八碰头",
        "longbaiwei": "龙摆尾",
        "haidi": "海底胡",
        "zimo": "自摸",
        "dandiao": "单吊",
        "beikaobei": "背靠背",
        "shouqianshou": "手牵手",
        "kawei": "卡偎",
        "tianhu": "天胡",
        "jiuxiaodui": "九小对",
        "wudui_deal": "无对胡",
        "zhe": "蛰一蛰",
        # RULES §7.4.1: the 名堂 of the app tiers, win-time first, then the deal 名堂
        "manyuan_2xi": "2息满园花",
        "liang_zimei": "两姊妹卓",
        "silian": "四连卓",
        "quanqiuren": "全求人",
        "meinv": "美女踩单车",
        "dingdui": "顶对",
        "piaodui": "飘对",
        "jiding": "鸡丁",
        "bianding": "边丁",
        "yuanyuanding": "圆圆丁",
        "biankan": "边坎",
        "shangxia": "上下五千年",
        "duidao": "对倒胡",
        "zhen_beikaobei": "真背靠背",
        "fengbaiwei": "凤摆尾",
        "geshan": "隔山打牛",
        "kahu": "卡胡",
        "zhezhe": "啫啫胡",
        "xinlianxin": "心连心",
        "yitiaolong": "一条龙",
        "huozhuo": "活捉小三",
        "lianghong": "两红两黑",
        "erlong": "二龙戏珠",
        "hongzhadan": "红炸弹",
        "heizhadan": "黑炸弹",
        "quanhei": "全黑",
        "liuduihong": "六对红",
        "sibiandui": "四边对",
        "quankan": "全坎全对",
        "tongzha": "大小同炸",
        "zimeizha": "姊妹炸",
        "diasunzha": "嗲孙炸",
        "zusunzha": "祖孙炸",
    }
)

#: Patterns whose value is a pair [plain, alternative] (RULES §7.3).
PAIRED_PATTERNS: Final = frozenset({"dandiao", "jiuxiaodui"})


@dataclass(frozen=True, slots=True)
class PatternValue:
    """How a preset scores one 名堂: an addition (per unit) or a multiplier of 硬息."""

    mode: PatternMode
    value: int
    alt: int | None = None

    def __str__(self) -> str:
        text = f"×{self.value}" if self.mode == "mul" else f"+{self.value}"
        return text if self.alt is None else f"{text} / +{self.alt}"

    @classmethod
    def from_toml(cls, key: str, raw: object) -> PatternValue:
        """Read the TOML form: ``10`` (addition), ``"x6"`` (multiplier), ``[20, 30]`` (pair)."""
        if key not in PATTERN_NAMES:
            raise RuleConfigError(f"unknown pattern key {key!r}")
        if isinstance(raw, bool):
            raise RuleConfigError(f"pattern {key!r}: value {raw!r} is not a number")
        if key in PAIRED_PATTERNS:
            if not (
                isinstance(raw, list)
                and len(raw) == 2
                and all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in raw)
            ):
                raise RuleConfigError(f"pattern {key!r} takes [plain, alternative], not {raw!r}")
            return cls("add", raw[0], raw[1])
        if isinstance(raw, int) and raw >= 0:
            return cls("add", raw)
        if isinstance(raw, str) and raw[:1] in ("x", "×") and raw[1:].isdigit():
            factor = int(raw[1:])
            if factor < 1:
                raise RuleConfigError(f"pattern {key!r}: multiplier {raw!r} below 1")
            return cls("mul", factor)
        raise RuleConfigError(f"pattern {key!r}: cannot read value {raw!r}")

    def to_toml(self) -> object:
        """The TOML form of this value."""
        if self.alt is not None:
            return [self.value, self.alt]
        return f"x{self.value}" if self.mode == "mul" else self.value


_CHOICES: Final[dict[str, tuple[str, ...]]] = {
    "dealer_rotation": ("keep_or_next", "winner_deals"),
    "first_dealer": ("seat0", "random"),
    # RULES §7.4.2: "app" gives shared 名堂 the meanings of the app tiers
    "mingtang_rules": ("seed", "app"),
    # RULES §8.5.1: when the 逗溜子 pool is fed
    "liuzi_when": ("deal", "chou", "start_and_chou"),
    # RULES §2.1.2: whose concealed cards the 守醒 may see
    "shouxing_sees": ("all", "dealer"),
}


#: The range of every integer option: wide enough for any table, narrow enough that no option
#: makes a score, a stake or a match too large to store, send or play out.
OPTION_RANGES: Final[Mapping[str, tuple[int, int]]] = MappingProxyType(
    {
        "min_xi": (0, 100),  # RULES §4.7
        "maque_zhuanwan_black": (0, 100),  # RULES §6.4
        "shouxing_divisor": (1, 100),  # RULES §8.4
        "shouxing_liuju_reward": (0, 1000),
        "liuzi_dealer": (0, 1000),  # RULES §8.5
        "liuzi_other": (0, 1000),
        "liuzi_min_xi": (1, 100),
        "deng_value": (0, 1000),
        "match_hands": (1, 10_000),  # RULES §8.6
        "score_target": (0, 1_000_000),
        "players": (2, 3),  # RULES §2.5
        "hand_cap": (0, 1_000_000),  # RULES §8.7.2
        "final_double_below": (0, 1_000_000),  # RULES §8.7.1
        "final_double_ratio": (2, 4),
        "final_bonus_below": (0, 1_000_000),
        "final_bonus": (0, 1_000_000),
    }
)


def _patterns(raw: Mapping[str, PatternValue] | None = None) -> Mapping[str, PatternValue]:
    return MappingProxyType(dict(raw or {}))


def _names(raw: Mapping[str, str] | None = None) -> Mapping[str, str]:
    return MappingProxyType(dict(raw or {}))


@dataclass(frozen=True, slots=True)
class RuleConfig:
    """A complete, validated rule set: a preset plus any room overrides.

    Every option docs/rules.md names is a field here. Presets are data (``presets/*.toml``).
    """

    id: str = "anxiang"
    name: str = "安乡"
    name_en: str = "Anxiang"
    source: str = ""
    description: str = ""
    description_zh: str = ""
    aliases: tuple[str, ...] = ()

    # RULES §4.7, §6.4, §6.3
    min_xi: int = 10
    maque_zhuanwan_black: int = 2
    tuanyuan_any_grouping: bool = False
    # RULES §4.3, §4.6
    wei_face_up: bool = False
    holder_may_not_chi: bool = True
    # RULES §2.4, §8.2
    first_dealer: str = "seat0"
    dealer_rotation: str = "keep_or_next"
    # RULES §8.4
    shouxing: bool = False
    shouxing_divisor: int = 4
    shouxing_liuju_reward: int = 0
    # RULES §8.5
    liuzi: bool = False
    liuzi_dealer: int = 2
    liuzi_other: int = 1
    liuzi_min_xi: int = 18
    deng_value: int = 1
    # RULES §8.6 (score_target 0: none)
    match_hands: int = 8
    score_target: int = 0
    # RULES §7.4.2: "seed" (RULES §7.2 as written) or "app" (the meanings of the app tiers)
    mingtang_rules: str = "seed"
    # RULES §2.5: two players; the third hand buried (埋牌) or added to the stock; whether the
    # opponent's discards may be 吃'd (his released draws always may)
    players: int = 3
    maipai: bool = True
    chi_opponent_discard: bool = True
    # RULES §8.5.1, §8.5.3: when the 逗溜子 pool is fed; the winning layout chosen with the take
    liuzi_when: str = "deal"
    liuzi_choice: bool = False
    # RULES §8.7: a per-hand cap on what each loser pays (0: none); the end-of-match 翻倍 and
    # 加分 of a two-player match (0: off)
    hand_cap: int = 0
    final_double_below: int = 0
    final_double_ratio: int = 2
    final_bonus_below: int = 0
    final_bonus: int = 0
    # RULES §2.1.1: four persons round the table, the one opposite the dealer the 守醒
    shouxing_rotation: bool = False
    # RULES §2.1.2: the 守醒 sees the three hands ("all") or the dealer's only ("dealer")
    shouxing_sees: str = "all"

    # RULES §7.2, §7.3
    patterns: Mapping[str, PatternValue] = field(default_factory=_patterns, hash=False)
    optional_patterns: Mapping[str, PatternValue] = field(default_factory=_patterns, hash=False)
    #: RULES §7.4.3: display names a preset gives some 名堂 (the app's words); display only
    names: Mapping[str, str] = field(default_factory=_names, hash=False)

    def __post_init__(self) -> None:
        # Frozen means frozen all the way down: the 名堂 tables are read-only views.
        object.__setattr__(self, "patterns", _patterns(self.patterns))
        object.__setattr__(self, "optional_patterns", _patterns(self.optional_patterns))
        object.__setattr__(self, "names", _names(self.names))
        self._validate()

    def _validate(self) -> None:
        for name, choices in _CHOICES.items():
            value = getattr(self, name)
            if value not in choices:
                raise RuleConfigError(
                    f"option {name!r} must be one of {choices}, not {quoted(value)}"
                )
        for name, (low, high) in OPTION_RANGES.items():
            value = getattr(self, name)
            if not low <= value <= high:
                raise RuleConfigError(f"option {name!r} must be {low}..{high}, not {quoted(value)}")
        self._validate_table()
        overlap = set(self.patterns) & set(self.optional_patterns)
        if overlap:
            raise RuleConfigError(f"patterns both active and optional: {sorted(overlap)}")
        for key in (*self.patterns, *self.optional_patterns, *self.names):
            if key not in PATTERN_NAMES:
                raise RuleConfigError(f"unknown pattern key {key!r}")
        for key, name in self.names.items():
            if not isinstance(name, str) or not name.strip():
                raise RuleConfigError(f"display name of {key!r} must be a text, not {quoted(name)}")

    def _validate_table(self) -> None:
        """The options that mean something only at some tables keep their defaults elsewhere,
        so one config has one meaning (RULES §2.5 [D], §2.5.8, §8.7.1, §2.1.1, §2.1.2)."""
        if self.players == 3:
            for name in ("maipai", "chi_opponent_discard"):
                if getattr(self, name) is not True:
                    raise RuleConfigError(
                        f"option {name!r} applies to two players only (RULES §2.5): with "
                        f"players 3 it must stay true, not {quoted(getattr(self, name))}"
                    )
            for name in ("final_double_below", "final_bonus_below", "final_bonus"):
                if getattr(self, name) != 0:
                    raise RuleConfigError(
                        f"option {name!r} applies to two players only (RULES §8.7.1): with "
                        f"players 3 it must stay 0, not {quoted(getattr(self, name))}"
                    )
            if self.final_double_ratio != 2:
                raise RuleConfigError(
                    "option 'final_double_ratio' applies to two players only (RULES §8.7.1): "
                    f"with players 3 it must stay 2, not {quoted(self.final_double_ratio)}"
                )
        elif self.shouxing:
            raise RuleConfigError(
                "a 守醒 sits only at a three-player table (RULES §2.5.8): "
                "shouxing must be false with players 2"
            )
        if self.shouxing_rotation and not (self.shouxing and self.players == 3):
            raise RuleConfigError(
                "option 'shouxing_rotation' needs shouxing true and players 3 (RULES §2.1.1)"
            )
        if self.shouxing_sees != "all" and not self.shouxing:
            raise RuleConfigError(
                "option 'shouxing_sees' applies only where a 守醒 sits (RULES §2.1.2): with "
                f"shouxing false it must stay 'all', not {quoted(self.shouxing_sees)}"
            )

    def pattern_name(self, key: str) -> str:
        """The name this rule set shows for a 名堂: its ``[names]`` entry, else RULES' name."""
        return self.names.get(key, PATTERN_NAMES[key])

    def value(self, key: str) -> PatternValue | None:
        """The active value of a 名堂, or None where this rule set does not score it."""
        return self.patterns.get(key)

    def with_options(self, **overrides: Any) -> RuleConfig:
        """A copy with some options changed, validated like a preset.

        ``enable_patterns=["zimo"]`` turns optional 名堂 on; ``disable_patterns`` turns any off.
        """
        enable = _keys(overrides.pop("enable_patterns", []), "enable_patterns")
        disable = _keys(overrides.pop("disable_patterns", []), "disable_patterns")
        changes = check_options(overrides)
        active = dict(self.patterns)
        optional = dict(self.optional_patterns)
        for key in enable:
            if key in active:
                continue
            if key not in optional:
                raise RuleConfigError(
                    f"pattern {quoted(key)} is not an option of preset {self.id!r}"
                )
            active[key] = optional.pop(key)
        for key in disable:
            if key not in active:
                raise RuleConfigError(f"pattern {quoted(key)} is not active in preset {self.id!r}")
            optional[key] = active.pop(key)
        return dataclasses.replace(
            self, patterns=_patterns(active), optional_patterns=_patterns(optional), **changes
        )

    def options(self) -> dict[str, object]:
        """Every plain option with its value (no identity fields, no patterns)."""
        return {name: getattr(self, name) for name in OPTION_NAMES}

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickled as its fields in plain data (its 名堂 tables are mapping proxies), so a bot's
        # view travels to a worker process as any game's does (docs/scale.md).
        return (_rebuild, (_plain_fields(self),))


_IDENTITY: Final = frozenset(
    {
        "id",
        "name",
        "name_en",
        "source",
        "description",
        "description_zh",
        "aliases",
        "patterns",
        "optional_patterns",
        "names",
    }
)
OPTION_NAMES: Final[tuple[str, ...]] = tuple(
    f.name for f in dataclasses.fields(RuleConfig) if f.name not in _IDENTITY
)
_DEFAULTS: Final = RuleConfig()


def _plain_fields(config: RuleConfig) -> tuple[tuple[str, object], ...]:
    out = []
    for f in dataclasses.fields(RuleConfig):
        value = getattr(config, f.name)
        out.append((f.name, tuple(sorted(value.items())) if isinstance(value, Mapping) else value))
    return tuple(out)


@functools.lru_cache(maxsize=64)
def _rebuild(fields: tuple[tuple[str, object], ...]) -> RuleConfig:
    """A rule set from :func:`_plain_fields` (unpickling); equal to the one pickled."""
    values: dict[str, Any] = {}
    for key, value in fields:
        values[key] = dict(cast("tuple[tuple[str, object], ...]", value)) if key in _MAPS else value
    return RuleConfig(**values)


_MAPS: Final = frozenset({"patterns", "optional_patterns", "names"})


def _keys(raw: object, name: str) -> list[str]:
    """A list of 名堂 keys (``enable_patterns``, ``disable_patterns``), checked."""
    if (
        not isinstance(raw, list | tuple)
        or len(raw) > len(PATTERN_NAMES)
        or not all(isinstance(k, str) for k in raw)
    ):
        raise RuleConfigError(f"{name} must be a list of 名堂 keys, not {quoted(raw)}")
    return list(raw)


def check_options(raw: Mapping[str, object]) -> dict[str, Any]:
    """Check option names and value types against ``RuleConfig``'s fields; quote what is wrong."""
    return presets.check_options(raw, OPTION_NAMES, _DEFAULTS)
