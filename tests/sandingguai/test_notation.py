"""Strict notation of 三丁拐 (SANDINGGUAI §1.3-§1.5): round trips and errors that quote input."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from weimaque.errors import InvalidNotation
from weimaque.games.sandingguai.notation import (
    Meld,
    MeldKind,
    format_tiles,
    parse_hand,
    parse_table,
    parse_tile,
    parse_tiles,
)


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        pytest.param("123m456s78p", "123m456s78p", id="ascii"),
        pytest.param("78P 456S 123M", "123m456s78p", id="upper-case-any-order"),
        pytest.param("一万 二万 三万", "123m", id="chinese"),
        pytest.param("幺鸡八筒", "1s8p", id="yaoji-wugu"),
        pytest.param("1万5索9饼", "1m5s9p", id="arabic-chinese-aliases"),
        pytest.param("九萬一條二餅", "9m1s2p", id="traditional"),
        pytest.param("12m 三条 4p", "12m3s4p", id="mixed"),
        pytest.param("1 2 3m", "123m", id="spaces-inside-a-run"),
    ],
)
def test_parse_tiles(text: str, canonical: str) -> None:
    assert format_tiles(parse_tiles(text)) == canonical


@pytest.mark.parametrize(
    ("text", "quoted"),
    [
        pytest.param("123", "'123'", id="ranks-without-suit"),
        pytest.param("0m", "'0m'", id="zero"),
        pytest.param("1z", "'1z'", id="honour-letter"),
        pytest.param("m", "'m'", id="suit-without-rank"),
        pytest.param("一", "'\\u4e00'", id="chinese-rank-without-suit"),
        pytest.param("12万", "'12\\u4e07'", id="two-ranks-before-chinese-suit"),
        pytest.param("幺", "'\\u5e7a'", id="yao-alone"),
    ],
)
def test_parse_tiles_errors_quote_input(text: str, quoted: str) -> None:
    with pytest.raises(InvalidNotation) as err:
        parse_tiles(text)
    assert quoted in str(err.value)


@given(st.lists(st.integers(0, 26), max_size=30))
def test_round_trip_ascii_and_chinese(tiles: list[int]) -> None:
    for chinese in (False, True):
        assert sorted(parse_tiles(format_tiles(tiles, chinese))) == sorted(tiles)


def test_kind_index() -> None:
    assert parse_tile("1s") == 9
    assert parse_tile("8p") == 25
    assert parse_tile("9m") == 8


def test_hand_description() -> None:
    h = parse_hand("hand:234m678m23p99p gang:7777p@2 win:4p --from other")
    assert h.melds == (Meld(MeldKind.GANG, parse_tile("7p"), 2),)
    assert h.win == parse_tile("4p")
    assert h.way == "other"
    assert parse_hand(str(h)) == h
    bare = parse_hand("11223344556677m --baoting")
    assert bare.win is None and bare.baoting
    chinese = parse_hand("手:111m555m77m 碰:222p 碰:333p")
    assert [m.kind for m in chinese.melds] == [MeldKind.PENG, MeldKind.PENG]


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        pytest.param("hand:123m win:4m", "must be 14", id="too-few"),
        pytest.param("11111m222m333m444m", "5 times", id="five-copies"),
        pytest.param("hand:11m peng:123m", "identical", id="peng-not-identical"),
        pytest.param("hand:1m win:2m win:3m", "two winning", id="two-wins"),
        pytest.param("hand:1m foo:2m", "unknown segment", id="unknown-segment"),
        pytest.param("11223344556677m --from moon", "moon", id="bad-from"),
        pytest.param("angang:1111m@2 hand:1234567899m", "no seat", id="angang-from-seat"),
        pytest.param("peng:111m@5 hand:23456789m55m win:5m", "'5'", id="bad-seat"),
    ],
)
def test_hand_errors(text: str, fragment: str) -> None:
    with pytest.raises(InvalidNotation) as err:
        parse_hand(text)
    assert fragment in str(err.value)


E1 = """dealer:0 flip:4m first:1s@2
s0 hand:13469m2469s3569p discards:7s2m
s1 hand:234m678m23p99p gang:7777p@2 win:4p@2
s2 hand:2368m2357s12469p"""


def test_table_description_round_trip() -> None:
    table = parse_table(E1)
    assert table.winners[0].way == "dianpao" and table.winners[0].source == 2
    assert table.flip == parse_tile("4m")
    assert parse_table(str(table)) == table
    assert parse_table(E1.replace("\n", ";")) == table


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        pytest.param(E1.replace("s2 ", "s1 "), "twice", id="seat-twice"),
        pytest.param(E1.replace("hand:2368m", "hand:236m"), "holds 12", id="twelve-tiles"),
        pytest.param(E1.replace("dealer:0", "dealer:3"), "'3'", id="bad-dealer"),
        pytest.param(E1.replace("win:4p@2", "win:4p@1"), "own discard", id="own-discard"),
        pytest.param(E1.replace("flip:4m", "flip:4m end:huang"), "disagrees", id="end-mismatch"),
        pytest.param(E1.replace("win:4p@2", "win:4p@2 way:repao"), "repao", id="repao-no-kong"),
        pytest.param(E1.replace("discards:7s2m", "discards:7p7p"), "7p appears 6", id="copies"),
    ],
)
def test_table_errors(text: str, fragment: str) -> None:
    with pytest.raises(InvalidNotation) as err:
        parse_table(text)
    assert fragment in str(err.value)
