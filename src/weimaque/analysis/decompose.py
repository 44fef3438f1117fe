"""Every split of concealed cards into runs, triples and exactly one pair (RULES §6.1).

Small and big faces never share a group (RULES §1.2), so each half of the count vector is split on
its own and the halves are combined; both steps are cached on immutable count tuples.

A split is a tuple of ``(kind, face)`` pairs: ``TRIPLE`` and ``PAIR`` name their face, ``RUN`` its
lowest face.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Final

from weimaque.cards import Counts

TRIPLE: Final = 0
RUN: Final = 1
PAIR: Final = 2

Split = tuple[tuple[int, int], ...]


def _first_cuts(half: Counts) -> list[tuple[Split, Counts]]:
    """The ways to place the lowest face's cards, each with what is left of the half.

    The lowest face's cards sit in at most one triple and otherwise in runs starting there.
    """
    i = next(f for f, n in enumerate(half) if n)
    c = half[i]
    out: list[tuple[Split, Counts]] = []
    for triples in (1, 0) if c >= 3 else (0,):
        runs = c - 3 * triples
        rest = list(half)
        rest[i] = 0
        if runs:
            if i > 7 or half[i + 1] < runs or half[i + 2] < runs:
                continue
            rest[i + 1] -= runs
            rest[i + 2] -= runs
        out.append((((TRIPLE, i),) * triples + ((RUN, i),) * runs, tuple(rest)))
    return out


@functools.lru_cache(maxsize=1 << 16)
def _groups(half: Counts) -> tuple[Split, ...]:
    """Every way to cut one half (10 counts) into triples and runs only."""
    if not any(half):
        return ((),)
    return tuple(head + tail for head, rest in _first_cuts(half) for tail in _groups(rest))


@functools.lru_cache(maxsize=1 << 16)
def _with_pair(half: Counts) -> tuple[Split, ...]:
    """Every way to cut one half into one pair plus triples and runs."""
    out: list[Split] = []
    for p, c in enumerate(half):
        if c >= 2:
            rest = list(half)
            rest[p] -= 2
            out.extend(((PAIR, p), *tail) for tail in _groups(tuple(rest)))
    return tuple(out)


def _shift(split: Split) -> Split:
    return tuple((kind, face + 10) for kind, face in split)


@functools.lru_cache(maxsize=1 << 16)
def splits(counts: Counts) -> tuple[Split, ...]:
    """Every decomposition of 20 face counts into runs and triples plus exactly one pair.

    >>> from weimaque.cards import counts_of
    >>> splits(counts_of([0, 0, 1, 2, 3]))
    (((2, 0), (1, 1)),)
    """
    small, big = counts[:10], counts[10:]
    n_small, n_big = sum(small), sum(big)
    out: list[Split] = []
    if n_small % 3 == 2 and n_big % 3 == 0:
        bigs = tuple(_shift(s) for s in _groups(big))
        out.extend(a + b for a in _with_pair(small) for b in bigs)
    elif n_small % 3 == 0 and n_big % 3 == 2:
        bigs = tuple(_shift(s) for s in _with_pair(big))
        out.extend(a + b for a in _groups(small) for b in bigs)
    return tuple(out)


def _cuts_into_groups(half: Sequence[int]) -> bool:
    """Whether one half (10 counts) cuts into triples and runs alone (RULES §1.2), in one pass
    from the lowest face: the runs still open there take their cards first, and of what is left
    ``n % 3`` must start runs (fewer than three make no triple); the rest are triples, for
    three runs from a face hold the very cards of the three triples they cross."""
    open1 = open2 = 0  # runs started one and two faces below, each needing this face
    for n in half:
        n -= open1 + open2
        if n < 0:
            return False
        open1, open2 = n % 3, open1
    return not (open1 or open2)


@functools.lru_cache(maxsize=1 << 18)
def _groups_exist(half: Counts) -> bool:
    """``bool(_groups(half))``: whether the half cuts into triples and runs alone."""
    return _cuts_into_groups(half)


def _cuts_with_pair(half: Sequence[int]) -> bool:
    """Whether one half (10 counts) cuts into one pair plus triples and runs."""
    rest = list(half)
    for p, c in enumerate(half):
        if c >= 2:
            rest[p] -= 2
            if _cuts_into_groups(rest):
                return True
            rest[p] += 2
    return False


@functools.lru_cache(maxsize=1 << 18)
def _pair_exists(half: Counts) -> bool:
    """``bool(_with_pair(half))``: whether the half cuts into one pair plus groups."""
    return _cuts_with_pair(half)


@functools.lru_cache(maxsize=1 << 16)
def can_split(counts: Counts) -> bool:
    """``bool(splits(counts))`` without listing the splits: the quick test of a win check.

    Each half is tested on its own and cached (halves repeat far more often than whole hands).
    """
    small, big = counts[:10], counts[10:]
    n_small, n_big = sum(small), sum(big)
    if n_small % 3 == 2 and n_big % 3 == 0:
        return _groups_exist(big) and _pair_exists(small)
    if n_small % 3 == 0 and n_big % 3 == 2:
        return _groups_exist(small) and _pair_exists(big)
    return False


@functools.lru_cache(maxsize=1 << 16)
def winning_faces(counts: Counts) -> frozenset[int]:
    """The faces one more card of which completes ``counts`` (``completions(counts)``), as a set,
    cached: the engine keeps each seat's while its hand stays the same, and the search's copies
    of one position ask it again of the same hands."""
    return frozenset(completions(counts))


def completions(counts: Counts, change: int = 1) -> list[int]:
    """The faces ``f`` for which ``counts`` with ``change`` cards of ``f`` (one more by default,
    or ``-2``: two fewer) split into groups + one pair, in face order.

    Works half by half: the changed face lies in one case, whose card count modulo 3 decides
    whether that half must take the pair or only groups, and the other half, unchanged, is tested
    once for the other role. A half that cannot play its role rules out its ten faces at once.
    """
    small, big = counts[:10], counts[10:]
    n_small, n_big = sum(small), sum(big)
    out: list[int] = []
    halves = ((small, big, n_small, n_big, 0), (big, small, n_big, n_small, 10))
    for mine, other, n_mine, n_other, base in halves:
        if (n_mine + change) % 3 == 2 and n_other % 3 == 0:
            if not _groups_exist(other):
                continue
            test = _cuts_with_pair
        elif (n_mine + change) % 3 == 0 and n_other % 3 == 2:
            if not _pair_exists(other):
                continue
            test = _cuts_into_groups
        else:
            continue
        h = list(mine)
        for i in range(10):
            if h[i] + change < 0:
                continue
            h[i] += change
            if test(h):
                out.append(base + i)
            h[i] -= change
    return out
