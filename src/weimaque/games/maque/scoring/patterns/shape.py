"""名堂 of the hand's shape (RULES §7.2): 对子胡, 乌对, 大字胡, 小字胡."""

from __future__ import annotations

from weimaque.games.maque.scoring.pattern import Pattern, flag

DUIZI = Pattern("duizi", flag(lambda ctx: not ctx.arrangement.has_run))
"""对子胡: no run at all, 6 triples + 麻雀."""

WUDUI = Pattern(
    "wudui",
    flag(lambda ctx: not ctx.arrangement.has_run and ctx.red == 0),
    replaces=("duizi", "wu"),
)
"""乌对: 对子胡 with no red card; replaces 对子胡 and 乌胡."""

DAZI = Pattern("dazi", flag(lambda ctx: ctx.all_big))
"""大字胡: all 20 cards big."""

XIAOZI = Pattern("xiaozi", flag(lambda ctx: ctx.all_small))
"""小字胡: all 20 cards small."""

PATTERNS = (DUIZI, WUDUI, DAZI, XIAOZI)
