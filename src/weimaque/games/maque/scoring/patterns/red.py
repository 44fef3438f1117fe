"""名堂 of the red cards (RULES §7.2): 印胡, 纯印, 多红, 乌胡, 点胡, 满园花."""

from __future__ import annotations

from weimaque.games.maque.analysis.arrange import Arrangement
from weimaque.games.maque.scoring.context import Context
from weimaque.games.maque.scoring.pattern import Pattern, flag


def _chunyin(ctx: Context) -> int:
    kou = ctx.kou
    return kou if kou and ctx.red == 4 * kou else 0


def in_bloom(arr: Arrangement) -> bool:
    """满园花: every group, 麻雀 included, holds a red card (RULES §7.2)."""
    return all(g.has_red for g in arr.groups if g.kind != "tuanyuan")


def is_manyuan(ctx: Context) -> bool:
    """满园花 of the context's arrangement."""
    return in_bloom(ctx.arrangement)


YIN = Pattern("yin", lambda ctx: ctx.kou)
"""印胡: one unit per red 团圆 (口)."""

CHUNYIN = Pattern("chunyin", _chunyin, replaces=("yin",))
"""纯印: every red card lies in the red 团圆; per 口; replaces 印胡."""

HONG = Pattern("hong", lambda ctx: max(0, ctx.red - 9))
"""多红/红胡: 10 or more red cards, one unit per red over 9."""

WU = Pattern("wu", flag(lambda ctx: ctx.red == 0))
"""乌胡: no red card."""

DIAN = Pattern("dian", flag(lambda ctx: ctx.red == 1))
"""点胡: exactly one red card."""

MANYUAN = Pattern("manyuan", flag(is_manyuan))
"""满园花: each of the 7 groups, 麻雀 included, holds a red card."""

PATTERNS = (YIN, CHUNYIN, HONG, WU, DIAN, MANYUAN)
