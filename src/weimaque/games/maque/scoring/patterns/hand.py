"""名堂 of the whole hand added by the app tiers (RULES §7.4.1).

2息满园花, 全求人, 美女踩单车, 顶对, 飘对, 上下五千年, 心连心, 一条龙, 两红两黑, 二龙戏珠.
"""

from __future__ import annotations

from itertools import permutations

from weimaque.games.maque.analysis.arrange import RUN_KINDS, TRIPLE_KINDS
from weimaque.games.maque.cards import RED_FACES
from weimaque.games.maque.scoring.context import Context
from weimaque.games.maque.scoring.pattern import Pattern, flag
from weimaque.games.maque.scoring.patterns.red import is_manyuan

TEN = 10  # 硬息 of 上下五千年, 一条龙, 两红两黑 (RULES §7.4.1)
SMALL_ONE, BIG_ONE = 0, 10


def _runs(ctx: Context) -> list[tuple[int, ...]]:
    return [g.faces for g in ctx.arrangement.groups if g.kind in RUN_KINDS]


def _quanqiuren(ctx: Context) -> bool:
    groups = ctx.arrangement.groups
    return (
        ctx.arrangement.win_group is not None
        and ctx.held_before_win == 1
        and not any(g.meld and g.kind == "wei" for g in groups)
        and not ctx.zichi
    )


def _red_maque(ctx: Context) -> bool:
    return ctx.arrangement.pair in RED_FACES


def _piaodui(ctx: Context) -> bool:
    triples = [g for g in ctx.arrangement.groups if g.kind in TRIPLE_KINDS]
    return not ctx.arrangement.has_run and sum(1 for g in triples if g.has_red) == 1


def _shangxia(ctx: Context) -> bool:
    arr = ctx.arrangement
    win = arr.win_group
    if ctx.hard_xi != TEN or win is None or arr.forced_wei or win.xi != 0:
        return False
    melds = sum(g.xi for g in arr.groups if g.meld and g.kind in ("peng", "wei"))
    return melds == TEN // 2


def _xinlianxin(ctx: Context) -> bool:
    return any(a[2] == b[0] for a, b in permutations(_runs(ctx), 2))


def _yitiaolong(ctx: Context) -> bool:
    starts = {run[0] for run in _runs(ctx)}
    return ctx.hard_xi == TEN and any(
        {base, base + 3, base + 6} <= starts for base in (SMALL_ONE, BIG_ONE)
    )


def _lianghong(ctx: Context) -> bool:
    worth = [g for g in ctx.arrangement.groups if g.xi > 0]
    red = sum(1 for g in worth if g.has_red)
    return (
        ctx.hard_xi == TEN and len(worth) == 4 and all(g.kind == "peng" for g in worth) and red == 2
    )


def _erlong(ctx: Context) -> bool:
    starts = {run[0] for run in _runs(ctx)}
    return ctx.red == 2 and {SMALL_ONE, BIG_ONE} <= starts


MANYUAN_2XI = Pattern(
    "manyuan_2xi",
    flag(lambda ctx: ctx.hard_xi == 2 and is_manyuan(ctx)),
    replaces=("manyuan",),
)
"""2息满园花: 满园花 with 硬息 exactly 2; it may win below 起胡 and replaces 满园花."""

QUANQIUREN = Pattern("quanqiuren", flag(_quanqiuren))
"""全求人: one concealed card before the win, no 偎 among the melds, no 自吃."""

MEINV = Pattern("meinv", flag(lambda ctx: _quanqiuren(ctx) and _red_maque(ctx)))
"""美女踩单车: 全求人 with a red 麻雀; adds to 全求人."""

DINGDUI = Pattern("dingdui", flag(lambda ctx: not ctx.arrangement.has_run and _red_maque(ctx)))
"""顶对 (项对, 行行息): 对子胡 with a red 麻雀."""

PIAODUI = Pattern("piaodui", flag(_piaodui))
"""飘对: 对子胡 where exactly one of the six triples holds a red card."""

SHANGXIA = Pattern("shangxia", flag(_shangxia))
"""上下五千年: 硬息 10, the 碰 and 偎 melds worth 5, W's group worth 0 and not the forced 偎."""

XINLIANXIN = Pattern("xinlianxin", flag(_xinlianxin))
"""心连心: two runs where the highest card of one is the lowest of the other."""

YITIAOLONG = Pattern("yitiaolong", flag(_yitiaolong))
"""一条龙: 硬息 10 and the runs 一二三, 四五六, 七八九 of one case."""

LIANGHONG = Pattern("lianghong", flag(_lianghong))
"""两红两黑: 硬息 10 from exactly two red and two black 碰 (melds or completed by another)."""

ERLONG = Pattern("erlong", flag(_erlong))
"""二龙戏珠: exactly two red cards, and the runs 一二三 and 壹贰叁."""

PATTERNS = (
    MANYUAN_2XI,
    QUANQIUREN,
    MEINV,
    DINGDUI,
    PIAODUI,
    SHANGXIA,
    XINLIANXIN,
    YITIAOLONG,
    LIANGHONG,
    ERLONG,
)
