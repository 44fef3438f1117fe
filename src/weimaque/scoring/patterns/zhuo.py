"""名堂 of the 团圆 faces (RULES §7.2): the 卓 family, 八碰头, 假八碰头, 龙摆尾."""

from __future__ import annotations

from collections.abc import Callable

from weimaque.scoring.context import EIGHT_SMALL, Context
from weimaque.scoring.pattern import Pattern


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

BAPENGTOU = Pattern("bapengtou", lambda ctx: 1 if EIGHT_SMALL in ctx.pengtou_pairs() else 0)
"""八碰头: 八 and 捌 both 团圆."""

JIA_BAPENGTOU = Pattern(
    "jia_bapengtou", lambda ctx: sum(1 for n in ctx.pengtou_pairs() if n != EIGHT_SMALL)
)
"""假八碰头: a number other than 8 whose small and big faces are both 团圆; per such number."""

LONGBAIWEI = Pattern("longbaiwei", _longbaiwei)
"""龙摆尾: 一 and 十 (or 壹 and 拾) both 团圆."""

PATTERNS = (
    ZHUO,
    ZIMEI,
    SANLUAN,
    ZIMEI_TUO,
    ZUSUN,
    SILUAN,
    ZUSUN_TUO,
    BAPENGTOU,
    JIA_BAPENGTOU,
    LONGBAIWEI,
)
