"""The one uniform input of every 名堂 pattern (RULES §7.2)."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Final

from weimaque.analysis.arrange import Arrangement
from weimaque.cards import RED_FACES
from weimaque.notation import Source
from weimaque.rules.config import RuleConfig

EIGHT_SMALL: Final = 7
EIGHT_BIG: Final = 17


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

    @property
    def hard_xi(self) -> int:
        """硬息 of the arrangement."""
        return self.arrangement.hard_xi

    @property
    def kou(self) -> int:
        """口: the number of red 团圆 (RULES §7.2 印胡)."""
        return sum(1 for f in self.arrangement.tuanyuan if f in RED_FACES)

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


def _zhuo_kinds(subset: tuple[int, ...]) -> set[str]:
    links = sum(1 for a, b in combinations(subset, 2) if _adjacent(a, b))
    if len(subset) == 2:
        return {"zhuo", "zimei"} if links else {"zhuo"}
    if len(subset) == 3:
        return {("sanluan", "zimei_tuo", "zusun")[links]}
    chain = any(_adjacent(a, b) and _adjacent(b, c) for a, b, c in combinations(sorted(subset), 3))
    return {"siluan", "zusun_tuo"} if chain else {"siluan"}
