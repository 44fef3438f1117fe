"""名堂 of the winning card and the moment of the win (RULES §7.2).

海底胡, 自摸, 单吊, 背靠背, 手牵手, 卡偎, and the engine-declared 天胡, 九小对, 无对胡, 蛰一蛰.
"""

from __future__ import annotations

from collections.abc import Callable

from weimaque.scoring.context import Context
from weimaque.scoring.pattern import Pattern, flag


def _duidao(ctx: Context) -> tuple[int, int] | None:
    """For a 对倒 win, the faces of the 麻雀 and of the completed triple; else None.

    The hand held two pairs; the winning card made one a triple (a forced 偎 or a triple completed
    by another's draw), the other is the 麻雀. How many of the winning face were held does not
    matter: with three, the arrangement puts one in a run and the other two are the pair the
    winning card completes (RULES §7.2, §4.4).
    """
    arr = ctx.arrangement
    g = arr.win_group
    if g is None or g.meld or g.kind not in ("wei", "peng"):
        return None
    return arr.pair, g.faces[0]


def _beikaobei(ctx: Context) -> bool:
    faces = _duidao(ctx)
    return faces is not None and faces[0] != faces[1] and faces[0] % 10 == faces[1] % 10


def _shouqianshou(ctx: Context) -> bool:
    faces = _duidao(ctx)
    return faces is not None and faces[0] // 10 == faces[1] // 10 and abs(faces[0] - faces[1]) == 1


def _dandiao(ctx: Context) -> bool:
    g = ctx.arrangement.win_group
    return g is not None and g.kind == "maque"


def _declared(key: str) -> Callable[[Context], int]:
    def units(ctx: Context) -> int:
        return sum(n for k, n in ctx.declared if k == key)

    return units


HAIDI = Pattern("haidi", flag(lambda ctx: ctx.last))
"""海底胡: won on the last stock card."""

ZIMO = Pattern("zimo", flag(lambda ctx: ctx.source == "self"))
"""自摸: won on one's own draw."""

DANDIAO = Pattern(
    "dandiao",
    flag(_dandiao),
    alt=lambda ctx: not ctx.arrangement.has_run,
)
"""单吊: the winning card forms the 麻雀 (the preset's second value when 对子胡)."""

BEIKAOBEI = Pattern("beikaobei", flag(_beikaobei))
"""背靠背: 对倒 on the same number in both cases."""

SHOUQIANSHOU = Pattern("shouqianshou", flag(_shouqianshou))
"""手牵手: 对倒 on adjacent numbers of one case."""

KAWEI = Pattern(
    "kawei",
    flag(lambda ctx: ctx.arrangement.forced_wei and ctx.hard_xi == ctx.rules.min_xi),
)
"""卡偎: won by the forced 偎 with 硬息 exactly at the minimum."""

TIANHU = Pattern("tianhu", _declared("tianhu"))
"""天胡: the dealer's 20 dealt cards win; no card was won (declared by the engine, RULES §7.2)."""

JIUXIAODUI = Pattern(
    "jiuxiaodui", _declared("jiuxiaodui"), alt=lambda ctx: ("jiuxiaodui_10", 1) in ctx.declared
)
"""九小对: nine pairs dealt (the second value for ten; declared by the engine)."""

WUDUI_DEAL = Pattern("wudui_deal", _declared("wudui_deal"))
"""无对胡: no pair dealt (declared by the engine)."""

ZHE = Pattern("zhe", _declared("zhe"))
"""蛰一蛰: declined a 胡 earlier this hand and won later; once per hand (declared by the engine)."""

PATTERNS = (
    HAIDI,
    ZIMO,
    DANDIAO,
    BEIKAOBEI,
    SHOUQIANSHOU,
    KAWEI,
    TIANHU,
    JIUXIAODUI,
    WUDUI_DEAL,
    ZHE,
)
