"""A long arena that can be cut off: every finished deal is logged, and a summary is kept.

Run: ``.venv/bin/python research/confirm.py --bots 'mcts:iters=300;keep=2,greedy,greedy'
--hands 1200 --seed 1 --workers 2 --out confirm`` writes ``confirm.jsonl`` (one finished deal
per line, in deal order) and rewrites ``confirm.json`` (the :mod:`weimaque.arena` summary of
the deals finished so far) every ``--every`` deals, so a run stopped early still reports the
figures of the hands it played, with their count.

``WMQ_BOT_SALT=S`` (environment, so that spawned workers see it too) gives every bot other random
numbers on the same deals: ``bot_rng`` seeded with ``S`` added. Two bots that use their random
numbers alike (the same search under two budgets, say) make the same choices wherever their
budgets agree, so their paired difference understates the noise; the same bot with a salt is the
control that measures it.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import random
import time
from pathlib import Path

import weimaque.arena as arena
from weimaque.arena import (
    ArenaConfig,
    DealResult,
    deals_for_hands,
    run_arena,
    split_bot_specs,
    summarize,
)

SALT = os.environ.get("WMQ_BOT_SALT")
if SALT:

    def _salted(seed: int, deal: int, rotation: int, seat: int) -> random.Random:
        return random.Random(f"arena:{seed}:{deal}:{rotation}:{seat}:salt:{SALT}")

    arena.bot_rng = _salted


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--bots", required=True)
    parser.add_argument("--hands", type=int, default=1200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--every", type=int, default=5)
    parser.add_argument("--out", default="confirm")
    args = parser.parse_args()
    specs = split_bot_specs(args.bots)
    config = ArenaConfig(
        (specs[0], specs[1], specs[2]),
        deals_for_hands(args.hands, 6),
        seed=args.seed,
        workers=args.workers,
    )
    log = Path(args.out + ".jsonl")
    summary = Path(args.out + ".json")
    done: list[DealResult] = []
    start = time.perf_counter()
    log.write_text("", "utf-8")

    def record(r: DealResult) -> None:
        done.append(r)
        with log.open("a", encoding="utf-8") as f:
            f.write(json.dumps(dataclasses.asdict(r)) + "\n")
        if len(done) % args.every == 0:
            part = dataclasses.replace(config, deals=len(done))
            result = summarize(part, done, time.perf_counter() - start)
            summary.write_text(json.dumps(result.to_dict(), ensure_ascii=False) + "\n", "utf-8")

    result = run_arena(config, record)
    summary.write_text(json.dumps(result.to_dict(), ensure_ascii=False) + "\n", "utf-8")
    print(json.dumps(result.to_dict(), ensure_ascii=False))


if __name__ == "__main__":
    main()
