"""Tiles, kinds and count vectors of 三丁拐 (SANDINGGUAI §1).

A tile is a small int, its **kind**: 万 (m) 0..8, 条 (s) 9..17, 筒 (p) 18..26 (SDG §1.3), so 幺鸡
(1s) is 9 and 乌骨鸡 (8p) is 25. Hot paths work on count vectors: tuples of 27 ints.
"""

from __future__ import annotations

import _random
from collections.abc import Iterable
from typing import Final

NUM_KINDS: Final = 27
COPIES: Final = 4
NUM_SUITS: Final = 3
#: ASCII suit letters in kind order (SDG §1.3).
SUIT_LETTERS: Final = "msp"
#: Chinese suit names in kind order.
SUIT_CHARS: Final = "万条筒"
RANK_CHARS: Final = "一二三四五六七八九"
#: 幺鸡 = 一条 and 乌骨鸡 = 八筒 (SDG §1.2).
YAOJI: Final = 9
WUGU: Final = 25

Counts = tuple[int, ...]

#: The suit of every kind, and the bit of that suit in a suit mask.
SUIT_OF: Final = tuple(k // 9 for k in range(NUM_KINDS))
SUIT_BIT: Final = tuple(1 << (k // 9) for k in range(NUM_KINDS))
#: The bit of every kind in a set of kinds as bits (one lookup: a shift makes a new int).
KIND_BIT: Final = tuple(1 << k for k in range(NUM_KINDS))
#: How many suits a suit mask (0..7) holds.
MASK_SUITS: Final = tuple(bin(m).count("1") for m in range(8))
EMPTY: Final[Counts] = (0,) * NUM_KINDS


def rank_of(kind: int) -> int:
    """The rank 1..9 of a kind."""
    return kind % 9 + 1


def kind_of(rank: int, suit: int) -> int:
    """The kind of a rank 1..9 in suit 0 (m), 1 (s) or 2 (p)."""
    return suit * 9 + rank - 1


def counts_of(tiles: Iterable[int]) -> Counts:
    """The count vector of some tiles."""
    c = [0] * NUM_KINDS
    for t in tiles:
        c[t] += 1
    return tuple(c)


def tiles_of(counts: Iterable[int]) -> list[int]:
    """The tiles a count vector holds, in kind order (``counts_of``'s inverse)."""
    out: list[int] = []
    for k, n in enumerate(counts):
        out += [k] * n
    return out


def suit_mask(counts: Iterable[int]) -> int:
    """The suits a count vector holds, as bits (1 = m, 2 = s, 4 = p)."""
    mask = 0
    for k, n in enumerate(counts):
        if n:
            mask |= SUIT_BIT[k]
    return mask


def sorted_deck(num_tiles: int = 108) -> list[int]:
    """The deck in kind order, each kind four times (SDG §1.1, §2.2); 72 drops 万 (两房)."""
    first = 0 if num_tiles == 108 else 9
    return [k for k in range(first, NUM_KINDS) for _ in range(COPIES)]


#: Per deck size: the sorted deck, and the Fisher-Yates steps of its shuffle from the top
#: (index, bits drawn for it).
_SHUFFLES: Final = {
    n: (tuple(sorted_deck(n)), tuple((i, (i + 1).bit_length()) for i in range(n - 1, 0, -1)))
    for n in (72, 108)
}


def shuffled_deck(seed: int, num_tiles: int = 108) -> list[int]:
    """The deck of a seed: ``random.Random(seed).shuffle`` of the sorted deck (SDG §2.2).

    The shuffle is written out (Fisher-Yates drawing each index as ``Random._randbelow`` does,
    from ``getrandbits``), which makes the very same draws in fewer calls. The generator is the
    C class ``random.Random`` is built on, ``_random.Random``, which an integer seeds as
    ``random.Random`` does (the same words from the same state) without the Python layers of
    ``random.Random.__init__`` and ``seed``.
    """
    ordered, steps = _SHUFFLES[num_tiles]
    deck = list(ordered)
    getrandbits = _random.Random(seed).getrandbits
    for i, k in steps:
        j = getrandbits(k)
        while j > i:
            j = getrandbits(k)
        deck[i], deck[j] = deck[j], deck[i]
    return deck
