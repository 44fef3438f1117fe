"""Scoring properties on random hands under every preset (RULES §6, §7).

Hands come from ``weimaque.games.maque.analysis.generate.random_hand`` driven by seeds that
hypothesis draws (derandomized, so every run sees the same hands).
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from weimaque import Breakdown, get_rules, list_rules, waits
from weimaque.games.maque.analysis.arrange import arrangements
from weimaque.games.maque.analysis.generate import random_hand
from weimaque.games.maque.cards import RED_FACES, Counts, counts_of, red_count
from weimaque.games.maque.notation import HandDescription, Meld, Source
from weimaque.games.maque.rules import RuleConfig
from weimaque.games.maque.scoring import score_description, score_position
from weimaque.games.maque.scoring.context import Context
from weimaque.games.maque.scoring.scorer import patterns_of

PRESETS = [r.id for r in list_rules()]
BREAKDOWN_KEYS = {
    "winning",
    "rules",
    "hard_xi",
    "multiplier",
    "total",
    "red",
    "groups",
    "patterns",
    "reason",
}

Position = tuple[HandDescription, Source, bool]

positions = st.tuples(st.integers(0, 2**32 - 1), st.booleans()).map(
    lambda t: (*random_hand(random.Random(t[0])), t[1])
)


def all_faces(desc: HandDescription) -> list[int]:
    return sorted(desc.all_faces())


def best_by_hand(
    melds: Sequence[Meld], hand: Counts, win: int, source: Source, last: bool, rules: RuleConfig
) -> tuple[int, int] | None:
    """The best (total, 硬息) over every arrangement with 硬息 >= min_xi, scored independently.

    The Context is built as ``score_position`` builds it (RULES §6.2, §7.1).
    """
    total_counts = list(hand)
    total_counts[win] += 1
    for m in melds:
        for f in m.faces:
            total_counts[f] += 1
    small = sum(total_counts[:10])
    best: tuple[int, int] | None = None
    for arr in arrangements(melds, hand, win, source, rules):
        assert arr.hard_xi == sum(g.xi for g in arr.groups)
        if arr.hard_xi < rules.min_xi:
            continue
        ctx = Context(
            arrangement=arr,
            rules=rules,
            red=red_count(tuple(total_counts)),
            all_big=small == 0,
            all_small=small == 20,
            source=source,
            last=last,
        )
        multiplier, pats = patterns_of(ctx)
        total = arr.hard_xi * multiplier + sum(p.points for p in pats if p.mode == "add")
        # RULES §7.1: the points of the multiplier line are 硬息 × (M − 1).
        assert arr.hard_xi + sum(p.points for p in pats) == total
        if best is None or (total, arr.hard_xi) > best:
            best = (total, arr.hard_xi)
    return best


def check_breakdown(b: Breakdown, desc: HandDescription, source: Source, last: bool) -> None:
    rules = get_rules(b.rules)
    faces = all_faces(desc)
    d = b.to_dict()
    assert set(d) == BREAKDOWN_KEYS
    json.dumps(d, ensure_ascii=False)  # JSON-ready
    # RULES §7.1: red = red cards among the 20, whether or not the hand wins.
    assert b.red == sum(1 for f in faces if f in RED_FACES)
    assert d["red"] == b.red
    best = best_by_hand(desc.melds, counts_of(desc.hand), desc.win, source, last, rules)
    if not b.winning:
        assert best is None
        assert b.total == 0
        assert b.reason
        assert b.patterns == ()
        assert d["reason"] == b.reason
        return
    assert b.reason is None
    # RULES §7.1: total = 硬息 × M + additions, and every line adds up.
    assert b.hard_xi + sum(p.points for p in b.patterns) == b.total
    assert b.hard_xi * b.multiplier + sum(p.points for p in b.patterns if p.mode == "add") == (
        b.total
    )
    assert b.hard_xi == sum(g.xi for g in b.groups)
    # RULES §4.7: 硬息 >= min_xi.
    assert b.hard_xi >= rules.min_xi
    # The groups hold exactly the 20 cards: 6 groups + one 麻雀 (anxiang-old's 团圆 bonus lines
    # repeat cards that already lie in groups, RULES §6.3).
    card_groups = [g for g in b.groups if g.kind != "tuanyuan"]
    assert sorted(f for g in card_groups for f in g.faces) == faces
    assert len(card_groups) == 7
    assert sum(1 for g in card_groups if g.kind == "maque") == 1
    assert all(len(g.faces) == 3 for g in card_groups if g.kind != "maque")
    win_groups = [g for g in b.groups if g.win]
    assert len(win_groups) == 1 and desc.win in win_groups[0].faces
    # RULES §6.2: no arrangement with 硬息 >= min_xi scores more; ties go to the higher 硬息.
    assert best == (b.total, b.hard_xi)
    check_simple_patterns(b, rules, faces, last)
    # multipliers never stack (RULES §7.1)
    assert sum(1 for p in b.patterns if p.mode == "mul") <= 1
    assert b.multiplier == max([1] + [p.value for p in b.patterns if p.mode == "mul"])


def check_simple_patterns(b: Breakdown, rules: RuleConfig, faces: list[int], last: bool) -> None:
    """名堂 that follow from the chosen groups alone, checked independently (RULES §7.2)."""
    points = {p.key: p.points for p in b.patterns}
    card_groups = [g for g in b.groups if g.kind != "tuanyuan"]
    win_group = next(g for g in b.groups if g.win)
    expect = {
        "hong": b.red >= 10,
        "haidi": last,
        "dazi": all(f >= 10 for f in faces),
        "xiaozi": all(f < 10 for f in faces),
        "manyuan": all(any(f in RED_FACES for f in g.faces) for g in card_groups),
        "dandiao": win_group.kind == "maque",
    }
    for key, applies in expect.items():
        value = rules.value(key)
        if value is None:
            assert key not in points
            continue
        assert (key in points) == applies, key
    if "hong" in points:
        assert points["hong"] == rules.patterns["hong"].value * (b.red - 9)
    if "haidi" in points:
        assert points["haidi"] == rules.patterns["haidi"].value


@pytest.mark.parametrize("preset", PRESETS)
@settings(derandomize=True, max_examples=400, deadline=None)
@given(position=positions)
def test_breakdown_properties(preset: str, position: Position) -> None:
    desc, source, last = position
    b = score_description(desc, source=source, last=last, rules=preset)
    assert b.rules == preset
    check_breakdown(b, desc, source, last)


def test_random_hands_mostly_win() -> None:
    # The generator is meaningful: most of its hands win, some do not (RULES §4.7).
    rng = random.Random(7)
    results = []
    for _ in range(200):
        desc, source = random_hand(rng)
        results.append(score_description(desc, source=source).winning)
    assert 0.3 < sum(results) / len(results) < 1.0


def test_non_winning_shapes() -> None:
    # RULES §4.7: 硬息 below min_xi; RULES §6.1: no 6 groups + 麻雀.
    low = HandDescription(
        (Meld("chi", (0, 1, 2)), Meld("chi", (3, 4, 5)), Meld("chi", (10, 11, 12))),
        tuple(sorted([13, 14, 15, 16, 17, 18, 6, 7, 8, 2])),
        2,
    )
    b = score_description(low)
    assert not b.winning and b.total == 0 and b.reason and "10" in b.reason
    assert set(b.to_dict()) == BREAKDOWN_KEYS
    check_breakdown(b, low, "self", False)
    # 壹贰叁 肆伍陆 柒捌拾: 柒捌拾 is no run, so the big half cannot be split.
    broken = HandDescription(
        (), tuple(sorted([0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 16, 17, 19])), 15
    )
    b = score_description(broken, source="other")
    assert not b.winning and b.total == 0 and b.reason
    assert b.groups == ()
    check_breakdown(b, broken, "other", False)


def test_forced_wei_can_break_a_hand() -> None:
    # RULES §6.1: drawn by oneself while holding 2 of it, the winning card is a forced 偎, which
    # can leave the rest without a 麻雀.
    desc = HandDescription(
        (Meld("peng", (6, 6, 6)), Meld("wei", (17, 17, 17)), Meld("chi", (0, 1, 2))),
        tuple(sorted([8, 8, 3, 4, 5, 16, 17, 18, 7, 9])),
        8,
    )
    self_b = score_description(desc, source="self")
    other_b = score_description(desc, source="other")
    check_breakdown(self_b, desc, "self", False)
    check_breakdown(other_b, desc, "other", False)
    assert other_b.winning
    assert not self_b.winning and self_b.reason and "偎" in self_b.reason


@pytest.mark.parametrize("preset", ["anxiang", "anxiang-old", "xiaozhuo", "dazhuo", "chaoji"])
@settings(derandomize=True, max_examples=40, deadline=None)
@given(position=positions)
def test_waits_contain_the_winning_card(preset: str, position: Position) -> None:
    # RULES §6, §7: the 19 cards before the win wait on the winning face, with that total.
    desc, source, _ = position
    b = score_description(desc, source=source, rules=preset)
    if not b.winning:
        return
    hand = counts_of(desc.hand)
    assert sum(hand) + 3 * len(desc.melds) == 19
    found = {w.face: w for w in waits(desc.melds, hand, preset)}
    assert desc.win in found
    w = found[desc.win]
    assert (w.self_total if source == "self" else w.other_total) == b.total
    assert w.best >= b.total
    # Every listed wait is a real win with those totals; faces are in order.
    assert list(found) == sorted(found)
    rules = get_rules(preset)
    for face, wait in found.items():
        for src, total in (("self", wait.self_total), ("other", wait.other_total)):
            sb = score_position(desc.melds, hand, face, source=src, rules=rules)  # type: ignore[arg-type]
            assert (sb.total if sb.winning else None) == total
        assert wait.self_total is not None or wait.other_total is not None
    # ...and no winning face is missing (waits skips faces that cannot split before scoring).
    held = counts_of([f for m in desc.melds for f in m.faces] + list(desc.hand))
    for face in range(20):
        if face in found or held[face] >= 4:
            continue
        for src in ("self", "other"):
            sb = score_position(desc.melds, hand, face, source=src, rules=rules)  # type: ignore[arg-type]
            assert not sb.winning, (face, src)


def test_waits_skip_faces_all_held() -> None:
    # RULES §1.1: a face whose 4 copies are all among the 19 cards cannot be drawn.
    rng = random.Random(11)
    found = 0
    for _ in range(20):
        desc, _ = random_hand(rng)
        hand = counts_of(desc.hand)
        held = counts_of([f for m in desc.melds for f in m.faces] + list(desc.hand))
        for w in waits(desc.melds, hand):
            assert held[w.face] < 4
            found += 1
    assert found > 0


@settings(derandomize=True, max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), preset=st.sampled_from(PRESETS))
def test_waits_of_any_hand_match_the_scorer(seed: int, preset: str) -> None:
    # RULES §6.1: waits skips faces by cheap tests (two lone cards, or a face the hand cannot
    # split with); on any 19 cards it must list exactly the faces the scorer calls wins.
    rng = random.Random(seed)
    deck = [f for f in range(20) for _ in range(4)]
    rng.shuffle(deck)
    if rng.random() < 0.5:
        # Near a win: a winning hand's 20 cards less one, so that waits are common.
        desc, _ = random_hand(rng)
        melds, hand = desc.melds, counts_of(desc.hand)
    else:
        melds, hand = (), counts_of(deck[:19])
    rules = get_rules(preset)
    found = {w.face: w for w in waits(melds, hand, rules)}
    held = counts_of(
        [f for m in melds for f in m.faces] + [f for f in range(20) for _ in range(hand[f])]
    )
    for face in range(20):
        totals = []
        for src in ("self", "other"):
            sb = score_position(melds, hand, face, source=src, rules=rules)  # type: ignore[arg-type]
            totals.append(sb.total if sb.winning else None)
        if held[face] >= 4 or totals == [None, None]:
            assert face not in found, (face, found)
        else:
            assert (found[face].self_total, found[face].other_total) == tuple(totals)
