"""三丁拐: what changing GreedyBot's terms is worth, paired on duplicate deals.

Plays one bot ``A`` in each seat of a deal against two GreedyBots, then ``B`` in the same seat
of the same deal with the same random numbers, and reports the mean of A's points less B's per
deal (the three seatings averaged) with its 95% interval. ``B = greedy`` gives A's points
against GreedyBot, as the arena does (three GreedyBots net zero over a deal's seatings).

Bots:

- ``greedy``; ``settled``: ``bots.SETTLED``, the search bot's base;
- ``costs:R/F/G``: a GreedyBot with ``ChickenCosts(R, F, G)``: per chicken, ``row`` for any fixed
  chicken thrown, plus ``first_claimable`` or ``first`` for the hand's first (SDG §7.4-§7.7).
  Chickens are about three quarters of the points a hand moves (§7.6: every seat pays each seat
  that is 叫 at the end its count); GreedyBot keeps a fixed chicken among equally near
  discards (``bots.KEEP``), yet a thrown one still counts for a thrower who ends 叫, and the
  hand's first counts twice (冲锋鸡);
- ``chickpeng``: ``settled`` that also 碰s a fixed chicken whenever the hand stays as near 叫;
- ``plan:Q/BIG/MARGIN``: aims at the big 番. GreedyBot ranks discards by the distance from 叫
  first, so a 清一色 (10 番 against a 平胡's 1, §6.2) one tile farther never wins. This bot rates
  every discard by an expected 番 over the plans its 13 tiles may still finish in (two suits:
  平胡 1, 大对子 5, 七对 10; one suit: 清一色 10, 清大对 15, 清七对 20), ``F × Q^向听`` (``BIG``
  weighs the patterns), and leaves GreedyBot's choice where another's is ``MARGIN`` times
  better.

    python research/sdg_heuristics.py settled greedy --hands 3000 --seed 11
    python research/sdg_heuristics.py costs:0/-3/-3 greedy --hands 1800 --seed 2
    python research/sdg_heuristics.py plan:0.25/1/1 greedy --hands 1800 --seed 2
    python research/sdg_heuristics.py --flows 600   # what a hand's transfers move, by reason
"""

from __future__ import annotations

import argparse
import collections
import math
import multiprocessing
import random
import statistics
from collections.abc import Sequence

from weimaque.games.sandingguai import State, get_rules, observe
from weimaque.games.sandingguai.actions import DISCARD, PASS, PENG, TING
from weimaque.games.sandingguai.bots import (
    SETTLED,
    Bot,
    ChickenCosts,
    GreedyBot,
    _entries,
    _meld_mask,
    _minus,
    _standard_shanten,
    _Table,
)
from weimaque.games.sandingguai.notation import Meld, MeldKind
from weimaque.games.sandingguai.rules import RuleConfig
from weimaque.games.sandingguai.settle import REASONS
from weimaque.games.sandingguai.tiles import Counts


def plan_values(
    hand: Counts, melds: tuple[Meld, ...], que: int, q: float, big: float
) -> dict[tuple[int, ...], float]:
    """Expected 番 of the 13 tiles ``hand`` per suit set (each set's best plan)."""
    mask = _meld_mask(melds)
    suits = (hand[0:9], hand[9:18], hand[18:27])
    sizes = [sum(c) for c in suits]
    total = sum(sizes)
    entries = [_entries(c) if n else ((0, 0, 0),) for c, n in zip(suits, sizes, strict=True)]
    pairs = [sum(n // 2 for n in c) for c in suits]
    trip = [sum(1 for n in c if n >= 3) for c in suits]
    two = [sum(1 for n in c if n == 2) for c in suits]
    need = 4 - len(melds)
    out: dict[tuple[int, ...], float] = {}
    choices: list[tuple[int, ...]] = [(0, 1), (0, 2), (1, 2), (0,), (1,), (2,)]
    for chosen in choices:
        if que in chosen or any(mask >> s & 1 and s not in chosen for s in range(3)):
            continue
        pure = len(chosen) == 1
        floor = total - sum(sizes[s] for s in chosen)
        std = max(_standard_shanten([entries[s] for s in chosen], need), floor)
        t3 = sum(trip[s] for s in chosen)
        p2 = sum(two[s] for s in chosen)
        missing = need - min(t3, need)
        pr = 1 if p2 else 0
        dd = max(2 * missing - min(p2 - pr, missing) - pr, floor)
        bonus = 10 if pure else 0
        best = max(1 + bonus, 1) * q**std
        best = max(best, (5 + bonus) * q**dd * big)
        if not melds:
            held = sum(pairs[s] for s in chosen)
            qd = max(6 - min(held, 7), floor)
            best = max(best, (10 + bonus) * q**qd * big)
        out[chosen] = best
    return out


class PlanBot(GreedyBot):
    """GreedyBot's choice unless a discard's expected 番 (:func:`plan_values`) is ``margin``
    times that of GreedyBot's; no 碰 that lowers the expected 番 by that factor."""

    __slots__ = ("big", "margin", "q")

    def __init__(self, rules: RuleConfig, q: float, big: float, margin: float) -> None:
        super().__init__(rules)
        self.q = q
        self.big = big
        self.margin = margin

    def _ev(self, hand: Counts, melds: tuple[Meld, ...], table: _Table) -> float:
        return max(plan_values(hand, melds, table.que, self.q, self.big).values())

    def self_turn_on(self, legal: Sequence[int], table: _Table, rng: random.Random) -> int:
        """GreedyBot's action, or on a plain discard the one of the best expected 番 when it
        beats GreedyBot's by ``margin`` (GreedyBot's rating among equals)."""
        greedy = super().self_turn_on(legal, table, rng)
        if not DISCARD <= greedy < TING + 27:
            return greedy  # a kong
        discards = sorted({a - DISCARD for a in legal if DISCARD <= a < TING})
        if len(discards) <= 1:
            return greedy
        chosen = greedy - DISCARD if greedy < TING else greedy - TING
        evs = {t: self._ev(_minus(table.hand, t), table.melds, table) for t in discards}
        best = max(evs.values())
        if best <= evs[chosen] * self.margin:
            return greedy
        top = [t for t in discards if evs[t] >= best - 1e-9]
        rated = self._rate_discards(table.hand, table.melds, table, top)
        return DISCARD + max(top, key=lambda t: rated[t])

    def claim_on(self, legal: Sequence[int], x: int | None, turn: int, table: _Table) -> int:
        """GreedyBot's claim, but no 碰 that lowers the expected 番 by ``margin``."""
        a = super().claim_on(legal, x, turn, table)
        if a != PENG or x is None:
            return a
        before = self._ev(table.hand, table.melds, table)
        hand = list(table.hand)
        hand[x] -= 2
        melds = (*table.melds, Meld(MeldKind.PENG, x, turn))
        after = max(self._ev(_minus(tuple(hand), t), melds, table) for t in range(27) if hand[t])
        return PASS if after * self.margin < before else a


class ChickenPeng(GreedyBot):
    """``settled`` that also 碰s a fixed chicken when the hand stays as near 叫."""

    __slots__ = ()

    def claim_on(self, legal: Sequence[int], x: int | None, turn: int, table: _Table) -> int:
        a = super().claim_on(legal, x, turn, table)
        if a != PASS or PENG not in legal or x is None or x not in self._fixed_chickens():
            return a
        before = self._rating(table.hand, table.melds, table)
        hand = list(table.hand)
        hand[x] -= 2
        melds = (*table.melds, Meld(MeldKind.PENG, x, turn))
        kinds = [t for t in range(27) if hand[t]]
        after = max(self._rate_discards(tuple(hand), melds, table, kinds).values())
        return PENG if after[0] >= before[0] else a


def make(rules: RuleConfig, spec: str) -> Bot:
    """The bot of ``spec`` (module doc)."""
    kind, _, rest = spec.partition(":")
    if kind == "greedy":
        return GreedyBot(rules)
    if kind == "settled":
        return GreedyBot(rules, SETTLED)
    if kind == "chickpeng":
        return ChickenPeng(rules, SETTLED)
    if kind == "plan":
        q, big, margin = (float(x) for x in rest.split("/"))
        return PlanBot(rules, q, big, margin)
    if kind == "costs":
        row, first_claimable, first = (float(x) for x in rest.split("/"))
        return GreedyBot(rules, ChickenCosts(row, first_claimable, first))
    raise SystemExit(
        f"unknown bot {spec!r}: greedy, settled, chickpeng, costs:R/F/G or plan:Q/BIG/MARGIN"
    )


def points(seed: int, seat: int, spec: str) -> int:
    """The points of ``spec`` in ``seat`` of the hand of ``seed``, two GreedyBots beside it."""
    rules = get_rules("sandingguai")
    bots: list[Bot] = [GreedyBot(rules) for _ in range(3)]
    bots[seat] = make(rules, spec)
    st = State(rules, seed=seed)
    rngs = [random.Random(f"{seed}:{s}") for s in range(3)]
    while not st.is_terminal():
        p = st.current_player()
        st.apply(bots[p].act(observe(st, p), rngs[p]), p)
    assert st.result is not None
    return st.result.net[seat]


def deal(job: tuple[int, str, str]) -> float:
    """A's points less B's in one deal, the three seatings averaged."""
    seed, a, b = job
    return sum(points(seed, s, a) - points(seed, s, b) for s in range(3)) / 3


def flows(hands: int) -> None:
    """Points moved a hand by each reason of SDG §9 in ``hands`` hands of three GreedyBots
    (seeds 10000 on), and how the hands ended."""
    rules = get_rules("sandingguai")
    greedy = GreedyBot(rules)
    moved: collections.Counter[str] = collections.Counter()
    count: collections.Counter[str] = collections.Counter()
    ends: collections.Counter[str] = collections.Counter()
    for i in range(hands):
        st = State(rules, seed=10_000 + i)
        rng = random.Random(i)
        while not st.is_terminal():
            p = st.current_player()
            st.apply(greedy.act(observe(st, p), rng), p)
        assert st.result is not None
        transfers = st.result.settlement.transfers
        ends["胡" if any(t.reason == "hu" for t in transfers) else "荒庄"] += 1
        for t in transfers:
            moved[REASONS[t.reason]] += t.amount
            count[REASONS[t.reason]] += 1
    print(f"{hands} hands: " + ", ".join(f"{k} {v}" for k, v in ends.items()))
    for reason, points in moved.most_common():
        print(
            f"{reason}: {points / hands:.2f} points a hand in {count[reason] / hands:.2f} transfers"
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("a", nargs="?", default="settled")
    ap.add_argument("b", nargs="?", default="greedy")
    ap.add_argument("--flows", type=int, default=0, help="only count the transfers of N hands")
    ap.add_argument("--hands", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    if args.flows:
        flows(args.flows)
        return
    jobs = [(args.seed * 1_000_003 + d, args.a, args.b) for d in range(args.hands // 3)]
    with multiprocessing.get_context("fork").Pool(args.workers) as pool:
        res = pool.map(deal, jobs, chunksize=8)
    m = statistics.fmean(res)
    half = 1.96 * statistics.stdev(res) / math.sqrt(len(res))
    print(
        f"{args.a} − {args.b}: {m:+.3f} [{m - half:+.3f}, {m + half:+.3f}] a hand over "
        f"{3 * len(res)} hands, seed {args.seed}"
    )


if __name__ == "__main__":
    main()
