"""The scorer against a brute-force maximum (RULES §4.4, §6, §7).

The brute force below shares no code with ``weimaque.games.maque.analysis``: it cuts the concealed
cards plus the winning card into groups by plain recursion over a sorted card list, places the
winning card in every group that can hold it, and computes 硬息 and 团圆 itself from RULES
§6.3-§6.4. Only the 名堂 of each reading are computed by the scorer's own ``patterns_of``, and those
that depend on where the winning card lies (单吊, 背靠背, 手牵手, 卡偎, RULES §7.2) are checked on
every reading against definitions written here. For every winning hand the scorer's total must equal
the best total found here: never lower (a missed reading) and never higher (a reading that does not
exist).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator, Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from weimaque import get_rules, list_rules
from weimaque.games.maque.analysis.arrange import Arrangement, Group
from weimaque.games.maque.analysis.generate import random_hand
from weimaque.games.maque.cards import COPIES, NUM_FACES, RED_FACES, counts_of
from weimaque.games.maque.notation import HandDescription, Meld, Source
from weimaque.games.maque.rules import RuleConfig
from weimaque.games.maque.scoring import score_description
from weimaque.games.maque.scoring.context import Context
from weimaque.games.maque.scoring.scorer import patterns_of

PRESETS = [r.id for r in list_rules()]
DUIDAO_KEYS = ("beikaobei", "shouqianshou", "kawei")
DUIDAO_PRESETS = [p for p in PRESETS if any(get_rules(p).value(k) is not None for k in DUIDAO_KEYS)]

Cut = list[tuple[str, tuple[int, ...]]]


def cuts(cards: Sequence[int]) -> Iterator[Cut]:
    """Every way to cut a sorted card list into triples, runs and exactly one pair."""
    yield from _cuts(sorted(cards), pair_left=True)


def _cuts(cards: list[int], pair_left: bool) -> Iterator[Cut]:
    if not cards:
        if not pair_left:
            yield []
        return
    low = cards[0]
    options: list[tuple[str, tuple[int, ...]]] = [("triple", (low,) * 3)]
    if low % 10 <= 7:
        options.append(("run", (low, low + 1, low + 2)))
    if pair_left:
        options.append(("pair", (low, low)))
    for kind, group in options:
        rest = list(cards)
        try:
            for f in group:
                rest.remove(f)
        except ValueError:
            continue
        for tail in _cuts(rest, pair_left and kind != "pair"):
            yield [(kind, group), *tail]


def _triple_xi(face: int, peng_valued: bool) -> int:
    """RULES §6.4: 碰 2/3; 偎, 砍 and hand triples 3/4."""
    red = face in RED_FACES
    if peng_valued:
        return 3 if red else 2
    return 4 if red else 3


def readings(
    melds: Sequence[Meld], hand: Sequence[int], win: int, source: Source, rules: RuleConfig
) -> Iterator[Arrangement]:
    """Every reading of the 20 cards with the winning card placed in one group (RULES §6)."""
    everything = Counter(f for m in melds for f in m.faces)
    everything.update(hand)
    everything[win] += 1
    held = list(hand).count(win)
    forced = source == "self" and held >= 2  # the forced 偎 (RULES §4.3, §6.1)
    seen: set[tuple[tuple[str, tuple[int, ...], bool], ...]] = set()
    for cut in cuts([*hand, win]):
        for i, (kind, group) in enumerate(cut):
            if win not in group:
                continue
            if forced and kind != "triple":
                continue
            key = tuple((k, g, j == i) for j, (k, g) in enumerate(cut))
            if key in seen:
                continue
            seen.add(key)
            yield _reading(melds, cut, i, source, forced, everything, rules)


def _reading(
    melds: Sequence[Meld],
    cut: Cut,
    win_at: int,
    source: Source,
    forced: bool,
    everything: Counter[int],
    rules: RuleConfig,
) -> Arrangement:
    groups: list[Group] = []
    for m in melds:
        xi = 0 if m.kind == "chi" else _triple_xi(m.faces[0], m.kind == "peng")
        groups.append(Group(m.kind, m.faces, xi, meld=True))
    pair = -1
    for j, (kind, faces) in enumerate(cut):
        is_win = j == win_at
        face = faces[0]
        if kind == "pair":
            pair = face
            red = face in RED_FACES
            if everything[face] >= 3:  # 转弯
                xi = 3 if red else rules.maque_zhuanwan_black
            else:
                xi = 2 if red else 0
            groups.append(Group("maque", faces, xi, win=is_win))
        elif kind == "run":
            groups.append(Group("run", faces, 0, win=is_win))
        elif is_win and forced:
            groups.append(Group("wei", faces, _triple_xi(face, False), win=True))
        elif is_win and source == "other":
            groups.append(Group("peng", faces, _triple_xi(face, True), win=True))
        else:
            groups.append(Group("kan", faces, _triple_xi(face, False), win=is_win))
    tuanyuan: list[int] = []
    for face in range(NUM_FACES):
        if everything[face] != COPIES:
            continue
        bonus = 4 if face in RED_FACES else 3
        at = [
            j for j, g in enumerate(groups) if g.kind in ("peng", "wei", "kan") and g.face == face
        ]
        if at:
            g = groups[at[0]]
            kind = "ming" if g.kind == "peng" else "an"
            groups[at[0]] = Group(g.kind, g.faces, g.xi + bonus, kind, g.win, g.meld)
            tuanyuan.append(face)
        elif rules.tuanyuan_any_grouping:
            groups.append(Group("tuanyuan", (face,) * 4, bonus, "an"))
            tuanyuan.append(face)
    return Arrangement(
        groups=tuple(groups),
        hard_xi=sum(g.xi for g in groups),
        tuanyuan=tuple(tuanyuan),
        pair=pair,
        win_group=next(g for g in groups if g.win),
        forced_wei=forced,
        has_run=any(g.kind in ("run", "chi") for g in groups),
    )


WIN_KEYS = frozenset({"dandiao", "beikaobei", "shouqianshou", "kawei"})


def win_names(arr: Arrangement, rules: RuleConfig) -> set[str]:
    """The 名堂 of RULES §7.2 that depend on the winning card's place, from their definitions."""
    win = next(g for g in arr.groups if g.win)
    pair = next(g.face for g in arr.groups if g.kind == "maque")
    names: set[str] = set()
    if win.kind == "maque":
        names.add("dandiao")
    if win.kind in ("wei", "peng") and not win.meld:
        # 对倒: two pairs before the win, the winning card made one a triple; however many of
        # the face were held, the other pair is the 麻雀.
        if pair % 10 == win.face % 10 and pair != win.face:
            names.add("beikaobei")
        if pair // 10 == win.face // 10 and abs(pair - win.face) == 1:
            names.add("shouqianshou")
    if arr.forced_wei and arr.hard_xi == rules.min_xi:
        names.add("kawei")
    return {k for k in names if rules.value(k) is not None}


def brute_best(desc: HandDescription, source: Source, last: bool, rules: RuleConfig) -> int | None:
    """The highest total over every reading with 硬息 >= min_xi, or None (RULES §4.7, §6.2)."""
    everything = Counter(desc.all_faces())
    red = sum(n for f, n in everything.items() if f in RED_FACES)
    small = sum(n for f, n in everything.items() if f < 10)
    best: int | None = None
    for arr in readings(desc.melds, desc.hand, desc.win, source, rules):
        if arr.hard_xi < rules.min_xi:
            continue
        ctx = Context(
            arrangement=arr,
            rules=rules,
            red=red,
            all_big=small == 0,
            all_small=small == 20,
            source=source,
            last=last,
        )
        multiplier, pats = patterns_of(ctx)
        scored = {p.key for p in pats} & WIN_KEYS
        assert scored == win_names(arr, rules), (str(desc), source, [str(g) for g in arr.groups])
        total = arr.hard_xi * multiplier + sum(p.points for p in pats if p.mode == "add")
        best = total if best is None else max(best, total)
    return best


def three_held_hand(rng: random.Random) -> tuple[HandDescription, Source]:
    """A hand whose winner held three of the winning face (RULES §7.2: 对倒 and 卡偎 with 3 held).

    Four copies of the winning face X lie among the concealed cards: as X X X + a run through X, or
    as a pair X X + two runs through X. The rest is random, partly laid down as melds.
    """
    while True:
        x = rng.randrange(NUM_FACES)
        starts = [s for s in range(x - 2, x + 1) if s // 10 == x // 10 and 0 <= s % 10 <= 7]
        left = [COPIES] * NUM_FACES
        concealed: list[int] = []
        groups_needed = 6
        pair_needed = True
        if rng.random() < 0.6:
            shape = [(x, x, x), _run(rng.choice(starts))]
            groups_needed -= 2
        else:
            shape = [(x, x), _run(rng.choice(starts)), _run(rng.choice(starts))]
            groups_needed -= 2
            pair_needed = False
        ok = True
        for group in shape:
            for f in group:
                left[f] -= 1
                ok = ok and left[f] >= 0
            concealed.extend(group)
        if not ok:
            continue
        melds: list[Meld] = []
        for _ in range(groups_needed):
            group = _random_group(rng, left, avoid=x)
            if group is None:
                ok = False
                break
            kind = "chi" if group[0] != group[1] else rng.choice(("peng", "wei", "hand"))
            if group[0] != group[1] and rng.random() < 0.5:
                kind = "hand"
            if kind == "hand":
                concealed.extend(group)
            else:
                melds.append(Meld.make(kind, list(group)))
        pairs = [f for f in range(NUM_FACES) if left[f] >= 2 and f != x]
        if not ok or (pair_needed and not pairs):
            continue
        if pair_needed:
            p = rng.choice(pairs)
            concealed.extend((p, p))
        concealed.remove(x)
        if concealed.count(x) != 3:
            continue
        source: Source = "self" if rng.random() < 0.5 else "other"
        return HandDescription(tuple(melds), tuple(sorted(concealed)), x), source


def _run(start: int) -> tuple[int, int, int]:
    return (start, start + 1, start + 2)


def _random_group(rng: random.Random, left: list[int], avoid: int) -> tuple[int, ...] | None:
    for _ in range(50):
        if rng.random() < 0.5:
            f = rng.randrange(NUM_FACES)
            group: tuple[int, ...] = (f, f, f)
        else:
            group = _run(rng.randrange(2) * 10 + rng.randrange(8))
        need = Counter(group)
        if avoid in need or any(left[f] < n for f, n in need.items()):
            continue
        for f, n in need.items():
            left[f] -= n
        return group
    return None


def _check(desc: HandDescription, source: Source, last: bool, preset: str) -> int:
    rules = get_rules(preset)
    b = score_description(desc, source=source, last=last, rules=rules)
    best = brute_best(desc, source, last, rules)
    shown = f"{desc} --from {source}{' --last' if last else ''} --rules {preset}"
    if best is None:
        assert not b.winning, shown
        return 0
    assert b.winning, shown
    assert b.total == best, f"{shown}: scorer {b.total}, brute force {best}"
    return 1


def test_cuts_agree_on_a_small_case() -> None:
    # 一一一二二二三三三 四四 splits as three triples or three runs, each with the pair 四四, plus
    # 一二三 ×3 is the same cut as runs; pairs elsewhere leave no cut.
    found = {tuple(k for k, _ in c) for c in cuts([0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3])}
    assert ("triple", "triple", "triple", "pair") in found
    assert ("run", "run", "run", "pair") in found


def test_thousands_of_random_hands_against_brute_force() -> None:
    # RULES §6.2: the scorer's total is the best over every decomposition and placement.
    rng = random.Random(20261130)
    winning = 0
    for i in range(2400):
        desc, source = random_hand(rng) if i % 3 else three_held_hand(rng)
        winning += _check(desc, source, rng.random() < 0.2, PRESETS[i % len(PRESETS)])
    assert winning > 1200


@pytest.mark.parametrize("preset", DUIDAO_PRESETS)
@settings(derandomize=True, max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), last=st.booleans())
def test_three_of_the_winning_face_held(preset: str, seed: int, last: bool) -> None:
    # RULES §7.2: 对倒 (背靠背, 手牵手) and 卡偎 do not depend on holding exactly two.
    desc, source = three_held_hand(random.Random(seed))
    assert counts_of(desc.hand)[desc.win] == 3
    _check(desc, source, last, preset)


@settings(derandomize=True, max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), preset=st.sampled_from(PRESETS))
def test_a_run_kept_in_hand_never_scores_less_than_laid_down(seed: int, preset: str) -> None:
    # The scorer must not depend on whether a run was laid down as a 吃 or kept in hand: in hand
    # it can be read the same way, so the total is never lower (RULES §4.4, §6.2).
    desc, source = random_hand(random.Random(seed))
    chis = [m for m in desc.melds if m.kind == "chi" and desc.win not in m.faces]
    if not chis:
        return
    moved = chis[0]
    rest = list(desc.melds)
    rest.remove(moved)
    kept = HandDescription(tuple(rest), tuple(sorted([*desc.hand, *moved.faces])), desc.win)
    laid_b = score_description(desc, source=source, rules=preset)
    kept_b = score_description(kept, source=source, rules=preset)
    assert kept_b.total >= laid_b.total
