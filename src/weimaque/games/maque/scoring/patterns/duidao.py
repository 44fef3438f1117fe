"""The 对倒 family (RULES §7.2, §7.4.1): 对倒胡, 真背靠背, 凤摆尾, 隔山打牛.

A 对倒 win: the hand held two pairs, the winning card made one a triple (the forced 偎 or a triple
completed by another's draw), the other is the 麻雀. ``APP_PATTERNS`` declare the order of RULES
§7.4.2 item 6: only the first that the preset scores counts.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from weimaque.games.maque.scoring.context import Context
from weimaque.games.maque.scoring.pattern import Pattern, flag
from weimaque.games.maque.scoring.patterns.win import BEIKAOBEI, SHOUQIANSHOU, duidao_faces

EIGHTS = frozenset({7, 17})


def _on(test: Callable[[int, int], bool]) -> Callable[[Context], int]:
    """Units of a 对倒 名堂 whose winning face W and 麻雀 J pass ``test(W, J)``."""

    def units(ctx: Context) -> int:
        faces = duidao_faces(ctx)
        return 1 if faces is not None and test(faces[1], faces[0]) else 0

    return units


DUIDAO = Pattern("duidao", flag(lambda ctx: duidao_faces(ctx) is not None))
"""对倒胡: any 对倒 win."""

ZHEN_BEIKAOBEI = Pattern("zhen_beikaobei", _on(lambda w, j: {w, j} == EIGHTS))
"""真背靠背: 对倒 on 八 and 捌 (背靠背 on eight)."""

FENGBAIWEI = Pattern("fengbaiwei", _on(lambda w, j: {w % 10, j % 10} == {0, 9}))
"""凤摆尾: 对倒 where the numbers of W and J are 1 and 10, either case."""

GESHAN = Pattern("geshan", _on(lambda w, j: w // 10 == j // 10 and abs(w - j) == 2))
"""隔山打牛: 对倒 where W and J are of one case, numbers two apart."""

PATTERNS = (DUIDAO, ZHEN_BEIKAOBEI, FENGBAIWEI, GESHAN)

#: RULES §7.4.2 item 6: the order in which the 对倒 family is tried under "app".
APP_ORDER = (ZHEN_BEIKAOBEI, BEIKAOBEI, FENGBAIWEI, SHOUQIANSHOU, GESHAN, DUIDAO)

#: Each member cancels every later one: the first that scores is the only one.
APP_PATTERNS = tuple(
    dataclasses.replace(p, replaces=tuple(q.key for q in APP_ORDER[i + 1 :]))
    for i, p in enumerate(APP_ORDER)
)
