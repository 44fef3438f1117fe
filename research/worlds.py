"""How close are the search's sampled worlds to the real hands? Opponents' waits, measured.

At every fourth discard decision of greedy self-play (after the first 15 events), the seat's view
is determinized by uniform sampling (``mcts``'s default) and by the chain that reads the opponents'
play (research/chain.py, as the former ``mcts:infer=5``: 100 steps of burn-in, 5 between worlds),
five worlds each, and each
opponent's concealed hand is compared with the real one:

- *waiting*: the share of opponents' hands that one more card completes into groups + 麻雀
  (RULES §6.1), real and sampled;
- *true waits*: of the faces a sampled hand waits on, the share that the real hand waits on too
  (over the positions where both wait);
- *shared cards*: the share of the real hand's cards that the sampled hand holds.

Run: ``.venv/bin/python research/worlds.py --hands 25 --seed 7000`` (about a minute).
"""

from __future__ import annotations

import argparse
import random
import statistics

import chain
from inference import seat_loglik
from weimaque.games.maque.analysis.decompose import completions
from weimaque.games.maque.bots import get_bot
from weimaque.games.maque.bots.base import BotView
from weimaque.games.maque.bots.determinize import Knowledge
from weimaque.games.maque.game.state import NUM_SEATS, GameState


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hands", type=int, default=25)
    parser.add_argument("--seed", type=int, default=7000)
    parser.add_argument("--worlds", type=int, default=5)
    args = parser.parse_args()
    greedy = get_bot("greedy")
    waiting: dict[str, list[bool]] = {"real": [], "uniform": [], "infer=5": []}
    true_waits: dict[str, list[float]] = {"uniform": [], "infer=5": []}
    shared: dict[str, list[float]] = {"uniform": [], "infer=5": []}
    for n in range(args.hands):
        state = GameState.new("anxiang", args.seed + n, dealer=n % NUM_SEATS)
        rng = random.Random(n)
        step = 0
        while not state.is_terminal():
            seat = state.current_player()
            view = BotView.of(state, seat)
            if state.phase == "discard" and step % 4 == 0 and len(view.history) > 15:
                k = Knowledge.of(view)
                streams = {
                    "uniform": k.worlds(random.Random(step)),
                    "infer=5": chain.worlds(k, random.Random(step), seat_loglik, burn=100, thin=5),
                }
                opponents = [s for s in range(NUM_SEATS) if s != seat]
                real = {s: set(completions(tuple(state.hands[s]))) for s in opponents}
                waiting["real"] += [bool(real[s]) for s in opponents]
                for name, stream in streams.items():
                    for _ in range(args.worlds):
                        world = next(stream)
                        for s in opponents:
                            sampled = set(completions(tuple(world.hands[s])))
                            waiting[name].append(bool(sampled))
                            if real[s] and sampled:
                                true_waits[name].append(len(real[s] & sampled) / len(sampled))
                            held = sum(state.hands[s])
                            common = sum(map(min, zip(world.hands[s], state.hands[s], strict=True)))
                            shared[name].append(common / max(1, held))
            state.apply(seat, greedy.act(view, rng))
            step += 1
    for name, flags in waiting.items():
        line = f"{name:8}  waiting {statistics.mean(flags):6.1%} of {len(flags):5} hands"
        if name in true_waits:
            tw = true_waits[name]
            share = f"{statistics.mean(tw):6.1%} over {len(tw):4}" if tw else "     – over    0"
            line += f"   true waits {share}   shared cards {statistics.mean(shared[name]):6.1%}"
        print(line)


if __name__ == "__main__":
    main()
