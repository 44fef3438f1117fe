"""The 名堂 of the app tiers against a plain restatement of RULES §7.4 (brute force).

Random winning hands, with random facts of RULES §7.4.4 (自吃 melds, three of the winning face
dealt, faces declined), are read in every way by the brute force of test_scoring_bruteforce.py
(which shares no code with ``weimaque.games.maque.analysis``). On every reading that may win, the
名堂 of RULES §7.4.1 and those whose meaning §7.4.2 changes are restated below from the rule text,
with the orders and exclusions §7.4.2 gives, and must be exactly the ones the scorer's
``patterns_of`` finds; the scorer's total must be the best total over the readings. The deal 名堂
are checked the same way on random dealt cards.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from itertools import pairwise

from tests.test_scoring_bruteforce import readings
from weimaque.games.maque.analysis.arrange import Arrangement
from weimaque.games.maque.cards import COPIES, NUM_FACES, RED_FACES
from weimaque.games.maque.notation import HandDescription, Meld, Source
from weimaque.games.maque.rules import APP_PRESET_IDS, RuleConfig, get_rules
from weimaque.games.maque.scoring import score_description
from weimaque.games.maque.scoring.context import Context
from weimaque.games.maque.scoring.scorer import patterns_of, score_deal

#: Every key RULES §7.4.1 adds or §7.4.2 reads anew (win-time).
CHECKED = frozenset(
    {
        "manyuan",
        "manyuan_2xi",
        "zhuo",
        "zimei",
        "sanluan",
        "zimei_tuo",
        "zusun",
        "siluan",
        "zusun_tuo",
        "liang_zimei",
        "silian",
        "bapengtou",
        "jia_bapengtou",
        "longbaiwei",
        "dandiao",
        "quanqiuren",
        "meinv",
        "dingdui",
        "piaodui",
        "jiding",
        "bianding",
        "yuanyuanding",
        "biankan",
        "shangxia",
        "zhen_beikaobei",
        "beikaobei",
        "fengbaiwei",
        "shouqianshou",
        "geshan",
        "duidao",
        "kawei",
        "kahu",
        "zhezhe",
        "xinlianxin",
        "yitiaolong",
        "huozhuo",
        "lianghong",
        "erlong",
    }
)


def _tiers() -> list[RuleConfig]:
    """Each tier as it is, with every option on, and with every option on at 起胡 15."""
    out = []
    for preset in APP_PRESET_IDS:
        rules = get_rules(preset)
        every = rules.with_options(enable_patterns=list(rules.optional_patterns))
        out += [rules, every, every.with_options(min_xi=15)]
    return out


TIERS = _tiers()


def _red(faces: Sequence[int]) -> bool:
    return any(f in RED_FACES for f in faces)


def _adj(a: int, b: int) -> bool:
    return a // 10 == b // 10 and b - a == 1


def _first(order: list[tuple[str, bool]], scored: set[str]) -> set[str]:
    """The first key of an order that fits and that the preset scores (RULES §7.4.2)."""
    return next(({k} for k, fits in order if fits and k in scored), set())


def expected(
    arr: Arrangement,
    desc: HandDescription,
    source: Source,
    zichi: bool,
    dealt_kan: bool,
    declined: frozenset[int],
    rules: RuleConfig,
) -> set[str]:
    """The checked 名堂 of one reading, from the text of RULES §7.4.1-§7.4.2."""
    scored = set(rules.patterns)
    w, j = desc.win, arr.pair
    groups = arr.groups
    win = next(g for g in groups if g.win)
    reds = sum(1 for f in desc.all_faces() if f in RED_FACES)
    held = len(desc.hand)
    hard = arr.hard_xi
    runs = [g.faces for g in groups if g.kind in ("run", "chi")]
    hand_runs = [g.faces for g in groups if g.kind == "run"]
    starts = [r[0] for r in runs]
    ty = sorted(arr.tuanyuan)
    kou = sum(1 for f in ty if f in RED_FACES)
    out: set[str] = set()

    manyuan = all(_red(g.faces) for g in groups)
    if manyuan and hard == 2 and "manyuan_2xi" in scored:
        out.add("manyuan_2xi")
    elif manyuan:
        out.add("manyuan")

    # 卓 family over all 团圆, by their number; 卓胡 outside it (items 1, 2)
    n = len(ty)
    pairs = [_adj(a, b) for a, b in pairwise(ty)]
    if n == 4:
        out |= _first(
            [
                ("silian", all(pairs)),
                ("liang_zimei", pairs[0] and pairs[2]),
                ("zusun_tuo", (pairs[0] and pairs[1]) or (pairs[1] and pairs[2])),
                ("siluan", True),
            ],
            scored,
        )
    elif n == 3:
        out |= _first([("zusun", all(pairs)), ("zimei_tuo", any(pairs)), ("sanluan", True)], scored)
    elif n == 2:
        out |= _first([("zimei", pairs[0])], scored)
    if n == 2 and reds == 4 * kou:
        out.add("zhuo")
    if 7 in ty and 17 in ty:
        out.add("bapengtou")
    if any(x in ty and x + 10 in ty for x in range(10) if x != 7):
        out.add("jia_bapengtou")
    if {0, 10} & set(ty) and {9, 19} & set(ty):
        out.add("longbaiwei")

    # one card held before the win (item 3, 全求人, 美女踩单车)
    if held == 1:
        out.add("dandiao")
        if not zichi and not any(g.meld and g.kind == "wei" for g in groups):
            out.add("quanqiuren")
            if j in RED_FACES:
                out.add("meinv")
    if not runs:
        if j in RED_FACES:
            out.add("dingdui")
        if sum(1 for g in groups if g.kind in ("peng", "wei", "kan") and _red(g.faces)) == 1:
            out.add("piaodui")

    # where the winning card sits
    in_maque = source == "other" and win.kind == "maque"
    jiding = in_maque and any(r[1] == w for r in hand_runs)
    if jiding:
        out.add("jiding")
    if (
        in_maque
        and any(w in (r[0], r[2]) for r in hand_runs)
        and not (jiding and "jiding" in scored)
    ):
        out.add("bianding")
    if in_maque and dealt_kan:
        out.add("yuanyuanding")
    if win.kind == "run":
        a, b, c = win.faces
        if w == b or (w == c and a % 10 == 0) or (w == a and a % 10 == 7):
            out.add("biankan")
    if source == "self" and w == 2:
        out.add("huozhuo")
    if w in declined:
        out.add("zhezhe")

    # 对倒 family (item 6)
    if win.kind in ("wei", "peng") and not win.meld:
        out |= _first(
            [
                ("zhen_beikaobei", {w, j} == {7, 17}),
                ("beikaobei", w % 10 == j % 10 and w != j),
                ("fengbaiwei", {w % 10, j % 10} == {0, 9}),
                ("shouqianshou", w // 10 == j // 10 and abs(w - j) == 1),
                ("geshan", w // 10 == j // 10 and abs(w - j) == 2),
                ("duidao", True),
            ],
            scored,
        )
    # 卡偎 / 卡胡 (item 7)
    out |= _first(
        [("kawei", arr.forced_wei and hard == rules.min_xi), ("kahu", hard == rules.min_xi)],
        scored,
    )

    # 硬息 10 hands and runs
    melds_xi = sum(g.xi for g in groups if g.meld and g.kind in ("peng", "wei"))
    if hard == 10 and not arr.forced_wei and win.xi == 0 and melds_xi == 5:
        out.add("shangxia")
    if any(r1[2] == r2[0] for r1 in runs for r2 in runs if r1 is not r2):
        out.add("xinlianxin")
    if hard == 10 and any(all(s in starts for s in (b, b + 3, b + 6)) for b in (0, 10)):
        out.add("yitiaolong")
    worth = [g for g in groups if g.xi > 0]
    if (
        hard == 10
        and len(worth) == 4
        and all(g.kind == "peng" for g in worth)
        and sum(1 for g in worth if _red(g.faces)) == 2
    ):
        out.add("lianghong")
    if reds == 2 and 0 in starts and 10 in starts:
        out.add("erlong")
    return out & scored


def may_win(arr: Arrangement, rules: RuleConfig) -> bool:
    """RULES §4.7 with §7.4.1 (2息满园花) and §7.4.2 item 8 (满园花 from 10 under "app")."""
    if arr.hard_xi >= rules.min_xi:
        return True
    if not all(_red(g.faces) for g in arr.groups):
        return False
    two = arr.hard_xi == 2 and "manyuan_2xi" in rules.patterns
    return two or arr.hard_xi >= 10


# ---------------------------------------------------------------------------------------------
# Random hands, shaped to reach the new 名堂: 团圆 (a triple and a run through its face), red
# runs and a red 麻雀 (2息满园花), hands laid down to one card (全求人, 单吊).

RED_RUN_STARTS = [s for s in range(20) if s % 10 <= 7 and _red((s, s + 1, s + 2))]


def app_hand(rng: random.Random) -> tuple[HandDescription, Source, bool, frozenset[int]]:
    """A random 20-card hand of 6 groups + 麻雀 and random facts of RULES §7.4.4."""
    all_red = rng.random() < 0.12
    lay = rng.choice((0.0, 0.3, 0.6, 0.9, 1.0))
    while True:
        left = [COPIES] * NUM_FACES
        start, peng_only = _seed_groups(rng)
        groups: list[list[int]] = []
        for group in start:
            if all(left[f] >= n for f, n in Counter(group).items()):
                for f in group:
                    left[f] -= 1
                groups.append(group)
        for _attempt in range(60):
            if len(groups) == 6:
                break
            group = _pick(rng, all_red, groups)
            if all(left[f] >= n for f, n in Counter(group).items()):
                for f in group:
                    left[f] -= 1
                groups.append(group)
        pairs = [f for f in range(NUM_FACES) if left[f] >= 2]
        if all_red:
            pairs = [f for f in pairs if f in RED_FACES]
        if len(groups) < 6 or not pairs:
            continue
        pair = rng.choice(pairs)
        melds: list[Meld] = []
        concealed = [pair, pair]
        for group in groups:
            if rng.random() < (0.9 if peng_only else lay):
                if group[0] == group[1]:
                    kind = "peng" if peng_only else rng.choice(("peng", "wei"))
                    melds.append(Meld.make(kind, group))
                else:
                    melds.append(Meld.make("zichi" if rng.random() < 0.3 else "chi", group))
            else:
                concealed.extend(group)
        win = concealed.pop(rng.randrange(len(concealed)))
        source: Source = "self" if rng.random() < 0.5 else "other"
        declined = frozenset(f for f in range(NUM_FACES) if rng.random() < 0.05)
        if rng.random() < 0.2:
            declined |= {win}
        desc = HandDescription(tuple(melds), tuple(sorted(concealed)), win)
        return desc, source, rng.random() < 0.3, declined


def _seed_groups(rng: random.Random) -> tuple[list[list[int]], bool]:
    """Groups some hands start from: three or four 团圆 on two runs, 一条龙, two red and two
    black triples (两红两黑); most hands start from nothing."""
    roll = rng.random()
    case = 10 * rng.randrange(2)
    if roll < 0.15:
        first = case + rng.randrange(8)
        second = first + 3 if rng.random() < 0.5 and first % 10 <= 4 else case + rng.randrange(8)
        runs = [[s, s + 1, s + 2] for s in (first, second)]
        faces = sorted({f for run in runs for f in run})
        chosen = rng.sample(faces, min(len(faces), rng.choice((3, 4, 4))))
        return [*runs, *([f, f, f] for f in chosen)], False
    if roll < 0.22:
        return [[s, s + 1, s + 2] for s in (case, case + 3, case + 6)], False
    if roll < 0.3:
        # laid down as 碰 (the other groups too): 硬息 3 + 3 + 2 + 2 when nothing else counts
        red = rng.sample(sorted(RED_FACES), 2)
        black = rng.sample([f for f in range(NUM_FACES) if f not in RED_FACES], 2)
        return [[f, f, f] for f in (*red, *black)], True
    return [], False


def _pick(rng: random.Random, all_red: bool, groups: list[list[int]]) -> list[int]:
    if all_red:
        start = rng.choice(RED_RUN_STARTS)
        return [start, start + 1, start + 2]
    triples = [g[0] for g in groups if g[0] == g[1]]
    if triples and rng.random() < 0.35:
        # a run through a triple's face: a 团圆
        f = rng.choice(triples)
        starts = [s for s in range(f - 2, f + 1) if s // 10 == f // 10 and 0 <= s % 10 <= 7]
        start = rng.choice(starts)
        return [start, start + 1, start + 2]
    if rng.random() < 0.45:
        f = rng.randrange(NUM_FACES)
        return [f, f, f]
    start = rng.randrange(2) * 10 + rng.randrange(8)
    return [start, start + 1, start + 2]


def _check(
    desc: HandDescription,
    source: Source,
    dealt_kan: bool,
    declined: frozenset[int],
    rules: RuleConfig,
) -> bool:
    zichi = any(m.own for m in desc.melds)
    everything = Counter(desc.all_faces())
    red = sum(n for f, n in everything.items() if f in RED_FACES)
    small = sum(n for f, n in everything.items() if f < 10)
    shown = f"{desc} --from {source} dealt_kan={dealt_kan} declined={sorted(declined)} {rules.id}"
    best: int | None = None
    for arr in readings(desc.melds, desc.hand, desc.win, source, rules):
        if not may_win(arr, rules):
            continue
        ctx = Context(
            arrangement=arr,
            rules=rules,
            red=red,
            all_big=small == 0,
            all_small=small == 20,
            source=source,
            last=False,
            win=desc.win,
            zichi=zichi,
            dealt_kan=dealt_kan,
            declined=declined,
        )
        multiplier, pats = patterns_of(ctx)
        got = {p.key for p in pats} & CHECKED
        want = expected(arr, desc, source, zichi, dealt_kan, declined, rules)
        assert got == want, (shown, [str(g) for g in arr.groups])
        total = arr.hard_xi * multiplier + sum(p.points for p in pats if p.mode == "add")
        best = total if best is None else max(best, total)
    b = score_description(desc, source=source, rules=rules, dealt_kan=dealt_kan, declined=declined)
    if best is None:
        assert not b.winning, shown
        return False
    assert b.winning, shown
    assert b.total == best, f"{shown}: scorer {b.total}, brute force {best}"
    return True


def test_random_hands_against_the_rule_text() -> None:
    rng = random.Random(20261205)
    winning = 0
    seen: set[str] = set()
    for i in range(6000):
        desc, source, dealt_kan, declined = app_hand(rng)
        rules = TIERS[i % len(TIERS)]
        if _check(desc, source, dealt_kan, declined, rules):
            winning += 1
            b = score_description(
                desc, source=source, rules=rules, dealt_kan=dealt_kan, declined=declined
            )
            seen |= {p.key for p in b.patterns}
    assert winning > 2000
    # the hands reach the new 名堂: most of them scored at least once
    assert seen >= CHECKED, sorted(CHECKED - seen)


# ---------------------------------------------------------------------------------------------
# Deal 名堂 (RULES §7.4.1, §7.4.2 item 9) on random dealt cards.


def _runs_through(f: int) -> list[tuple[int, int, int]]:
    return [
        (s, s + 1, s + 2) for s in range(f - 2, f + 1) if s // 10 == f // 10 and 0 <= s % 10 <= 7
    ]


def deal_units(c: Sequence[int], key: str) -> int:
    """Each deal 名堂 restated from RULES §7.4.1 (and 九小对 / 无息天胡 of §7.2, §7.4.2)."""
    quads = [f for f in range(NUM_FACES) if c[f] == 4]
    bombs = [f for f in quads if not any(all(c[g] for g in run) for run in _runs_through(f))]

    def in_a_row(k: int) -> bool:
        return any(
            all(s + i in quads and (s + i) // 10 == s // 10 for i in range(k)) for s in quads
        )

    paired = [f for f in range(NUM_FACES) if c[f] >= 2]
    tests = {
        "hongzhadan": sum(1 for f in bombs if f in RED_FACES),
        "heizhadan": sum(1 for f in bombs if f not in RED_FACES),
        "quanhei": int(not any(c[f] for f in RED_FACES)),
        "liuduihong": int(sum(c[f] // 2 for f in RED_FACES) >= 6),
        "sibiandui": int(all(c[f] >= 2 for f in (0, 9, 10, 19))),
        "quankan": int(all(n != 1 for n in c)),
        "tongzha": int(any(f + 10 in quads for f in quads if f < 10)),
        "zimeizha": int(in_a_row(2)),
        "diasunzha": int(in_a_row(3)),
        "zusunzha": int(in_a_row(4)),
        "jiuxiaodui": int(sum(n // 2 for n in c) >= 9),
        "wudui_deal": int(not any(f in RED_FACES for f in paired) and len(paired) <= 1),
    }
    return tests[key]


DEAL_KEYS = frozenset(
    {
        "hongzhadan",
        "heizhadan",
        "quanhei",
        "liuduihong",
        "sibiandui",
        "quankan",
        "tongzha",
        "zimeizha",
        "diasunzha",
        "zusunzha",
        "jiuxiaodui",
        "wudui_deal",
    }
)


def random_deal(rng: random.Random) -> tuple[int, ...]:
    """19 or 20 cards; some deals given quads in a row, some all black or with many pairs."""
    counts = [0] * NUM_FACES
    size = rng.choice((19, 20))
    quad = rng.randrange(NUM_FACES)
    for _ in range(rng.choice((0, 0, 1, 2, 3, 4))):
        # the next quad: often the face after the last one (姊妹炸, 嗲孙炸, 祖孙炸)
        quad = rng.randrange(NUM_FACES) if rng.random() < 0.4 else min(NUM_FACES - 1, quad + 1)
        counts[quad] = 4
    faces = [f for f in range(NUM_FACES) if not (rng.random() < 0.2 and f in RED_FACES)]
    while sum(counts) > size:
        counts[rng.choice([f for f in range(NUM_FACES) if counts[f]])] -= 1
    while sum(counts) < size:
        f = rng.choice(faces)
        if counts[f] < 4:
            counts[f] += 1
    return tuple(counts)


def test_random_deals_against_the_rule_text() -> None:
    rng = random.Random(7)
    found: Counter[str] = Counter()
    for i in range(3000):
        hand = random_deal(rng)
        rules = get_rules(APP_PRESET_IDS[i % 3]).with_options(disable_patterns=["tianhu"])
        best = 0
        for key, value in rules.patterns.items():
            if key not in DEAL_KEYS:
                continue
            units = deal_units(hand, key)
            amount = value.value
            if key == "jiuxiaodui" and sum(n // 2 for n in hand) >= 10:
                assert value.alt is not None
                amount = value.alt
            if units:
                found[key] += 1
            best = max(best, units * amount)
        b = score_deal(hand, rules=rules)
        assert b.total == best, (hand, rules.id)
        assert b.winning is (best > 0)
    assert len(found) >= 10, found
