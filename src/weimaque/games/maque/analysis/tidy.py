"""理牌: a concealed hand grouped as a player reads it: 坎, 句 and pairs, then the loose cards.

A face held three or four times is a 坎 (RULES §2.3): it stays in the hand as one group (RULES
§4.4), as players keep it, so every 坎 is taken out first, whatever runs its cards could make;
only a fourth copy is free for the rest. A hand in play is rarely a whole reading (RULES §6.1
wants every card in a group), so the rest is grouped the way that puts the most cards in runs
(RULES §1.2), then the most in pairs. Groups are the kinds of
:mod:`weimaque.games.maque.analysis.decompose`; small and big faces are grouped apart, as there.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Final

from weimaque.games.maque.analysis.decompose import PAIR, RUN, TRIPLE, Split
from weimaque.games.maque.cards import NUM_FACES, Counts

#: How many faces one case has (一..十, 壹..拾).
_HALF: Final = NUM_FACES // 2

# The worth of a grouping: cards in triples and runs, cards in pairs.
_Worth = tuple[int, int]


@dataclass(frozen=True, slots=True)
class Tidy:
    """A hand's grouping: ``groups`` as ``(kind, face)`` pairs (the lowest face of a run), in
    face order, and the faces no group takes."""

    groups: Split
    loose: tuple[int, ...]


def _add(a: _Worth, b: _Worth) -> _Worth:
    return (a[0] + b[0], a[1] + b[1])


@functools.lru_cache(maxsize=1 << 14)
def _best(half: Counts, base: int) -> tuple[_Worth, Split, tuple[int, ...]]:
    """The best grouping of one case's counts (faces numbered from ``base``), no face held
    three times (the 坎 are out)."""
    i = next((f for f, n in enumerate(half) if n), None)
    if i is None:
        return (0, 0), (), ()
    c = half[i]

    def without(*faces: int) -> Counts:
        rest = list(half)
        for f in faces:
            rest[f] -= 1
        return tuple(rest)

    options: list[tuple[_Worth, Split, tuple[int, ...]]] = []
    if i + 2 < _HALF and half[i + 1] and half[i + 2]:
        worth, split, loose = _best(without(i, i + 1, i + 2), base)
        options.append((_add((3, 0), worth), ((RUN, base + i), *split), loose))
    if c >= 2:
        worth, split, loose = _best(without(i, i), base)
        options.append((_add((0, 2), worth), ((PAIR, base + i), *split), loose))
    worth, split, loose = _best(without(i), base)
    options.append((worth, split, (base + i, *loose)))
    # max keeps the first of equals: a run before a pair before a loose card.
    return max(options, key=lambda o: o[0])


def tidy(counts: Counts) -> Tidy:
    """Group a hand's counts (any number of cards) into 坎, runs and pairs.

    >>> from weimaque.games.maque.cards import counts_of
    >>> tidy(counts_of([0, 0, 0, 1, 2, 3, 4, 4, 9]))
    Tidy(groups=((0, 0), (1, 1), (2, 4)), loose=(9,))
    """
    kans = tuple((TRIPLE, f) for f, n in enumerate(counts) if n >= 3)
    rest = tuple(n - 3 if n >= 3 else n for n in counts)
    _, small, loose_small = _best(rest[:_HALF], 0)
    _, big, loose_big = _best(rest[_HALF:], _HALF)
    # Face order; at one face the 坎 before a run its fourth copy starts.
    groups = sorted(kans + small + big, key=lambda g: (g[1], g[0] != TRIPLE))
    return Tidy(tuple(groups), loose_small + loose_big)


__all__ = ["Tidy", "tidy"]
