"""Decision time of the bots on one core: median and p90 milliseconds per non-trivial decision.

Run: ``.venv/bin/python bench/bots.py [--hands N] [--mcts mcts:ms=300]``. Each hand seats the
``mcts`` bot (given spec) against two ``greedy`` bots, seats rotating; a decision counts when the
seat had more than one legal action. Only the time inside ``act`` is measured.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from weimaque.bots import get_bot
from weimaque.bots.base import BotView
from weimaque.game.state import GameState


def decision_times(spec: str, hands: int, seed: int) -> dict[str, list[float]]:
    """Milliseconds per non-trivial decision, per bot spec, over ``hands`` seeded hands."""
    specs = [spec, "greedy", "greedy"]
    bots = [get_bot(s) for s in specs]
    times: dict[str, list[float]] = {"greedy": [], spec: []}
    for k in range(hands):
        state = GameState.new("anxiang", seed + k, dealer=k % 3)
        rng = random.Random(seed + k)
        while not state.is_terminal():
            seat = state.current_player()
            index = (seat - k) % 3  # the mcts bot sits in seat k % 3
            view = BotView.of(state, seat)
            start = time.perf_counter()
            action = bots[index].act(view, rng)
            elapsed = (time.perf_counter() - start) * 1000
            if len(view.legal) > 1:
                times[specs[index]].append(elapsed)
            state.apply(seat, action)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hands", type=int, default=6)
    parser.add_argument("--mcts", default="mcts")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    for name, ms in decision_times(args.mcts, args.hands, args.seed).items():
        if not ms:
            continue
        p90 = sorted(ms)[int(0.9 * (len(ms) - 1))]
        print(
            f"{name:24s} decisions {len(ms):5d}  median {statistics.median(ms):7.1f} ms"
            f"  p90 {p90:7.1f} ms  max {max(ms):7.1f} ms"
        )


if __name__ == "__main__":
    main()
