"""``splits`` against a brute-force enumerator of group multisets (RULES §1.2, §6.1)."""

from __future__ import annotations

import itertools
from collections import Counter

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from weimaque.games.maque.analysis.decompose import (
    PAIR,
    RUN,
    TRIPLE,
    _groups,
    _groups_exist,
    _pair_exists,
    _with_pair,
    can_split,
    completions,
    splits,
    winning_faces,
)
from weimaque.games.maque.cards import NUM_FACES, counts_of, faces_of

Counts = tuple[int, ...]
Group = tuple[int, int]

# RULES §1.2: a group is a triple of one face or a run of three consecutive faces of one case,
# no wrap-around (九十一) and no small/big mix (九十壹).
ALL_GROUPS: list[Group] = [(TRIPLE, f) for f in range(NUM_FACES)] + [
    (RUN, f) for f in range(NUM_FACES) if f % 10 <= 7
]


def group_faces(kind: int, face: int) -> list[int]:
    if kind == PAIR:
        return [face, face]
    if kind == TRIPLE:
        return [face, face, face]
    assert kind == RUN
    return [face, face + 1, face + 2]


def brute_force(counts: Counts) -> set[tuple[Group, ...]]:
    """Every multiset of groups + exactly one pair whose cards are exactly ``counts``.

    Each result is a sorted tuple of (kind, face); the recursion picks groups in non-decreasing
    index order over ALL_GROUPS so that each multiset is produced once.
    """
    out: set[tuple[Group, ...]] = set()

    def rec(left: list[int], start: int, chosen: list[Group]) -> None:
        if not any(left):
            out.add(tuple(sorted(chosen)))
            return
        for i in range(start, len(ALL_GROUPS)):
            kind, face = ALL_GROUPS[i]
            faces = group_faces(kind, face)
            need = Counter(faces)
            if all(left[f] >= n for f, n in need.items()):
                for f in faces:
                    left[f] -= 1
                chosen.append((kind, face))
                rec(left, i, chosen)
                chosen.pop()
                for f in faces:
                    left[f] += 1

    if sum(counts) % 3 != 2:
        return out
    for p in range(NUM_FACES):
        if counts[p] >= 2:
            left = list(counts)
            left[p] -= 2
            rec(left, 0, [(PAIR, p)])
    return out


def test_brute_force_sanity() -> None:
    # The enumerator itself: 一一二三四 is only 一一 + 二三四; 一一一二二二三三三 + 壹壹 has two
    # readings (three triples or three runs).
    assert brute_force(counts_of([0, 0, 1, 2, 3])) == {tuple(sorted(((PAIR, 0), (RUN, 1))))}
    c = counts_of([0, 0, 0, 1, 1, 1, 2, 2, 2, 10, 10])
    assert brute_force(c) == {
        tuple(sorted(((TRIPLE, 0), (TRIPLE, 1), (TRIPLE, 2), (PAIR, 10)))),
        tuple(sorted(((RUN, 0), (RUN, 0), (RUN, 0), (PAIR, 10)))),
    }
    # 九十壹 is no run; 九十一 is no run.
    assert brute_force(counts_of([8, 9, 10, 5, 5])) == set()
    assert brute_force(counts_of([8, 9, 0, 5, 5])) == set()


def _check(counts: Counts) -> None:
    got = splits(counts)
    # RULES §6.1: every split uses exactly the cards, with exactly one pair.
    for split in got:
        faces = [f for kind, face in split for f in group_faces(kind, face)]
        assert counts_of(faces) == counts
        assert sum(1 for kind, _ in split if kind == PAIR) == 1
        for kind, face in split:
            if kind == RUN:
                assert face % 10 <= 7  # same case, no wrap-around (RULES §1.2)
    normalised = [tuple(sorted(s)) for s in got]
    # No duplicates.
    assert len(set(normalised)) == len(normalised)
    # Exactly the brute-force set.
    assert set(normalised) == brute_force(counts)


@st.composite
def count_vectors(draw: st.DrawFn, size: int) -> Counts:
    """Any ``size`` cards, at most 4 of a face."""
    counts = [0] * NUM_FACES
    while sum(counts) < size:
        f = draw(st.integers(0, NUM_FACES - 1))
        if counts[f] < 4:
            counts[f] += 1
    return tuple(counts)


@st.composite
def shaped_vectors(draw: st.DrawFn, size: int) -> Counts:
    """``size`` cards built from random groups plus a pair (so at least one split exists).

    Faces are concentrated in a small window so that alternative readings are common.
    """
    lo = draw(st.sampled_from([0, 3, 10, 13]))
    counts = [0] * NUM_FACES
    pair = draw(st.integers(lo, lo + 6))
    counts[pair] += 2
    groups = (size - 2) // 3
    while groups:
        kind = draw(st.sampled_from([TRIPLE, RUN]))
        face = draw(st.integers(lo, lo + 4))
        big_ok = kind == TRIPLE or face % 10 <= 7
        faces = group_faces(kind, face)
        if big_ok and all(counts[f] + faces.count(f) <= 4 for f in set(faces)):
            for f in faces:
                counts[f] += 1
            groups -= 1
    return tuple(counts)


SIZES = [2, 5, 8, 11, 14]


@settings(derandomize=True, max_examples=300, deadline=None)
@given(st.sampled_from(SIZES).flatmap(count_vectors))
def test_splits_match_brute_force_random(counts: Counts) -> None:
    _check(counts)


@settings(derandomize=True, max_examples=300, deadline=None)
@given(st.sampled_from(SIZES).flatmap(shaped_vectors))
def test_splits_match_brute_force_shaped(counts: Counts) -> None:
    assert splits(counts)  # built from groups, so at least one split exists
    _check(counts)


def test_splits_examples() -> None:
    # 一一一二二二三三三四四: three triples + 四四, three runs + 四四, 一一 + runs, …
    c = counts_of([0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3])
    _check(c)
    assert len(splits(c)) >= 2
    # Mixed cases: the pair's case must hold 3k+2 cards, the other case 3k.
    _check(counts_of([0, 1, 2, 10, 10]))
    assert splits(counts_of([0, 1, 10, 10, 10])) == ()
    # 二七十 is no group.
    assert splits(counts_of([1, 6, 9, 3, 3])) == ()
    # The doc example.
    assert splits(counts_of([0, 0, 1, 2, 3])) == (((PAIR, 0), (RUN, 1)),)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, NUM_FACES - 1), max_size=24))
def test_faces_of_lists_a_count_vector_in_face_order(faces: list[int]) -> None:
    counts = counts_of(faces)
    assert faces_of(counts) == sorted(faces)
    assert counts_of(faces_of(counts)) == counts


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, NUM_FACES - 1), min_size=1, max_size=20))
def test_winning_faces_are_the_faces_one_more_of_which_splits(faces: list[int]) -> None:
    counts = counts_of(faces)
    assume(max(counts) <= 4)
    one_more = {f for f in range(NUM_FACES) if splits(counts_of([*faces, f]))}
    assert winning_faces(counts) == one_more == set(completions(counts))


def test_the_one_pass_tests_agree_with_the_enumeration_on_every_small_half() -> None:
    """The existence tests behind ``can_split`` and ``completions`` read a half in one pass
    (the open runs first, then ``n % 3`` new runs, the rest triples); the enumeration searches
    every cut. Every half of up to four cards a face on six faces in a row (the first six or
    the last six), 5**6 of each, gives the same answer both ways."""
    for six in itertools.product(range(5), repeat=6):
        for half in (six + (0,) * 4, (0,) * 4 + six):
            assert _groups_exist(half) == bool(_groups(half)), half
            assert _pair_exists(half) == bool(_with_pair(half)), half


def test_the_quarter_reading_agrees_with_the_half_tests_on_every_small_half() -> None:
    """``can_split`` and ``winning_faces`` read a hand by quarters (five faces, each read once
    for every state it may be entered in); ``completions`` and the one-pass half tests read it
    face by face. Every six-face half of up to four cards a face, placed across the two quarters
    of the small or the big half, beside an other half that holds nothing, the pair alone, or a
    run: the same answers both ways."""
    others = [(0,) * 10, (0, 0, 0, 2, 0, 0, 0, 0, 0, 0), (0, 1, 1, 1, 0, 0, 0, 0, 0, 0)]
    for six in itertools.product(range(5), repeat=6):
        half = (0, 0, *six, 0, 0)  # faces 2-7: runs cross the quarters' edge
        for other in others:
            for counts in (half + other, other + half):
                assert winning_faces(counts) == set(completions(counts)), counts
                small, big = counts[:10], counts[10:]
                whole = (sum(small) % 3 == 2 and _pair_exists(small) and _groups_exist(big)) or (
                    sum(big) % 3 == 2 and _pair_exists(big) and _groups_exist(small)
                )
                assert can_split(counts) == whole, counts
