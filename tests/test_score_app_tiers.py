"""The app tiers 全名堂, 钻石, 至尊 (RULES §7.4): presets, 名堂, facts, vectors.

Every V3 test vector of RULES §7.4 is a case below, with the seed presets' totals it gives for
contrast. The other hands are worked by hand from RULES §7.4.1-§7.4.4: the comment above each
shows the arithmetic (硬息 per group as RULES §6.4; values from §7.4.3). Per-loser totals;
``--from other`` unless said.
"""

from __future__ import annotations

import dataclasses
import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import weimaque
from weimaque.cli import app
from weimaque.errors import InvalidNotation, RuleConfigError, WrongCardCount
from weimaque.games.maque.analysis.generate import random_hand
from weimaque.games.maque.game.state import GameState
from weimaque.games.maque.notation import Meld, parse_cards, parse_hand
from weimaque.games.maque.rules import (
    APP_PRESET_IDS,
    PRESET_IDS,
    PatternValue,
    get_rules,
    parse_preset,
)
from weimaque.games.maque.scoring import score_description
from weimaque.games.maque.scoring.scorer import score_deal, score_deal_cards

TIERS = ("quanmingtang", "zuanshi", "zhizun")

# ---------------------------------------------------------------------------------------------
# RULES §7.4.3, transcribed: key → (全名堂, 钻石, 至尊). An int adds, "xN" multiplies, a pair is
# [plain, alternative]; "opt N" is an optional pattern (off until a room enables it); None: absent.

Cell = int | str | tuple[int, int] | None

TABLE: dict[str, tuple[Cell, Cell, Cell]] = {
    "yin": (30, 30, 50),
    "hong": (20, 30, 50),
    "duizi": ("x10", "x10", "x12"),
    "wudui": ("x15", "x15", "x18"),
    "wu": ("x6", "x8", "x10"),
    "dian": ("x4", "x6", "x8"),
    "manyuan": (150, 200, 300),
    "manyuan_2xi": ("opt 120", "opt 150", "opt 200"),
    "dazi": (150, 200, 200),
    "xiaozi": (150, 200, 200),
    "chunyin": (150, 150, 200),
    "zhuo": (40, 50, 50),
    "zimei": (80, 100, 100),
    "sanluan": (100, 150, 150),
    "zimei_tuo": (150, 200, 200),
    "zusun": (300, 300, 400),
    "siluan": (300, 300, 400),
    "zusun_tuo": (400, 400, 500),
    "liang_zimei": (400, 400, 500),
    "silian": (500, 500, 600),
    "haidi": (50, 50, 50),
    "dandiao": ((30, 50), (30, 50), (50, 80)),
    "bapengtou": (300, 400, 400),
    "jia_bapengtou": (150, 200, 200),
    "longbaiwei": (150, 150, 150),
    "beikaobei": (50, 50, 80),
    "shouqianshou": (50, 50, 80),
    "zhen_beikaobei": (100, 100, 150),
    "fengbaiwei": (50, 50, 80),
    "geshan": ("opt 30", 30, 50),
    "duidao": ("opt 30", 30, 50),
    "kawei": (50, 100, 100),
    "kahu": (30, 30, 80),
    "quanqiuren": (150, 150, 200),
    "meinv": (None, 50, 150),
    "dingdui": (50, 50, 100),
    "piaodui": (50, 50, 80),
    "jiding": (100, 100, 150),
    "bianding": (50, 50, 60),
    "yuanyuanding": (100, 100, 200),
    "biankan": (30, 30, 50),
    "shangxia": (50, 50, 80),
    "zhezhe": (30, 30, 50),
    "zimo": ("opt 30", 30, 50),
    "xinlianxin": ("opt 30", 30, 50),
    "yitiaolong": ("opt 150", 150, 150),
    "huozhuo": ("opt 30", 30, 50),
    "lianghong": ("opt 30", 30, 50),
    "erlong": (None, 50, 100),
    "tianhu": (100, 100, 150),
    "wudui_deal": (100, 100, 150),
    "jiuxiaodui": ((120, 240), (150, 300), (150, 300)),
    "hongzhadan": (200, 200, 260),
    "heizhadan": (100, 100, 150),
    "quanhei": (120, 150, 150),
    "liuduihong": (120, 150, 150),
    "sibiandui": (120, 150, 150),
    "quankan": (None, 150, 200),
    "tongzha": (None, 150, 200),
    "zimeizha": (None, 150, 200),
    "diasunzha": (None, 300, 400),
    "zusunzha": (None, 450, 600),
}


def _value(cell: Cell) -> PatternValue:
    if isinstance(cell, tuple):
        return PatternValue("add", cell[0], cell[1])
    if isinstance(cell, str) and cell.startswith("x"):
        return PatternValue("mul", int(cell[1:]))
    if isinstance(cell, str):
        return PatternValue("add", int(cell.removeprefix("opt ")))
    assert isinstance(cell, int)
    return PatternValue("add", cell)


@pytest.mark.parametrize("column", range(3), ids=TIERS)
def test_tier_values_are_the_table_of_rules_7_4_3(column: int) -> None:
    rules = get_rules(TIERS[column])
    active = {k: _value(c[column]) for k, c in TABLE.items() if _active(c[column])}
    optional = {k: _value(c[column]) for k, c in TABLE.items() if _optional(c[column])}
    assert dict(rules.patterns) == active
    assert dict(rules.optional_patterns) == optional
    assert rules.mingtang_rules == "app"
    # RULES §7.4.3: display names of the app
    assert rules.pattern_name("zusun") == "嗲孙卓"
    assert rules.pattern_name("zusun_tuo") == "嗲孙卓带拖"
    assert rules.pattern_name("silian") == "祖孙卓"
    assert rules.pattern_name("zimei") == "姊妹卓"


def _active(cell: Cell) -> bool:
    return cell is not None and not (isinstance(cell, str) and cell.startswith("opt"))


def _optional(cell: Cell) -> bool:
    return isinstance(cell, str) and cell.startswith("opt")


def test_the_seed_presets_keep_the_seed_meanings() -> None:
    # RULES §7.4.2: "seed" is the default; the eleven presets of §7.3 are listed as before and
    # the app tiers come after them only where asked for.
    assert weimaque.RuleConfig().mingtang_rules == "seed"
    assert all(get_rules(p).mingtang_rules == "seed" for p in PRESET_IDS)
    assert [r.id for r in weimaque.list_rules()] == list(PRESET_IDS)
    assert [r.id for r in weimaque.list_rules(app=True)] == [*PRESET_IDS, *APP_PRESET_IDS]
    assert APP_PRESET_IDS == TIERS
    assert all(not get_rules(p).names for p in PRESET_IDS)


@pytest.mark.parametrize(
    ("overrides", "quoted"),
    [
        pytest.param({"mingtang_rules": "apps"}, "'apps'", id="unknown-mingtang-rules"),
        pytest.param({"mingtang_rules": 1}, "1", id="mingtang-rules-not-text"),
    ],
)
def test_mingtang_rules_errors(overrides: dict[str, object], quoted: str) -> None:
    with pytest.raises(RuleConfigError, match=quoted):
        get_rules("anxiang").with_options(**overrides)


def test_preset_names_table() -> None:
    head = 'id = "t"\nname = "t"\nname_en = "t"\nsource = "t"\n'
    config = parse_preset(head + '[names]\nzusun = "嗲孙卓"\n')
    assert config.pattern_name("zusun") == "嗲孙卓"
    with pytest.raises(RuleConfigError, match="'zusunn'"):
        parse_preset(head + '[names]\nzusunn = "x"\n')
    with pytest.raises(RuleConfigError, match="names"):
        parse_preset(head + "[names]\nzusun = 3\n")


# ---------------------------------------------------------------------------------------------
# V3 test vectors (RULES §7.4), each tier and the seed presets for contrast.

Q1 = "偎:十十十 手:八九十七 碰:贰贰贰 碰:柒柒柒 碰:二二二 碰:拾拾拾 胡:七"
Q2 = "碰:二二二 碰:七七七 碰:十十十 碰:贰贰贰 碰:柒柒柒 碰:三三三 手:拾 胡:拾"
Q3 = "偎:八八八 偎:九九九 偎:捌捌捌 吃:七八九 吃:柒捌玖 碰:拾拾拾 手:柒 胡:柒"
Q4 = "碰:七七七 偎:拾拾拾 碰:贰贰贰 吃:肆伍陆 手:一二二三四五六 胡:二"
Q5 = "偎:三三三 偎:四四四 碰:八八八 吃:肆伍陆 碰:壹壹壹 手:三四五九 胡:九"
Q6 = "偎:三三三 偎:四四四 碰:八八八 吃:肆伍陆 碰:贰贰贰 手:三四五九 胡:九"
Q7 = "碰:七七七 偎:拾拾拾 碰:贰贰贰 吃:一二三 手:八八捌捌四五六 胡:八"
Q8 = "碰:七七七 碰:八八八 吃:壹贰叁 手:三三三叁肆伍肆肆四五 胡:六"
Q9 = "手:一二三二三四五六七八九十壹贰叁伍陆柒拾 胡:拾"

V3 = [
    # Q1 (硬息 22, red 18): 22 + 印 + 红 × 9 + 满园花
    pytest.param(Q1, "quanmingtang", 382, {"yin": 30, "hong": 180, "manyuan": 150}, id="Q1-全名堂"),
    pytest.param(Q1, "zuanshi", 522, {"yin": 30, "hong": 270, "manyuan": 200}, id="Q1-钻石"),
    pytest.param(Q1, "zhizun", 822, {"yin": 50, "hong": 450, "manyuan": 300}, id="Q1-至尊"),
    pytest.param(Q1, "xiaomingtang", 172, None, id="Q1-xiaomingtang"),
    pytest.param(Q1, "anxiang", 242, None, id="Q1-anxiang"),
    # Q2 (19, red 17): 19 × 对子胡 + 红 × 8 + 单吊 (对子胡) + 全求人 (+ 美女) + 顶对
    pytest.param(
        Q2,
        "quanmingtang",
        600,
        {"duizi": 171, "hong": 160, "dandiao": 50, "quanqiuren": 150, "dingdui": 50},
        id="Q2-全名堂",
    ),
    pytest.param(
        Q2,
        "zuanshi",
        730,
        {"duizi": 171, "hong": 240, "dandiao": 50, "quanqiuren": 150, "meinv": 50, "dingdui": 50},
        id="Q2-钻石",
    ),
    pytest.param(
        Q2,
        "zhizun",
        1158,
        {
            "duizi": 209,
            "hong": 400,
            "dandiao": 80,
            "quanqiuren": 200,
            "meinv": 150,
            "dingdui": 100,
        },
        id="Q2-至尊",
    ),
    pytest.param(Q2, "anxiang", 214, None, id="Q2-anxiang"),
    pytest.param(Q2, "dazhuo", 342, None, id="Q2-dazhuo"),
    # Q3 (24; 团圆 八 九 捌, all counted): 姊妹卓带拖 + 真八碰头 + 单吊 (one card held)
    pytest.param(
        Q3,
        "quanmingtang",
        504,
        {"zimei_tuo": 150, "bapengtou": 300, "dandiao": 30},
        id="Q3-全名堂",
    ),
    pytest.param(
        Q3, "zuanshi", 654, {"zimei_tuo": 200, "bapengtou": 400, "dandiao": 30}, id="Q3-钻石"
    ),
    pytest.param(
        Q3, "zhizun", 674, {"zimei_tuo": 200, "bapengtou": 400, "dandiao": 50}, id="Q3-至尊"
    ),
    pytest.param(Q3, "dazhuo", 354, None, id="Q3-dazhuo"),
    # Q4 (13, red 12): 红 × 3 + 鸡丁 (二 from another, in the 麻雀, middle of 一二三)
    pytest.param(Q4, "quanmingtang", 173, {"hong": 60, "jiding": 100}, id="Q4-全名堂"),
    pytest.param(Q4, "zuanshi", 203, {"hong": 90, "jiding": 100}, id="Q4-钻石"),
    pytest.param(Q4, "zhizun", 313, {"hong": 150, "jiding": 150}, id="Q4-至尊"),
    pytest.param(Q4, "anxiang", 63, None, id="Q4-anxiang"),
    # Q5 (16, no red): 16 × 乌胡 + 卓胡 (no loose red) + 姊妹卓
    pytest.param(Q5, "quanmingtang", 216, {"wu": 80, "zhuo": 40, "zimei": 80}, id="Q5-全名堂"),
    pytest.param(Q5, "zuanshi", 278, {"wu": 112, "zhuo": 50, "zimei": 100}, id="Q5-钻石"),
    pytest.param(Q5, "zhizun", 310, {"wu": 144, "zhuo": 50, "zimei": 100}, id="Q5-至尊"),
    pytest.param(Q5, "anxiang", 124, None, id="Q5-anxiang"),
    # Q6 (17, three loose reds): 姊妹卓 only, no 卓胡
    pytest.param(Q6, "quanmingtang", 97, {"zimei": 80}, id="Q6-全名堂"),
    pytest.param(Q6, "anxiang", 77, None, id="Q6-anxiang"),
    # Q7 (12, red 10): 红 + 真背靠背 (the first of the 对倒 family)
    pytest.param(Q7, "quanmingtang", 132, {"hong": 20, "zhen_beikaobei": 100}, id="Q7-全名堂"),
    pytest.param(Q7, "zuanshi", 142, {"hong": 30, "zhen_beikaobei": 100}, id="Q7-钻石"),
    pytest.param(Q7, "zhizun", 212, {"hong": 50, "zhen_beikaobei": 150}, id="Q7-至尊"),
    pytest.param(Q7, "anxiang", 42, None, id="Q7-anxiang"),
    pytest.param(Q7, "dazhuo", 82, None, id="Q7-dazhuo"),
    # Q8 (10): 卡胡 + 上下五千年 (+ 心连心 where active)
    pytest.param(Q8, "quanmingtang", 90, {"kahu": 30, "shangxia": 50}, id="Q8-全名堂"),
    pytest.param(Q8, "zuanshi", 120, {"kahu": 30, "shangxia": 50, "xinlianxin": 30}, id="Q8-钻石"),
    pytest.param(Q8, "zhizun", 220, {"kahu": 80, "shangxia": 80, "xinlianxin": 50}, id="Q8-至尊"),
    pytest.param(Q8, "anxiang", 10, None, id="Q8-anxiang"),
]


@pytest.mark.parametrize(("hand", "preset", "total", "patterns"), V3)
def test_v3_vectors(hand: str, preset: str, total: int, patterns: dict[str, int] | None) -> None:
    b = weimaque.score(hand, preset, source="other")
    assert b.winning, b.reason
    assert b.total == total
    if patterns is not None:
        assert {p.key: p.points for p in b.patterns} == patterns


@pytest.mark.parametrize(
    ("preset", "total"), [(t, 2 + v) for t, v in zip(TIERS, (120, 150, 200), strict=True)]
)
def test_v3_q9_two_xi_manyuan(preset: str, total: int) -> None:
    # Q9: six runs each holding red, 麻雀 拾拾 (2): 硬息 2 wins only where 2息满园花 is on.
    rules = get_rules(preset)
    off = weimaque.score(Q9, rules, source="other")
    assert not off.winning
    assert off.hard_xi == 2
    on = weimaque.score(Q9, rules.with_options(enable_patterns=["manyuan_2xi"]), source="other")
    assert on.winning
    assert on.total == total
    assert [p.key for p in on.patterns] == ["manyuan_2xi"]  # it replaces 满园花
    assert not weimaque.score(Q9, "anxiang", source="other").winning


Q10 = "一一一一二二二二五五八九壹叁伍柒捌玖拾"


@pytest.mark.parametrize(
    ("preset", "disabled", "best"),
    [
        pytest.param("quanmingtang", [], ("hongzhadan", 200), id="Q10-全名堂-红炸弹"),
        pytest.param("quanmingtang", ["hongzhadan"], ("heizhadan", 100), id="Q10-全名堂-黑炸弹"),
        pytest.param("zuanshi", [], ("hongzhadan", 200), id="Q10-钻石-红炸弹"),
        pytest.param("zuanshi", ["hongzhadan"], ("zimeizha", 150), id="Q10-钻石-姊妹炸"),
        pytest.param(
            "zuanshi", ["hongzhadan", "zimeizha"], ("heizhadan", 100), id="Q10-钻石-黑炸弹"
        ),
        pytest.param("zhizun", [], ("hongzhadan", 260), id="Q10-至尊-红炸弹"),
    ],
)
def test_v3_q10_deal_patterns(preset: str, disabled: list[str], best: tuple[str, int]) -> None:
    # Q10: seat 1 dealt 19 cards; 二 ×4 with no 三 (a red 炸弹), 一 ×4 (a black one); the seat
    # scores the single best deal 名堂 (RULES §7.4.2 item 9).
    rules = get_rules(preset).with_options(disable_patterns=disabled)
    b = score_deal_cards(Q10, rules)
    assert b.winning
    assert (b.hard_xi, b.total) == (0, best[1])
    assert [(p.key, p.points) for p in b.patterns] == [best]
    assert not score_deal_cards(Q10, "anxiang").winning


# ---------------------------------------------------------------------------------------------
# The other 名堂 of RULES §7.4.1 and the changes of §7.4.2, one hand-worked hand each.

WORKED = [
    # 两姊妹卓: 暗团圆 一 6, 二 8, 七 8, 八 6 = 28; red 8 = 4 × 2 口 → 纯印 2 × 150; 一二 + 七八;
    # all small → 小字胡
    pytest.param(
        "偎:一一一 偎:二二二 偎:七七七 偎:八八八 吃:一二三 手:六七八九 胡:九",
        "quanmingtang",
        "",
        878,
        {"chunyin": 300, "xiaozi": 150, "liang_zimei": 400},
        id="liang_zimei",
    ),
    # 四连卓: 一二三四 团圆, 26 息; red 4 = 1 口 → 纯印 150; 四连卓 before 两姊妹卓/祖孙卓带拖;
    # all small → 小字胡
    pytest.param(
        "偎:一一一 偎:二二二 偎:三三三 偎:四四四 吃:一二三 手:四五六九 胡:九",
        "quanmingtang",
        "",
        826,
        {"chunyin": 150, "xiaozi": 150, "silian": 500},
        id="silian",
    ),
    # 自吃 (RULES §7.4.4): one card held, but a 吃 of one's own draw: 单吊 30, no 全求人.
    # 3+3+3+3+0+2 + 麻雀 拾拾 2 = 16; red 15 → 6 × 20
    pytest.param(
        "碰:二二二 碰:七七七 碰:十十十 碰:贰贰贰 自吃:柒捌玖 碰:三三三 手:拾 胡:拾",
        "quanmingtang",
        "",
        166,
        {"hong": 120, "dandiao": 30},
        id="zichi-no-quanqiuren",
    ),
    pytest.param(
        "碰:二二二 碰:七七七 碰:十十十 碰:贰贰贰 吃:柒捌玖 碰:三三三 手:拾 胡:拾",
        "quanmingtang",
        "",
        316,
        {"hong": 120, "dandiao": 30, "quanqiuren": 150},
        id="quanqiuren",
    ),
    # 飘对: 对子胡, one red triple (七七七). 2 × 5 碰 + 砍 七 4 + 麻雀 八八 0 = 14 → × 10;
    # all small → 小字胡
    pytest.param(
        "碰:一一一 碰:三三三 碰:四四四 碰:五五五 碰:六六六 手:七七七八 胡:八",
        "quanmingtang",
        "",
        340,
        {"duizi": 126, "xiaozi": 150, "piaodui": 50},
        id="piaodui",
    ),
    # 边丁: 一二三三 + 三 from another: 一二三 (三 on top) + 麻雀 三三 (转弯 2); 10 + 2 = 12;
    # red 七3 拾3 贰3 二1 = 10 → 红 20. 边丁 50 beats 边坎 30 (the same 三 read inside 一二三).
    pytest.param(
        "碰:七七七 偎:拾拾拾 碰:贰贰贰 吃:肆伍陆 手:一二三三四五六 胡:三",
        "quanmingtang",
        "",
        82,
        {"hong": 20, "bianding": 50},
        id="bianding",
    ),
    # 圆圆丁 (RULES §7.4.4 --dealt-kan): Q4 + 100
    pytest.param(Q4 + " --dealt-kan", "quanmingtang", "", 273, None, id="yuanyuanding"),
    # 边坎: 五 between 四 and 六 in a hand run; 硬息 10 → 卡胡 too; red 10 (二) → 红 20
    pytest.param(
        "碰:七七七 偎:拾拾拾 碰:贰贰贰 吃:肆伍陆 手:一二三四六九九 胡:五",
        "quanmingtang",
        "",
        90,
        {"hong": 20, "kahu": 30, "biankan": 30},
        id="biankan",
    ),
    # 凤摆尾: 一一 + 一 (碰-valued 2), 麻雀 十十 (2), 碰贰 明团圆 (4th 贰 in 壹贰叁) 7:
    # 3+4+7+0+2+2 = 18; red 七3 拾3 贰4 十2 = 12 → 红 60; 1 口 → 印 30
    pytest.param(
        "碰:七七七 偎:拾拾拾 碰:贰贰贰 吃:四五六 手:一一十十壹贰叁 胡:一",
        "quanmingtang",
        "",
        158,
        {"yin": 30, "hong": 60, "fengbaiwei": 50},
        id="fengbaiwei",
    ),
    # 隔山打牛: 一一 + 一, 麻雀 三三 (0): 3+4+7+0+2+0 = 16; red 10 → 红 30; 印 30 (钻石)
    pytest.param(
        "碰:七七七 偎:拾拾拾 碰:贰贰贰 吃:四五六 手:一一三三壹贰叁 胡:一",
        "zuanshi",
        "",
        106,
        {"yin": 30, "hong": 30, "geshan": 30},
        id="geshan",
    ),
    # 全名堂: 隔山打牛 and 对倒胡 are options, off
    pytest.param(
        "碰:七七七 偎:拾拾拾 碰:贰贰贰 吃:四五六 手:一一三三壹贰叁 胡:一",
        "quanmingtang",
        "",
        66,
        {"yin": 30, "hong": 20},
        id="geshan-off",
    ),
    # 卡偎 (forced 偎 三三三 3, 碰 3 + 2, 麻雀 肆肆 转弯 2 = 10): 卡偎, not 卡胡; 自摸, 活捉小三,
    # 对倒胡 (三三 and 肆肆 held), 心连心 (壹贰叁 + 叁肆伍) in 钻石: 10 + 100 + 4 × 30
    pytest.param(
        "碰:七七七 碰:八八八 吃:壹贰叁 手:三三叁肆伍肆肆四五六 胡:三 --from self",
        "zuanshi",
        "",
        230,
        {"kawei": 100, "zimo": 30, "duidao": 30, "huozhuo": 30, "xinlianxin": 30},
        id="kawei-not-kahu",
    ),
    # 啫啫胡 (--declined 七): Q1 + 30; declined another face: nothing in 全名堂 (no 蛰一蛰)
    pytest.param(Q1 + " --declined 七", "quanmingtang", "", 412, None, id="zhezhe"),
    pytest.param(Q1 + " --declined 八", "quanmingtang", "", 382, None, id="zhezhe-other-face"),
    # 一条龙: 碰贰 3 + 偎捌 3 + 碰壹 2 + 麻雀 柒柒 2 = 10; 一二三 四五六 七八九; + 卡胡
    pytest.param(
        "碰:贰贰贰 偎:捌捌捌 碰:壹壹壹 吃:一二三 手:四五六七八九柒 胡:柒",
        "zuanshi",
        "",
        190,
        {"kahu": 30, "yitiaolong": 150},
        id="yitiaolong",
    ),
    # 两红两黑: 碰 七 3 + 贰 3 + 一 2 + 四 2 = 10, the rest 0; + 卡胡
    pytest.param(
        "碰:七七七 碰:贰贰贰 碰:一一一 碰:四四四 手:伍陆柒捌玖拾九 胡:九",
        "zuanshi",
        "",
        70,
        {"kahu": 30, "lianghong": 30},
        id="lianghong",
    ),
    # 二龙戏珠: red 二 and 贰 only, in 一二三 and 壹贰叁; 偎 3 + 3, 碰 九 2, 砍 捌 3, 麻雀 三三
    # 转弯 2 = 13
    pytest.param(
        "吃:一二三 吃:壹贰叁 偎:四四四 偎:五五五 碰:九九九 手:捌捌捌三 胡:三",
        "zuanshi",
        "",
        63,
        {"erlong": 50},
        id="erlong",
    ),
]


@pytest.mark.parametrize(("hand", "preset", "enable", "total", "patterns"), WORKED)
def test_worked_hands(
    hand: str, preset: str, enable: str, total: int, patterns: dict[str, int] | None
) -> None:
    rules = get_rules(preset)
    if enable:
        rules = rules.with_options(enable_patterns=enable.split(","))
    desc = parse_hand(hand)
    b = score_description(desc, source="other", rules=rules)
    assert b.winning, b.reason
    assert b.total == total
    if patterns is not None:
        assert {p.key: p.points for p in b.patterns} == patterns


def test_geshan_comes_before_duidao() -> None:
    # RULES §7.4.2 item 6: only the first of the 对倒 family that scores counts.
    hand = "碰:七七七 偎:拾拾拾 碰:贰贰贰 吃:四五六 手:一一三三壹贰叁 胡:一"
    rules = get_rules("quanmingtang")
    both = rules.with_options(enable_patterns=["geshan", "duidao"])
    only_duidao = rules.with_options(enable_patterns=["duidao"])
    b = weimaque.score(hand, both, source="other")
    assert {p.key: p.points for p in b.patterns} == {"yin": 30, "hong": 20, "geshan": 30}
    b = weimaque.score(hand, only_duidao, source="other")
    assert {p.key: p.points for p in b.patterns} == {"yin": 30, "hong": 20, "duidao": 30}


def test_zhe_reads_any_declined_face() -> None:
    # RULES §7.4.4: 蛰一蛰 is "any face": a declined face makes it, whatever face wins.
    rules = get_rules("xiaozhuo").with_options(enable_patterns=["zhe"])
    plain = weimaque.score(Q1, rules, source="other")
    declined = weimaque.score(Q1, rules, source="other", declined="八")
    assert declined.total == plain.total + 10
    assert "zhe" in {p.key for p in declined.patterns}


# A 满园花 of 硬息 13: 碰七 3, 偎拾 4, 碰二 3, 伍陆柒, 八九十, 壹贰叁, 麻雀 贰贰 (转弯 3).
# red 14 → 红 × 5; 鸡丁 (贰 in the 麻雀, middle of 壹贰叁): 13 + 100 + 150 + 100 = 363.
MANYUAN_13 = "碰:七七七 偎:拾拾拾 碰:二二二 手:伍陆柒八九十壹贰叁贰 胡:贰"


@pytest.mark.parametrize("min_xi", [10, 15])
def test_app_manyuan_wins_below_qihu_15(min_xi: int) -> None:
    # RULES §7.4.2 item 8: under "app" a 满园花 wins with 硬息 >= 10 even where 起胡 is 15.
    rules = get_rules("quanmingtang").with_options(min_xi=min_xi)
    b = weimaque.score(MANYUAN_13, rules, source="other")
    assert b.winning
    assert (b.hard_xi, b.total) == (13, 363)
    seed = weimaque.score(MANYUAN_13, get_rules("anxiang").with_options(min_xi=min_xi), "other")
    assert seed.winning is (min_xi == 10)


def test_two_xi_manyuan_under_seed_rules() -> None:
    # RULES V7: 2息满园花 is defined once and works under "seed" too.
    head = 'id = "t"\nname = "t"\nname_en = "t"\nsource = "t"\n'
    seed = parse_preset(head + "[patterns]\nmanyuan = 100\nmanyuan_2xi = 50\n")
    b = weimaque.score(Q9, seed, source="other")
    assert b.winning
    assert b.total == 52
    assert [p.key for p in b.patterns] == ["manyuan_2xi"]


# ---------------------------------------------------------------------------------------------
# Deal 名堂 (RULES §7.4.1), each on a seat's dealt cards under 钻石 (which scores them all).

DEALS = [
    # no red card; five black pairs (not 无息天胡: more than one black pair)
    pytest.param("一三四五六八九壹叁肆伍陆捌玖一三五壹叁", ("quanhei", 150), id="quanhei"),
    pytest.param("二二七七十十贰贰柒柒拾拾一三四五六八九", ("liuduihong", 150), id="liuduihong"),
    pytest.param("一一十十壹壹拾拾二三四五六七八九贰叁肆", ("sibiandui", 150), id="sibiandui"),
    pytest.param("一一一三三三五五五七七九九壹壹叁叁伍伍", ("quankan", 150), id="quankan"),
    # 嗲孙炸 (一二三 ×4, no 炸弹: each lies in a run of the dealt cards)
    pytest.param("一一一一二二二二三三三三五七九伍柒玖拾", ("diasunzha", 300), id="diasunzha"),
    pytest.param("一一一一二二二二三三三三四四四四六八十", ("zusunzha", 450), id="zusunzha"),
    # a black 砍 counts as the one pair of 无息天胡
    pytest.param("一一一三五七九壹叁伍柒玖拾贰四六八十捌", ("wudui_deal", 100), id="wudui-app"),
    pytest.param("一一二二三三四四五五六六七七八八九九十", ("jiuxiaodui", 150), id="jiuxiaodui"),
]


@pytest.mark.parametrize(("cards", "best"), DEALS)
def test_deal_patterns(cards: str, best: tuple[str, int]) -> None:
    b = score_deal_cards(cards, "zuanshi")
    assert b.winning
    assert [(p.key, p.points) for p in b.patterns] == [best]


def test_two_black_bombs_and_tongzha() -> None:
    # 一 ×4 and 壹 ×4, neither in a run: 黑炸弹 × 2 = 200 beats 大小同炸 150.
    cards = "一一一一壹壹壹壹三五七九叁伍柒玖捌十拾"
    b = score_deal_cards(cards, "zuanshi")
    assert [(p.key, p.units, p.points) for p in b.patterns] == [("heizhadan", 2, 200)]
    rules = get_rules("zuanshi").with_options(disable_patterns=["heizhadan"])
    assert [p.key for p in score_deal_cards(cards, rules).patterns] == ["tongzha"]


def test_wudui_deal_seed_and_app() -> None:
    # RULES §7.2: a 砍 rules 无对胡 out; §7.4.2 item 9: under "app" a black 砍 is the one pair.
    cards = "一一一三五七九壹叁伍柒玖拾贰四六八十捌"
    assert not score_deal_cards(cards, "xiaozhuo").winning
    assert score_deal_cards(cards, "quanmingtang").total == 100


def test_deal_card_count_is_checked() -> None:
    with pytest.raises(WrongCardCount, match="'一二三'"):
        score_deal_cards("一二三", "zuanshi")
    with pytest.raises(InvalidNotation, match="'一二Q'"):
        score_deal_cards("一二Q", "zuanshi")


def test_score_deal_agrees_with_the_engine_deal_window() -> None:
    # Under the seed presets the calculator's deal 名堂 are the engine's (RULES §7.2): the same
    # single best for every seat of many deals (xiaozhuo has 天胡, 九小对 and 无对胡).
    preset = "xiaozhuo"
    compared = 0
    for seed in range(400):
        state = GameState.new(preset, seed, dealer=seed % 3)
        window = state.deal_window()
        for seat in range(3):
            b = score_deal(tuple(state.hands[seat]), rules=preset)
            engine = window.wins.get(seat)
            assert b.winning is (engine is not None), (seed, seat)
            if engine is not None:
                assert b.total == engine.total, (seed, seat)
                compared += 1
    assert compared > 0


# ---------------------------------------------------------------------------------------------
# The facts of the hand description (RULES §7.4.4) and the CLI.


def test_facts_parse_and_print() -> None:
    text = "自吃:七八九 碰:拾拾拾 碰:柒柒柒 手:一二三四五六壹贰叁九 胡:九"
    text += " --dealt-kan --declined 九二"
    desc = parse_hand(text)
    assert desc.melds[0].own and desc.melds[0].kind == "chi"
    assert not desc.melds[1].own
    assert desc.dealt_kan is True
    assert desc.declined == tuple(parse_cards("二九"))
    assert str(desc) == (
        "自吃:七八九 碰:拾拾拾 碰:柒柒柒 手:一二三四五六九壹贰叁 胡:九 --dealt-kan --declined 二九"
    )
    assert parse_hand(str(desc)) == desc
    ascii_text = "zichi:789x peng:000d peng:777d hand:123456x123d9x win:9x --declined=9x"
    assert parse_hand(ascii_text) == (
        parse_hand("自吃:七八九 碰:拾拾拾 碰:柒柒柒 手:一二三四五六壹贰叁九 胡:九 --declined 九")
    )
    plain = parse_hand("吃:七八九 碰:拾拾拾 碰:柒柒柒 手:一二三四五六壹贰叁九 胡:九")
    assert (plain.dealt_kan, plain.declined) == (None, ())


@pytest.mark.parametrize(
    ("text", "quoted"),
    [
        pytest.param("自吃:七七七 手:一 胡:一", "'自吃:七七七'", id="zichi-not-a-run"),
        pytest.param("手:一二 胡:三 --declined", "--declined", id="declined-empty"),
        pytest.param("手:一二 胡:三 --declined --last", "--declined --last", id="declined-flag"),
        pytest.param("手:一二 胡:三 --declined 二Q", "'二Q'", id="declined-bad-card"),
        pytest.param("手:一二 胡:三 --declined 二二", "二二", id="declined-twice"),
        pytest.param("手:一二 胡:三 --dealt-kan=yes", "--dealt-kan=yes", id="dealt-kan-value"),
    ],
)
def test_fact_errors_quote_the_input(text: str, quoted: str) -> None:
    with pytest.raises(InvalidNotation) as info:
        parse_hand(text, check_total=False)
    assert quoted in str(info.value)


runner = CliRunner(env={"COLUMNS": "250"})


def test_cli_rules_show_quanmingtang() -> None:
    result = runner.invoke(app, ["rules", "show", "quanmingtang"])
    assert result.exit_code == 0
    shown = ("全名堂", "嗲孙卓带拖", "四边对", "2息满园花", "option, off", "mingtang_rules=app")
    for text in shown:
        assert text in result.stdout
    result = runner.invoke(app, ["rules", "show", "zhizun", "--json"])
    data = json.loads(result.stdout)
    assert data["options"]["mingtang_rules"] == "app"
    assert data["names"]["silian"] == "祖孙卓"
    assert data["optional_patterns"] == {"manyuan_2xi": 200}
    result = runner.invoke(app, ["rules", "list", "--app", "--json"])
    assert [r["id"] for r in json.loads(result.stdout)][-3:] == list(TIERS)


def test_cli_score_facts_and_deal() -> None:
    args = ["score", "--json", "-r", "quanmingtang", "--from", "other"]
    result = runner.invoke(app, [*args, "--dealt-kan", "--declined", "二", *Q4.split()])
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["total"] == 173 + 100 + 30  # 圆圆丁, 啫啫胡
    same = weimaque.score(Q4, "quanmingtang", "other", dealt_kan=True, declined="二")
    assert data == same.to_dict()
    result = runner.invoke(app, ["score", "--json", "-r", "zuanshi", "--deal", Q10])
    assert result.exit_code == 0
    assert json.loads(result.stdout)["total"] == 200
    result = runner.invoke(app, [*args, "--declined", "二X", *Q4.split()])
    assert result.exit_code == 2
    assert "'二X'" in result.stderr


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        pytest.param(["--deal", "--tianhu"], "exclude each other", id="deal-and-tianhu"),
        pytest.param(["--deal", "--dealt-kan"], "--deal scores dealt cards", id="deal-dealt-kan"),
        pytest.param(["--tianhu", "--declined", "二"], "--tianhu scores", id="tianhu-declined"),
    ],
)
def test_cli_refuses_facts_of_a_win_on_dealt_cards(flags: list[str], message: str) -> None:
    result = runner.invoke(app, ["score", "-r", "zuanshi", *flags, Q10])
    assert result.exit_code == 2
    assert message in result.stderr


def test_rules_md_tier_table_matches_the_presets() -> None:
    # docs/rules.md §7.4.3 prints the tier values; they must be the presets'.
    from pathlib import Path

    text = (Path(__file__).resolve().parent.parent / "docs" / "rules.md").read_text("utf-8")
    lines = text.splitlines()
    start = lines.index("| key | 名堂 | quanmingtang | zuanshi | zhizun |")
    printed: dict[str, list[str]] = {}
    for row in lines[start + 2 :]:
        if not row.startswith("|"):
            break
        cells = [c.strip() for c in row.strip("|").split("|")]
        printed[cells[0].strip("`")] = cells[2:]
    assert set(printed) == set(TABLE)
    for key, cells in printed.items():
        want = [_shown(c) for c in TABLE[key]]
        assert cells == want, key


def _shown(cell: Cell) -> str:
    if cell is None:
        return "–"
    if isinstance(cell, tuple):
        return f"{cell[0]}/{cell[1]}"
    return str(cell).replace("x", "×")


@settings(derandomize=True, max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_descriptions_with_facts_round_trip(seed: int) -> None:
    # RULES §1.3: everything printed parses back to the same value, the facts of §7.4.4 included.
    rng = random.Random(seed)
    desc, source = random_hand(rng)
    melds = tuple(
        Meld.make("zichi", m.faces) if m.kind == "chi" and rng.random() < 0.5 else m
        for m in desc.melds
    )
    declined = tuple(sorted(rng.sample(range(20), rng.randrange(4))))
    full = dataclasses.replace(
        desc, melds=melds, source=source, dealt_kan=rng.random() < 0.5 or None, declined=declined
    )
    assert parse_hand(str(full)) == full
    assert eval(repr(full), {"parse_hand": parse_hand}) == full
