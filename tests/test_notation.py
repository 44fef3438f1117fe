"""Card and hand notation: parsing, printing, round-trips, every error kind (RULES §1.3, §1.4)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from weimaque.errors import (
    InvalidMeld,
    InvalidNotation,
    TooManyCopies,
    UnknownCard,
    WeimaqueError,
    WinningCardError,
    WrongCardCount,
)
from weimaque.games.maque.cards import BIG_CHARS, FACE_CHARS, SMALL_CHARS, is_run
from weimaque.games.maque.notation import (
    HandDescription,
    Meld,
    format_cards,
    format_cards_ascii,
    parse_card,
    parse_cards,
    parse_hand,
)

# A valid 20-card hand (the RULES §1.4 example) and its pieces.
EXAMPLE = "碰:七七七 偎:捌捌捌 吃:一二三 手:贰贰贰四五六柒捌玖九 胡:九"
EXAMPLE_HAND = sorted(parse_cards("贰贰贰四五六柒捌玖九"))


# --- cards (RULES §1.1, §1.3) -------------------------------------------------------------------


def test_chinese_faces_in_order() -> None:
    # RULES §1.1: 0..9 small 一..十, 10..19 big 壹..拾.
    assert parse_cards(SMALL_CHARS) == list(range(10))
    assert parse_cards(BIG_CHARS) == list(range(10, 20))
    assert format_cards(range(20)) == FACE_CHARS


@pytest.mark.parametrize(
    ("text", "chinese"),
    [
        ("123x", "一二三"),
        ("780d", "柒捌拾"),
        ("0x", "十"),
        ("0d", "拾"),
        ("1234567890x", SMALL_CHARS),
        ("1234567890d", BIG_CHARS),
        ("123x456d", "一二三肆伍陆"),
        ("123X", "一二三"),
        ("780D", "柒捌拾"),
        ("12X3d", "一二叁"),
        ("一23x", "一二三"),
        ("1x贰3d十", "一贰叁十"),
        ("捌9d0x七", "捌玖十七"),
    ],
)
def test_ascii_and_mixed_parse(text: str, chinese: str) -> None:
    # RULES §1.3: digits then a case letter (either case), 0 = ten; Chinese and ASCII may mix.
    assert parse_cards(text) == parse_cards(chinese)
    assert format_cards(parse_cards(text)) == chinese


def test_traditional_forms() -> None:
    # RULES §1.3: 貳 陸 參 (and 叁) are accepted for the big faces.
    assert parse_cards("貳參陸") == [11, 12, 15]
    assert parse_cards("貳參陸") == parse_cards("贰叁陆")
    assert parse_cards("參") == parse_cards("叁") == [12]
    # Printing uses the standard faces.
    assert format_cards(parse_cards("貳參陸")) == "贰叁陆"


def test_parse_cards_keeps_written_order() -> None:
    assert parse_cards("三一二") == [2, 0, 1]
    assert parse_cards("321x") == [2, 1, 0]


def test_parse_card_single() -> None:
    assert parse_card("十") == 9
    assert parse_card("0d") == 19
    with pytest.raises(InvalidNotation) as info:
        parse_card("一二")
    assert "'一二'" in str(info.value)


def test_format_cards_ascii_examples() -> None:
    # RULES §1.3: each same-case stretch closed with x or d, ten printed as 0.
    assert format_cards_ascii([0, 1, 2, 15, 16]) == "123x67d"
    assert format_cards_ascii([9, 19, 9]) == "0x0d0x"
    assert format_cards_ascii(parse_cards("柒捌拾")) == "780d"


@st.composite
def face_lists(draw: st.DrawFn) -> list[int]:
    """Non-empty face lists in random order with at most 4 copies of any face (RULES §1.3)."""
    counts = draw(st.lists(st.integers(0, 4), min_size=20, max_size=20))
    faces = [f for f in range(20) for _ in range(counts[f])]
    if not faces:
        faces = [draw(st.integers(0, 19))]
    return list(draw(st.permutations(faces)))


@settings(derandomize=True, max_examples=200, deadline=None)
@given(face_lists())
def test_format_round_trips(faces: list[int]) -> None:
    # RULES §1.3: every printed form parses back to the same value.
    chinese = format_cards(faces)
    ascii_ = format_cards_ascii(faces)
    assert parse_cards(chinese) == faces
    assert parse_cards(ascii_) == faces
    assert parse_cards(ascii_.upper()) == faces
    assert ascii_.isascii()
    assert len(chinese) == len(faces)


# --- hand descriptions (RULES §1.4) --------------------------------------------------------------


def test_parse_hand_example() -> None:
    d = parse_hand(EXAMPLE)
    assert d.melds == (
        Meld("peng", (6, 6, 6)),
        Meld("wei", (17, 17, 17)),
        Meld("chi", (0, 1, 2)),
    )
    assert list(d.hand) == EXAMPLE_HAND
    assert d.win == 8
    assert d.source is None
    assert d.last is None
    assert len(d.all_faces()) == 20


@pytest.mark.parametrize(
    "text",
    [
        "peng:七七七 wei:捌捌捌 chi:一二三 hand:贰贰贰四五六柒捌玖九 win:九",
        "碰:777x 偎:888d 吃:123x 手:222d456x789d9x 胡:9x",
        "碰:七七七 栽:捌捌捌 吃:一二三 手:贰贰贰四五六柒捌玖九 胡:九",
        "碰:七七七 煨:捌捌捌 吃:一二三 手:贰贰贰四五六柒捌玖九 胡:九",
        # hand repeated, in any order, between other segments
        "手:贰贰 碰:七七七 hand:贰四五 偎:捌捌捌 手:六柒捌玖九 吃:一二三 胡:九",
        # cards of a meld in any order
        "碰:七七七 偎:捌捌捌 吃:三一二 手:九玖捌柒六五四贰贰贰 胡:九",
        # full-width colon
        "碰：七七七 偎：捌捌捌 吃：一二三 手：贰贰贰四五六柒捌玖九 胡：九",
        # win first
        "胡:九 碰:七七七 偎:捌捌捌 吃:一二三 手:贰贰贰四五六柒捌玖九",
        # traditional forms
        "碰:七七七 偎:捌捌捌 吃:一二三 手:貳貳貳四五六柒捌玖九 胡:九",
    ],
)
def test_parse_hand_aliases(text: str) -> None:
    # RULES §1.4: ASCII and Chinese kinds, 栽/煨 for 偎, repeated 手, any order, ：.
    assert parse_hand(text) == parse_hand(EXAMPLE)


def test_parse_hand_chi_and_wei_kinds() -> None:
    d = parse_hand("chi:柒捌玖 wei:二二二 peng:0d0d0d 手:一一一三三三四四伍伍 胡:四")
    assert [m.kind for m in d.melds] == ["chi", "wei", "peng"]
    assert d.melds[2].faces == (19, 19, 19)


@pytest.mark.parametrize(
    ("suffix", "source", "last"),
    [
        ("", None, None),
        (" --from other", "other", None),
        (" --from self", "self", None),
        (" --from=other", "other", None),
        (" --from=self", "self", None),
        (" --last", None, True),
        (" --from other --last", "other", True),
        (" --last --from=other", "other", True),
    ],
)
def test_inline_flags(suffix: str, source: str | None, last: bool | None) -> None:
    # RULES §1.4: --from self|other and --last may be written inside the description.
    d = parse_hand(EXAMPLE + suffix)
    assert d.source == source
    assert d.last == last
    assert d.melds == parse_hand(EXAMPLE).melds


def test_inline_flag_before_segments() -> None:
    d = parse_hand("--from other " + EXAMPLE)
    assert d.source == "other"
    assert d.win == 8


def test_str_hand_description() -> None:
    d = parse_hand(EXAMPLE + " --from other --last")
    assert str(d) == (
        "碰:七七七 偎:捌捌捌 吃:一二三 手:四五六九贰贰贰柒捌玖 胡:九 --from other --last"
    )
    assert parse_hand(str(d)) == d


def test_repr_evaluates_back() -> None:
    d = parse_hand(EXAMPLE + " --from=other")
    namespace = {"parse_hand": parse_hand, "Meld": Meld}
    assert eval(repr(d), namespace) == d
    for m in d.melds:
        assert eval(repr(m), namespace) == m
    assert Meld.parse("吃:三二一") == Meld("chi", (0, 1, 2))


def test_check_total_off() -> None:
    d = parse_hand("碰:七七七 手:一二三 胡:九", check_total=False)
    assert str(d) == "碰:七七七 手:一二三 胡:九"
    assert len(d.all_faces()) == 7


@st.composite
def hand_descriptions(draw: st.DrawFn) -> HandDescription:
    """Any valid 20-card description: melds that are groups, at most 4 of a face (RULES §1.4)."""
    left = [4] * 20
    melds: list[Meld] = []
    for _ in range(draw(st.integers(0, 6))):
        kind = draw(st.sampled_from(["peng", "wei", "chi"]))
        if kind == "chi":
            options = [s for s in range(20) if s % 10 <= 7 and all(left[s + i] for i in range(3))]
            if not options:
                continue
            s = draw(st.sampled_from(options))
            faces = (s, s + 1, s + 2)
        else:
            options = [f for f in range(20) if left[f] >= 3]
            if not options:
                continue
            f = draw(st.sampled_from(options))
            faces = (f, f, f)
        for f in faces:
            left[f] -= 1
        melds.append(Meld(kind, faces))  # type: ignore[arg-type]
    loose: list[int] = []
    while len(loose) < 20 - 3 * len(melds):
        f = draw(st.sampled_from([f for f in range(20) if left[f]]))
        left[f] -= 1
        loose.append(f)
    win = loose.pop()
    source = draw(st.sampled_from([None, "self", "other"]))
    last = draw(st.sampled_from([None, True]))
    return HandDescription(tuple(melds), tuple(sorted(loose)), win, source, last)


@settings(derandomize=True, max_examples=200, deadline=None)
@given(hand_descriptions())
def test_hand_description_round_trip(d: HandDescription) -> None:
    # RULES §1.3: every printed form parses back to the same value.
    text = str(d)
    assert parse_hand(text) == d
    assert eval(repr(d), {"parse_hand": parse_hand}) == d
    # The same hand written in ASCII, segment by segment, parses to the same value.
    # Flags and win first, hand cards one segment each in reverse order; melds keep their order.
    parts = [f"--from={d.source}"] if d.source else []
    if d.last:
        parts.append("--last")
    parts.append(f"win:{format_cards_ascii([d.win])}")
    parts += [f"hand:{format_cards_ascii([f])}" for f in reversed(d.hand)]
    parts += [f"{m.kind}:{format_cards_ascii(m.faces[::-1])}" for m in d.melds]
    assert parse_hand(" ".join(parts)) == d


# --- errors: every kind is a ValueError quoting the bad input (RULES §1.3) ---------------------


def _raises(exc_type: type[Exception], text: str, quoted: str, *, hand: bool = True) -> None:
    with pytest.raises(exc_type) as info:
        if hand:
            parse_hand(text)
        else:
            parse_cards(text)
    assert type(info.value) is exc_type
    assert isinstance(info.value, ValueError)
    assert isinstance(info.value, WeimaqueError)
    assert isinstance(info.value, InvalidNotation)
    assert quoted in str(info.value), str(info.value)


@pytest.mark.parametrize(
    ("text", "quoted"),
    [
        ("一a三", "'a'"),
        ("Q", "'Q'"),
        ("一 二", "' '"),
        ("１２x", "'１'"),  # full-width digits are not notation
        ("12y", "'y'"),
    ],
)
def test_unknown_card(text: str, quoted: str) -> None:
    _raises(UnknownCard, text, quoted, hand=False)


def test_unknown_card_in_hand() -> None:
    _raises(UnknownCard, "碰:七七七 偎:捌捌捌 吃:一二三 手:贰贰贰四五六柒捌玖九 胡:Q", "'Q'")


def test_too_many_copies() -> None:
    # RULES §1.3: a fifth 一 in one description.
    text = "碰:一一一 吃:一二三 手:一四五六七八九九贰贰贰 胡:九"
    _raises(TooManyCopies, text, "一")
    with pytest.raises(TooManyCopies) as info:
        parse_hand(text)
    assert repr(text) in str(info.value)


def test_too_many_copies_across_melds_and_win() -> None:
    with pytest.raises(TooManyCopies) as info:
        parse_hand("碰:九九九 手:九一二 胡:9x", check_total=False)
    assert "九" in str(info.value)


@pytest.mark.parametrize(
    ("segment", "quoted"),
    [
        ("碰:七七八", "碰:七七八"),  # peng not identical
        ("偎:捌捌拾", "偎:捌捌拾"),  # wei not identical
        ("吃:一二四", "吃:一二四"),  # not a run
        ("吃:九十壹", "吃:九十壹"),  # across cases (RULES §1.2)
        ("吃:九十一", "吃:九十一"),  # wrap-around
        ("吃:二七十", "吃:二七十"),  # 二七十 is no run
        ("吃:一一一", "吃:一一一"),  # a triple is no 吃
        ("吃:9x0x1d", "吃:9x0x1d"),  # across cases in ASCII
        ("碰:七七七七", "碰:七七七七"),  # four cards
        ("碰:七七", "碰:七七"),  # two cards
    ],
)
def test_invalid_meld(segment: str, quoted: str) -> None:
    # RULES §1.2, §1.4: meld segments are exactly one valid group of 3.
    text = f"{segment} 手:四五六柒捌玖九贰贰贰壹 胡:九"
    with pytest.raises(InvalidMeld) as info:
        parse_hand(text, check_total=False)
    exc = info.value
    assert type(exc) is InvalidMeld
    assert isinstance(exc, ValueError)
    assert repr(quoted) in str(exc), str(exc)
    with pytest.raises(InvalidMeld):
        Meld.parse(segment)


@pytest.mark.parametrize(
    ("text", "quoted"),
    [
        # missing
        ("碰:七七七 偎:捌捌捌 吃:一二三 手:贰贰贰四五六柒捌玖九九", "碰:七七七"),
        # doubled
        ("碰:七七七 偎:捌捌捌 吃:一二三 手:贰贰贰四五六柒捌玖 胡:九 胡:九", "胡:九 胡:九"),
        # two cards in one segment
        ("碰:七七七 偎:捌捌捌 吃:一二三 手:贰贰贰四五六柒捌玖 胡:九九", "胡:九九"),
    ],
)
def test_winning_card_error(text: str, quoted: str) -> None:
    # RULES §1.4: exactly one winning card.
    _raises(WinningCardError, text, quoted)


@pytest.mark.parametrize(
    ("text", "count"),
    [
        ("碰:七七七 偎:捌捌捌 吃:一二三 手:贰贰贰四五六柒捌玖 胡:九", 19),
        ("碰:七七七 偎:捌捌捌 吃:一二三 手:贰贰贰四五六柒捌玖九十 胡:九", 21),
    ],
)
def test_wrong_card_count(text: str, count: int) -> None:
    # RULES §1.4: a description whose cards do not total 20 is invalid.
    _raises(WrongCardCount, text, repr(text))
    with pytest.raises(WrongCardCount) as info:
        parse_hand(text)
    assert str(count) in str(info.value)
    # It is fine when the total is not checked.
    assert len(parse_hand(text, check_total=False).all_faces()) == count


@pytest.mark.parametrize(
    ("text", "quoted", "hand"),
    [
        ("12", "'12'", False),  # digits not closed
        ("一12", "'12'", False),
        ("12一", "'12'", False),
        ("x", "'x'", False),  # case letter without digits
        ("一D", "'D'", False),
        ("123xd", "'d'", False),
        ("", "''", False),  # empty card list
        ("", "''", True),  # empty description
        ("   ", "'   '", True),
        (EXAMPLE.replace("碰:", "杠:"), "'杠'", True),  # unknown segment kind
        (EXAMPLE.replace("碰:", "pong:"), "'pong'", True),
        (EXAMPLE.replace("碰:", "碰"), "'碰七七七'", True),  # no colon
        (EXAMPLE.replace("手:", "手::"), "手::", True),  # two colons
        (EXAMPLE.replace("胡:九", "胡:九 手:"), "'手:'", True),  # no cards
        (EXAMPLE + " --from them", "'them'", True),  # bad --from value
        (EXAMPLE + " --from=", "''", True),
        (EXAMPLE + " --from", "''", True),
        (EXAMPLE + " --from=SELF", "'SELF'", True),
        (EXAMPLE + " --lastly", "'--lastly'", True),
        (EXAMPLE.replace("手:贰贰贰", "手:222"), "'222'", True),
    ],
)
def test_invalid_notation(text: str, quoted: str, hand: bool) -> None:
    # RULES §1.3: anything else is an error that quotes the bad input.
    _raises(InvalidNotation, text, quoted, hand=hand)


def test_flag_lookalike_is_rejected() -> None:
    with pytest.raises(InvalidNotation) as info:
        parse_hand(EXAMPLE + " --fromage other")
    assert "--fromage" in str(info.value)


def test_meld_make_refuses() -> None:
    with pytest.raises(InvalidMeld) as info:
        Meld.make("kong", [0, 0, 0])
    assert "'kong'" in str(info.value)
    assert Meld.make("chi", [2, 0, 1]).faces == (0, 1, 2)
    assert all(is_run(Meld.make("chi", [s, s + 1, s + 2]).faces) for s in range(20) if s % 10 <= 7)
