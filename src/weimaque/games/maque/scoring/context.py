"""The one uniform input of every 名堂 pattern (RULES §7.2)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations, pairwise
from typing import Final

from weimaque.games.maque.analysis.arrange import Arrangement
from weimaque.games.maque.cards import RED_FACES
from weimaque.games.maque.notation import Source
from weimaque.games.maque.rules.config import RuleConfig

EIGHT_SMALL: Final = 7


@dataclass(frozen=True, slots=True)
class Context:
    """What a pattern may look at: one arrangement and the facts of the win."""

    arrangement: Arrangement
    rules: RuleConfig
    red: int
    all_big: bool
    all_small: bool
    #: who drew the winning card; None when no card was won (天胡 on the dealt cards)
    source: Source | None
    last: bool
    #: engine-level 名堂 declared for this win (天胡, 九小对, 蛰一蛰 …), with their units
    declared: tuple[tuple[str, int], ...] = ()
    #: the winning card's face; None when no card was won (天胡)
    win: int | None = None
    #: RULES §7.4.4: a 吃 meld took the winner's own draw (自吃)
    zichi: bool = False
    #: RULES §7.4.4: the winner was dealt three of the winning face (圆圆丁)
    dealt_kan: bool = False
    #: RULES §7.4.4: faces on which the winner declined a 胡 earlier this hand (啫啫胡)
    declined: frozenset[int] = frozenset()

    @property
    def hard_xi(self) -> int:
        """硬息 of the arrangement."""
        return self.arrangement.hard_xi

    @property
    def kou(self) -> int:
        """口: the number of red 团圆 (RULES §7.2 印胡)."""
        return sum(1 for f in self.arrangement.tuanyuan if f in RED_FACES)

    @property
    def held_before_win(self) -> int:
        """Concealed cards the winner held before the win: 19 less three per meld (RULES §3)."""
        return 19 - 3 * sum(1 for g in self.arrangement.groups if g.meld)

    def app_zhuo(self) -> str | None:
        """The 卓-family key that scores under ``mingtang_rules = "app"`` (RULES §7.4.2 item 1).

        Every 团圆 counts (碰头 团圆 too); by their number, the first key in RULES' order that
        the preset scores and that fits.
        """
        faces = sorted(self.arrangement.tuanyuan)
        for key in _APP_ZHUO_ORDER.get(len(faces), ()):
            if key in self.rules.patterns and _APP_ZHUO_FITS[key](faces):
                return key
        return None

    def pengtou_pairs(self) -> list[int]:
        """Numbers (0..9) whose small and big faces are both 团圆 (碰头, RULES §7.2)."""
        ty = set(self.arrangement.tuanyuan)
        return [n for n in range(10) if n in ty and n + 10 in ty]

    def zhuo_faces(self) -> list[int]:
        """The 团圆 left for the 卓 family once scored 碰头 pairs are set aside (RULES §7.2)."""
        aside: set[int] = set()
        for n in self.pengtou_pairs():
            key = "bapengtou" if n == EIGHT_SMALL else "jia_bapengtou"
            if key in self.rules.patterns:
                aside.update((n, n + 10))
        return [f for f in self.arrangement.tuanyuan if f not in aside]

    def zhuo_fits(self) -> frozenset[str]:
        """Every 卓-family key that fits some subset of 2-4 of the remaining 团圆."""
        faces = sorted(self.zhuo_faces())
        fits: set[str] = set()
        for size in range(2, min(4, len(faces)) + 1):
            for subset in combinations(faces, size):
                fits.update(_zhuo_kinds(subset))
        return frozenset(fits)


def _adjacent(a: int, b: int) -> bool:
    """Consecutive 团圆 faces: same case, numbers differ by 1."""
    return a // 10 == b // 10 and abs(a - b) == 1


def _chain(faces: Sequence[int]) -> bool:
    """Sorted faces that are all consecutive (same case, each one more than the last)."""
    return all(_adjacent(a, b) for a, b in pairwise(faces))


def _three_chain(faces: Sequence[int]) -> bool:
    return any(_chain(sub) for sub in combinations(sorted(faces), 3))


def _two_pairs(faces: Sequence[int]) -> bool:
    """Four sorted faces that split into two disjoint consecutive pairs (两姊妹卓)."""
    a, b, c, d = faces
    return _adjacent(a, b) and _adjacent(c, d)


def _zhuo_kinds(subset: tuple[int, ...]) -> set[str]:
    links = sum(1 for a, b in combinations(subset, 2) if _adjacent(a, b))
    if len(subset) == 2:
        return {"zhuo", "zimei"} if links else {"zhuo"}
    if len(subset) == 3:
        return {("sanluan", "zimei_tuo", "zusun")[links]}
    kinds = {"siluan"}
    if _three_chain(subset):
        kinds.add("zusun_tuo")
    if _chain(subset):
        kinds.add("silian")
    if _two_pairs(subset):
        kinds.add("liang_zimei")
    return kinds


#: RULES §7.4.2 item 1: by the number of 团圆, the 卓 keys in the order they are tried.
_APP_ZHUO_ORDER: Final[dict[int, tuple[str, ...]]] = {
    4: ("silian", "liang_zimei", "zusun_tuo", "siluan"),
    3: ("zusun", "zimei_tuo", "sanluan"),
    2: ("zimei",),
}

#: RULES §7.4.1-§7.4.2: whether all the 团圆 (sorted) fit each key.
_APP_ZHUO_FITS: Final[dict[str, Callable[[Sequence[int]], bool]]] = {
    "silian": _chain,
    "liang_zimei": _two_pairs,
    "zusun_tuo": _three_chain,
    "siluan": lambda faces: True,
    "zusun": _chain,
    "zimei_tuo": lambda faces: any(_adjacent(a, b) for a, b in pairwise(faces)),
    "sanluan": lambda faces: True,
    "zimei": _chain,
}
