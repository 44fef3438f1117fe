"""Hand-worked scoring vectors: every expected number below was derived by hand from RULES.md.

Each case gives a hand description (RULES §1.4), a preset id (§7.3), the source of the winning card
and the 海底 flag, then the expected 硬息, multiplier, total, red count and contributing 名堂. The
comment above each case shows the arithmetic. Nothing here is computed from the implementation;
the small notation reader at the top only checks that each vector is a legal 20-card hand.

Conventions used in the comments:
  xi: one entry per group (6 groups + 麻雀), RULES §6.4;  red: red cards among the 20, §1.1/§7.1;
  团圆 (§6.3) values are shown on the triple: 明 5/7, 暗 6/8.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import pytest

import weimaque

# ---------------------------------------------------------------------------------------------
# A tiny independent reader of the §1.3/§1.4 notation, used only to check the vectors themselves.

SMALL = "一二三四五六七八九十"
BIG = "壹贰叁肆伍陆柒捌玖拾"
ALIASES = {"貳": "贰", "陸": "陆", "參": "叁"}
RED = set("二七十贰柒拾")


def _cards(text: str) -> list[str]:
    out: list[str] = []
    digits: list[str] = []
    for ch in text:
        ch = ALIASES.get(ch, ch)
        if ch.isdigit():
            digits.append(ch)
        elif ch in "xXdD":
            assert digits, text
            faces = SMALL if ch in "xX" else BIG
            out.extend(faces[int(d) - 1] for d in digits)
            digits = []
        else:
            assert ch in SMALL or ch in BIG, (ch, text)
            out.append(ch)
    assert not digits, text
    return out


def _hand_cards(hand: str) -> tuple[list[str], list[str]]:
    """Return (all 20 cards, winning cards) of a hand description."""
    allc: list[str] = []
    wins: list[str] = []
    for seg in hand.split():
        kind, _, cards = seg.replace("：", ":").partition(":")
        cs = _cards(cards)
        if kind in ("peng", "碰", "wei", "偎", "栽", "煨", "chi", "吃"):
            assert len(cs) == 3, seg
        elif kind in ("win", "胡"):
            wins.extend(cs)
        else:
            assert kind in ("hand", "手"), seg
        allc.extend(cs)
    return allc, wins


# ---------------------------------------------------------------------------------------------
# Expected results.


@dataclass(frozen=True)
class Win:
    hard_xi: int
    multiplier: int
    total: int
    red: int
    patterns: dict[str, int] = field(default_factory=dict)
    xi: tuple[int, ...] | None = None  # multiset of group 息, only where unambiguous


NO_WIN = None


def case(
    hand: str,
    rules: str,
    source: str,
    last: bool,
    exp: Win | None,
    id: str,
) -> object:
    return pytest.param(hand, rules, source, last, exp, id=id)


# Hands used under several presets (each is worked once, then scored per table of §7.3).

# §9 example 1: 偎十十十 + 八九十 (4th 十) = 暗团圆 red 8; 碰贰/碰柒/碰二/碰拾 = 3 each; 麻雀 七七
# (七 only twice) = 2; 硬息 8+0+3+3+3+3+2 = 22. red: 十4 贰3 柒3 二3 拾3 七2 = 18.
# Every group holds a red card -> 满园花. One red 团圆 (十) = 1 口. RULES §6.3, §6.4, §7.2, §9.
EX172 = "偎:十十十 碰:贰贰贰 碰:柒柒柒 碰:二二二 碰:拾拾拾 手:八九十七 胡:七"
# The same 20 cards in ASCII (§1.3), won on a self-drawn 九 (no 九 in hand, so no 偎 §6.1) which
# lands in the run 八九十: no 单吊.
EX172_ASCII = "wei:000x peng:222d peng:777d peng:222x peng:000d hand:8077x win:9x"

# §9 example 2: 碰二/碰七/碰十/碰贰 = 3 each, 偎柒/偎拾 = 4 each, 麻雀 五五 black, twice = 0;
# 硬息 20; no run -> 对子胡; red 18; the winning 五 forms the 麻雀 -> 单吊 (对子胡 value).
# RULES §6.4, §7.2, §9.
EX170 = "碰:二二二 碰:七七七 碰:十十十 碰:贰贰贰 偎:柒柒柒 偎:拾拾拾 手:五 胡:五"

# Four 碰 (四 2, 七 3, 肆 2, 十 3) + 壹贰叁 + 伍陆柒 + 麻雀 五五 (black, twice, 0): 硬息 10.
# red: 七3 十3 贰1 柒1 = 8. The winning 五 forms the 麻雀 -> 单吊 plain. RULES §6.4.
PENGS = "碰:四四四 碰:七七七 碰:肆肆肆 碰:十十十 手:壹贰叁伍陆柒五 胡:五"

# 碰十 3, 偎七 4, 一二三 0, hand triple 八八八 3, 伍陆柒 0, 壹贰叁 0, 麻雀 九九 (black, twice) 0:
# 硬息 10. red: 十3 七3 二1 柒1 贰1 = 9 (one short of 多红). No 名堂 unless 海底. RULES §6.4, §7.2.
PLAIN10 = "碰:十十十 偎:七七七 吃:一二三 手:八八八伍陆柒壹贰九九 胡:叁"

# Red 6 triples + black pair: 碰一 2, 碰三 2, 偎五 3, 碰壹 2, 偎叁 3, hand 捌捌捌 3, 麻雀 九九 0:
# 硬息 15, red 0, no run -> 对子胡 and 乌胡 -> 乌对 where the preset has it (§7.2); win 九 -> 单吊.
WUDUI = "碰:一一一 碰:三三三 偎:五五五 碰:壹壹壹 偎:叁叁叁 手:捌捌捌九 胡:九"

# 偎一 3, 偎九 3, 三四五 0, 四五六 0, 叁肆伍 0, hand 捌捌捌 3, 麻雀 伍伍 (伍 3 times: 转弯 black 2):
# 硬息 11 (anxiang-old: 转弯 black 1 -> 10). red 0 -> 乌胡. RULES §6.4, §7.2.
WU11 = "偎:一一一 偎:九九九 吃:三四五 手:四五叁肆伍伍伍捌捌捌 胡:六"
# The same with 五六七 for 四五六: red 1 (七) -> 点胡. 硬息 11 (anxiang-old 10).
DIAN11 = "偎:一一一 偎:九九九 吃:三四五 手:五七叁肆伍伍伍捌捌捌 胡:六"
# WU11 with 碰一 (2) for 偎一: 硬息 10 (anxiang-old 9: does not win).
WU10 = "碰:一一一 偎:九九九 吃:三四五 手:四五叁肆伍伍伍捌捌捌 胡:六"

# One red 团圆 and no other red card: 偎七 + 六七八 = 暗团圆 red 8, 六七八 0, 碰九 2, 三四五 0,
# 肆伍陆 0, hand 捌捌捌 3, 麻雀 一一 0: 硬息 13. red = 4 = 4 x 1 口 -> 纯印 (replaces 印胡). §7.2.
CHUNYIN1 = "偎:七七七 吃:六七八 碰:九九九 手:三四肆伍陆捌捌捌一一 胡:五"
# Two red 团圆 only: 偎七 + 六七八 = 8, 碰十 + 八九十 = 明团圆 red 7, 叁肆伍 0, 捌捌捌 3, 一一 0:
# 硬息 18; red 8 = 4 x 2 口 -> 纯印 x2; 团圆 七 and 十 (not consecutive) -> 卓胡.
CHUNYIN2 = "偎:七七七 吃:六七八 碰:十十十 吃:八九十 手:叁肆捌捌捌一一 胡:伍"

# All small: 碰二 3, 偎十 4, 四五六 0, 七八九 0, hand 三三三 3, 五六七 0, 麻雀 一一 0: 硬息 10;
# red: 二3 十3 七2 = 8 -> 小字胡 only. RULES §7.2.
XIAOZI = "碰:二二二 偎:十十十 吃:四五六 手:七八三三三五六七一一 胡:九"
# The mirror in big faces: 硬息 10, red 8 -> 大字胡.
DAZI = "碰:贰贰贰 偎:拾拾拾 吃:肆伍陆 手:柒捌叁叁叁伍陆柒壹壹 胡:玖"

# 团圆 三 (偎 + 三四五: 暗 6) and 九 (碰 + 七八九: 明 5), 伍伍伍 3, 壹贰叁 0, 麻雀 陆陆 0:
# 硬息 14; red 七 贰 = 2; 三 and 九 not consecutive -> 卓胡. RULES §6.3, §7.2.
ZHUO = "偎:三三三 吃:三四五 碰:九九九 吃:七八九 手:贰叁伍伍伍陆陆 胡:壹"
# 团圆 三 and 四 (偎 each, 4ths in 二三四: 暗 6 + 6), 壹贰叁 0, 伍伍伍 3, 柒捌玖 0, 陆陆 0:
# 硬息 15; red 二 贰 柒 = 3; consecutive -> 姊妹卓.
ZIMEI = "偎:三三三 偎:四四四 吃:二三四 手:贰叁伍伍伍陆陆柒捌玖 胡:壹"
# 团圆 一 (暗 6), 三 (暗 6) via 一二三, 九 (碰 + 七八九: 明 5), 壹贰叁 0, 陆陆 0: 硬息 17;
# red 二 七 贰 = 3; 一/三/九, no two consecutive -> 三乱卓.
SANLUAN = "偎:一一一 偎:三三三 吃:一二三 碰:九九九 吃:七八九 手:壹贰陆陆 胡:叁"
# 团圆 三, 四 (暗 6 + 6 via 二三四) and 九 (明 5): 硬息 17; red 3; exactly two consecutive
# -> 姊妹卓带拖.
ZIMEI_TUO = "偎:三三三 偎:四四四 吃:二三四 碰:九九九 吃:七八九 手:壹贰陆陆 胡:叁"
# 团圆 三, 四, 五 (偎 each, the three 4ths in 三四五: 6+6+6), 壹贰叁 0, 柒捌玖 0, 陆陆 0:
# 硬息 18; red 贰 柒 = 2 -> 祖孙卓.
ZUSUN = "偎:三三三 偎:四四四 偎:五五五 吃:三四五 手:壹贰陆陆柒捌玖 胡:叁"
# 团圆 三, 四, 五 (6+6+6 via 三四五) and 九 (碰 + 七八九: 5), 麻雀 拾拾 (red, twice) 2:
# 硬息 25; red 七 + 拾2 = 3 -> 4 团圆, 3 consecutive + 1 more.
ZUSUN_TUO = "偎:三三三 偎:四四四 偎:五五五 碰:九九九 吃:三四五 手:七八拾拾 胡:九"
# 团圆 一, 三 (6+6 via 一二三), 六 (6) and 八 (碰 + 六七八: 5), 麻雀 伍伍 0: 硬息 23;
# red 二 七 = 2; four 团圆, no two consecutive.
SILUAN = "偎:一一一 偎:三三三 偎:六六六 碰:八八八 吃:一二三 手:六七伍伍 胡:八"
# 团圆 三, 四 (6+6 via 二三四), 六 (6), 八 (5), 麻雀 伍伍 0: 硬息 23; red 二 七 = 2.
FOUR_TWO_CONSEC = "偎:三三三 偎:四四四 偎:六六六 碰:八八八 吃:二三四 手:六七伍伍 胡:八"
# 团圆 一 (偎 + 一二三: 暗 6) and 十 (碰 + 八九十: 明 red 7), 伍伍伍 3, 柒捌玖 0, 陆陆 0:
# 硬息 16; red 二 + 十4 + 柒 = 6; 1 red 口 (red 6 != 4: not 纯印); 卓胡; 龙摆尾 (一 and 十).
LONGBAIWEI = "偎:一一一 吃:一二三 碰:十十十 吃:八九十 手:伍伍伍陆陆柒捌 胡:玖"
# 团圆 八 (偎 + 六七八: 6) and 捌 (偎 + 陆柒捌: 6), 伍伍伍 3, 壹贰叁 0, 麻雀 四四 0: 硬息 15;
# red 七 柒 贰 = 3 -> 八碰头; the pair is set aside from the 卓 family (no 卓胡).
BAPENGTOU = "偎:八八八 吃:六七八 偎:捌捌捌 吃:陆柒捌 手:伍伍伍四四贰叁 胡:壹"
# 八碰头 + a third 团圆 三 (偎 + 二三四: 6): 6+6+6 = 硬息 18; red 七 柒 二 = 3. After the 碰头 pair
# is set aside only 三 is left: no 卓 family.
BAPENGTOU3 = "偎:八八八 吃:六七八 偎:捌捌捌 吃:陆柒捌 偎:三三三 手:二四伍伍 胡:三"
# 团圆 三 (偎 + 二三四: 6) and 叁 (偎 + 贰叁肆: 6), 伍伍伍 3, 六七八 0, 麻雀 捌捌 0: 硬息 15;
# red 二 贰 七 = 3 -> 假八碰头.
JIA_BAPENGTOU = "偎:三三三 吃:二三四 偎:叁叁叁 吃:贰叁肆 手:伍伍伍捌捌六七 胡:八"
# 团圆 三, 四, 五 (6+6+6 via 三四五) and 叁 (偎 + 贰叁肆: 6), 麻雀 柒柒 (red, twice) 2: 硬息 26;
# red 贰 + 柒2 = 3. 三/叁 is a 碰头 pair, set aside; the family sees {四, 五} -> 姊妹卓.
JIA_PLUS_ZIMEI = "偎:三三三 偎:四四四 偎:五五五 偎:叁叁叁 吃:三四五 手:贰肆柒柒 胡:叁"

# 对倒 hands: hand had 五五 + 伍伍 (背靠背) or 五五 + 六六 (手牵手); the winning 五 makes 五五五.
# 碰十 3, 偎七 4, 一二三 0, 五五五 (from another 2 / forced 偎 3), 伍伍 or 六六 (twice) 0,
# 壹贰叁 0, 捌捌捌 3: 硬息 12 (other) / 13 (self). red 十3 七3 二 贰 = 8. RULES §6.4, §7.2.
BEIKAOBEI = "碰:十十十 偎:七七七 吃:一二三 手:五五伍伍壹贰叁捌捌捌 胡:五"
SHOUQIANSHOU = "碰:十十十 偎:七七七 吃:一二三 手:五五六六壹贰叁捌捌捌 胡:五"

# 卡偎: 碰九 2, 偎四 3, the self-drawn 五 with 五五 in hand is a forced 偎 (§6.1) 3, 六七八 0,
# 伍陆柒 0, 壹贰叁 0, 麻雀 拾拾 (red, twice) 2: 硬息 exactly 10. red 七 柒 贰 拾2 = 5.
# From another player the 五五五 is worth 2 -> 硬息 9, no win. RULES §6.1, §6.4, §7.2.
KAWEI = "碰:九九九 偎:四四四 手:五五六七八伍陆柒壹贰叁拾拾 胡:五"
# The same with 碰十 (3) for 碰九: 硬息 11 self (not exactly 10: no 卡偎), 10 from another.
# red 十3 七 柒 贰 拾2 = 8.
FORCED11 = "碰:十十十 偎:四四四 手:五五六七八伍陆柒壹贰叁拾拾 胡:五"

# 对倒 with three of the winning face held (RULES §7.2): the winning card meets three held.
THREE_HELD_ANXIANG = "偎:三三三 偎:九九九 吃:壹贰叁 吃:柒捌玖 手:四五六六六陆陆 胡:六"
THREE_HELD_XIAOZHUO = "吃:贰叁肆 偎:贰贰贰 吃:一二三 手:三四四四五八八八肆肆 胡:四"
THREE_HELD_DAZHUO = "吃:一二三 吃:柒捌玖 吃:八九十 手:四五六六六七七七陆陆 胡:六"
THREE_HELD_CHAOJI = "偎:三三三 手:一一一二二二三四四四五六七十十十 胡:一"

# §6.2 choice: 一一一二二二三三三 split as three runs (each with red 二) or three triples.
# Runs:     碰七 3, 偎十 4, 柒捌玖 0, 一二三 x3 0, 麻雀 柒柒 (柒 3 times: 转弯 red 3) = 10,
#           every group holds red -> 满园花;
# Triples:  3 + 4 + 0 + 一一一 3 + 二二二 4 + 三三三 (completed by another's 三: 2) + 3 = 19,
#           一一一 holds no red -> no 满园花.  red 七3 十3 柒3 二3 = 12 either way. No 对子胡 (吃).
CHOICE_RUNS = "碰:七七七 偎:十十十 吃:柒捌玖 手:一一一二二二三三柒柒 胡:三"
# §6.2 choice where the preset decides: 碰十 3, 碰七 3, 偎柒 4, then either
# Runs:     一二三 x3 0, 麻雀 拾拾 (twice, red) 2 -> 硬息 12, 满园花, 单吊 (win 拾);
# Triples:  一一一 3, 二二二 4, 三三三 3 (all in hand) -> 硬息 22, 对子胡, 单吊 (对子胡 value).
# red 十3 七3 柒3 二3 拾2 = 14 -> 多红 unit x 5.
CHOICE_PRESET = "碰:十十十 碰:七七七 偎:柒柒柒 手:一一一二二二三三三拾 胡:拾"

# Red 转弯 with all 4 七 and no 七 triple: 碰十 3, 偎拾 4, 五六七 0, 七八九 0, 壹贰叁 0, 伍陆柒 0,
# 麻雀 七七 (七 4 times: 转弯 red 3) -> 硬息 10. red 十3 拾3 七4 贰 柒 = 12. Every group red:
# 满园花. Not a 团圆 in anxiang (no triple, §6.3); in anxiang-old it is one (+4 red, 1 口).
RED_ZHUANWAN4 = "碰:十十十 偎:拾拾拾 吃:五六七 手:七八九七七壹贰叁伍陆 胡:柒"
# Black 四 4 times, no 四 triple: 碰十 3, 碰七 3, 三四五 0, 四五六 0, 壹贰叁 0, 柒捌玖 0,
# 麻雀 四四 (转弯 black 2; anxiang-old 1) -> anxiang 8 (no win); anxiang-old 3+3+1 + 团圆 3 = 10.
BLACK_NO_TRIPLE = "碰:十十十 碰:七七七 吃:三四五 手:四五六四四壹贰叁柒捌 胡:玖"

# 麻雀 转弯 black: 碰十 3, 偎七 4, 碰四 2, 柒捌玖 0, 壹贰叁 0, 肆伍陆 0, 麻雀 捌捌 (捌 3 times,
# cf. §9 "捌捌 ... 柒捌玖") 2 -> 硬息 11 (anxiang-old: 1 -> 10). red 十3 七3 柒 贰 = 8.
BLACK_ZHUANWAN = "碰:十十十 偎:七七七 碰:四四四 手:柒捌玖捌捌壹贰叁肆伍 胡:陆"

# 明团圆 by 碰: 碰四 + 三四五 = 5, 碰七 + 六七八 = red 7, 壹贰叁 0, 肆伍陆 0, 麻雀 九九 0:
# 硬息 12. red 七4 贰 = 5. 团圆 四, 七 (not consecutive); one red 口 (red 5 != 4).
MING_TUANYUAN = "碰:四四四 碰:七七七 吃:三四五 吃:六七八 手:壹贰叁肆伍陆九 胡:九"
# 暗团圆: 偎七 + 六七八 = red 8, hand 三三三 + 二三四 = black 6, 伍陆柒 0, 玖玖玖 3, 麻雀 五五 0:
# 硬息 17. red 七4 二 柒 = 6. 团圆 三, 七; one red 口; win 五 is the 麻雀 (单吊).
AN_TUANYUAN = "偎:七七七 吃:六七八 手:三三三二三四伍陆柒玖玖玖五 胡:五"


WINNING = [
    # ---- §9 worked examples ----------------------------------------------------------------
    # 22 + 满园花 50 + 印 1 x 10 + 多红 10 x (18 - 9) = 172. RULES §9, §7.3 xiaomingtang.
    case(
        EX172,
        "xiaomingtang",
        "other",
        False,
        Win(22, 1, 172, 18, {"manyuan": 50, "yin": 10, "hong": 90}),
        id="ex9-172-xiaomingtang",
    ),
    case(
        EX172_ASCII,
        "xiaomingtang",
        "self",
        False,
        Win(22, 1, 172, 18, {"manyuan": 50, "yin": 10, "hong": 90}),
        id="ex9-172-ascii-self-xiaomingtang",
    ),
    # anxiang: 22 + 印 10 + 多红 90 + 满园花 100 + 单吊 20 (win 七 forms 七七) = 242. §7.3.
    case(
        EX172,
        "anxiang",
        "other",
        False,
        Win(22, 1, 242, 18, {"yin": 10, "hong": 90, "manyuan": 100, "dandiao": 20}),
        id="ex9-172-hand-anxiang",
    ),
    # anxiang, won on 九 inside 八九十: no 单吊 -> 22 + 10 + 90 + 100 = 222.
    case(
        EX172_ASCII,
        "anxiang",
        "self",
        False,
        Win(22, 1, 222, 18, {"yin": 10, "hong": 90, "manyuan": 100}),
        id="ex9-172-hand-anxiang-no-dandiao",
    ),
    # 20 x 4 + 多红 90 = 170 (xiaomingtang has no 单吊). RULES §9.
    case(
        EX170,
        "xiaomingtang",
        "other",
        False,
        Win(20, 4, 170, 18, {"duizi": 60, "hong": 90}, xi=(3, 3, 3, 3, 4, 4, 0)),
        id="ex9-170-xiaomingtang",
    ),
    # anxiang: 20 x 6 = 120 (duizi 100) + 多红 10 x 9 = 90 + 单吊 (对子胡) 20 = 230.
    case(
        EX170,
        "anxiang",
        "other",
        False,
        Win(20, 6, 230, 18, {"duizi": 100, "hong": 90, "dandiao": 20}),
        id="ex9-170-hand-anxiang",
    ),
    # laomingtang: x4 -> 60, 多红 90, no 单吊 -> 170.
    case(
        EX170,
        "laomingtang",
        "other",
        False,
        Win(20, 4, 170, 18, {"duizi": 60, "hong": 90}),
        id="ex9-170-hand-laomingtang",
    ),
    # anxiang-old: x4 -> 60, 多红 90 -> 170.
    case(
        EX170,
        "anxiang-old",
        "other",
        False,
        Win(20, 4, 170, 18, {"duizi": 60, "hong": 90}),
        id="ex9-170-hand-anxiang-old",
    ),
    # xiaozhuo: x6 -> 100, 多红 unit 20 x 9 = 180, 单吊 对子胡 20 -> 320.
    case(
        EX170,
        "xiaozhuo",
        "other",
        False,
        Win(20, 6, 320, 18, {"duizi": 100, "hong": 180, "dandiao": 20}),
        id="ex9-170-hand-xiaozhuo",
    ),
    # dazhuo: x8 -> 140, 多红 20 x 9 = 180, 单吊 30 (§7.3 note: both 30) -> 370.
    case(
        EX170,
        "dazhuo",
        "other",
        False,
        Win(20, 8, 370, 18, {"duizi": 140, "hong": 180, "dandiao": 30}),
        id="ex9-170-hand-dazhuo",
    ),
    # dazuo: x10 -> 180, 多红 30 x 9 = 270, 单吊 30 -> 500.
    case(
        EX170,
        "dazuo",
        "other",
        False,
        Win(20, 10, 500, 18, {"duizi": 180, "hong": 270, "dandiao": 30}),
        id="ex9-170-hand-dazuo",
    ),
    # chaoji: x10 (as dazuo) -> 180, 多红 50 x 9 = 450, 单吊 50 -> 700.
    case(
        EX170,
        "chaoji",
        "other",
        False,
        Win(20, 10, 700, 18, {"duizi": 180, "hong": 450, "dandiao": 50}),
        id="ex9-170-hand-chaoji",
    ),
    # EX170 again in mixed notation (§1.3/§1.4): ASCII either case, full-width colon, traditional
    # 貳, the 栽/煨 spellings of 偎. Same 20 cards -> 170 under xiaomingtang.
    case(
        "peng:222x 碰：七七七 peng:000X 碰:貳貳貳 栽:777D 煨:拾拾拾 hand:5x 胡:五",
        "xiaomingtang",
        "other",
        False,
        Win(20, 4, 170, 18, {"duizi": 60, "hong": 90}),
        id="ex9-170-mixed-notation",
    ),
    # pinghu: 硬息 only. RULES §6.4.
    case(EX170, "pinghu", "other", False, Win(20, 1, 20, 18), id="ex9-170-hand-pinghu"),
    # ---- 硬息 rows of §6.4 (pinghu: total = 硬息) ------------------------------------------
    # 碰 black 2 (四, 肆) and red 3 (七, 十): 2+3+2+3 = 10.
    case(
        PENGS,
        "pinghu",
        "other",
        False,
        Win(10, 1, 10, 8, xi=(2, 3, 2, 3, 0, 0, 0)),
        id="xi-peng-black2-red3",
    ),
    # 偎四 black 3, 偎十 red 4, hand triple 七七七 red 4, 一二三/伍陆柒/壹贰叁 0, 麻雀 九九 0 = 11.
    # red 十3 二 七3 柒 贰 = 9.
    case(
        "偎:四四四 偎:十十十 吃:一二三 手:七七七伍陆柒壹贰叁九 胡:九",
        "pinghu",
        "other",
        False,
        Win(11, 1, 11, 9, xi=(3, 4, 0, 4, 0, 0, 0)),
        id="xi-wei-black3-red4-hand-triple-red4",
    ),
    # Hand triple completed by another's draw, black: 碰十 3 + 偎四 3 + 五五五 2 + 麻雀 拾拾 2 = 10.
    # red 十3 七 柒 贰 拾2 = 8.
    case(
        "碰:十十十 偎:四四四 手:五五六七八伍陆柒壹贰叁拾拾 胡:五",
        "pinghu",
        "other",
        False,
        Win(10, 1, 10, 8, xi=(3, 3, 2, 0, 0, 0, 2)),
        id="xi-hand-triple-by-other-black2",
    ),
    # Same cards self-drawn: forced 偎 (§6.1) -> 五五五 = 3 -> 11.
    case(
        "碰:十十十 偎:四四四 手:五五六七八伍陆柒壹贰叁拾拾 胡:五",
        "pinghu",
        "self",
        False,
        Win(11, 1, 11, 8, xi=(3, 3, 3, 0, 0, 0, 2)),
        id="xi-forced-wei-black3",
    ),
    # Red: 偎十 4 + 碰四 2 + 七七七 by another 3 + 伍陆柒 0 + 壹贰叁 0 + 捌捌捌 3 + 拾拾 2 = 14.
    # red 十3 七3 柒 贰 拾2 = 10.
    case(
        "偎:十十十 碰:四四四 手:七七伍陆柒壹贰叁捌捌捌拾拾 胡:七",
        "pinghu",
        "other",
        False,
        Win(14, 1, 14, 10, xi=(4, 2, 3, 0, 0, 3, 2)),
        id="xi-hand-triple-by-other-red3",
    ),
    # Self-drawn: forced 偎 red 4 -> 15.
    case(
        "偎:十十十 碰:四四四 手:七七伍陆柒壹贰叁捌捌捌拾拾 胡:七",
        "pinghu",
        "self",
        False,
        Win(15, 1, 15, 10, xi=(4, 2, 4, 0, 0, 3, 2)),
        id="xi-forced-wei-red4",
    ),
    # anxiang, from another: 14 + 多红 10 x (10 - 9) = 24 (对倒 七七/拾拾 but no 背靠背: 七 != 拾).
    case(
        "偎:十十十 碰:四四四 手:七七伍陆柒壹贰叁捌捌捌拾拾 胡:七",
        "anxiang",
        "other",
        False,
        Win(14, 1, 24, 10, {"hong": 10}),
        id="hong-red10-anxiang",
    ),
    # 明团圆 by 碰: 5 (black 四) + 7 (red 七) = 12.
    case(MING_TUANYUAN, "pinghu", "other", False, Win(12, 1, 12, 5), id="xi-ming-tuanyuan-5-7"),
    # anxiang: 12 + 卓胡 20 (四, 七) + 印 10 (七) + 单吊 20 (win 九 -> 九九) = 62.
    case(
        MING_TUANYUAN,
        "anxiang",
        "other",
        False,
        Win(12, 1, 62, 5, {"zhuo": 20, "yin": 10, "dandiao": 20}),
        id="ming-tuanyuan-anxiang-zhuo-yin-dandiao",
    ),
    # 明团圆 by a hand triple completed by another's draw: 四四 + another's 四 (2) + 4th in the 吃
    # 三四五 -> 5; 碰十 3; 麻雀 拾拾 2 -> 10. red 十3 七 贰 拾2 = 7. RULES §6.4 明团圆 row.
    case(
        "碰:十十十 吃:三四五 手:四四六七八壹贰叁肆伍陆拾拾 胡:四",
        "pinghu",
        "other",
        False,
        Win(10, 1, 10, 7),
        id="xi-ming-tuanyuan-by-other-draw-5",
    ),
    # Same, self-drawn: forced 偎 + 4th in a run = 暗团圆 6 -> 11.
    case(
        "碰:十十十 吃:三四五 手:四四六七八壹贰叁肆伍陆拾拾 胡:四",
        "pinghu",
        "self",
        False,
        Win(11, 1, 11, 7),
        id="xi-an-tuanyuan-by-forced-wei-6",
    ),
    # 暗团圆 red 8 (偎七) + black 6 (hand 三三三) + 玖玖玖 3 = 17.
    case(AN_TUANYUAN, "pinghu", "other", False, Win(17, 1, 17, 6), id="xi-an-tuanyuan-6-8"),
    # anxiang: 17 + 印 10 + 卓胡 20 (三, 七) + 单吊 20 = 67 (red 6 != 4: not 纯印).
    case(
        AN_TUANYUAN,
        "anxiang",
        "other",
        False,
        Win(17, 1, 67, 6, {"yin": 10, "zhuo": 20, "dandiao": 20}),
        id="an-tuanyuan-anxiang-yin-zhuo-dandiao",
    ),
    # A 砍 三三三 stays whole (§4.4: scores as a 偎) and another's 三 goes into 三四五 -> 暗团圆 6:
    # 碰十 3 + 偎七 4 + 壹贰叁 0 + 6 + 三四五 0 + 伍陆柒 0 + 九九 0 = 13. red 十3 七3 贰 柒 = 8.
    case(
        "碰:十十十 偎:七七七 吃:壹贰叁 手:三三三四五伍陆柒九九 胡:三",
        "pinghu",
        "other",
        False,
        Win(13, 1, 13, 8),
        id="xi-kan-whole-other-card-in-run-6",
    ),
    # Self-drawn with 3 in hand: 偎 uses 2, keeps 1 (§4.3) -> the kept 三 in 三四五: 暗团圆 6 -> 13.
    case(
        "碰:十十十 偎:七七七 吃:壹贰叁 手:三三三四五伍陆柒九九 胡:三",
        "pinghu",
        "self",
        False,
        Win(13, 1, 13, 8),
        id="xi-forced-wei-of-kan-keeps-one-6",
    ),
    # 麻雀 转弯 black 2 (捌 3 times) -> 11. RULES §6.4, §9.
    case(
        BLACK_ZHUANWAN,
        "pinghu",
        "other",
        False,
        Win(11, 1, 11, 8, xi=(3, 4, 2, 0, 0, 0, 2)),
        id="xi-maque-zhuanwan-black2",
    ),
    # anxiang-old: black 转弯 1 -> 10.
    case(
        BLACK_ZHUANWAN,
        "anxiang-old",
        "other",
        False,
        Win(10, 1, 10, 8, xi=(3, 4, 2, 0, 0, 0, 1)),
        id="xi-maque-zhuanwan-black1-anxiang-old",
    ),
    # 麻雀 转弯 red 3 (柒 3 times): 碰九 2 + 偎四 3 + 柒捌玖 0 + 柒柒 3 + 壹贰叁 0 + 叁肆伍 0
    # + hand 五五五 3 = 11. red 柒3 贰 = 4.
    case(
        "碰:九九九 偎:四四四 手:柒捌玖柒柒壹贰叁叁肆五五五 胡:伍",
        "pinghu",
        "other",
        False,
        Win(11, 1, 11, 4, xi=(2, 3, 0, 3, 0, 0, 3)),
        id="xi-maque-zhuanwan-red3",
    ),
    # 麻雀 七七 with 七 4 times (no triple): 转弯 red 3 -> 10 (pinghu).
    case(
        RED_ZHUANWAN4,
        "pinghu",
        "other",
        False,
        Win(10, 1, 10, 12, xi=(3, 4, 0, 0, 0, 0, 3)),
        id="xi-maque-zhuanwan-red3-four-copies",
    ),
    # anxiang: 10 + 满园花 100 + 多红 10 x 3 = 30 -> 140 (no 团圆: no triple of 七, §6.3).
    case(
        RED_ZHUANWAN4,
        "anxiang",
        "other",
        False,
        Win(10, 1, 140, 12, {"manyuan": 100, "hong": 30}),
        id="manyuan-red-zhuanwan-anxiang",
    ),
    # anxiang-old: 七 x4 is a 团圆 without triple: +4 -> 硬息 14; 印 10; 多红 30; 满园花 50 -> 104.
    case(
        RED_ZHUANWAN4,
        "anxiang-old",
        "other",
        False,
        Win(14, 1, 104, 12, {"yin": 10, "hong": 30, "manyuan": 50}),
        id="anxiang-old-red-tuanyuan-no-triple",
    ),
    # anxiang-old: black 四 x4 without triple: 3 + 3 + 转弯 1 + 团圆 3 = 10, red 8 -> 10.
    case(
        BLACK_NO_TRIPLE,
        "anxiang-old",
        "other",
        False,
        Win(10, 1, 10, 8),
        id="anxiang-old-black-tuanyuan-no-triple",
    ),
    # ---- 名堂 --------------------------------------------------------------------------------
    # 纯印: 13 + 100 x 1 = 113 (anxiang). RULES §7.2.
    case(
        CHUNYIN1,
        "anxiang",
        "other",
        False,
        Win(13, 1, 113, 4, {"chunyin": 100}),
        id="chunyin-1kou-anxiang",
    ),
    case(
        CHUNYIN1,
        "dazhuo",
        "other",
        False,
        Win(13, 1, 163, 4, {"chunyin": 150}),
        id="chunyin-1kou-dazhuo",
    ),
    # laomingtang has no 纯印: 印胡 10 -> 23.
    case(
        CHUNYIN1,
        "laomingtang",
        "other",
        False,
        Win(13, 1, 23, 4, {"yin": 10}),
        id="chunyin-1kou-laomingtang-yin-only",
    ),
    case(
        CHUNYIN1,
        "xiaomingtang",
        "other",
        False,
        Win(13, 1, 23, 4, {"yin": 10}),
        id="chunyin-1kou-xiaomingtang-yin-only",
    ),
    # chaoji: 纯印 200 -> 213.
    case(
        CHUNYIN1,
        "chaoji",
        "other",
        False,
        Win(13, 1, 213, 4, {"chunyin": 200}),
        id="chunyin-1kou-chaoji",
    ),
    # Two 口, red 8: 纯印 2 x 100 + 卓胡 20 -> 18 + 220 = 238.
    case(
        CHUNYIN2,
        "anxiang",
        "other",
        False,
        Win(18, 1, 238, 8, {"chunyin": 200, "zhuo": 20}),
        id="chunyin-2kou-zhuo-anxiang",
    ),
    # dazhuo: 2 x 150 + 卓胡 30 -> 348.
    case(
        CHUNYIN2,
        "dazhuo",
        "other",
        False,
        Win(18, 1, 348, 8, {"chunyin": 300, "zhuo": 30}),
        id="chunyin-2kou-zhuo-dazhuo",
    ),
    # laomingtang: 印 2 x 10 -> 38.
    case(
        CHUNYIN2,
        "laomingtang",
        "other",
        False,
        Win(18, 1, 38, 8, {"yin": 20}),
        id="yin-2kou-laomingtang",
    ),
    # 乌对 (anxiang x8): 15 x 8 = 120 (points 105) + 单吊 对子胡 20 = 140; replaces 对子胡 and 乌胡.
    case(
        WUDUI,
        "anxiang",
        "other",
        False,
        Win(15, 8, 140, 0, {"wudui": 105, "dandiao": 20}, xi=(2, 2, 3, 2, 3, 3, 0)),
        id="wudui-anxiang",
    ),
    # xiaomingtang has no 乌对: 对子胡 x4 vs 乌胡 x3 -> the larger, x4: 60 (points 45). §7.1.
    case(
        WUDUI,
        "xiaomingtang",
        "other",
        False,
        Win(15, 4, 60, 0, {"duizi": 45}),
        id="duizi-beats-wu-xiaomingtang",
    ),
    # laomingtang 乌对 x6 -> 90.
    case(
        WUDUI,
        "laomingtang",
        "other",
        False,
        Win(15, 6, 90, 0, {"wudui": 75}),
        id="wudui-laomingtang",
    ),
    # anxiang-old 乌对 x7 -> 105; its +20 乌胡 is replaced.
    case(
        WUDUI,
        "anxiang-old",
        "other",
        False,
        Win(15, 7, 105, 0, {"wudui": 90}),
        id="wudui-anxiang-old",
    ),
    # dazhuo 乌对 x10 -> 150 + 单吊 30 = 180.
    case(
        WUDUI,
        "dazhuo",
        "other",
        False,
        Win(15, 10, 180, 0, {"wudui": 135, "dandiao": 30}),
        id="wudui-dazhuo",
    ),
    # dazuo 乌对 x15 -> 225 + 单吊 30 = 255.
    case(
        WUDUI,
        "dazuo",
        "other",
        False,
        Win(15, 15, 255, 0, {"wudui": 210, "dandiao": 30}),
        id="wudui-dazuo",
    ),
    # 乌胡 anxiang x4: 11 x 4 = 44 (points 33).
    case(WU11, "anxiang", "other", False, Win(11, 4, 44, 0, {"wu": 33}), id="wu-anxiang"),
    # anxiang-old: 硬息 10 (转弯 black 1), 乌胡 is +20 -> 30.
    case(WU11, "anxiang-old", "other", False, Win(10, 1, 30, 0, {"wu": 20}), id="wu-anxiang-old"),
    # laomingtang x3 -> 33; dazhuo x6 -> 66.
    case(WU11, "laomingtang", "other", False, Win(11, 3, 33, 0, {"wu": 22}), id="wu-laomingtang"),
    case(WU11, "dazhuo", "other", False, Win(11, 6, 66, 0, {"wu": 55}), id="wu-dazhuo"),
    # WU10 under anxiang: 10 x 4 = 40.
    case(WU10, "anxiang", "other", False, Win(10, 4, 40, 0, {"wu": 30}), id="wu-10xi-anxiang"),
    # 点胡 anxiang x3: 11 x 3 = 33.
    case(DIAN11, "anxiang", "other", False, Win(11, 3, 33, 1, {"dian": 22}), id="dian-anxiang"),
    # anxiang-old: 10 + 点胡 +10 = 20.
    case(
        DIAN11,
        "anxiang-old",
        "other",
        False,
        Win(10, 1, 20, 1, {"dian": 10}),
        id="dian-anxiang-old",
    ),
    # xiaomingtang x2 -> 22; dazuo x6 -> 66.
    case(
        DIAN11,
        "xiaomingtang",
        "other",
        False,
        Win(11, 2, 22, 1, {"dian": 11}),
        id="dian-xiaomingtang",
    ),
    case(DIAN11, "dazuo", "other", False, Win(11, 6, 66, 1, {"dian": 55}), id="dian-dazuo"),
    # 小字胡: 10 + 100 (anxiang) = 110; laomingtang 50 -> 60; dazhuo 200 -> 210;
    # xiaomingtang has none -> 10.
    case(
        XIAOZI,
        "anxiang",
        "other",
        False,
        Win(10, 1, 110, 8, {"xiaozi": 100}, xi=(3, 4, 0, 0, 3, 0, 0)),
        id="xiaozi-anxiang",
    ),
    case(
        XIAOZI,
        "laomingtang",
        "other",
        False,
        Win(10, 1, 60, 8, {"xiaozi": 50}),
        id="xiaozi-laomingtang",
    ),
    case(XIAOZI, "dazhuo", "other", False, Win(10, 1, 210, 8, {"xiaozi": 200}), id="xiaozi-dazhuo"),
    case(XIAOZI, "xiaomingtang", "other", False, Win(10, 1, 10, 8), id="xiaozi-xiaomingtang-none"),
    # 大字胡: 10 + 100 = 110 (anxiang); dazuo 150 -> 160.
    case(DAZI, "anxiang", "other", False, Win(10, 1, 110, 8, {"dazi": 100}), id="dazi-anxiang"),
    case(DAZI, "dazuo", "other", False, Win(10, 1, 160, 8, {"dazi": 150}), id="dazi-dazuo"),
    # 卓胡: 14 + 20 = 34 (anxiang); dazhuo 30 -> 44; jiaqiang 50 -> 64; laomingtang none -> 14.
    case(ZHUO, "anxiang", "other", False, Win(14, 1, 34, 2, {"zhuo": 20}), id="zhuo-anxiang"),
    case(ZHUO, "dazhuo", "other", False, Win(14, 1, 44, 2, {"zhuo": 30}), id="zhuo-dazhuo"),
    case(ZHUO, "jiaqiang", "other", False, Win(14, 1, 64, 2, {"zhuo": 50}), id="zhuo-jiaqiang"),
    case(ZHUO, "laomingtang", "other", False, Win(14, 1, 14, 2), id="zhuo-laomingtang-none"),
    # 姊妹卓: 15 + 40 = 55 (anxiang); dazhuo 60 -> 75; dazuo 80 -> 95.
    case(ZIMEI, "anxiang", "other", False, Win(15, 1, 55, 3, {"zimei": 40}), id="zimei-anxiang"),
    case(ZIMEI, "dazhuo", "other", False, Win(15, 1, 75, 3, {"zimei": 60}), id="zimei-dazhuo"),
    case(ZIMEI, "dazuo", "other", False, Win(15, 1, 95, 3, {"zimei": 80}), id="zimei-dazuo"),
    # 三乱卓: 17 + 60 = 77 (anxiang); dazhuo 100 -> 117; dazuo 120 -> 137.
    case(
        SANLUAN, "anxiang", "other", False, Win(17, 1, 77, 3, {"sanluan": 60}), id="sanluan-anxiang"
    ),
    case(
        SANLUAN, "dazhuo", "other", False, Win(17, 1, 117, 3, {"sanluan": 100}), id="sanluan-dazhuo"
    ),
    case(
        SANLUAN, "dazuo", "other", False, Win(17, 1, 137, 3, {"sanluan": 120}), id="sanluan-dazuo"
    ),
    # 姊妹卓带拖: 17 + 80 = 97 (anxiang); dazhuo 150 -> 167.
    case(
        ZIMEI_TUO,
        "anxiang",
        "other",
        False,
        Win(17, 1, 97, 3, {"zimei_tuo": 80}),
        id="zimei-tuo-anxiang",
    ),
    case(
        ZIMEI_TUO,
        "dazhuo",
        "other",
        False,
        Win(17, 1, 167, 3, {"zimei_tuo": 150}),
        id="zimei-tuo-dazhuo",
    ),
    # 祖孙卓: 18 + 150 = 168 (anxiang); dazhuo 300 -> 318; dazuo ("爹孙作") 200 -> 218.
    case(ZUSUN, "anxiang", "other", False, Win(18, 1, 168, 2, {"zusun": 150}), id="zusun-anxiang"),
    case(ZUSUN, "dazhuo", "other", False, Win(18, 1, 318, 2, {"zusun": 300}), id="zusun-dazhuo"),
    case(ZUSUN, "dazuo", "other", False, Win(18, 1, 218, 2, {"zusun": 200}), id="zusun-dazuo"),
    # 祖孙卓带拖: 25 + 300 = 325 (anxiang).
    case(
        ZUSUN_TUO,
        "anxiang",
        "other",
        False,
        Win(25, 1, 325, 3, {"zusun_tuo": 300}),
        id="zusun-tuo-anxiang",
    ),
    # xiaozhuo: 四乱卓 200 and 祖孙卓带拖 300 both fit; only the highest -> 325.
    case(
        ZUSUN_TUO,
        "xiaozhuo",
        "other",
        False,
        Win(25, 1, 325, 3, {"zusun_tuo": 300}),
        id="zusun-tuo-beats-siluan-xiaozhuo",
    ),
    # dazhuo: 祖孙卓带拖 390 (> 四乱卓 300) -> 415.
    case(
        ZUSUN_TUO,
        "dazhuo",
        "other",
        False,
        Win(25, 1, 415, 3, {"zusun_tuo": 390}),
        id="zusun-tuo-dazhuo",
    ),
    # dazuo has no 祖孙卓带拖; "4作" (any 4 团圆) 400 > 爹孙作 200 -> 425.
    case(
        ZUSUN_TUO,
        "dazuo",
        "other",
        False,
        Win(25, 1, 425, 3, {"siluan": 400}),
        id="four-tuanyuan-dazuo-siluan",
    ),
    # 四乱卓 in xiaozhuo 200 -> 223; dazhuo 300 -> 323; chaoji 500 -> 523.
    case(
        SILUAN,
        "xiaozhuo",
        "other",
        False,
        Win(23, 1, 223, 2, {"siluan": 200}),
        id="siluan-xiaozhuo",
    ),
    case(SILUAN, "dazhuo", "other", False, Win(23, 1, 323, 2, {"siluan": 300}), id="siluan-dazhuo"),
    case(SILUAN, "chaoji", "other", False, Win(23, 1, 523, 2, {"siluan": 500}), id="siluan-chaoji"),
    # anxiang has no 4-团圆 pattern: best 3-subset of {一,三,六,八} is 三乱卓 60 -> 83.
    case(
        SILUAN,
        "anxiang",
        "other",
        False,
        Win(23, 1, 83, 2, {"sanluan": 60}),
        id="four-tuanyuan-anxiang-best-subset-sanluan",
    ),
    # anxiang, {三,四,六,八}: best 3-subset {三,四,六} exactly two consecutive -> 姊妹卓带拖 80
    # (no three consecutive, so no 祖孙卓带拖) -> 103.
    case(
        FOUR_TWO_CONSEC,
        "anxiang",
        "other",
        False,
        Win(23, 1, 103, 2, {"zimei_tuo": 80}),
        id="four-tuanyuan-anxiang-best-subset-zimei-tuo",
    ),
    # 龙摆尾 adds to the 卓 family: xiaozhuo 16 + 印 20 + 卓胡 20 + 龙摆尾 100 = 156.
    case(
        LONGBAIWEI,
        "xiaozhuo",
        "other",
        False,
        Win(16, 1, 156, 6, {"yin": 20, "zhuo": 20, "longbaiwei": 100}),
        id="longbaiwei-xiaozhuo",
    ),
    # dazhuo: 16 + 30 + 30 + 150 = 226.
    case(
        LONGBAIWEI,
        "dazhuo",
        "other",
        False,
        Win(16, 1, 226, 6, {"yin": 30, "zhuo": 30, "longbaiwei": 150}),
        id="longbaiwei-dazhuo",
    ),
    # anxiang has no 龙摆尾: 16 + 10 + 20 = 46.
    case(
        LONGBAIWEI,
        "anxiang",
        "other",
        False,
        Win(16, 1, 46, 6, {"yin": 10, "zhuo": 20}),
        id="longbaiwei-absent-anxiang",
    ),
    # 八碰头: 15 + 200 = 215 (anxiang); dazhuo 300 -> 315; chaoji 400 -> 415; xiaomingtang 15.
    case(
        BAPENGTOU,
        "anxiang",
        "other",
        False,
        Win(15, 1, 215, 3, {"bapengtou": 200}),
        id="bapengtou-anxiang",
    ),
    case(
        BAPENGTOU,
        "dazhuo",
        "other",
        False,
        Win(15, 1, 315, 3, {"bapengtou": 300}),
        id="bapengtou-dazhuo",
    ),
    case(
        BAPENGTOU,
        "chaoji",
        "other",
        False,
        Win(15, 1, 415, 3, {"bapengtou": 400}),
        id="bapengtou-chaoji",
    ),
    case(BAPENGTOU, "xiaomingtang", "other", False, Win(15, 1, 15, 3), id="bapengtou-xiaomingtang"),
    # 八碰头 + 团圆 三: the pair is set aside, one 团圆 left -> 18 + 200 = 218 (no 卓).
    case(
        BAPENGTOU3,
        "anxiang",
        "other",
        False,
        Win(18, 1, 218, 3, {"bapengtou": 200}),
        id="bapengtou-pair-set-aside-from-zhuo",
    ),
    # 假八碰头: 15 + 100 = 115 (anxiang); dazhuo 150 -> 165; chaoji 200 -> 215.
    case(
        JIA_BAPENGTOU,
        "anxiang",
        "other",
        False,
        Win(15, 1, 115, 3, {"jia_bapengtou": 100}),
        id="jia-bapengtou-anxiang",
    ),
    case(
        JIA_BAPENGTOU,
        "dazhuo",
        "other",
        False,
        Win(15, 1, 165, 3, {"jia_bapengtou": 150}),
        id="jia-bapengtou-dazhuo",
    ),
    case(
        JIA_BAPENGTOU,
        "chaoji",
        "other",
        False,
        Win(15, 1, 215, 3, {"jia_bapengtou": 200}),
        id="jia-bapengtou-chaoji",
    ),
    # 假八碰头 (三/叁) 100 + 姊妹卓 on the rest {四, 五} 40 -> 26 + 140 = 166 (anxiang).
    case(
        JIA_PLUS_ZIMEI,
        "anxiang",
        "other",
        False,
        Win(26, 1, 166, 3, {"jia_bapengtou": 100, "zimei": 40}),
        id="jia-bapengtou-plus-zimei-anxiang",
    ),
    # dazhuo: 150 + 60 -> 236.
    case(
        JIA_PLUS_ZIMEI,
        "dazhuo",
        "other",
        False,
        Win(26, 1, 236, 3, {"jia_bapengtou": 150, "zimei": 60}),
        id="jia-bapengtou-plus-zimei-dazhuo",
    ),
    # 海底 (last=True): 10 + 10 = 20 (anxiang); xiaozhuo 20 -> 30; dazhuo 30 -> 40; chaoji 50 -> 60;
    # xiaomingtang has no 海底 -> 10. Without last: 10 (red 9: no 多红).
    case(PLAIN10, "anxiang", "other", False, Win(10, 1, 10, 9), id="plain-10-red9-no-hong"),
    case(PLAIN10, "anxiang", "other", True, Win(10, 1, 20, 9, {"haidi": 10}), id="haidi-anxiang"),
    case(PLAIN10, "xiaozhuo", "self", True, Win(10, 1, 30, 9, {"haidi": 20}), id="haidi-xiaozhuo"),
    case(PLAIN10, "dazhuo", "other", True, Win(10, 1, 40, 9, {"haidi": 30}), id="haidi-dazhuo"),
    case(PLAIN10, "chaoji", "other", True, Win(10, 1, 60, 9, {"haidi": 50}), id="haidi-chaoji"),
    case(PLAIN10, "xiaomingtang", "other", True, Win(10, 1, 10, 9), id="haidi-xiaomingtang-none"),
    # 单吊 plain: anxiang 20 -> 30; xiaozhuo 10 -> 20 (its 对子胡 单吊 is 20, see EX170);
    # dazhuo 30 -> 40.
    case(
        PENGS, "anxiang", "other", False, Win(10, 1, 30, 8, {"dandiao": 20}), id="dandiao-anxiang"
    ),
    case(
        PENGS,
        "xiaozhuo",
        "other",
        False,
        Win(10, 1, 20, 8, {"dandiao": 10}),
        id="dandiao-plain-xiaozhuo",
    ),
    case(PENGS, "dazhuo", "other", False, Win(10, 1, 40, 8, {"dandiao": 30}), id="dandiao-dazhuo"),
    # A self-drawn 单吊 is 单吊 too (hand held one 五, so no 偎); xiaozhuo's 自摸 is off (§7.3).
    case(
        PENGS,
        "xiaozhuo",
        "self",
        False,
        Win(10, 1, 20, 8, {"dandiao": 10}),
        id="dandiao-self-xiaozhuo-no-zimo",
    ),
    # 背靠背 (五五 + 伍伍): anxiang 12 + 20 = 32; self (forced 偎) 13 + 20 = 33; dazhuo 12 + 50.
    case(
        BEIKAOBEI,
        "anxiang",
        "other",
        False,
        Win(12, 1, 32, 8, {"beikaobei": 20}),
        id="beikaobei-anxiang",
    ),
    case(
        BEIKAOBEI,
        "anxiang",
        "self",
        False,
        Win(13, 1, 33, 8, {"beikaobei": 20}),
        id="beikaobei-forced-wei-anxiang",
    ),
    case(
        BEIKAOBEI,
        "dazhuo",
        "other",
        False,
        Win(12, 1, 62, 8, {"beikaobei": 50}),
        id="beikaobei-dazhuo",
    ),
    # 手牵手 (五五 + 六六): off in anxiang -> 12; xiaozhuo 20 -> 32 (self 13 + 20 = 33);
    # dazuo 50 -> 62.
    case(SHOUQIANSHOU, "anxiang", "other", False, Win(12, 1, 12, 8), id="shouqianshou-off-anxiang"),
    case(
        SHOUQIANSHOU,
        "xiaozhuo",
        "other",
        False,
        Win(12, 1, 32, 8, {"shouqianshou": 20}),
        id="shouqianshou-xiaozhuo",
    ),
    case(
        SHOUQIANSHOU,
        "xiaozhuo",
        "self",
        False,
        Win(13, 1, 33, 8, {"shouqianshou": 20}),
        id="shouqianshou-forced-wei-xiaozhuo",
    ),
    case(
        SHOUQIANSHOU,
        "dazuo",
        "other",
        False,
        Win(12, 1, 62, 8, {"shouqianshou": 50}),
        id="shouqianshou-dazuo",
    ),
    # 卡偎: dazhuo 10 + 50 = 60; xiaozuo 20 -> 30; chaoji 50 -> 60; anxiang has none -> 10.
    case(KAWEI, "dazhuo", "self", False, Win(10, 1, 60, 5, {"kawei": 50}), id="kawei-dazhuo"),
    case(KAWEI, "xiaozuo", "self", False, Win(10, 1, 30, 5, {"kawei": 20}), id="kawei-xiaozuo"),
    case(KAWEI, "chaoji", "self", False, Win(10, 1, 60, 5, {"kawei": 50}), id="kawei-chaoji"),
    case(KAWEI, "anxiang", "self", False, Win(10, 1, 10, 5), id="kawei-absent-anxiang"),
    # xiaozhuo has no 卡偎 and 自摸 is an option that is off -> 10.
    case(KAWEI, "xiaozhuo", "self", False, Win(10, 1, 10, 5), id="kawei-absent-xiaozhuo-no-zimo"),
    # Forced 偎 but 硬息 11 != 10: no 卡偎 (dazhuo) -> 11; from another: 10, still no 卡偎.
    case(FORCED11, "dazhuo", "self", False, Win(11, 1, 11, 8), id="forced-wei-11xi-no-kawei"),
    case(FORCED11, "dazhuo", "other", False, Win(10, 1, 10, 8), id="other-draw-10xi-no-kawei"),
    # ---- §6.2 choice -------------------------------------------------------------------------
    # anxiang: runs 10 + 满园花 100 + 多红 30 = 140 beats triples 19 + 30 = 49.
    case(
        CHOICE_RUNS,
        "anxiang",
        "other",
        False,
        Win(10, 1, 140, 12, {"manyuan": 100, "hong": 30}, xi=(3, 4, 0, 0, 0, 0, 3)),
        id="choice-manyuan-runs-over-triples-anxiang",
    ),
    # dazhuo: runs 10 + 200 + 20 x 3 = 270 beats triples 19 + 60 = 79.
    case(
        CHOICE_RUNS,
        "dazhuo",
        "other",
        False,
        Win(10, 1, 270, 12, {"manyuan": 200, "hong": 60}),
        id="choice-manyuan-runs-over-triples-dazhuo",
    ),
    # pinghu (硬息 only): the triples, 19.
    case(
        CHOICE_RUNS,
        "pinghu",
        "other",
        False,
        Win(19, 1, 19, 12, xi=(3, 4, 0, 3, 4, 2, 3)),
        id="choice-triples-pinghu",
    ),
    # anxiang: triples 22 x 6 = 132 (duizi 110) + 多红 10 x 5 = 50 + 单吊 20 = 202
    #   beats runs 12 + 满园花 100 + 50 + 20 = 182.
    case(
        CHOICE_PRESET,
        "anxiang",
        "other",
        False,
        Win(22, 6, 202, 14, {"duizi": 110, "hong": 50, "dandiao": 20}),
        id="choice-duizi-over-manyuan-anxiang",
    ),
    # dazhuo: runs 12 + 满园花 200 + 多红 20 x 5 = 100 + 单吊 30 = 342
    #   beats triples 22 x 8 = 176 + 100 + 30 = 306.
    case(
        CHOICE_PRESET,
        "dazhuo",
        "other",
        False,
        Win(12, 1, 342, 14, {"manyuan": 200, "hong": 100, "dandiao": 30}),
        id="choice-manyuan-over-duizi-dazhuo",
    ),
    # chaoji: triples 22 x 10 = 220 + 多红 50 x 5 = 250 + 单吊 50 = 520
    #   beats runs 12 + 200 + 250 + 50 = 512.
    case(
        CHOICE_PRESET,
        "chaoji",
        "other",
        False,
        Win(22, 10, 520, 14, {"duizi": 198, "hong": 250, "dandiao": 50}),
        id="choice-duizi-over-manyuan-chaoji",
    ),
    # laomingtang: triples 22 x 4 = 88 + 多红 50 = 138 beats runs 12 + 50 + 50 = 112.
    case(
        CHOICE_PRESET,
        "laomingtang",
        "other",
        False,
        Win(22, 4, 138, 14, {"duizi": 66, "hong": 50}),
        id="choice-duizi-over-manyuan-laomingtang",
    ),
    # RULES §7.2 (2026-11-30): 对倒 and 卡偎 when the winner held three of the winning face. One
    # copy sits in a run, the other two are the pair the winning card completes (§4.4, §6.2).
    # 偎三 3, 偎九 3, 壹贰叁 0, 柒捌玖 0, 四五六 0, 六六六 + the 4th 六 in 四五六:
    # forced 偎 暗团圆 6 (self) / completed by another's draw 明团圆 5 (other), 麻雀 陆陆 0:
    # 硬息 12 / 11. red 贰 柒 = 2.
    # 麻雀 陆 + triple 六: 背靠背 20.
    case(
        THREE_HELD_ANXIANG,
        "anxiang",
        "self",
        False,
        Win(12, 1, 32, 2, {"beikaobei": 20}, xi=(3, 3, 0, 0, 0, 6, 0)),
        id="beikaobei-three-held-self",
    ),
    case(
        THREE_HELD_ANXIANG,
        "anxiang",
        "other",
        False,
        Win(11, 1, 31, 2, {"beikaobei": 20}, xi=(3, 3, 0, 0, 0, 5, 0)),
        id="beikaobei-three-held-other",
    ),
    # 贰叁肆 0, 偎贰 + the 4th 贰 in 贰叁肆: 暗团圆 red 8, 一二三 0, 三四五 0,
    # 四四 + another's 四 with the 4th 四 in 三四五: 明团圆 5, 八八八 3,
    # 麻雀 肆肆 (肆 3 times: 转弯) 2: 硬息 18.
    # red 贰4 二1 = 5. 1 口 印 20, 卓胡 (贰, 四) 20, 背靠背 (四, 肆) 20: 78.
    case(
        THREE_HELD_XIAOZHUO,
        "xiaozhuo",
        "other",
        False,
        Win(18, 1, 78, 5, {"yin": 20, "zhuo": 20, "beikaobei": 20}, xi=(0, 8, 0, 0, 5, 3, 2)),
        id="beikaobei-three-held-xiaozhuo",
    ),
    # 一二三 柒捌玖 八九十 四五六 0, forced 偎六 + the 4th 六 in 四五六: 暗团圆 6, 七七七 red 4,
    # 麻雀 陆陆 0: 硬息 10 = min_xi -> 卡偎 50; 背靠背 (六, 陆) 50. red 二 柒 十 七3 = 6.
    case(
        THREE_HELD_DAZHUO,
        "dazhuo",
        "self",
        False,
        Win(10, 1, 110, 6, {"beikaobei": 50, "kawei": 50}, xi=(0, 0, 0, 0, 6, 4, 0)),
        id="beikaobei-kawei-three-held-dazhuo",
    ),
    # 偎三 + the 4th 三 in 一二三: 暗团圆 6; forced 偎一 + the 4th 一 in 一二三: 暗团圆 6; 五六七 0;
    # 四四四 3; 十十十 red 4; 麻雀 二二 (二 3 times: 转弯 red) 3: 硬息 22. red 二3 七1 十3 = 7.
    # 小字胡 200, 卓胡 (一, 三) 50, 海底 50, 手牵手 (一, 二) 50: 372.
    case(
        THREE_HELD_CHAOJI,
        "chaoji",
        "self",
        True,
        Win(
            22,
            1,
            372,
            7,
            {"xiaozi": 200, "zhuo": 50, "haidi": 50, "shouqianshou": 50},
            xi=(6, 6, 0, 0, 3, 4, 3),
        ),
        id="shouqianshou-three-held-chaoji-last",
    ),
]


# Non-winning hands: winning False, total 0, a reason, no patterns. RULES §4.7, §6.
NOT_WINNING = [
    # From another player the 五五五 is only 2: 2 + 3 + 2 + 2 = 9 < 10. RULES §6.4, §4.7(2).
    case(KAWEI, "anxiang", "other", False, NO_WIN, id="nowin-9xi-other-draw"),
    # 10 cards that form no groups. RULES §4.7(1).
    case(
        "碰:十十十 偎:七七七 吃:一二三 手:四五七九壹叁伍柒玖拾 胡:捌",
        "anxiang",
        "other",
        False,
        NO_WIN,
        id="nowin-no-decomposition",
    ),
    # From another: 三三 麻雀 (三 3 times, 转弯 2) + 三四五 -> 3 + 4 + 2 + 3 = 12, wins (pinghu);
    # self-drawn: the hand held 三三, so the 三 is a forced 偎 (§6.1) and 四五 is left over.
    case(
        "碰:十十十 偎:七七七 吃:壹贰叁 手:三三四五伍陆柒八八八 胡:三",
        "pinghu",
        "other",
        False,
        Win(12, 1, 12, 8, xi=(3, 4, 0, 0, 0, 2, 3)),
        id="forced-wei-contrast-other-wins",
    ),
    case(
        "碰:十十十 偎:七七七 吃:壹贰叁 手:三三四五伍陆柒八八八 胡:三",
        "pinghu",
        "self",
        False,
        NO_WIN,
        id="nowin-forced-wei-breaks-decomposition",
    ),
    case(
        "碰:十十十 偎:七七七 吃:壹贰叁 手:三三四五伍陆柒八八八 胡:三",
        "anxiang",
        "self",
        False,
        NO_WIN,
        id="nowin-forced-wei-breaks-decomposition-anxiang",
    ),
    # anxiang: 四 x4 without a triple is no 团圆 -> 3 + 3 + 转弯 2 = 8 < 10 (wins in anxiang-old).
    case(BLACK_NO_TRIPLE, "anxiang", "other", False, NO_WIN, id="nowin-8xi-anxiang"),
    # anxiang-old: 伍伍 转弯 black is 1 -> 2 + 3 + 3 + 1 = 9 < 10 (wins in anxiang with 10).
    case(WU10, "anxiang-old", "other", False, NO_WIN, id="nowin-9xi-anxiang-old-zhuanwan1"),
    # 偎十 4 + 吃 0 + 七七七 by another 3 + 伍陆柒/壹贰叁/四五六 0 + 九九 0 = 7 < 10.
    case(
        "偎:十十十 吃:一二三 手:七七伍陆柒壹贰叁四五六九九 胡:七",
        "anxiang",
        "other",
        False,
        NO_WIN,
        id="nowin-7xi",
    ),
]


def _summary(d: dict[str, object]) -> dict[str, object]:
    patterns = d["patterns"]
    assert isinstance(patterns, list)
    return {
        "winning": d["winning"],
        "hard_xi": d["hard_xi"],
        "multiplier": d["multiplier"],
        "total": d["total"],
        "red": d["red"],
        "patterns": {(p["key"], p["points"]) for p in patterns},
    }


ALL = WINNING + NOT_WINNING


@pytest.mark.parametrize(("hand", "rules", "source", "last", "exp"), ALL)
def test_vector_is_a_legal_hand(
    hand: str, rules: str, source: str, last: bool, exp: Win | None
) -> None:
    """Each vector is 20 cards, no face more than 4 times, one winning card (RULES §1.3, §1.4)."""
    cards, wins = _hand_cards(hand)
    assert len(cards) == 20
    assert max(Counter(cards).values()) <= 4
    assert len(wins) == 1
    if exp is not None:
        assert exp.red == sum(c in RED for c in cards)
        assert exp.total == exp.hard_xi + sum(exp.patterns.values())
        if exp.xi is not None:
            assert len(exp.xi) == 7
            assert sum(exp.xi) == exp.hard_xi


@pytest.mark.parametrize(("hand", "rules", "source", "last", "exp"), ALL)
def test_score_vector(hand: str, rules: str, source: str, last: bool, exp: Win | None) -> None:
    d = weimaque.score(hand, rules=rules, source=source, last=last).to_dict()
    got = _summary(d)
    if exp is None:
        assert got["winning"] is False, d
        assert got["total"] == 0, d
        assert got["patterns"] == set(), d
        assert isinstance(d["reason"], str) and d["reason"], d
        return
    want = {
        "winning": True,
        "hard_xi": exp.hard_xi,
        "multiplier": exp.multiplier,
        "total": exp.total,
        "red": exp.red,
        "patterns": set(exp.patterns.items()),
    }
    assert got == want, d
    assert d["rules"] == rules
    assert d["reason"] is None
    if exp.xi is not None:
        groups = d["groups"]
        assert isinstance(groups, list)
        assert sorted(g["xi"] for g in groups) == sorted(exp.xi), d
