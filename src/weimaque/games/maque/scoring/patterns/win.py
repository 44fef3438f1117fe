"""名堂 of the winning card and the moment of the win (RULES §7.2).

海底胡, 自摸, 单吊, 背靠背, 手牵手, 卡偎, 卡胡, 啫啫胡, and the engine-declared 天胡, 九小对,
无对胡, 蛰一蛰. ``APP_PATTERNS`` are the meanings ``mingtang_rules = "app"`` gives 单吊 and 卡偎
(RULES §7.4.2 items 3, 7).
"""

from __future__ import annotations

from collections.abc import Callable

from weimaque.games.maque.scoring.context import Context
from weimaque.games.maque.scoring.pattern import Pattern, flag


def duidao_faces(ctx: Context) -> tuple[int, int] | None:
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
    faces = duidao_faces(ctx)
    return faces is not None and faces[0] != faces[1] and faces[0] % 10 == faces[1] % 10


def _shouqianshou(ctx: Context) -> bool:
    faces = duidao_faces(ctx)
    return faces is not None and faces[0] // 10 == faces[1] // 10 and abs(faces[0] - faces[1]) == 1


def _dandiao(ctx: Context) -> bool:
    g = ctx.arrangement.win_group
    return g is not None and g.kind == "maque"


def declared(key: str) -> Callable[[Context], int]:
    """Units of an engine-declared 名堂: what the engine declared for this win."""

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

KAHU = Pattern("kahu", flag(lambda ctx: ctx.hard_xi == ctx.rules.min_xi))
"""卡胡: 硬息 exactly at the minimum, however the hand was won (RULES §7.4.1)."""

ZHEZHE = Pattern("zhezhe", flag(lambda ctx: ctx.win is not None and ctx.win in ctx.declined))
"""啫啫胡: won on a face on which the winner declined a 胡 earlier this hand (RULES §7.4.1)."""

DANDIAO_APP = Pattern(
    "dandiao",
    flag(lambda ctx: ctx.arrangement.win_group is not None and ctx.held_before_win == 1),
    alt=lambda ctx: not ctx.arrangement.has_run,
)
"""单吊 (app): one concealed card before the win; second value when 对子胡 (RULES §7.4.2 item 3)."""

KAWEI_APP = Pattern("kawei", KAWEI.units, replaces=("kahu",))
"""卡偎 (app): as 卡偎; where it scores, 卡胡 does not (RULES §7.4.2 item 7)."""

TIANHU = Pattern("tianhu", declared("tianhu"))
"""天胡: the dealer's 20 dealt cards win; no card was won (declared by the engine, RULES §7.2)."""

JIUXIAODUI = Pattern(
    "jiuxiaodui", declared("jiuxiaodui"), alt=lambda ctx: ("jiuxiaodui_10", 1) in ctx.declared
)
"""九小对: nine pairs dealt (the second value for ten; declared by the engine)."""

WUDUI_DEAL = Pattern("wudui_deal", declared("wudui_deal"))
"""无对胡: no pair dealt (declared by the engine)."""

ZHE = Pattern("zhe", lambda ctx: 1 if declared("zhe")(ctx) or ctx.declined else 0)
"""蛰一蛰: declined a 胡 earlier this hand, any face, and won later; once per hand.

Declared by the engine, or from the faces declined (RULES §7.2, §7.4.4).
"""

PATTERNS = (
    HAIDI,
    ZIMO,
    DANDIAO,
    BEIKAOBEI,
    SHOUQIANSHOU,
    KAWEI,
    KAHU,
    ZHEZHE,
    TIANHU,
    JIUXIAODUI,
    WUDUI_DEAL,
    ZHE,
)

APP_PATTERNS = (DANDIAO_APP, KAWEI_APP)
