"""名堂 of the 团圆 faces (RULES §7.2, §7.4): the 卓 family, 八碰头, 假八碰头, 龙摆尾.

``APP_PATTERNS`` are the meanings ``mingtang_rules = "app"`` gives them (RULES §7.4.2 items 1, 2,
4, 5).
"""

from __future__ import annotations

from collections.abc import Callable

from weimaque.games.maque.scoring.context import EIGHT_SMALL, Context
from weimaque.games.maque.scoring.pattern import Pattern


def _fits(key: str) -> Callable[[Context], int]:
    def units(ctx: Context) -> int:
        if len(ctx.arrangement.tuanyuan) < 2:
            return 0
        return 1 if key in ctx.zhuo_fits() else 0

    return units


def _longbaiwei(ctx: Context) -> int:
    ty = set(ctx.arrangement.tuanyuan)
    return sum(1 for one, ten in ((0, 9), (10, 19)) if one in ty and ten in ty)


ZHUO = Pattern("zhuo", _fits("zhuo"), family="zhuo")
"""卓胡: two 团圆."""

ZIMEI = Pattern("zimei", _fits("zimei"), family="zhuo")
"""姊妹卓: two consecutive 团圆."""

SANLUAN = Pattern("sanluan", _fits("sanluan"), family="zhuo")
"""三乱卓: three 团圆, no two consecutive."""

ZIMEI_TUO = Pattern("zimei_tuo", _fits("zimei_tuo"), family="zhuo")
"""姊妹卓带拖: three 团圆, exactly two consecutive."""

ZUSUN = Pattern("zusun", _fits("zusun"), family="zhuo")
"""祖孙卓: three consecutive 团圆."""

SILUAN = Pattern("siluan", _fits("siluan"), family="zhuo")
"""四乱卓: four 团圆."""

ZUSUN_TUO = Pattern("zusun_tuo", _fits("zusun_tuo"), family="zhuo")
"""祖孙卓带拖: three consecutive 团圆 and one more."""

LIANG_ZIMEI = Pattern("liang_zimei", _fits("liang_zimei"), family="zhuo")
"""两姊妹卓: four 团圆 forming two disjoint consecutive pairs (RULES §7.4.1)."""

SILIAN = Pattern("silian", _fits("silian"), family="zhuo")
"""四连卓: four consecutive 团圆 of one case (RULES §7.4.1; the app calls it 祖孙卓)."""

BAPENGTOU = Pattern("bapengtou", lambda ctx: 1 if EIGHT_SMALL in ctx.pengtou_pairs() else 0)
"""八碰头: 八 and 捌 both 团圆."""

JIA_BAPENGTOU = Pattern(
    "jia_bapengtou", lambda ctx: sum(1 for n in ctx.pengtou_pairs() if n != EIGHT_SMALL)
)
"""假八碰头: a number other than 8 whose small and big faces are both 团圆; per such number."""

LONGBAIWEI = Pattern("longbaiwei", _longbaiwei)
"""龙摆尾: 一 and 十 (or 壹 and 拾) both 团圆."""


def _app_fits(key: str) -> Callable[[Context], int]:
    def units(ctx: Context) -> int:
        return 1 if ctx.app_zhuo() == key else 0

    return units


def _app_zhuo(ctx: Context) -> bool:
    ty = ctx.arrangement.tuanyuan
    return len(ty) == 2 and ctx.red == 4 * ctx.kou


def _app_longbaiwei(ctx: Context) -> bool:
    ty = set(ctx.arrangement.tuanyuan)
    return bool(ty & {0, 10}) and bool(ty & {9, 19})


ZHUO_APP = Pattern("zhuo", lambda ctx: 1 if _app_zhuo(ctx) else 0)
"""卓胡 (app): exactly two 团圆 and no loose red; adds on top of 姊妹卓 (RULES §7.4.2 item 2)."""

ZIMEI_APP = Pattern("zimei", _app_fits("zimei"), family="zhuo")
"""姊妹卓 (app): the two 团圆 are consecutive (RULES §7.4.2 item 1)."""

SANLUAN_APP = Pattern("sanluan", _app_fits("sanluan"), family="zhuo")
"""三乱卓 (app): three 团圆, where 祖孙卓 and 姊妹卓带拖 do not score (RULES §7.4.2 item 1)."""

ZIMEI_TUO_APP = Pattern("zimei_tuo", _app_fits("zimei_tuo"), family="zhuo")
"""姊妹卓带拖 (app): three 团圆 with a consecutive pair (RULES §7.4.2 item 1)."""

ZUSUN_APP = Pattern("zusun", _app_fits("zusun"), family="zhuo")
"""祖孙卓 (app; shown 嗲孙卓): three consecutive 团圆 (RULES §7.4.2 item 1)."""

SILUAN_APP = Pattern("siluan", _app_fits("siluan"), family="zhuo")
"""四乱卓 (app): four 团圆, where no other four-团圆 卓 scores (RULES §7.4.2 item 1)."""

ZUSUN_TUO_APP = Pattern("zusun_tuo", _app_fits("zusun_tuo"), family="zhuo")
"""祖孙卓带拖 (app): four 团圆, three of them consecutive (RULES §7.4.2 item 1)."""

LIANG_ZIMEI_APP = Pattern("liang_zimei", _app_fits("liang_zimei"), family="zhuo")
"""两姊妹卓 (app): four 团圆 as two disjoint consecutive pairs (RULES §7.4.2 item 1)."""

SILIAN_APP = Pattern("silian", _app_fits("silian"), family="zhuo")
"""四连卓 (app): four consecutive 团圆 (RULES §7.4.2 item 1)."""

JIA_BAPENGTOU_APP = Pattern(
    "jia_bapengtou",
    lambda ctx: 1 if any(n != EIGHT_SMALL for n in ctx.pengtou_pairs()) else 0,
)
"""假八碰头 (app): some number other than 8 has both faces 团圆; once (RULES §7.4.2 item 5)."""

LONGBAIWEI_APP = Pattern("longbaiwei", lambda ctx: 1 if _app_longbaiwei(ctx) else 0)
"""龙摆尾 (app): 一 or 壹, and 十 or 拾, all 团圆; once (RULES §7.4.2 item 4)."""

PATTERNS = (
    ZHUO,
    ZIMEI,
    SANLUAN,
    ZIMEI_TUO,
    ZUSUN,
    SILUAN,
    ZUSUN_TUO,
    LIANG_ZIMEI,
    SILIAN,
    BAPENGTOU,
    JIA_BAPENGTOU,
    LONGBAIWEI,
)

APP_PATTERNS = (
    ZHUO_APP,
    ZIMEI_APP,
    SANLUAN_APP,
    ZIMEI_TUO_APP,
    ZUSUN_APP,
    SILUAN_APP,
    ZUSUN_TUO_APP,
    LIANG_ZIMEI_APP,
    SILIAN_APP,
    JIA_BAPENGTOU_APP,
    LONGBAIWEI_APP,
)
