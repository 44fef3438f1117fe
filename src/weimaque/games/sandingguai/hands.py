"""Winning hands, 叫 (waits) and 番 of 三丁拐 (SDG §5.3, §6).

The shape of a count vector is decided per suit from two precomputed sets of base-5 keys (the
suit splits into sets, or into sets and one pair), cached on the immutable count tuple. Every
番 pattern is one small function of one :class:`WinContext`; its first docstring line is its
Chinese name. :func:`score` tries each reading of the hand (4 sets + pair, 七对) and keeps the
highest 番 (SDG §6.2).

>>> from weimaque.games.sandingguai.notation import parse_hand
>>> score(context(parse_hand("111m222m333m555m77m"))).fan
15
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import compress
from typing import Final

from weimaque.games.sandingguai.notation import HandDescription, Meld, Way
from weimaque.games.sandingguai.rules import RuleConfig
from weimaque.games.sandingguai.tiles import (
    COPIES,
    MASK_SUITS,
    SUIT_BIT,
    Counts,
)

#: Shape flags of a count vector (concealed tiles with the winning tile).
STANDARD: Final = 1  # 4 sets + 1 pair (with the melds)
QIDUI: Final = 2  # 7 pairs, four of a kind counting as two
LONG: Final = 4  # 七对 with a four of a kind
DADUI: Final = 8  # 4 sets + pair, every set a triplet
_POW5: Final = tuple(5**i for i in range(9))


def _suit_tables() -> tuple[frozenset[int], frozenset[int]]:
    """The keys of one suit's count vectors that split into sets, and into sets + one pair."""
    vecs: list[tuple[int, ...]] = []
    for r in range(9):
        vecs.append(tuple(3 if i == r else 0 for i in range(9)))
    for r in range(7):
        vecs.append(tuple(1 if r <= i <= r + 2 else 0 for i in range(9)))
    sets: set[tuple[int, ...]] = {(0,) * 9}
    frontier = set(sets)
    for _ in range(4):
        grown: set[tuple[int, ...]] = set()
        for v in frontier:
            for a in vecs:
                w = tuple(x + y for x, y in zip(v, a, strict=True))
                if max(w) <= COPIES:
                    grown.add(w)
        sets |= grown
        frontier = grown
    pairs = set()
    for v in sets:
        for r in range(9):
            if v[r] <= COPIES - 2:
                pairs.add(tuple(x + (2 if i == r else 0) for i, x in enumerate(v)))

    def key(v: tuple[int, ...]) -> int:
        return sum(n * p for n, p in zip(v, _POW5, strict=True))

    return frozenset(map(key, sets)), frozenset(map(key, pairs))


SET_KEYS, PAIR_KEYS = _suit_tables()
#: The keys of one suit whose every count is even (0, 2 or 4): 七对 reads them.
EVEN_KEYS: Final = functools.reduce(
    lambda keys, p: frozenset(k + c * p for k in keys for c in (0, 2, 4)), _POW5, frozenset({0})
)
#: The key step of each kind: adding one tile of kind ``t`` adds ``KEY_STEP[t]`` to the key of
#: suit ``t // 9``.
KEY_STEP: Final = tuple(_POW5[t % 9] for t in range(27))


def _wait_tables() -> tuple[dict[int, tuple[int, ...]], dict[int, tuple[int, ...]]]:
    """Per suit key: the ranks (0..8) whose addition makes sets (``TO_SET``) or sets and one
    pair (``TO_PAIR``)."""
    to_set: dict[int, set[int]] = {}
    to_pair: dict[int, set[int]] = {}
    for keys, table in ((SET_KEYS, to_set), (PAIR_KEYS, to_pair)):
        for key in keys:
            for r in range(9):
                if key // _POW5[r] % 5:
                    table.setdefault(key - _POW5[r], set()).add(r)
    return (
        {k: tuple(sorted(v)) for k, v in to_set.items()},
        {k: tuple(sorted(v)) for k, v in to_pair.items()},
    )


TO_SET, TO_PAIR = _wait_tables()


def suit_keys(c: Sequence[int]) -> tuple[int, int, int]:
    """The base-5 key of each suit of a count vector."""
    return (
        c[0] + 5 * c[1] + 25 * c[2] + 125 * c[3] + 625 * c[4]
        + 3125 * c[5] + 15625 * c[6] + 78125 * c[7] + 390625 * c[8],
        c[9] + 5 * c[10] + 25 * c[11] + 125 * c[12] + 625 * c[13]
        + 3125 * c[14] + 15625 * c[15] + 78125 * c[16] + 390625 * c[17],
        c[18] + 5 * c[19] + 25 * c[20] + 125 * c[21] + 625 * c[22]
        + 3125 * c[23] + 15625 * c[24] + 78125 * c[25] + 390625 * c[26],
    )  # fmt: skip


@functools.lru_cache(maxsize=1 << 18)
def shape(counts: Counts) -> int:
    """The shape flags of concealed tiles (with the winning tile): STANDARD, QIDUI, LONG, DADUI."""
    flags = 0
    pairs = 0
    ok = True
    for key in suit_keys(counts):
        if key == 0:
            continue
        if key in SET_KEYS:
            continue
        if key in PAIR_KEYS:
            pairs += 1
        else:
            ok = False
            break
    if ok and pairs == 1:
        flags |= STANDARD
        if all(c in (0, 3) for c in counts if c != 2) and counts.count(2) == 1:
            flags |= DADUI
    if sum(counts) == 14 and all(c % 2 == 0 for c in counts):
        flags |= QIDUI
        if COPIES in counts:
            flags |= LONG
    return flags


def is_win_shape(counts: Counts, has_melds: bool) -> bool:
    """Whether concealed tiles with the winning tile form a win shape (SDG §6.1)."""
    s = shape(counts)
    return bool(s & STANDARD or (s & QIDUI and not has_melds))


def meld_counts(melds: Sequence[Meld]) -> tuple[int, int]:
    """(suit mask, number of melds) of some melds."""
    mask = 0
    for m in melds:
        mask |= SUIT_BIT[m.tile]
    return mask, len(melds)


def suits_of(counts: Counts) -> int:
    """The suit mask of a count vector."""
    return any(counts[0:9]) | any(counts[9:18]) << 1 | any(counts[18:27]) << 2


#: The kinds of each suit as bits.
SUIT_KINDS: Final = (0x1FF, 0x1FF << 9, 0x1FF << 18)
#: Per suit key that splits into sets (1) or into sets + one pair (4); other keys are absent
#: (0). The classes of two suits add up to 2 only when both are sets and to 5 only when one is
#: sets, the other sets + a pair.
SUIT_CLASS: Final = {**{k: 1 for k in SET_KEYS}, **{k: 4 for k in PAIR_KEYS}}
#: The suit keys that split into sets, or into sets + one pair (:data:`SUIT_CLASS`'s keys): a
#: 叫 of sets and a pair needs two such suits (:func:`wait_bits`).
SPLIT_KEYS: Final = frozenset(SUIT_CLASS)
#: Per suit key: the ranks (as bits) whose addition makes sets, or sets + one pair.
TO_SET_BITS: Final = {k: sum(1 << r for r in v) for k, v in TO_SET.items()}
TO_PAIR_BITS: Final = {k: sum(1 << r for r in v) for k, v in TO_PAIR.items()}


_BITS: Final = tuple(1 << t for t in range(27))
_ODD: Final = (1).__and__


def odd_bits(counts: Sequence[int]) -> int:
    """The kinds held an odd number of times, as bits (七对 reads them).

    >>> bin(odd_bits([1, 2, 3] + [0] * 24))
    '0b101'
    """
    return sum(compress(_BITS, map(_ODD, counts)))


def four_bits(counts: Sequence[int]) -> int:
    """The kinds held four times, as bits (暗杠 reads them)."""
    if COPIES not in counts:
        return 0  # most hands: one C-level scan instead of a bit per kind
    return sum(compress(_BITS, [c == COPIES for c in counts]))


def wait_bits(
    keys: Sequence[int], odd: int, qidui: bool, melds: Sequence[Meld], max_suits: int, que: int
) -> int:
    """叫 (SDG §6.1, §6.3) of 3n+1 concealed tiles, as bits of the kinds that make a legal win:
    the shape from the per-suit tables (one suit short of sets + pair while the others are sets,
    or short of sets while one other holds the pair and the third is sets), 七对 (``qidui``: no
    melds and 13 tiles) from ``odd`` (:func:`odd_bits`), then the suit limit (SDG §5.3) and
    the lacking suit (§2.4). The engine keeps each seat's bits, so every 胡 check is one bit
    test. ``keys``: the suit keys of the concealed tiles (:func:`suit_keys`). A kind the seat
    holds four of (melds included) stays in: no fifth tile comes (:func:`waits` drops it)."""
    k0, k1, k2 = keys
    c0, c1, c2 = SUIT_CLASS.get(k0, 0), SUIT_CLASS.get(k1, 0), SUIT_CLASS.get(k2, 0)
    bits = 0
    if c1 and c2:  # suit 0 short, the others sets (2) or sets and the pair (5)
        if c1 + c2 == 2:
            bits = TO_PAIR_BITS.get(k0, 0)
        elif c1 + c2 == 5:
            bits = TO_SET_BITS.get(k0, 0)
    if c0 and c2:
        if c0 + c2 == 2:
            bits |= TO_PAIR_BITS.get(k1, 0) << 9
        elif c0 + c2 == 5:
            bits |= TO_SET_BITS.get(k1, 0) << 9
    if c0 and c1:
        if c0 + c1 == 2:
            bits |= TO_PAIR_BITS.get(k2, 0) << 18
        elif c0 + c1 == 5:
            bits |= TO_SET_BITS.get(k2, 0) << 18
    if qidui and odd and not odd & (odd - 1):
        bits |= odd  # six pairs and a single (SDG §6.1)
    if not bits:
        return 0
    mask = (k0 > 0) | (k1 > 0) << 1 | (k2 > 0) << 2
    for m in melds:
        mask |= SUIT_BIT[m.tile]
    if que >= 0:
        if mask >> que & 1:
            return 0
        bits &= ~SUIT_KINDS[que]
    held = MASK_SUITS[mask]
    if held > max_suits:
        return 0
    if held == max_suits:
        for s in range(3):
            if not mask >> s & 1:
                bits &= ~SUIT_KINDS[s]  # a new suit would break the limit
    return bits


def bits_kinds(bits: int) -> tuple[int, ...]:
    """The kinds of a bit set, in kind order."""
    out = []
    while bits:
        low = bits & -bits
        out.append(low.bit_length() - 1)
        bits ^= low
    return tuple(out)


def shape_waits(counts: Counts, has_melds: bool) -> tuple[int, ...]:
    """The kinds that complete a win shape of 3n+1 concealed tiles (no suit or copy limit):
    :func:`wait_bits` without its limits."""
    qidui = not has_melds and sum(counts) == 13
    return bits_kinds(wait_bits(suit_keys(counts), odd_bits(counts), qidui, (), 3, -1))


def may_wait(keys: Sequence[int], sizes: Sequence[int]) -> bool:
    """Whether 3n+1 concealed tiles (their suit keys; ``sizes`` per suit, unread) are one tile
    short of four sets and a pair (七对 is not asked here): :func:`wait_bits`."""
    return bool(wait_bits(keys, 0, False, (), 3, -1))


def waits(
    concealed: Counts, melds: Sequence[Meld], max_suits: int, que: int = -1
) -> tuple[int, ...]:
    """叫 (SDG §6.3): the kinds that make a legal win, each held fewer than 4 times by the seat,
    within ``max_suits`` suits (SDG §5.3), none of the declared lacking suit ``que`` (§2.4)."""
    qidui = not melds and sum(concealed) == 13
    bits = wait_bits(suit_keys(concealed), odd_bits(concealed), qidui, melds, max_suits, que)
    for m in melds:
        if concealed[m.tile] + m.size >= COPIES:
            bits &= ~(1 << m.tile)
    return bits_kinds(bits)


def is_win_keys(keys: Sequence[int], counts: Sequence[int], has_melds: bool, add: int = -1) -> bool:
    """Whether concealed tiles (their suit keys and counts), with one more tile of kind
    ``add`` if given, form a win shape (SDG §6.1): the tables of :func:`shape`, without its
    flags or cache (the win check of a plain 14-tile count vector; the engine reads its kept
    :func:`wait_bits` instead)."""
    if add >= 0:
        keys = list(keys)
        keys[add // 9] += KEY_STEP[add]
    pairs = 0
    for key in keys:
        if key in SET_KEYS:
            continue
        if key not in PAIR_KEYS:
            return not has_melds and _qidui(keys, counts, add)
        pairs += 1
    return pairs == 1 or (not has_melds and _qidui(keys, counts, add))


def _qidui(keys: Sequence[int], counts: Sequence[int], add: int) -> bool:
    """七对 of 14 concealed tiles (their suit keys with ``add``): every count even (SDG §6.1)."""
    if add >= 0 and not counts[add] & 1:
        return False
    k0, k1, k2 = keys
    if k0 in EVEN_KEYS and k1 in EVEN_KEYS and k2 in EVEN_KEYS:
        return sum(counts) + (add >= 0) == 14
    return False


def is_win_fast(counts: Sequence[int], has_melds: bool) -> bool:
    """``is_win_shape`` of a count vector, through :func:`is_win_keys`."""
    return is_win_keys(suit_keys(counts), counts, has_melds)


def is_legal_win_keys(
    keys: Sequence[int],
    counts: Sequence[int],
    melds: Sequence[Meld],
    max_suits: int,
    add: int = -1,
    que: int = -1,
) -> bool:
    """:func:`is_legal_win` from the suit keys of the concealed tiles, with one more tile
    of kind ``add`` if given; ``que``: the seat's declared lacking suit (定缺, SDG §2.4)."""
    if not is_win_keys(keys, counts, bool(melds), add):
        return False
    mask = (keys[0] > 0) | (keys[1] > 0) << 1 | (keys[2] > 0) << 2
    if add >= 0:
        mask |= SUIT_BIT[add]
    for m in melds:
        mask |= SUIT_BIT[m.tile]
    if que >= 0 and mask & (1 << que):
        return False
    return MASK_SUITS[mask] <= max_suits


def is_legal_win(
    counts: Sequence[int], melds: Sequence[Meld], max_suits: int, que: int = -1
) -> bool:
    """A legal win (SDG §6.1): a win shape within ``max_suits`` suits (melds included), with
    no tile of the declared lacking suit ``que`` (SDG §2.4)."""
    return is_legal_win_keys(suit_keys(counts), counts, melds, max_suits, -1, que)


@dataclass(frozen=True, slots=True)
class WinContext:
    """One winning hand as every pattern sees it: concealed counts with the winning tile,
    melds, the winning tile, the way, 报听, and the deal-time flags of 天胡 / 地胡."""

    counts: Counts
    melds: tuple[Meld, ...]
    win: int | None
    way: Way = "self"
    baoting: bool = False
    tianhu: bool = False
    dihu: bool = False

    @property
    def shape(self) -> int:
        """The shape flags of the concealed tiles."""
        return shape(self.counts)

    @property
    def suits(self) -> int:
        """The suit mask of the 14 tiles."""
        return meld_counts(self.melds)[0] | suits_of(self.counts)


def context(desc: HandDescription) -> WinContext:
    """The win context of a hand description (SDG §1.4)."""
    return WinContext(desc.all_counts(), desc.melds, desc.win, desc.way, desc.baoting)


# The patterns of SDG §6.2, one function each. Shapes are readings of the hand (one counts);
# the others add to any reading.


def pinghu(ctx: WinContext) -> bool:
    """平胡: four sets and a pair, not all triplets (SDG §6.2)."""
    return bool(ctx.shape & STANDARD) and not ctx.shape & DADUI


def daduizi(ctx: WinContext) -> bool:
    """大对子: four triplets or kongs and a pair, also 大碰对 (SDG §6.2)."""
    return bool(ctx.shape & DADUI)


def qidui(ctx: WinContext) -> bool:
    """七对: seven pairs and no melds, also 七巧对 (SDG §6.1, §6.2)."""
    return bool(ctx.shape & QIDUI) and not ctx.melds and not ctx.shape & LONG


def longqidui(ctx: WinContext) -> bool:
    """龙七对: 七对 holding four of one kind (SDG §6.2)."""
    return bool(ctx.shape & LONG) and not ctx.melds


def qingyise(ctx: WinContext) -> bool:
    """清一色: all fourteen tiles of one suit (SDG §6.2)."""
    return MASK_SUITS[ctx.suits] == 1


def baoting(ctx: WinContext) -> bool:
    """报听: the winner declared 报听 with his first discard (SDG §4.6, §6.2)."""
    return ctx.baoting


def dandiao(ctx: WinContext) -> bool:
    """单吊: four melds and a single wait on the pair, also 金钩钓 (SDG §6.2, option)."""
    return len(ctx.melds) == 4


def tianhu(ctx: WinContext) -> bool:
    """天胡: the dealer wins on his fourteen dealt tiles (SDG §6.2, option)."""
    return ctx.tianhu


def dihu(ctx: WinContext) -> bool:
    """地胡: a seat wins before its own first discard, with no claim made yet (SDG §6.2, option)."""
    return ctx.dihu


Test = Callable[[WinContext], bool]
#: The readings (one counts) and the additions, in the order of SDG §6.2.
SHAPES: Final[tuple[Test, ...]] = (pinghu, daduizi, qidui, longqidui)
ADDITIONS: Final[tuple[Test, ...]] = (qingyise, baoting, dandiao, tianhu, dihu)


def chinese_name(test: Test) -> str:
    """A pattern's Chinese name: the first word of its docstring."""
    return (test.__doc__ or test.__name__).split(":")[0]


def _shape_value(rules: RuleConfig, key: str, qing: bool) -> int:
    """The value of a reading: additive (平胡 0: the floor makes it 1) or, with ``fan_mode =
    highest``, the table value of (清一色?, reading) (SDG §6.2, §11 table ``baike``)."""
    if rules.fan_mode == "add":
        base = {
            "pinghu": 0,
            "daduizi": rules.fan_daduizi,
            "qidui": rules.fan_qidui,
            "longqidui": rules.fan_longqidui,
        }[key]
        return base + (rules.fan_qingyise if qing else 0)
    if qing:
        return {
            "pinghu": rules.fan_qingyise,
            "daduizi": rules.fan_qing_daduizi,
            "qidui": rules.fan_qing_qidui,
            "longqidui": rules.fan_qing_longqidui,
        }[key]
    return {
        "pinghu": rules.fan_pinghu,
        "daduizi": rules.fan_daduizi,
        "qidui": rules.fan_qidui,
        "longqidui": rules.fan_longqidui,
    }[key]


def _addition_value(rules: RuleConfig, key: str) -> int:
    return {
        "baoting": rules.fan_baoting,
        "dandiao": rules.fan_dandiao,
        "tianhu": rules.fan_tianhu,
        "dihu": rules.fan_dihu,
    }[key]


@dataclass(frozen=True, slots=True)
class ScoreItem:
    """One pattern of a scored hand: its key, Chinese name and 番 (0 where it only names)."""

    key: str
    name: str
    fan: int


@dataclass(frozen=True, slots=True)
class Score:
    """The explained 番 of one hand (SDG §6.2): ``fan`` F, ``fan_before_baoting`` (the passport
    of SDG §5.1 b reads it), the patterns, or ``reason`` when the tiles are no legal win."""

    fan: int
    fan_before_baoting: int
    items: tuple[ScoreItem, ...]
    reason: str = ""

    @property
    def is_win(self) -> bool:
        """Whether the tiles form a legal win."""
        return not self.reason

    def __str__(self) -> str:
        if self.reason:
            return f"not a win: {self.reason}"
        parts = " + ".join(f"{i.name} {i.fan}" for i in self.items)
        return f"{self.fan} 番 ({parts})"


NOT_A_WIN: Final = Score(0, 0, (), "not 4 sets + a pair or 七对")


def score(ctx: WinContext, rules: RuleConfig | None = None) -> Score:
    """The 番 of a winning hand (SDG §6.2): the best reading, its additions, the floor."""
    rules = rules or RuleConfig()
    if MASK_SUITS[ctx.suits] > rules.max_suits:
        return Score(0, 0, (), f"three suits (叉胡, SDG §5.3) with max_suits {rules.max_suits}")
    readings = [t for t in SHAPES if t(ctx)]
    if not readings:
        return NOT_A_WIN
    qing = qingyise(ctx)
    # 清一色 is part of the reading's value; additions worth 0 in these rules do not show.
    additions = [t for t in ADDITIONS[1:] if t(ctx) and _addition_value(rules, t.__name__)]
    extra = sum(_addition_value(rules, t.__name__) for t in additions)
    bao = rules.fan_baoting if ctx.baoting else 0
    floor = rules.fan_pinghu
    best = max(readings, key=lambda t: _shape_value(rules, t.__name__, qing))
    shape_fan = _shape_value(rules, best.__name__, qing)
    fan = max(floor, shape_fan + extra)
    items = [ScoreItem(best.__name__, chinese_name(best), shape_fan)]
    if qing and rules.fan_mode == "add":
        items[0] = ScoreItem(best.__name__, chinese_name(best), shape_fan - rules.fan_qingyise)
        items.append(ScoreItem("qingyise", chinese_name(qingyise), rules.fan_qingyise))
    elif qing:
        items[0] = ScoreItem(best.__name__, "清" + chinese_name(best), shape_fan)
    items += [
        ScoreItem(t.__name__, chinese_name(t), _addition_value(rules, t.__name__))
        for t in additions
    ]
    return Score(fan, max(floor, shape_fan + extra - bao), tuple(items))


def passport(
    rules: RuleConfig,
    has_kong: bool,
    fan_before_baoting: int,
    baoting_self: bool,
    special_tile: bool,
    discarder_baoting: bool,
) -> bool:
    """通行证 (SDG §5.1): whether a seat may 胡 on another seat's tile. ``special_tile``: a
    抢杠 or 热炮 tile. 自摸 never asks."""
    if rules.passport == "none":
        return True
    if has_kong or baoting_self or special_tile:
        return True
    if rules.passport == "kong_only":
        return False
    # (b) anything but a plain 平胡: F above the 平胡 floor before the 报听 bonus.
    return fan_before_baoting > rules.fan_pinghu or (
        discarder_baoting and rules.passport_from_baoting_discarder
    )


def jiao_value(
    concealed: Counts,
    melds: Sequence[Meld],
    baoting_flag: bool,
    rules: RuleConfig,
    que: int = -1,
) -> int:
    """The 叫 value J (SDG §6.3): the largest 番 over the waits (报听 included, no 自摸 bonus);
    0 when the seat is not 叫."""
    best = 0
    melds = tuple(melds)
    for t in waits(concealed, melds, rules.max_suits, que):
        c = list(concealed)
        c[t] += 1
        best = max(best, score(WinContext(tuple(c), melds, t, "self", baoting_flag), rules).fan)
    return best


def hu_verdict(desc: HandDescription, rules: RuleConfig | None = None) -> str:
    """Why a described hand may not 胡 (SDG §5.1, §5.3, §6.1), or ``""`` when it may: the
    scorer's referee for hand descriptions (the discarder is taken as not 报听)."""
    rules = rules or RuleConfig()
    result = score(context(desc), rules)
    if not result.is_win:
        return f"cannot 胡: {result.reason}"
    if desc.way in ("self", "kong"):
        return ""
    has_kong = any(m.kind.is_kong for m in desc.melds)
    special = desc.way in ("rob", "repao")
    if passport(rules, has_kong, result.fan_before_baoting, desc.baoting, special, False):
        return ""
    return f"cannot 胡 on another seat's tile: no passport (SDG §5.1), {result}"
