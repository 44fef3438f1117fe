"""Faces, the red set, the deck and count vectors (RULES §1).

A face is a small int: 0..9 are the small faces 一..十, 10..19 the big faces 壹..拾.
Hot paths work on count vectors: tuples of 20 ints, one per face.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Final

NUM_FACES: Final = 20
COPIES: Final = 4

SMALL_CHARS: Final = "一二三四五六七八九十"
BIG_CHARS: Final = "壹贰叁肆伍陆柒捌玖拾"
FACE_CHARS: Final = SMALL_CHARS + BIG_CHARS

#: 二七十 and 贰柒拾 (RULES §1.1).
RED_FACES: Final = frozenset({1, 6, 9, 11, 16, 19})

Counts = tuple[int, ...]


def faces_str(faces: Iterable[int]) -> str:
    """Chinese characters for faces, in the given order."""
    return _faces_text(faces if type(faces) is tuple else tuple(faces))


@functools.lru_cache(maxsize=1 << 14)
def _faces_text(faces: tuple[int, ...]) -> str:
    # Views write the same rows and melds again for every viewer and every action: the server
    # spent a tenth of its time here before this cache (bench/server.py).
    return "".join([FACE_CHARS[f] for f in faces])


def counts_of(faces: Iterable[int]) -> Counts:
    """The count vector of some faces."""
    c = [0] * NUM_FACES
    for f in faces:
        c[f] += 1
    return tuple(c)


#: ``(f,) * n`` for every face ``f`` and count ``n`` up to the copies in the deck.
_REPEATS: Final = tuple(tuple((f,) * n for n in range(COPIES + 1)) for f in range(NUM_FACES))


def faces_of(counts: Iterable[int]) -> list[int]:
    """The faces a count vector holds, in face order (``counts_of``'s inverse): a hand's cards
    are listed for every view of every action, so each face's copies are joined, not counted
    out one by one."""
    out: list[int] = []
    for f, n in enumerate(counts):
        if n > 0:
            out += _REPEATS[f][n] if n <= COPIES else (f,) * n
    return out


def red_count(counts: Counts) -> int:
    """How many red cards a count vector holds."""
    return sum(counts[f] for f in RED_FACES)


def sorted_deck() -> list[int]:
    """The 80 cards in face order, each face four times (RULES §2.2)."""
    return faces_of([COPIES] * NUM_FACES)


def is_run(faces: Iterable[int]) -> bool:
    """Three consecutive faces of one case (RULES §1.2)."""
    a, b, c = sorted(faces)
    return b == a + 1 and c == a + 2 and a // 10 == c // 10
