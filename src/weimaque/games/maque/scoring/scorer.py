"""Scoring: the best arrangement of a winning hand and its total (RULES §6.2, §7.1)."""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

from weimaque.errors import InvalidNotation, WrongCardCount, quoted
from weimaque.games.maque.analysis.arrange import Arrangement, arrangements, dealt_arrangements
from weimaque.games.maque.analysis.decompose import can_split
from weimaque.games.maque.cards import Counts, counts_of, red_count
from weimaque.games.maque.notation import (
    HandDescription,
    Meld,
    Source,
    check_copies,
    parse_cards,
    parse_declined,
    parse_hand,
)
from weimaque.games.maque.rules.config import PatternValue, RuleConfig
from weimaque.games.maque.rules.registry import get_rules
from weimaque.games.maque.scoring.breakdown import Breakdown, PatternScore
from weimaque.games.maque.scoring.context import Context
from weimaque.games.maque.scoring.pattern import Pattern
from weimaque.games.maque.scoring.patterns import patterns_for
from weimaque.games.maque.scoring.patterns.deal import APP_DEAL_TESTS, DEAL_TESTS, ten_pairs
from weimaque.games.maque.scoring.patterns.red import in_bloom

#: cards the dealer is dealt, and the others (RULES §2.2)
DEALER_HAND = 20
OTHER_HAND = 19
#: RULES §7.4.2 item 8: under "app" a 满园花 wins from this 硬息 even where 起胡 is higher
APP_MANYUAN_MIN_XI: Final = 10
#: RULES §7.4.1 2息满园花: the 硬息 with which it wins below 起胡
MANYUAN_2XI: Final = 2


@functools.lru_cache(maxsize=256)
def _active(rules: RuleConfig) -> tuple[tuple[Pattern, PatternValue], ...]:
    """The patterns a rule set scores, with their values, in the order of PATTERN_NAMES.

    The table is the one of its ``mingtang_rules`` (RULES §7.2, §7.4.2).
    """
    table = patterns_for(rules.mingtang_rules)
    return tuple((p, rules.patterns[k]) for k, p in table.items() if k in rules.patterns)


def may_win(arr: Arrangement, rules: RuleConfig) -> bool:
    """Whether an arrangement's 硬息 lets it win (RULES §4.7, §7.4.1, §7.4.2 item 8)."""
    hard = arr.hard_xi
    if hard >= rules.min_xi:
        return True
    if not in_bloom(arr):
        return False
    if hard == MANYUAN_2XI and "manyuan_2xi" in rules.patterns:
        return True
    return rules.mingtang_rules == "app" and hard >= APP_MANYUAN_MIN_XI


def patterns_of(ctx: Context) -> tuple[int, list[PatternScore]]:
    """The multiplier and the 名堂 that score for one arrangement (RULES §7.1, §7.2)."""
    hits: dict[str, tuple[Pattern, PatternValue, int]] = {}
    for pattern, value in _active(ctx.rules):
        units = pattern.units(ctx)
        if units:
            hits[pattern.key] = (pattern, value, units)
    for pattern, _, _ in list(hits.values()):
        for key in pattern.replaces:
            hits.pop(key, None)
    # Within a family only the highest value scores.
    best_in_family: dict[str, tuple[int, str]] = {}
    for key, (pattern, value, units) in hits.items():
        if pattern.family is not None and value.mode == "add":
            worth = value.value * units
            if pattern.family not in best_in_family or worth > best_in_family[pattern.family][0]:
                best_in_family[pattern.family] = (worth, key)
    keep = {key for _, key in best_in_family.values()}
    multiplier = 1
    mult_key: str | None = None
    for key, (_, value, _) in hits.items():
        if value.mode == "mul" and value.value > multiplier:
            multiplier, mult_key = value.value, key
    out: list[PatternScore] = []
    hard = ctx.hard_xi
    for key, (pattern, value, units) in hits.items():
        if pattern.family is not None and key not in keep:
            continue
        if value.mode == "mul":
            if key == mult_key:
                out.append(
                    PatternScore(
                        key,
                        ctx.rules.pattern_name(key),
                        "mul",
                        value.value,
                        1,
                        hard * (multiplier - 1),
                    )
                )
            continue
        amount = value.value
        if value.alt is not None and pattern.alt is not None and pattern.alt(ctx):
            amount = value.alt
        name = ctx.rules.pattern_name(key)
        out.append(PatternScore(key, name, "add", amount, units, amount * units))
    return multiplier, out


def score_position(
    melds: Sequence[Meld],
    hand: Counts,
    win: int,
    *,
    source: Source = "self",
    last: bool = False,
    rules: RuleConfig | str = "anxiang",
    declared: tuple[tuple[str, int], ...] = (),
    zichi: bool = False,
    dealt_kan: bool = False,
    declined: Iterable[int] = (),
    pool: int | None = None,
) -> Breakdown:
    """Score a winner's melds, concealed hand (before the win) and winning card.

    Among the arrangements with 硬息 >= ``min_xi`` the highest total is chosen; ties go to the
    higher 硬息, then to a fixed canonical order (RULES §6.2). ``zichi``, ``dealt_kan`` and
    ``declined`` are the facts of RULES §7.4.4 (a 自吃 meld, three of the winning face dealt,
    the faces on which a 胡 was declined). With ``liuzi_choice`` and the 留子 ``pool`` the winner
    could take, the winner's whole gain chooses first (RULES §8.5.3, :func:`gain_rank`).
    """
    config = get_rules(rules)
    total_counts = list(hand)
    total_counts[win] += 1
    for m in melds:
        for f in m.faces:
            total_counts[f] += 1
    arrs = arrangements(melds, hand, win, source, config)
    if not arrs:
        reason = "the 20 cards do not form 6 groups + 麻雀"
        if source == "self" and hand[win] >= 2:
            reason += " with the forced 偎 of the drawn card (RULES §6.1)"
        red = red_count(tuple(total_counts))
        return Breakdown(False, config.id, 0, 1, 0, red, (), (), reason)
    facts = _Facts(win, zichi, dealt_kan, frozenset(declined), pool)
    return _choose(arrs, tuple(total_counts), config, source, last, declared, facts)


@dataclass(frozen=True, slots=True)
class _Facts:
    """The facts of a win beyond the cards (RULES §7.4.4), passed on to every context."""

    win: int | None = None
    zichi: bool = False
    dealt_kan: bool = False
    declined: frozenset[int] = frozenset()
    #: the 留子 pool the winner could take (RULES §8.5.3), None where it does not choose
    pool: int | None = None


def liuzi_take(hard_xi: int, pool: int, rules: RuleConfig) -> int:
    """What a winner with ``hard_xi`` 硬息 takes from the 留子 pool (RULES §8.5, §8.5.2): 18 息 =
    1 等, each further 息 one more, at most the pool; nothing without the pool option."""
    if not rules.liuzi or hard_xi < rules.liuzi_min_xi:
        return 0
    return min(pool, (hard_xi - rules.liuzi_min_xi + 1) * rules.deng_value)


def gain_rank(total: int, hard_xi: int, rules: RuleConfig, pool: int | None) -> tuple[int, ...]:
    """How RULES §6.2 ranks a winning layout: by total, then 硬息; with ``liuzi_choice`` and a
    pool, first by the winner's whole gain ``total × (players − 1) + take(硬息)`` (RULES
    §8.5.3 [D])."""
    if pool is None or not (rules.liuzi_choice and rules.liuzi):
        return (total, hard_xi)
    return (total * (rules.players - 1) + liuzi_take(hard_xi, pool, rules), total, hard_xi)


def score_dealt(
    hand: Counts,
    *,
    rules: RuleConfig | str = "anxiang",
    declared: tuple[tuple[str, int], ...] = (("tianhu", 1),),
) -> Breakdown:
    """Score a dealer's 20 dealt cards as they lie: 天胡 (RULES §7.2).

    Every triple held is a 砍; no card was won, so no 名堂 that needs a winning card scores
    (单吊, 背靠背, 手牵手, 卡偎, 海底, 自摸).
    """
    config = get_rules(rules)
    arrs = dealt_arrangements(hand, config)
    if not arrs:
        reason = "the 20 dealt cards do not form 6 groups + 麻雀"
        return Breakdown(False, config.id, 0, 1, 0, red_count(hand), (), (), reason)
    return _choose(arrs, hand, config, None, False, declared, _Facts())


def _choose(
    arrs: list[Arrangement],
    total_counts: Counts,
    config: RuleConfig,
    source: Source | None,
    last: bool,
    declared: tuple[tuple[str, int], ...],
    facts: _Facts,
) -> Breakdown:
    """The best arrangement that may win (硬息 >= ``min_xi``, :func:`may_win`) and its breakdown
    (RULES §6.2)."""
    red = red_count(total_counts)
    small = sum(total_counts[:10])
    best: tuple[tuple[int, ...], Arrangement, int, list[PatternScore]] | None = None
    for arr in arrs:
        if not may_win(arr, config):
            continue
        ctx = Context(
            arrangement=arr,
            rules=config,
            red=red,
            all_big=small == 0,
            all_small=small == sum(total_counts),
            source=source,
            last=last,
            declared=declared,
            win=facts.win,
            zichi=facts.zichi,
            dealt_kan=facts.dealt_kan,
            declined=facts.declined,
        )
        multiplier, pats = patterns_of(ctx)
        total = arr.hard_xi * multiplier + sum(p.points for p in pats if p.mode == "add")
        rank = gain_rank(total, arr.hard_xi, config, facts.pool)
        if (
            best is None
            or rank > best[0]
            or (rank == best[0] and arr.sort_key() < best[1].sort_key())
        ):
            best = (rank, arr, multiplier, pats)
    if best is None:
        top = max(arrs, key=lambda a: (a.hard_xi, [-ord(c) for c in str(a.sort_key())]))
        reason = f"硬息 {top.hard_xi} is below the minimum {config.min_xi} (RULES §4.7)"
        return Breakdown(False, config.id, top.hard_xi, 1, 0, red, top.groups, (), reason)
    rank, arr, multiplier, pats = best
    total, hard = rank[-2:]
    return Breakdown(True, config.id, hard, multiplier, total, red, arr.groups, tuple(pats), None)


def score_description(
    desc: HandDescription,
    *,
    source: Source = "self",
    last: bool = False,
    rules: RuleConfig | str = "anxiang",
    dealt_kan: bool = False,
    declined: Iterable[int] = (),
    pool: int | None = None,
) -> Breakdown:
    """Score a parsed hand description; flags written inside it take precedence. ``pool``: the
    留子 pool the winner could take, where ``liuzi_choice`` weighs it (RULES §8.5.3)."""
    return score_position(
        desc.melds,
        counts_of(desc.hand),
        desc.win,
        source=desc.source or source,
        last=bool(desc.last) or last,
        rules=rules,
        zichi=any(m.own for m in desc.melds),
        dealt_kan=bool(desc.dealt_kan) or dealt_kan,
        declined=set(desc.declined) | set(declined),
        pool=pool,
    )


def score(
    hand: str,
    rules: RuleConfig | str = "anxiang",
    source: str = "self",
    last: bool = False,
    *,
    dealt_kan: bool = False,
    declined: str = "",
    pool: int | None = None,
) -> Breakdown:
    """Score a hand description such as ``"碰:七七七 手:… 胡:九"`` (RULES §1.4, §6, §7).

    ``dealt_kan`` and ``declined`` (faces, e.g. ``"二五"``) are the facts of RULES §7.4.4; the
    description may carry them too (``--dealt-kan``, ``--declined 二五``, ``自吃:`` melds).
    Raises an :class:`~weimaque.errors.InvalidNotation` for bad input.
    """
    if source not in ("self", "other"):
        raise InvalidNotation(f"source must be 'self' or 'other', not {quoted(source)}")
    faces = parse_declined(declined) if declined else ()
    return score_description(
        parse_hand(hand),
        source="self" if source == "self" else "other",
        last=last,
        rules=rules,
        dealt_kan=dealt_kan,
        declined=faces,
        pool=pool,
    )


def score_tianhu(cards: str, rules: RuleConfig | str = "anxiang") -> Breakdown:
    """Score 20 dealt cards such as ``"一一一三三三…"`` (or ``"手:…"``) as 天胡 (RULES §7.2).

    Raises an :class:`~weimaque.errors.InvalidNotation` for bad input, or when the preset does
    not score 天胡.
    """
    config = get_rules(rules)
    if "tianhu" not in config.patterns:
        raise InvalidNotation(f"preset {config.id!r} does not score 天胡 (RULES §7.3)")
    text = cards.strip()
    body = text.removeprefix("手:").removeprefix("手：").removeprefix("hand:")
    faces = parse_cards(body)
    check_copies(faces, text)
    if len(faces) != DEALER_HAND:
        raise WrongCardCount(
            f"天胡 takes the dealer's {DEALER_HAND} cards, got {len(faces)} in {text!r}"
        )
    return score_dealt(counts_of(faces), rules=config)


def score_deal(hand: Counts, *, rules: RuleConfig | str = "anxiang") -> Breakdown:
    """The single best deal 名堂 of a seat's dealt cards, 20 for the dealer, 19 for the others.

    Every deal 名堂 the preset scores is read from the cards (RULES §7.2, §7.4.1); its value is
    the whole total (硬息 0). The dealer's 天胡 (his 20 cards as a hand, RULES §7.2) competes on
    the total; the best one scores (RULES §7.4.2 item 9). No 名堂: ``winning`` is False.
    """
    config = get_rules(rules)
    tests = APP_DEAL_TESTS if config.mingtang_rules == "app" else DEAL_TESTS
    found: list[Breakdown] = []
    # the quick split check before 天胡's arrangements: most deals do not split
    if sum(hand) == DEALER_HAND and "tianhu" in config.patterns and can_split(tuple(hand)):
        dealt = score_dealt(hand, rules=config)
        if dealt.winning:
            found.append(dealt)
    for key, test in tests.items():
        value = config.patterns.get(key)
        units = test(hand) if value is not None else 0
        if value is None or not units:
            continue
        amount = value.value
        if key == "jiuxiaodui" and value.alt is not None and ten_pairs(hand):
            amount = value.alt
        ps = PatternScore(key, config.pattern_name(key), "add", amount, units, amount * units)
        found.append(Breakdown(True, config.id, 0, 1, ps.points, 0, (), (ps,), None))
    if not found:
        reason = f"no deal 名堂 of preset {config.id!r} in these cards (RULES §7.2, §7.4.1)"
        return Breakdown(False, config.id, 0, 1, 0, red_count(hand), (), (), reason)
    return max(found, key=lambda b: b.total)


def score_deal_cards(cards: str, rules: RuleConfig | str = "anxiang") -> Breakdown:
    """Score a seat's dealt cards such as ``"手:一一一一二二二二…"`` for the deal 名堂.

    19 cards are a non-dealer's, 20 the dealer's (RULES §2.2). Raises an
    :class:`~weimaque.errors.InvalidNotation` for bad input.
    """
    text = cards.strip()
    body = text.removeprefix("手:").removeprefix("手：").removeprefix("hand:")
    faces = parse_cards(body)
    check_copies(faces, text)
    if len(faces) not in (OTHER_HAND, DEALER_HAND):
        raise WrongCardCount(
            f"a seat is dealt {OTHER_HAND} or {DEALER_HAND} cards, got {len(faces)} in {text!r}"
        )
    return score_deal(counts_of(faces), rules=rules)
