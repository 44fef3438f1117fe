"""Every split of concealed cards into runs, triples and exactly one pair (RULES §6.1).

Small and big faces never share a group (RULES §1.2), so each half of the count vector is split on
its own and the halves are combined; both steps are cached on immutable count tuples. The quick
tests of a win check (``can_split``, ``winning_faces``) list no splits: they read a hand five faces
at a time, each five read once for every way it may be entered.

A split is a tuple of ``(kind, face)`` pairs: ``TRIPLE`` and ``PAIR`` name their face, ``RUN`` its
lowest face.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Final, TypeVar

from weimaque.games.maque.cards import Counts

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

    >>> from weimaque.games.maque.cards import counts_of
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


def _read(counts: Sequence[int], state: int) -> tuple[int, int]:
    """Faces ``counts`` read from the lowest in one pass, from ``state`` with no pair taken:
    the state after them with still no pair (-1 when they do not cut), and the mask of the
    states after them with one pair taken among them.

    A state is ``3 * open1 + open2``: the runs started one and two faces below, each needing
    this face. They take its cards first; of what is left, ``n % 3`` must start runs (fewer
    than three make no triple) and the rest are triples, for three runs from a face hold the
    very cards of the three triples they cross (RULES §1.2). The pair may lie on any face with
    two cards to spare, so the states with it taken are a set (nine bits); each moves on as the
    state without it does."""
    paired = 0
    for n in counts:
        after = 0
        s = 0
        while paired >> s:
            if paired >> s & 1 and (m := n - s // 3 - s % 3) >= 0:
                after |= 1 << (3 * (m % 3) + s // 3)
            s += 1
        if state >= 0:
            m = n - state // 3 - state % 3
            if m >= 2:
                after |= 1 << (3 * ((m - 2) % 3) + state // 3)
            state = 3 * (m % 3) + state // 3 if m >= 0 else -1
        paired = after
    return state, paired


def _cuts_into_groups(half: Sequence[int]) -> bool:
    """Whether one half (10 counts) cuts into triples and runs alone: read in one pass, it
    ends with no run open (:func:`_read`)."""
    return _read(half, 0)[0] == 0


@functools.lru_cache(maxsize=1 << 18)
def _groups_exist(half: Counts) -> bool:
    """``bool(_groups(half))``: whether the half cuts into triples and runs alone."""
    return _cuts_into_groups(half)


def _cuts_with_pair(half: Sequence[int]) -> bool:
    """Whether one half (10 counts) cuts into one pair plus triples and runs: read in one pass,
    some way with the pair taken ends with no run open (:func:`_read`)."""
    return bool(_read(half, 0)[1] & 1)


@functools.lru_cache(maxsize=1 << 18)
def _pair_exists(half: Counts) -> bool:
    """``bool(_with_pair(half))``: whether the half cuts into one pair plus groups."""
    return _cuts_with_pair(half)


# ------------------------------------------------------------------ a hand read by quarters
#
# ``_read`` reads faces from the lowest carrying a state of open runs, and the set of states
# with the pair taken. Five faces in a row (a quarter) carry these states across in a way that
# depends on their five counts alone, so each quarter seen is read once, for every state it may
# be entered in, and kept (``_LEADS`` and ``_TAILS``: at most 5**5 quarters each). ``can_split``
# and ``winning_faces`` then read a hand as four quarters, with no pass over its faces. A half
# must close with no run open (RULES §1.2: small and big never share a group), which is state 0
# after its second quarter.


def _bit(state: int) -> int:
    return 1 << state if state >= 0 else 0


def _with_one(counts: Sequence[int], j: int) -> list[int]:
    out = list(counts)
    out[j] += 1
    return out


class _Lead:
    """A half's first quarter, read from state 0: ``state`` after it with no pair (``bit``: as a
    mask, 0 when it does not cut), ``paired`` with the pair taken in it, and ``plus[j]``: the
    same two masks with one more card of its ``j``-th face."""

    __slots__ = ("bit", "both", "mod", "paired", "plus", "state")

    def __init__(self, counts: Counts) -> None:
        self.mod = sum(counts) % 3
        self.state, self.paired = _read(counts, 0)
        self.bit = _bit(self.state)
        self.both = self.bit | self.paired << 9  # the two masks side by side (``_Tail.closes``)
        plus = []
        for j in range(len(counts)):
            state, paired = _read(_with_one(counts, j), 0)
            plus.append((_bit(state), paired))
        self.plus: tuple[tuple[int, int], ...] = tuple(plus)


class _Tail:
    """A half's second quarter: the entry states from which it closes the half with no run open,
    with no pair taken in it (``groups``) or with the pair taken in it (``pair``), as masks. A
    state entered with the pair already taken closes as ``groups`` does."""

    __slots__ = ("_plus", "closes", "counts", "groups", "mod", "pair")

    def __init__(self, counts: Counts) -> None:
        self.counts = counts
        self.mod = sum(counts) % 3
        self.groups = self.pair = 0
        for s in range(9):
            state, paired = _read(counts, s)
            self.groups |= (state == 0) << s
            self.pair |= (paired & 1) << s
        # ``closes[lead.mod] & lead.both``: whether the half closes in the part its count
        # modulo 3 gives it, groups alone (0) or one pair and groups (2); 3k + 1 cards, neither
        by_mod = (self.groups, 0, self.pair | self.groups << 9)
        self.closes = tuple(by_mod[(m + self.mod) % 3] for m in range(3))
        self._plus: list[tuple[tuple[int, ...], tuple[int, ...]] | None] = [None] * 9

    def plus(self, state: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """The faces one more card of which closes the quarter entered in ``state``, with no
        pair taken in it and with the pair taken in it (read when first asked)."""
        known = self._plus[state]
        if known is None:
            ends = [_read(_with_one(self.counts, j), state) for j in range(len(self.counts))]
            known = self._plus[state] = (
                tuple(j for j, (end, _) in enumerate(ends) if end == 0),
                tuple(j for j, (_, paired) in enumerate(ends) if paired & 1),
            )
        return known


_Q = TypeVar("_Q", _Lead, _Tail)


class _Quarters(dict[Counts, _Q]):
    """Quarters read once and kept, by their five counts."""

    def __init__(self, kind: Callable[[Counts], _Q]) -> None:
        super().__init__()
        self.kind: Callable[[Counts], _Q] = kind

    def __missing__(self, counts: Counts) -> _Q:
        read = self.kind(counts)
        self[counts] = read
        return read


_LEADS: Final = _Quarters(_Lead)
_TAILS: Final = _Quarters(_Tail)
_NO_FACES: Final[frozenset[int]] = frozenset()


def _one_more(lead: _Lead, tail: _Tail, base: int) -> list[int]:
    """The faces (numbered from ``base``) one more card of which closes a half: as groups alone
    if it holds 3k + 2 cards, as one pair and groups if 3k + 1."""
    mod = (lead.mod + tail.mod) % 3
    out = []
    if mod == 2:
        for j, (bit, _) in enumerate(lead.plus):
            if bit & tail.groups:
                out.append(base + j)
        if lead.state >= 0:
            out.extend(base + 5 + j for j in tail.plus(lead.state)[0])
    elif mod == 1:
        for j, (bit, paired) in enumerate(lead.plus):
            if bit & tail.pair or paired & tail.groups:
                out.append(base + j)
        tails = set(tail.plus(lead.state)[1]) if lead.state >= 0 else set()
        for s in range(9):
            if lead.paired >> s & 1:
                tails.update(tail.plus(s)[0])
        out.extend(base + 5 + j for j in sorted(tails))
    return out


def can_split(counts: Counts) -> bool:
    """``bool(splits(counts))`` without listing the splits: the quick test of a win check, each
    half closing in its part (one of them holding the pair), read by quarters."""
    a, b = _LEADS[counts[:5]], _TAILS[counts[5:10]]
    c, d = _LEADS[counts[10:15]], _TAILS[counts[15:]]
    return (a.mod + b.mod + c.mod + d.mod) % 3 == 2 and bool(
        b.closes[a.mod] & a.both and d.closes[c.mod] & c.both
    )


def winning_faces(counts: Counts) -> frozenset[int]:
    """The faces one more card of which completes ``counts`` (``completions(counts)``, as a set),
    read by quarters: the card goes into one half, and the other must close as it stands."""
    a, b = _LEADS[counts[:5]], _TAILS[counts[5:10]]
    c, d = _LEADS[counts[10:15]], _TAILS[counts[15:]]
    if (a.mod + b.mod + c.mod + d.mod) % 3 != 1:
        return _NO_FACES
    faces: list[int] = []
    if d.closes[c.mod] & c.both:
        faces = _one_more(a, b, 0)
    if b.closes[a.mod] & a.both:
        faces += _one_more(c, d, 10)
    return frozenset(faces) if faces else _NO_FACES


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
