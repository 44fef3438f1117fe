"""三丁拐 bots: GreedyBot's points per hand against two RandomBots, and its decision time.

Run: ``.venv/bin/python bench/sandingguai_bots.py [--hands 1200] [--seed 1] [--preset ID]``.
Duplicate deals (:func:`weimaque.games.sandingguai.bots.duplicate_match`): each seeded deal is
played three times, GreedyBot in seat 0, 1 and 2 (the dealer is seat 0), two RandomBots in the
other seats; ``--hands`` counts hands played (deals × 3). The 95% interval is the normal one over
the per-deal means (a deal's three seatings averaged, so the deal's luck cancels in part). The
decision time is the median and p90 of GreedyBot's ``act`` on decisions with more than one legal
action (one core, wall clock; ``observe`` not included).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from weimaque.games.sandingguai import get_rules
from weimaque.games.sandingguai.bots import GreedyBot, RandomBot, duplicate_match
from weimaque.games.sandingguai.observation import View
from weimaque.games.sandingguai.rules import RuleConfig


class TimedGreedy(GreedyBot):
    """GreedyBot recording the wall time of each non-trivial decision."""

    __slots__ = ("times",)

    def __init__(self, rules: RuleConfig, times: list[float]) -> None:
        super().__init__(rules)
        self.times = times

    def act(self, view: View, rng: random.Random) -> int:
        start = time.perf_counter()
        action = super().act(view, rng)
        if len(view.legal) > 1:
            self.times.append((time.perf_counter() - start) * 1000)
        return action


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hands", type=int, default=1200, help="hands played (deals x 3)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--preset", default="sandingguai")
    args = parser.parse_args()
    rules = get_rules(args.preset)
    deals = max(1, args.hands // 3)
    times: list[float] = []
    start = time.perf_counter()
    result = duplicate_match(rules, deals, args.seed, lambda: TimedGreedy(rules, times), RandomBot)
    elapsed = time.perf_counter() - start
    per_deal = result.per_deal()
    mean = statistics.fmean(per_deal)
    half = 1.96 * statistics.stdev(per_deal) / len(per_deal) ** 0.5 if len(per_deal) > 1 else 0.0
    greedy_seats = [net[seat] for _, seat, net in result.rows]
    wins = sum(1 for p in greedy_seats if p > 0)
    times.sort()
    hands = len(result.rows)
    print(f"preset {rules.id}, {deals} deals x 3 seatings = {hands} hands, seed {args.seed}")
    low, high = mean - half, mean + half
    print(f"greedy vs 2 random: {mean:+.2f} points/hand (95% CI {low:+.2f} .. {high:+.2f})")
    print(f"greedy hands won on points: {wins}/{len(greedy_seats)}; ledger {result.ledger()}")
    print(
        f"greedy decision time: median {statistics.median(times):.3f} ms, "
        f"p90 {times[int(0.9 * (len(times) - 1))]:.3f} ms over {len(times)} decisions"
    )
    print(f"wall time {elapsed:.1f} s")


if __name__ == "__main__":
    main()
