"""The bot ladder: every bot against two copies of every other, as a markdown table.

Run: ``.venv/bin/python bench/ladder.py [--hands 120] [--slow-hands 60] [--seed 3] [--workers 2]
[--bots random,policy,greedy,net,mcts:iters=100] [--with mcts] [--json out.json]``.

Each row is one arena (:mod:`weimaque.arena`, duplicate deals, all six seatings) of bot A against
two copies of bot B; A's points per hand with the 95% interval, win rate, mean total per win,
臭 rate, and A's median and p90 decision time (wall clock, every decision, and CPU). Arenas with an
``mcts`` bot on either side play ``--slow-hands`` hands (the search is ~100x slower). ``--with
NAME`` plays only the rows where A or B is that bot (by name, before any ``:``), to add one bot's
rows to an existing table.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from weimaque.arena import ArenaConfig, deals_for_hands, run_arena, split_bot_specs

DEFAULT = "random,policy,greedy,net,mcts:iters=100"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--bots", default=DEFAULT)
    parser.add_argument("--hands", type=int, default=120)
    parser.add_argument("--slow-hands", type=int, default=60)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--json", default=None, help="Also write every arena's JSON here.")
    parser.add_argument("--with", dest="only", default=None, help="Only rows with this bot.")
    args = parser.parse_args()
    specs = split_bot_specs(args.bots)
    rows = []
    print(
        "| A | B (×2) | hands | A points/hand | 95% CI | A win rate | A total/win | 臭 "
        "| A median ms | A p90 ms | A median CPU ms |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for a in specs:
        for b in specs:
            if a == b:
                continue
            if args.only and args.only not in (a.split(":")[0], b.split(":")[0]):
                continue
            slow = a.startswith("mcts") or b.startswith("mcts")
            hands = args.slow_hands if slow else args.hands
            config = ArenaConfig(
                (a, b, b), deals_for_hands(hands, 6), seed=args.seed, workers=args.workers
            )
            start = time.perf_counter()
            result = run_arena(config)
            s = result.bots[0]
            rows.append(result.to_dict())
            print(
                f"| {a} | {b} | {s.hands} | {s.points_per_hand:+.2f} "
                f"| [{s.ci95[0]:+.2f}, {s.ci95[1]:+.2f}] | {s.win_rate:.1%} "
                f"| {s.mean_total_per_win:.1f} | {s.chou_rate:.1%} | {s.median_decision_ms:.2f} "
                f"| {s.p90_decision_ms:.2f} | {s.median_decision_cpu_ms:.2f} |",
                flush=True,
            )
            print(f"  ({time.perf_counter() - start:.0f} s)", file=sys.stderr, flush=True)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(rows, f, ensure_ascii=False, indent=1)


if __name__ == "__main__":
    main()
