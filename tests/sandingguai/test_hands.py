"""Win check, 叫 and 番 of 三丁拐: the vectors of SANDINGGUAI §12.1 and §12.2."""

from __future__ import annotations

import itertools
import random

import pytest

from weimaque.games.sandingguai.hands import (
    context,
    hu_verdict,
    is_legal_win,
    is_legal_win_keys,
    is_win_fast,
    is_win_shape,
    may_wait,
    score,
    shape,
    shape_waits,
    suit_keys,
    waits,
)
from weimaque.games.sandingguai.notation import format_tiles, parse_hand, parse_tiles
from weimaque.games.sandingguai.rules import get_rules
from weimaque.games.sandingguai.tiles import counts_of

FAN_VECTORS = [
    ("V1", "123m456m789m234p55p", 1, "平胡"),
    ("V2", "hand:111m555m77m peng:222p peng:333p", 5, "大对子"),
    ("V3", "11m22m33p44p55p66p77m", 10, "七对"),
    ("V4", "1111m22m33p44p55p66p", 20, "龙七对"),
    ("V5", "123m123m456m789m55m", 10, "清一色"),
    ("V6", "111m222m333m555m77m", 15, "大对子"),
    ("V7", "11223344556677m", 20, "七对"),
    ("V8", "11112233445566m", 30, "龙七对"),
    ("V9", "123m456m789m234p55p --baoting", 10, "报听"),
    ("V10", "111m222m333p555p77p --baoting", 15, "报听"),
    ("V11", "hand:22m peng:111m gang:3333m peng:555m angang:7777m", 15, "大对子"),
    ("V12", "11m22m33m44m55m66m99p", 10, "七对"),
]


@pytest.mark.parametrize(
    ("text", "fan", "name"), [pytest.param(t, f, n, id=i) for i, t, f, n in FAN_VECTORS]
)
def test_fan_vectors(text: str, fan: int, name: str) -> None:
    result = score(context(parse_hand(text)))
    assert result.is_win
    assert result.fan == fan
    assert name in str(result)


def test_v13_three_suits_is_chahu() -> None:
    result = score(context(parse_hand("123m456s789p11m234m")))
    assert not result.is_win and "叉胡" in result.reason
    # SDG §5.3: with max_suits 3 (four-player 贵阳) it is a 平胡.
    assert score(context(parse_hand("123m456s789p11m234m")), get_rules(max_suits=3)).fan == 1


def test_baike_take_highest() -> None:
    baike = get_rules("baike-3p")
    assert score(context(parse_hand("11223344556677m")), baike).fan == 17
    assert score(context(parse_hand("11m22m33p44p55p66p77m")), baike).fan == 7
    assert score(context(parse_hand("11112233445566m")), baike).fan == 20


@pytest.mark.parametrize(
    ("text", "legal"),
    [
        pytest.param("hand:234m555m678m23p99p win:4p --from other", False, id="L1-no-kong"),
        pytest.param("hand:234m678m23p99p gang:7777p@2 win:4p --from other", True, id="L1-kong"),
        pytest.param("hand:234m555m678m23p99p win:4p --from self", True, id="L1-self"),
        pytest.param("hand:111m555m7m peng:222p peng:333p win:7m --from other", True, id="L2-V2"),
        pytest.param("hand:123m123m456m789m5m win:5m --from other", True, id="L2-V5"),
        pytest.param("hand:234m555m678m23p99p win:4p --from rob", True, id="rob-waives"),
        pytest.param("hand:234m555m678m23p99p win:4p --from repao", True, id="repao-waives"),
        pytest.param(
            "hand:234m555m678m23p99p win:4p --from other --baoting", True, id="baoting-passport"
        ),
    ],
)
def test_legality_vectors(text: str, legal: bool) -> None:
    assert (hu_verdict(parse_hand(text)) == "") is legal


def test_passport_options() -> None:
    big = parse_hand("hand:111m555m7m peng:222p peng:333p win:7m --from other")
    assert "passport" in hu_verdict(big, get_rules(passport="kong_only"))
    plain = parse_hand("hand:234m555m678m23p99p win:4p --from other")
    assert hu_verdict(plain, get_rules(passport="none")) == ""


def test_l3_three_suit_hand_is_not_jiao() -> None:
    c = counts_of(parse_tiles("123m456s789p11m23m"))
    assert waits(c, (), 2) == ()
    assert waits(c, (), 3) == tuple(parse_tiles("1m2m3m4m"))


def test_l4_no_qidui_with_a_meld() -> None:
    desc = parse_hand("hand:11m22m33p44p55p peng:666p win:6m")
    # Only 4-sets readings wait (111m or 222m + 345p 345p); no 七对 with a meld.
    assert waits(desc.concealed, desc.melds, 2) == tuple(parse_tiles("1m2m"))
    assert not score(context(parse_hand("hand:11m22m33p44p55p peng:666p win:3p"))).is_win
    bare = counts_of(parse_tiles("11m22m33p44p55p66p7m"))
    assert 6 in waits(bare, (), 2)  # without the meld the same pairs wait on 7m for 七对


def test_jiao_copy_limit() -> None:
    # 1111m2m3m…: 1m is held four times, so it is no wait even though it would complete.
    c = counts_of(parse_tiles("1111m23m456m789m5p"))
    assert 0 not in waits(c, (), 2)


def _brute_standard(c: list[int]) -> bool:
    """Exhaustive search: a pair, then sets greedily from the lowest kind (exact for sets)."""
    for p in range(27):
        if c[p] < 2:
            continue
        d = c[:]
        d[p] -= 2
        if _sets(d):
            return True
    return False


def _sets(d: list[int]) -> bool:
    for k in range(27):
        if d[k]:
            if d[k] >= 3:
                d[k] -= 3
                ok = _sets(d)
                d[k] += 3
                if ok:
                    return True
            if k % 9 <= 6 and d[k + 1] and d[k + 2]:
                for j in (k, k + 1, k + 2):
                    d[j] -= 1
                ok = _sets(d)
                for j in (k, k + 1, k + 2):
                    d[j] += 1
                return ok
            return False
    return True


def _completes(c: list[int], t: int, has_melds: bool) -> bool:
    d = c[:]
    d[t] += 1
    return _brute_standard(d) or (not has_melds and sum(d) == 14 and all(x % 2 == 0 for x in d))


def test_shape_agrees_with_brute_force() -> None:
    rng = random.Random(7)
    deck = [k for k in range(27) for _ in range(4)]
    checked = 0
    for n in itertools.islice(itertools.cycle((14, 11, 8, 5, 2, 13, 10, 7, 4, 1)), 4000):
        kinds = rng.sample(range(9), 5) if rng.random() < 0.7 else list(range(27))
        pool = [t for t in deck if t % 9 in kinds or len(kinds) == 27]
        tiles = rng.sample(pool, n)
        c = list(counts_of(tiles))
        assert bool(shape(tuple(c)) & 1) == _brute_standard(c), format_tiles(tiles)
        assert is_win_fast(c, n < 14) == is_win_shape(tuple(c), n < 14), format_tiles(tiles)
        if n % 3 == 1:
            want = tuple(t for t in range(27) if _completes(c, t, n < 13))
            assert shape_waits(tuple(c), n < 13) == want, format_tiles(tiles)
            standard = any(_completes(c, t, True) for t in range(27))
            sizes = [sum(c[9 * s : 9 * s + 9]) for s in range(3)]
            assert may_wait(suit_keys(c), sizes) == standard, format_tiles(tiles)
            for t in range(27):
                with_t = c[:]
                with_t[t] += 1
                added = is_legal_win_keys(suit_keys(c), c, (), 3, t)
                assert added == is_legal_win(with_t, (), 3), format_tiles([*tiles, t])
        checked += 1
    assert checked == 4000


def test_legal_win_suit_limit() -> None:
    desc = parse_hand("hand:234m678m23p99p gang:7777s win:4p")
    assert not is_legal_win(desc.all_counts(), desc.melds, 2)
    assert is_legal_win(desc.all_counts(), desc.melds, 3)
