"""名堂 of where the winning card sits (RULES §7.4.1): 鸡丁, 边丁, 圆圆丁, 边坎, 活捉小三.

W is the winning card's face; a hand run is a run of concealed cards (not a 吃 meld).
"""

from __future__ import annotations

from collections.abc import Callable

from weimaque.games.maque.analysis.arrange import Group
from weimaque.games.maque.scoring.context import Context
from weimaque.games.maque.scoring.pattern import Pattern, flag

SMALL_THREE = 2


def _hand_runs(ctx: Context) -> list[Group]:
    return [g for g in ctx.arrangement.groups if g.kind == "run"]


def _in_maque(ctx: Context) -> int | None:
    """W when it was drawn by another player and sits in the 麻雀 (J = W); else None."""
    g = ctx.arrangement.win_group
    if ctx.source != "other" or g is None or g.kind != "maque":
        return None
    return g.face


def _ding(places: Callable[[Group, int], bool]) -> Callable[[Context], bool]:
    def test(ctx: Context) -> bool:
        w = _in_maque(ctx)
        return w is not None and any(places(run, w) for run in _hand_runs(ctx))

    return test


def _biankan(ctx: Context) -> bool:
    g = ctx.arrangement.win_group
    if g is None or g.kind != "run" or ctx.win is None:
        return False
    low, mid, high = g.faces
    w = ctx.win
    return w == mid or (w == high and low % 10 == 0) or (w == low and low % 10 == 7)


JIDING = Pattern("jiding", flag(_ding(lambda run, w: run.faces[1] == w)), replaces=("bianding",))
"""鸡丁: W drawn by another sits in the 麻雀, and a hand run holds W as its middle card."""

BIANDING = Pattern("bianding", flag(_ding(lambda run, w: w in (run.faces[0], run.faces[2]))))
"""边丁: as 鸡丁, W the lowest or highest card of that hand run; only where 鸡丁 does not score."""

YUANYUANDING = Pattern(
    "yuanyuanding", flag(lambda ctx: _in_maque(ctx) is not None and ctx.dealt_kan)
)
"""圆圆丁: W drawn by another sits in the 麻雀, and the winner was dealt three of W."""

BIANKAN = Pattern("biankan", flag(_biankan))
"""边坎: W in a hand run as its middle card, or 三/叁 on 一二/壹贰, or 八/捌 under 九十/玖拾."""

HUOZHUO = Pattern("huozhuo", flag(lambda ctx: ctx.source == "self" and ctx.win == SMALL_THREE))
"""活捉小三: won on one's own draw (the forced 偎 included) on 三."""

PATTERNS = (JIDING, BIANDING, YUANYUANDING, BIANKAN, HUOZHUO)
