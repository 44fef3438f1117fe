"""Rule presets as data: the 11 presets, their 名堂 tables, options and errors (RULES §7.3)."""

from __future__ import annotations

import dataclasses
from importlib import resources

import pytest

from weimaque import RuleConfig, RuleConfigError, WeimaqueError, get_rules, list_rules
from weimaque.games.maque.rules import PATTERN_NAMES, PRESET_IDS, PatternValue, parse_preset
from weimaque.games.maque.scoring import score

# RULES §7.3: the preset ids, in the order of the two tables.
IDS = [
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
]


def _add(v: int) -> PatternValue:
    return PatternValue("add", v)


def _mul(v: int) -> PatternValue:
    return PatternValue("mul", v)


def _pair(a: int, b: int) -> PatternValue:
    return PatternValue("add", a, b)


# RULES §7.3, first table: every active 名堂 of each preset with its value.
_ZHUO = {"zhuo": 20, "zimei": 40, "sanluan": 60, "zimei_tuo": 80, "zusun": 150}
EXPECTED: dict[str, dict[str, PatternValue]] = {
    "anxiang-old": {
        "yin": _add(10),
        "hong": _add(10),
        "duizi": _mul(4),
        "wudui": _mul(7),
        "wu": _add(20),
        "dian": _add(10),
        "manyuan": _add(50),
        "dazi": _add(50),
        "xiaozi": _add(50),
    },
    "anxiang": {
        "yin": _add(10),
        "chunyin": _add(100),
        "hong": _add(10),
        "duizi": _mul(6),
        "wudui": _mul(8),
        "wu": _mul(4),
        "dian": _mul(3),
        "manyuan": _add(100),
        "dazi": _add(100),
        "xiaozi": _add(100),
        **{k: _add(v) for k, v in _ZHUO.items()},
        "zusun_tuo": _add(300),
        "haidi": _add(10),
        "dandiao": _pair(20, 20),
        "bapengtou": _add(200),
        "jia_bapengtou": _add(100),
        "beikaobei": _add(20),
    },
    "laomingtang": {
        "yin": _add(10),
        "hong": _add(10),
        "duizi": _mul(4),
        "wudui": _mul(6),
        "wu": _mul(3),
        "dian": _mul(2),
        "manyuan": _add(50),
        "dazi": _add(50),
        "xiaozi": _add(50),
    },
    "xiaozhuo": {
        "yin": _add(20),
        "chunyin": _add(100),
        "hong": _add(20),
        "duizi": _mul(6),
        "wudui": _mul(8),
        "wu": _mul(4),
        "dian": _mul(3),
        "manyuan": _add(100),
        "dazi": _add(100),
        "xiaozi": _add(100),
        **{k: _add(v) for k, v in _ZHUO.items()},
        "siluan": _add(200),
        "zusun_tuo": _add(300),
        "haidi": _add(20),
        "dandiao": _pair(10, 20),
        "bapengtou": _add(200),
        "jia_bapengtou": _add(100),
        "beikaobei": _add(20),
        "shouqianshou": _add(20),
        "longbaiwei": _add(100),
        "tianhu": _add(100),
        "jiuxiaodui": _pair(50, 100),
        "wudui_deal": _add(50),
    },
    "dazhuo": {
        "yin": _add(30),
        "chunyin": _add(150),
        "hong": _add(20),
        "duizi": _mul(8),
        "wudui": _mul(10),
        "wu": _mul(6),
        "dian": _mul(4),
        "manyuan": _add(200),
        "dazi": _add(200),
        "xiaozi": _add(200),
        "zhuo": _add(30),
        "zimei": _add(60),
        "sanluan": _add(100),
        "zimei_tuo": _add(150),
        "zusun": _add(300),
        "siluan": _add(300),
        "zusun_tuo": _add(390),
        "haidi": _add(30),
        "dandiao": _pair(30, 30),
        "bapengtou": _add(300),
        "jia_bapengtou": _add(150),
        "beikaobei": _add(50),
        "shouqianshou": _add(50),
        "longbaiwei": _add(150),
        "kawei": _add(50),
        "tianhu": _add(150),
    },
    # RULES §7.3, second table (forum tiers).
    "pinghu": {},
    "xiaomingtang": {
        "hong": _add(10),
        "yin": _add(10),
        "dian": _mul(2),
        "wu": _mul(3),
        "duizi": _mul(4),
        "manyuan": _add(50),
    },
}


def _tier(
    hong: int,
    yin: int,
    mults: tuple[int, int, int, int],
    manyuan: int,
    zhuo: int,
    small: tuple[int, int, int, int, int],
    zimei: tuple[int, int, int],
    big: int,
    zusun: int,
    bapengtou: int,
    siluan: int,
) -> dict[str, PatternValue]:
    dian, wu, duizi, wudui = mults
    dandiao, shouqianshou, beikaobei, kawei, haidi = small
    return {
        "hong": _add(hong),
        "yin": _add(yin),
        "dian": _mul(dian),
        "wu": _mul(wu),
        "duizi": _mul(duizi),
        "wudui": _mul(wudui),
        "manyuan": _add(manyuan),
        "zhuo": _add(zhuo),
        "dandiao": _pair(dandiao, dandiao),
        "shouqianshou": _add(shouqianshou),
        "beikaobei": _add(beikaobei),
        "kawei": _add(kawei),
        "haidi": _add(haidi),
        "zimei": _add(zimei[0]),
        "sanluan": _add(zimei[1]),
        "zimei_tuo": _add(zimei[2]),
        "chunyin": _add(big),
        "dazi": _add(big),
        "xiaozi": _add(big),
        "jia_bapengtou": _add(big),
        "zusun": _add(zusun),
        "bapengtou": _add(bapengtou),
        "siluan": _add(siluan),
    }


EXPECTED["xiaozuo"] = _tier(
    20, 20, (3, 4, 6, 8), 100, 20, (20, 20, 20, 20, 20), (40, 60, 80), 100, 150, 200, 300
)
EXPECTED["dazuo"] = _tier(
    30, 30, (6, 8, 10, 15), 150, 30, (30, 50, 50, 50, 30), (80, 120, 150), 150, 200, 300, 400
)
EXPECTED["jiaqiang"] = _tier(
    30, 50, (6, 8, 10, 15), 150, 50, (30, 50, 50, 50, 30), (80, 120, 150), 150, 200, 300, 400
)
EXPECTED["chaoji"] = _tier(
    50, 50, (6, 8, 10, 15), 200, 50, (50, 50, 50, 50, 50), (80, 120, 150), 200, 200, 400, 500
)

EXPECTED_SOURCES = {
    "anxiang": "安乡 tables today: the common list of 21 名堂",
    "anxiang-old": "安乡, the older short list (乌胡 and 点胡 add points)",
    "laomingtang": "phone-app scoring, 老名堂 table",
    "xiaozhuo": "phone-app scoring, 小卓 table",
    "dazhuo": "phone-app scoring, 大卓 table",
    "pinghu": "players' tier 平胡: 息 only, no 名堂",
    "xiaomingtang": "players' tier 小名堂: red, black and 点 hands",
    "xiaozuo": "players' tier 普通小作",
    "dazuo": "players' tier 普通大作",
    "jiaqiang": "players' tier 加强大作",
    "chaoji": "players' tier 超级大作",
}


def test_exactly_the_eleven_presets() -> None:
    # RULES §7.3: the ids are fixed; anxiang is the default.
    assert [r.id for r in list_rules()] == IDS
    assert list(PRESET_IDS) == IDS
    assert get_rules().id == "anxiang"
    assert get_rules("default") is get_rules("anxiang")


@pytest.mark.parametrize("preset_id", IDS)
def test_preset_loads(preset_id: str) -> None:
    rules = get_rules(preset_id)
    assert isinstance(rules, RuleConfig)
    assert rules.id == preset_id
    assert rules.name and rules.name_en and rules.source
    assert get_rules(rules) is rules
    # RULES §4.7: min_xi is 10 everywhere.
    assert rules.min_xi == 10
    assert set(rules.patterns) <= set(PATTERN_NAMES)
    assert not set(rules.patterns) & set(rules.optional_patterns)


@pytest.mark.parametrize("preset_id", IDS)
def test_preset_table(preset_id: str) -> None:
    # RULES §7.3: the active 名堂 and their values, exactly as in the tables.
    rules = get_rules(preset_id)
    assert dict(rules.patterns) == EXPECTED[preset_id]
    for key, value in EXPECTED[preset_id].items():
        assert rules.value(key) == value
    missing = set(PATTERN_NAMES) - set(EXPECTED[preset_id])
    assert all(rules.value(k) is None for k in missing)


@pytest.mark.parametrize(("preset_id", "source"), EXPECTED_SOURCES.items())
def test_preset_sources(preset_id: str, source: str) -> None:
    # RULES §7.3, row "source".
    assert get_rules(preset_id).source == source


def test_spot_checks() -> None:
    # RULES §7.3 spot checks, written out.
    assert get_rules("anxiang").value("duizi") == PatternValue("mul", 6)
    assert get_rules("dazhuo").value("dandiao") == PatternValue("add", 30, 30)
    assert get_rules("xiaozhuo").value("dandiao") == PatternValue("add", 10, 20)
    assert get_rules("pinghu").patterns == {}
    assert get_rules("xiaomingtang").value("wudui") is None
    assert get_rules("anxiang").value("shouqianshou") is None  # "暂不明": off
    assert get_rules("anxiang").value("manyuan") == PatternValue("add", 100)
    assert get_rules("anxiang-old").value("wu") == PatternValue("add", 20)
    assert get_rules("chaoji").value("siluan") == PatternValue("add", 500)
    # The forum tiers have no 祖孙卓带拖.
    for tier in ("xiaozuo", "dazuo", "jiaqiang", "chaoji"):
        assert get_rules(tier).value("zusun_tuo") is None


def test_optional_patterns() -> None:
    # RULES §7.3: 自摸 and 蛰一蛰 are options (off) in xiaozhuo; 龙摆尾 is an option in the tiers.
    xz = get_rules("xiaozhuo")
    assert dict(xz.optional_patterns) == {"zimo": _add(10), "zhe": _add(10)}
    assert xz.value("zimo") is None
    for tier in ("xiaozuo", "dazuo", "jiaqiang", "chaoji"):
        assert "longbaiwei" in get_rules(tier).optional_patterns
        assert get_rules(tier).value("longbaiwei") is None


def test_anxiang_old_options() -> None:
    # RULES §6.3, §6.4: anxiang-old: black 转弯 麻雀 = 1, 团圆 in any grouping.
    old = get_rules("anxiang-old")
    assert old.maque_zhuanwan_black == 1
    assert old.tuanyuan_any_grouping is True
    for preset_id in IDS:
        if preset_id != "anxiang-old":
            rules = get_rules(preset_id)
            assert rules.maque_zhuanwan_black == 2
            assert rules.tuanyuan_any_grouping is False


def test_default_options() -> None:
    # RULES §4.6, §4.3, §2.4, §8.2, §8.5, §8.6 defaults.
    r = get_rules()
    assert r.holder_may_not_chi is True
    assert r.wei_face_up is False
    assert r.first_dealer == "seat0"
    assert r.dealer_rotation == "keep_or_next"
    assert r.liuzi is False
    assert (r.liuzi_dealer, r.liuzi_other) == (2, 1)
    assert r.match_hands == 8
    assert r.shouxing_divisor == 4
    assert r.shouxing_liuju_reward == 0


def test_rule_config_frozen_and_hashable() -> None:
    rules = get_rules("anxiang")
    with pytest.raises(dataclasses.FrozenInstanceError):
        rules.min_xi = 5  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        rules.patterns = {}  # type: ignore[misc]
    table = {get_rules(i): i for i in IDS}
    assert len(table) == 11
    assert table[get_rules("default")] == "anxiang"
    assert hash(rules) == hash(get_rules("anxiang"))


def test_preset_patterns_are_read_only() -> None:
    # RuleConfig is a frozen value (RULES §7.3: presets are data); its 名堂 table must not change.
    # Checked on a freshly parsed preset so that the shared cached presets are never mutated.
    fresh = parse_preset(MINIMAL + "[patterns]\nyin = 10\n[optional_patterns]\nzimo = 10\n")
    with pytest.raises(TypeError):
        fresh.patterns["yin"] = _add(1000)  # type: ignore[index]
    with pytest.raises(TypeError):
        fresh.optional_patterns["zimo"] = _add(1000)  # type: ignore[index]
    assert not any(isinstance(get_rules(i).patterns, dict) for i in IDS)


def test_with_options_patterns_are_read_only() -> None:
    rules = get_rules("xiaozhuo").with_options(enable_patterns=["zimo"])
    with pytest.raises(TypeError):
        rules.patterns["zimo"] = _add(1000)  # type: ignore[index]
    assert rules.value("zimo") == _add(10)


def test_with_options_valid() -> None:
    base = get_rules("anxiang")
    changed = base.with_options(min_xi=12, dealer_rotation="winner_deals", wei_face_up=True)
    assert (changed.min_xi, changed.dealer_rotation, changed.wei_face_up) == (
        12,
        "winner_deals",
        True,
    )
    assert changed.patterns == base.patterns
    assert base.min_xi == 10  # the preset is unchanged
    assert changed != base
    assert changed.options()["min_xi"] == 12


def test_with_options_changes_scoring() -> None:
    # RULES §4.7: a hand with 硬息 10 wins at min_xi 10 and not at 11.
    hand = "碰:七七七 偎:八八八 吃:一二三 吃:四五六 手:贰贰贰壹壹伍陆 胡:柒"
    assert score(hand).winning
    assert score(hand).hard_xi == 10
    stricter = get_rules().with_options(min_xi=11)
    b = score(hand, rules=stricter)
    assert not b.winning
    assert "11" in (b.reason or "")


@pytest.mark.parametrize(
    ("overrides", "quoted"),
    [
        ({"no_such_option": 1}, "'no_such_option'"),
        ({"min_xi": "10"}, "'10'"),
        ({"min_xi": True}, "True"),
        ({"wei_face_up": 1}, "1"),
        ({"dealer_rotation": 3}, "3"),
        ({"dealer_rotation": "anyone"}, "'anyone'"),
        ({"min_xi": -1}, "-1"),
        ({"match_hands": 0}, "0"),
        ({"patterns": {}}, "'patterns'"),
        ({"id": "mine"}, "'id'"),
    ],
)
def test_with_options_errors(overrides: dict[str, object], quoted: str) -> None:
    with pytest.raises(RuleConfigError) as info:
        get_rules().with_options(**overrides)
    assert isinstance(info.value, ValueError)
    assert isinstance(info.value, WeimaqueError)
    assert quoted in str(info.value), str(info.value)


def test_enable_optional_pattern() -> None:
    # RULES §7.3: xiaozhuo's 自摸 (+10) is a room option.
    base = get_rules("xiaozhuo")
    with_zimo = base.with_options(enable_patterns=["zimo"])
    assert with_zimo.value("zimo") == _add(10)
    assert "zimo" not in with_zimo.optional_patterns
    assert "zhe" in with_zimo.optional_patterns
    assert base.value("zimo") is None
    hand = "碰:七七七 偎:捌捌捌 吃:一二三 手:贰贰贰四五六柒捌玖九 胡:九"
    plain = score(hand, rules=base)
    zimo = score(hand, rules=with_zimo)
    assert zimo.total == plain.total + 10
    assert "zimo" in [p.key for p in zimo.patterns]
    # drawn by another: no 自摸
    assert (
        score(hand, rules=with_zimo, source="other").total
        == score(hand, rules=base, source="other").total
    )
    # and back off again
    off = with_zimo.with_options(disable_patterns=["zimo"])
    assert off.value("zimo") is None
    assert score(hand, rules=off).total == plain.total


def test_disable_pattern() -> None:
    rules = get_rules("anxiang").with_options(disable_patterns=["dandiao"])
    assert rules.value("dandiao") is None
    assert "dandiao" in rules.optional_patterns


@pytest.mark.parametrize(
    ("preset_id", "overrides", "quoted"),
    [
        ("anxiang", {"enable_patterns": ["zimo"]}, "'zimo'"),  # not optional there
        ("xiaozhuo", {"enable_patterns": ["kawei"]}, "'kawei'"),
        ("dazhuo", {"enable_patterns": ["nosuch"]}, "'nosuch'"),
        ("anxiang", {"disable_patterns": ["kawei"]}, "'kawei'"),  # not active
    ],
)
def test_enable_pattern_errors(preset_id: str, overrides: dict[str, object], quoted: str) -> None:
    with pytest.raises(RuleConfigError) as info:
        get_rules(preset_id).with_options(**overrides)
    assert quoted in str(info.value)


# --- parse_preset (RULES §7.3: presets are data) -----------------------------------------------

MINIMAL = 'id = "mine"\nname = "我的"\nname_en = "Mine"\nsource = "test"\n'


def test_parse_preset_minimal() -> None:
    rules = parse_preset(MINIMAL + '[patterns]\nyin = 10\nduizi = "x6"\ndandiao = [10, 20]\n')
    assert rules.id == "mine"
    assert rules.value("yin") == _add(10)
    assert rules.value("duizi") == _mul(6)
    assert rules.value("dandiao") == _pair(10, 20)
    assert rules.min_xi == 10


def test_parse_preset_options() -> None:
    rules = parse_preset(MINIMAL + "[options]\nmin_xi = 15\ntuanyuan_any_grouping = true\n")
    assert rules.min_xi == 15
    assert rules.tuanyuan_any_grouping is True


@pytest.mark.parametrize("preset_id", IDS)
def test_preset_files_reparse(preset_id: str) -> None:
    # The shipped TOML files are what get_rules serves.
    text = (
        resources.files("weimaque.games.maque.rules") / "presets" / f"{preset_id}.toml"
    ).read_text("utf-8")
    assert parse_preset(text) == get_rules(preset_id)


@pytest.mark.parametrize(
    ("text", "quoted"),
    [
        ("id = \n", "not valid TOML"),
        (MINIMAL + "[patterns\n", "line 5"),
        (MINIMAL + "colour = 1\n", "'colour'"),
        (MINIMAL + "[patterns]\nnosuch = 10\n", "'nosuch'"),
        (MINIMAL + '[patterns]\nduizi = "y3"\n', "'y3'"),
        (MINIMAL + '[patterns]\nduizi = "x0"\n', "'x0'"),
        (MINIMAL + "[patterns]\nyin = -5\n", "-5"),
        (MINIMAL + "[patterns]\nyin = true\n", "True"),
        (MINIMAL + "[patterns]\ndandiao = 20\n", "20"),
        (MINIMAL + "[patterns]\ndandiao = [20]\n", "[20]"),
        (MINIMAL + '[patterns]\ndandiao = ["a", 1]\n', "['a', 1]"),
        (MINIMAL + "[optional_patterns]\nwhatever = 10\n", "'whatever'"),
        (MINIMAL + "[options]\nnosuch = 1\n", "'nosuch'"),
        (MINIMAL + '[options]\nmin_xi = "ten"\n', "'ten'"),
        (MINIMAL + "[patterns]\nyin = 10\n[optional_patterns]\nyin = 20\n", "yin"),
        ('name = "x"\nname_en = "x"\nsource = "x"\n', "'id'"),
        (MINIMAL + "aliases = 3\n", "'aliases'"),
    ],
)
def test_parse_preset_errors(text: str, quoted: str) -> None:
    with pytest.raises(RuleConfigError) as info:
        parse_preset(text, origin="room.toml")
    assert isinstance(info.value, ValueError)
    assert quoted in str(info.value), str(info.value)


def test_parse_preset_error_names_origin() -> None:
    with pytest.raises(RuleConfigError) as info:
        parse_preset(MINIMAL + "colour = 1\n", origin="room.toml")
    assert "room.toml" in str(info.value)


@pytest.mark.parametrize("name", ["nosuch", "Anxiang", "", "anxiang "])
def test_unknown_preset(name: str) -> None:
    with pytest.raises(RuleConfigError) as info:
        get_rules(name)
    assert isinstance(info.value, ValueError)
    assert repr(name) in str(info.value)
