"""The bot ladder of one game: every bot against copies of every other, as a markdown table.

Run: ``.venv/bin/python bench/ladder.py [--game maque] [--variant ID] [--options JSON]
[--hands 120] [--slow-hands 60] [--seed 3] [--workers 2]
[--bots random,policy,greedy,net,mcts:iters=100] [--with mcts] [--json out.json]``.

Each row is one arena (:mod:`weimaque.arena`, duplicate deals, every seating) of bot A against
copies of bot B in the other seats (two at a table of three); A's points per hand with the 95%
interval, win rate, mean total per win, 臭 rate (hands nobody wins), and A's median and p90
decision time (wall clock, every decision, and CPU). The bots default to 偎麻雀's research set
for ``maque`` and to every bot a game offers (``game.bots``) for the others. Arenas with an
``mcts`` bot on either side play ``--slow-hands`` hands (the search is ~100x slower). ``--with
NAME`` plays only the rows where A or B is that bot (by name, before any ``:``), to add one bot's
rows to an existing table.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time

from weimaque.arena import ArenaConfig, deals_for_hands, run_arena, split_bot_specs
from weimaque.games import get_game

#: 偎麻雀's ladder: its room bots and the research ones (docs/bots.md).
MAQUE_DEFAULT = "random,policy,greedy,net,mcts:iters=100"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--game", default="maque", help="The game, by id or alias.")
    parser.add_argument("--variant", "--rules", default=None, help="Preset; the game's first.")
    parser.add_argument("--options", default=None, help="Rule options as a JSON object.")
    parser.add_argument("--bots", default=None, help="Bot specs; default: the game's.")
    parser.add_argument("--hands", type=int, default=120)
    parser.add_argument("--slow-hands", type=int, default=60)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--json", default=None, help="Also write every arena's JSON here.")
    parser.add_argument("--with", dest="only", default=None, help="Only rows with this bot.")
    args = parser.parse_args()
    game = get_game(args.game)
    variant = args.variant or game.schema.variants[0].id
    options = json.loads(args.options) if args.options else {}
    seats = game.shape(variant, options).seats
    per_deal = math.factorial(seats)
    if args.bots is None:
        default = MAQUE_DEFAULT if game.info.id == "maque" else ",".join(b.name for b in game.bots)
        args.bots = default
    specs = split_bot_specs(args.bots)
    rows = []
    print(f"{game.info.names.zh} ({game.info.id}), preset {variant}, seed {args.seed}")
    print()
    print(
        f"| A | B (×{seats - 1}) | hands | A points/hand | 95% CI | A win rate | A total/win | 臭 "
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
                (a, *(b,) * (seats - 1)),
                deals_for_hands(hands, per_deal),
                rules=variant,
                seed=args.seed,
                workers=args.workers,
                game=game.info.id,
                options=options,
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
