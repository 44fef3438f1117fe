"""Deal 名堂 (RULES §7.2, §7.4.1): read from a seat's dealt cards before the first discard.

红炸弹, 黑炸弹, 全黑, 六对红, 四边对, 全坎全对, 大小同炸, 姊妹炸, 嗲孙炸, 祖孙炸, with 九小对
and 无对胡. Their value is the whole total (硬息 0). The engine declares them for a win (each
pattern here counts what was declared); :data:`DEAL_TESTS` reads each from the dealt cards.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Final

from weimaque.games.maque.cards import COPIES, NUM_FACES, RED_FACES, Counts
from weimaque.games.maque.scoring.pattern import Pattern
from weimaque.games.maque.scoring.patterns.win import declared

CASE = 10
ONE, TEN = 0, 9


def _same_case_run(face: int, length: int) -> list[tuple[int, ...]]:
    """Every stretch of ``length`` consecutive faces of one case that holds ``face``."""
    base = face - face % CASE
    starts = range(max(base, face - length + 1), min(face, base + CASE - length) + 1)
    return [tuple(range(s, s + length)) for s in starts]


def _bombs(hand: Counts, red: bool) -> int:
    """炸弹: faces held four times that no run of the dealt cards could hold (RULES §7.4.1)."""
    return sum(
        1
        for f in range(NUM_FACES)
        if hand[f] == COPIES
        and (f in RED_FACES) == red
        and not any(all(hand[g] for g in run) for run in _same_case_run(f, 3))
    )


def _quads_in_a_row(hand: Counts, length: int) -> int:
    return (
        1
        if any(
            all(hand[g] == COPIES for g in run)
            for f in range(NUM_FACES)
            for run in _same_case_run(f, length)
        )
        else 0
    )


def _pairs(hand: Counts) -> int:
    """Pairs among the dealt cards: four of a face are two, three are one (RULES §7.2)."""
    return sum(c // 2 for c in hand)


def _wudui_seed(hand: Counts) -> int:
    """无对胡: no face twice, or one black pair and nothing else twice; a 砍 rules it out."""
    paired = [f for f in range(NUM_FACES) if hand[f] >= 2]
    return (
        1
        if not paired or (len(paired) == 1 and hand[paired[0]] == 2 and paired[0] not in RED_FACES)
        else 0
    )


def _wudui_app(hand: Counts) -> int:
    """无息天胡 (app): no red pair, at most one black pair; a black 砍 or four is one pair."""
    paired = [f for f in range(NUM_FACES) if hand[f] >= 2]
    return 1 if not any(f in RED_FACES for f in paired) and len(paired) <= 1 else 0


def _flag(test: Callable[[Counts], bool]) -> Callable[[Counts], int]:
    return lambda hand: 1 if test(hand) else 0


#: RULES §7.2, §7.4.1: each deal 名堂's units on a seat's dealt cards (count vector).
DEAL_TESTS: Final[Mapping[str, Callable[[Counts], int]]] = MappingProxyType(
    {
        "jiuxiaodui": _flag(lambda hand: _pairs(hand) >= 9),
        "wudui_deal": _wudui_seed,
        "hongzhadan": lambda hand: _bombs(hand, red=True),
        "heizhadan": lambda hand: _bombs(hand, red=False),
        "quanhei": _flag(lambda hand: not any(hand[f] for f in RED_FACES)),
        "liuduihong": _flag(lambda hand: sum(hand[f] // 2 for f in RED_FACES) >= 6),
        "sibiandui": _flag(
            lambda hand: all(hand[f] >= 2 for f in (ONE, TEN, CASE + ONE, CASE + TEN))
        ),
        "quankan": _flag(lambda hand: 1 not in hand),
        "tongzha": _flag(
            lambda hand: any(hand[n] == COPIES and hand[n + CASE] == COPIES for n in range(CASE))
        ),
        "zimeizha": lambda hand: _quads_in_a_row(hand, 2),
        "diasunzha": lambda hand: _quads_in_a_row(hand, 3),
        "zusunzha": lambda hand: _quads_in_a_row(hand, 4),
    }
)

#: RULES §7.4.2 item 9: what ``mingtang_rules = "app"`` changes in the deal tests.
APP_DEAL_TESTS: Final[Mapping[str, Callable[[Counts], int]]] = MappingProxyType(
    {**DEAL_TESTS, "wudui_deal": _wudui_app}
)


def ten_pairs(hand: Counts) -> bool:
    """九小对 with ten pairs: the preset's second value (RULES §7.2)."""
    return _pairs(hand) >= 10


HONGZHADAN = Pattern("hongzhadan", declared("hongzhadan"))
"""红炸弹: per red face held four times that no run of the dealt cards could hold."""

HEIZHADAN = Pattern("heizhadan", declared("heizhadan"))
"""黑炸弹: per black face held four times that no run of the dealt cards could hold."""

QUANHEI = Pattern("quanhei", declared("quanhei"))
"""全黑: no red card dealt."""

LIUDUIHONG = Pattern("liuduihong", declared("liuduihong"))
"""六对红: six or more red pairs dealt (four of a face are two pairs)."""

SIBIANDUI = Pattern("sibiandui", declared("sibiandui"))
"""四边对: at least two each of 一, 十, 壹, 拾 dealt."""

QUANKAN = Pattern("quankan", declared("quankan"))
"""全坎全对: no face dealt exactly once."""

TONGZHA = Pattern("tongzha", declared("tongzha"))
"""大小同炸: four of a number in both cases."""

ZIMEIZHA = Pattern("zimeizha", declared("zimeizha"))
"""姊妹炸: four each of two consecutive faces of one case."""

DIASUNZHA = Pattern("diasunzha", declared("diasunzha"))
"""嗲孙炸: four each of three consecutive faces."""

ZUSUNZHA = Pattern("zusunzha", declared("zusunzha"))
"""祖孙炸: four each of four consecutive faces."""

PATTERNS = (
    HONGZHADAN,
    HEIZHADAN,
    QUANHEI,
    LIUDUIHONG,
    SIBIANDUI,
    QUANKAN,
    TONGZHA,
    ZIMEIZHA,
    DIASUNZHA,
    ZUSUNZHA,
)
