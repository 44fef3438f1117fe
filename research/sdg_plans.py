"""三丁拐: does a bot that aims at the big 番 (清一色, 七对, 大对子) beat GreedyBot?

GreedyBot ranks discards by the distance from 叫 first; a 清一色 (10 番 against a 平胡's 1,
SDG §6.2) one tile farther never wins that comparison. A local oracle (sdg_local_oracle.py)
cannot see what a *plan* is worth, since GreedyBot plays on after the one decision and drops it.
This bot rates every discard by an expected 番: over the plans the 13 tiles left may still
finish in (two suits: 平胡 1, 大对子 5, 七对 10; one suit: 清一色 10, 清大对 15, 清七对 20),
``F × q^向听``, and plays the discard with the best, GreedyBot's rating breaking ties; it does
not 碰 what its plan cannot use. Played on duplicate deals in the three seatings against two
GreedyBots.

    python research/sdg_plans.py --hands 600 --seed 2 --q 0.3
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import random
import statistics

from weimaque.games.sandingguai import State, get_rules, observe
from weimaque.games.sandingguai.actions import DISCARD, PENG, TING
from weimaque.games.sandingguai.bots import (
    GreedyBot,
    _entries,
    _meld_mask,
    _minus,
    _standard_shanten,
    _Table,
)
from weimaque.games.sandingguai.notation import Meld
from weimaque.games.sandingguai.rules import RuleConfig
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
        if all(m.kind.name != "CHI" for m in melds):
            best = max(best, (5 + bonus) * q**dd * big)
        if not melds:
            held = sum(pairs[s] for s in chosen)
            qd = max(6 - min(held, 7), floor)
            best = max(best, (10 + bonus) * q**qd * big)
        out[chosen] = best
    return out


class PlanBot(GreedyBot):
    __slots__ = ("big", "margin", "q")

    def __init__(self, rules: RuleConfig, q: float, big: float, margin: float) -> None:
        super().__init__(rules)
        self.q = q
        self.big = big
        self.margin = margin

    def _ev(self, hand: Counts, melds: tuple[Meld, ...], table: _Table) -> float:
        return max(plan_values(hand, melds, table.que, self.q, self.big).values())

    def self_turn_on(self, legal, table, rng):  # type: ignore[no-untyped-def]
        greedy = super().self_turn_on(legal, table, rng)
        if not (DISCARD <= greedy < TING + 27) or greedy >= TING + 27:
            return greedy
        discards = sorted({a - DISCARD for a in legal if DISCARD <= a < TING})
        if len(discards) <= 1:
            return greedy
        gtile = (greedy - DISCARD) if greedy < TING else greedy - TING
        evs = {t: self._ev(_minus(table.hand, t), table.melds, table) for t in discards}
        best = max(evs, key=lambda t: evs[t])
        if evs[best] <= evs[gtile] * self.margin:
            return greedy
        top = [t for t in discards if evs[t] >= evs[best] - 1e-9]
        rated = self._rate_discards(table.hand, table.melds, table, top)
        pick = max(top, key=lambda t: rated[t])
        return DISCARD + pick

    def claim_on(self, legal, x, turn, table):  # type: ignore[no-untyped-def]
        a = super().claim_on(legal, x, turn, table)
        if a == PENG and x is not None:
            before = self._ev_14(table)
            hand = list(table.hand)
            hand[x] -= 2
            from weimaque.games.sandingguai.notation import MeldKind

            melds = (*table.melds, Meld(MeldKind.PENG, x, turn))
            after = max(
                self._ev(_minus(tuple(hand), t), melds, table) for t in range(27) if hand[t]
            )
            if after * self.margin < before:
                from weimaque.games.sandingguai.actions import PASS

                return PASS
        return a

    def _ev_14(self, table: _Table) -> float:
        return self._ev(table.hand, table.melds, table)


def play(job: tuple[int, float, float, float]) -> list[int]:
    """The plan bot's points in the three seatings of one deal."""
    seed, q, big, margin = job
    rules = get_rules("sandingguai")
    out = []
    for seat in range(3):
        bots = [GreedyBot(rules) for _ in range(3)]
        bots[seat] = PlanBot(rules, q, big, margin)
        st = State(rules, seed=seed)
        rngs = [random.Random(f"{seed}:{s}") for s in range(3)]
        while st.phase != 3:
            p = st.current_player()
            st.apply(bots[p].act(observe(st, p), rngs[p]), p)
        out.append(st.result.net[seat])  # type: ignore[union-attr]
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--hands", type=int, default=600)
    ap.add_argument("--seed", type=int, default=2)
    ap.add_argument("--q", type=float, default=0.3)
    ap.add_argument("--big", type=float, default=1.0)
    ap.add_argument("--margin", type=float, default=1.0)
    ap.add_argument("--workers", type=int, default=2)
    a = ap.parse_args()
    deals = a.hands // 3
    jobs = [(a.seed * 1_000_003 + d, a.q, a.big, a.margin) for d in range(deals)]
    with multiprocessing.get_context("fork").Pool(a.workers) as pool:
        res = pool.map(play, jobs, chunksize=4)
    means = [sum(r) / 3 for r in res]
    m = statistics.fmean(means)
    half = 1.96 * statistics.stdev(means) / math.sqrt(len(means))
    print(
        f"q={a.q} big={a.big} margin={a.margin}: {m:+.2f} [{m - half:+.2f}, {m + half:+.2f}] "
        f"over {3 * deals} hands"
    )


if __name__ == "__main__":
    main()
