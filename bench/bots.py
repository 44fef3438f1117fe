"""Decision time of every bot on one core: median and p90 milliseconds per non-trivial decision.

Run: ``.venv/bin/python bench/bots.py [--hands N] [--bots random,greedy,net,mcts:iters=200]``.
Each listed bot plays ``N`` seeded hands against two ``greedy`` bots, its seat rotating; a
decision counts when the seat had more than one legal action, and only the time inside ``act``
is measured. The ratio column compares each bot's median with greedy's from the same run.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from weimaque.arena import split_bot_specs
from weimaque.games.maque.bots import get_bot
from weimaque.games.maque.bots.base import BotView
from weimaque.games.maque.game.state import GameState

DEFAULT = "random,greedy,net,mcts:iters=200,mcts:ms=300"


def decision_times(spec: str, hands: int, seed: int) -> tuple[list[float], list[float]]:
    """Wall and CPU milliseconds per non-trivial decision of ``spec`` against two greedy bots."""
    bots = [get_bot(spec), get_bot("greedy"), get_bot("greedy")]
    times: list[float] = []
    cpu: list[float] = []
    for k in range(hands):
        state = GameState.new("anxiang", seed + k, dealer=k % 3)
        rng = random.Random(seed + k)
        while not state.is_terminal():
            seat = state.current_player()
            index = (seat - k) % 3  # the measured bot sits in seat k % 3
            view = BotView.of(state, seat)
            start = time.perf_counter()
            start_cpu = time.process_time()
            action = bots[index].act(view, rng)
            elapsed = (time.perf_counter() - start) * 1000
            elapsed_cpu = (time.process_time() - start_cpu) * 1000
            if index == 0 and len(view.legal) > 1:
                times.append(elapsed)
                cpu.append(elapsed_cpu)
            state.apply(seat, action)
    return times, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hands", type=int, default=6)
    parser.add_argument("--bots", default=DEFAULT)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    results = {
        spec: decision_times(spec, args.hands, args.seed) for spec in split_bot_specs(args.bots)
    }
    greedy = results.get("greedy") or decision_times("greedy", args.hands, args.seed)
    g_med = statistics.median(greedy[1])
    print(
        f"{args.hands} hands per bot against two greedy bots, non-trivial decisions; wall-clock "
        "and CPU (process) time; ratio = CPU median / greedy's CPU median"
    )
    for name, (ms, cpu) in results.items():
        if not ms:
            continue
        p90 = sorted(ms)[int(0.9 * (len(ms) - 1))]
        cpu90 = sorted(cpu)[int(0.9 * (len(cpu) - 1))]
        med = statistics.median(cpu)
        print(
            f"{name:24s} decisions {len(ms):4d}  wall median {statistics.median(ms):8.2f} ms"
            f"  p90 {p90:8.2f} ms  CPU median {med:8.2f} ms  p90 {cpu90:8.2f} ms"
            f"  ratio {med / g_med:7.2f}"
        )


if __name__ == "__main__":
    main()
