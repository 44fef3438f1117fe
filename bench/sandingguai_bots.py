"""三丁拐 bots: GreedyBot's points per hand against two RandomBots, and its decision time.

Run: ``.venv/bin/python bench/sandingguai_bots.py [--hands 1200] [--seed 1] [--preset ID]
[--workers 2]``. One arena (:mod:`weimaque.arena`, the same as ``wmq arena --game sandingguai
--bots greedy,random,random --hands 1200 --seed 1``): duplicate deals, each seeded deal played
in all six seatings of greedy and the two random bots (the dealer is seat 0); ``--hands``
counts hands played (rounded up to whole deals of 6). The 95% interval is Student's t over the
per-deal means (a deal's six seatings averaged, so the deal's luck cancels). The decision time
is the arena's: median and p90 over every call of GreedyBot's ``act``, trivial ones included
(wall clock, and the process's CPU time).
"""

from __future__ import annotations

import argparse

from weimaque.arena import ArenaConfig, deals_for_hands, run_arena

SEATINGS = 6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hands", type=int, default=1200, help="hands played (deals x 6)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--preset", default="sandingguai")
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    config = ArenaConfig(
        ("greedy", "random", "random"),
        deals_for_hands(args.hands, SEATINGS),
        rules=args.preset,
        seed=args.seed,
        rotations=SEATINGS,
        workers=args.workers,
        game="sandingguai",
    )
    result = run_arena(config)
    c = result.config
    greedy, *randoms = result.bots
    print(f"preset {c.rules}, {c.deals} deals x {c.rotations} seatings = {result.hands} hands")
    print(f"seed {c.seed}")
    low, high = greedy.ci95
    print(
        f"greedy vs 2 random: {greedy.points_per_hand:+.2f} points/hand "
        f"(95% CI {low:+.2f} .. {high:+.2f})"
    )
    for r in randoms:
        print(f"{r.name}: {r.points_per_hand:+.2f} points/hand")
    print(
        f"greedy win rate {greedy.win_rate:.1%}, {greedy.mean_total_per_win:.1f} points per win; "
        f"hands nobody won (荒庄) {greedy.chou_rate:.1%}"
    )
    print(
        f"greedy decision time: median {greedy.median_decision_ms:.3f} ms, "
        f"p90 {greedy.p90_decision_ms:.3f} ms over {greedy.decisions} decisions "
        f"(CPU median {greedy.median_decision_cpu_ms:.3f} ms)"
    )
    print(f"wall time {result.seconds:.1f} s")


if __name__ == "__main__":
    main()
