"""三丁拐: what GreedyBot's chicken costs are worth, paired on duplicate deals.

Chickens are about three quarters of the points a hand moves (SDG §7.6: every seat pays each
seat that is 叫 at the end its chicken count). GreedyBot keeps a fixed chicken among equally
near discards (``bots.KEEP``); a thrown one still counts for a thrower who ends 叫, and the
hand's first counts twice (冲锋鸡, §7.4). This plays one bot ``A`` in each seat of a deal
against two GreedyBots, then ``B`` in the same seat of the same deal with the same random
numbers, and reports the mean of A's points less B's per deal (the three seatings averaged)
with its 95% interval. ``B = greedy`` gives A's points against GreedyBot, as the arena does
(three GreedyBots net zero over a deal's seatings).

Bots: ``greedy``; ``settled`` (``bots.SETTLED``, the search bot's base); ``costs:R/F/G`` (a
GreedyBot with ``ChickenCosts(R, F, G)``: per chicken, ``row`` for any fixed chicken thrown,
plus ``first_claimable`` or ``first`` for the hand's first); ``chickpeng`` (``settled`` that
also 碰s a fixed chicken whenever the hand stays as near 叫).

    python research/sdg_chickens.py --hands 3000 --seed 11 settled greedy
    python research/sdg_chickens.py --hands 1800 --seed 2 costs:0/-3/-3 greedy
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import random
import statistics

from weimaque.games.sandingguai import State, get_rules, observe
from weimaque.games.sandingguai.actions import PASS, PENG
from weimaque.games.sandingguai.bots import SETTLED, Bot, ChickenCosts, GreedyBot, _Table
from weimaque.games.sandingguai.notation import Meld, MeldKind
from weimaque.games.sandingguai.rules import RuleConfig


class ChickenPeng(GreedyBot):
    """``settled`` that also 碰s a fixed chicken when the hand stays as near 叫."""

    __slots__ = ()

    def claim_on(self, legal: list[int], x: int | None, turn: int, table: _Table) -> int:  # type: ignore[override]
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
    if kind == "costs":
        row, first_claimable, first = (float(x) for x in rest.split("/"))
        return GreedyBot(rules, ChickenCosts(row, first_claimable, first))
    raise SystemExit(f"unknown bot {spec!r}: greedy, settled, chickpeng or costs:R/F/G")


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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--hands", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
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
