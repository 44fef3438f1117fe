"""Faces, the red set, the deck and count vectors (RULES §1).

A face is a small int: 0..9 are the small faces 一..十, 10..19 the big faces 壹..拾.
Hot paths work on count vectors: tuples of 20 ints, one per face.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

NUM_FACES: Final = 20
COPIES: Final = 4
DECK_SIZE: Final = NUM_FACES * COPIES

SMALL_CHARS: Final = "一二三四五六七八九十"
BIG_CHARS: Final = "壹贰叁肆伍陆柒捌玖拾"
FACE_CHARS: Final = SMALL_CHARS + BIG_CHARS

#: 二七十 and 贰柒拾 (RULES §1.1).
RED_FACES: Final = frozenset({1, 6, 9, 11, 16, 19})

Counts = tuple[int, ...]
EMPTY_COUNTS: Final[Counts] = (0,) * NUM_FACES


def is_red(face: int) -> bool:
    """Whether a face is red (二七十 贰柒拾)."""
    return face in RED_FACES


def is_big(face: int) -> bool:
    """Whether a face is big (壹..拾)."""
    return face >= 10


def number(face: int) -> int:
    """The face's number 1..10, whatever its case."""
    return face % 10 + 1


def face_char(face: int) -> str:
    """The Chinese character of a face."""
    return FACE_CHARS[face]


def faces_str(faces: Iterable[int]) -> str:
    """Chinese characters for faces, in the given order."""
    return "".join(FACE_CHARS[f] for f in faces)


def counts_of(faces: Iterable[int]) -> Counts:
    """The count vector of some faces."""
    c = [0] * NUM_FACES
    for f in faces:
        c[f] += 1
    return tuple(c)


def faces_of(counts: Counts) -> list[int]:
    """The sorted faces a count vector holds."""
    return [f for f in range(NUM_FACES) for _ in range(counts[f])]


def add_counts(a: Counts, b: Counts) -> Counts:
    """Element-wise sum of two count vectors."""
    return tuple(x + y for x, y in zip(a, b, strict=True))


def red_count(counts: Counts) -> int:
    """How many red cards a count vector holds."""
    return sum(counts[f] for f in RED_FACES)


def sorted_deck() -> list[int]:
    """The 80 cards in face order, each face four times (RULES §2.2)."""
    return [f for f in range(NUM_FACES) for _ in range(COPIES)]


def is_run(faces: Iterable[int]) -> bool:
    """Three consecutive faces of one case (RULES §1.2)."""
    a, b, c = sorted(faces)
    return b == a + 1 and c == a + 2 and a // 10 == c // 10


def is_triple(faces: Iterable[int]) -> bool:
    """Three identical faces."""
    a, b, c = faces
    return a == b == c


def run_start_ok(face: int) -> bool:
    """Whether a run may start at this face (its third card stays in the same case)."""
    return face % 10 <= 7
