"""Engine and environment throughput on one core, against RLCard's mahjong in the same run.

Run: ``.venv/bin/python bench/engine.py [--games N]``. Two figures, each beside its peer:

- random hands/s: uniformly random legal actions on the engine (``GameState``), against RLCard's
  mahjong games/s with its random agents (``env.run``);
- env steps/s: the PettingZoo AEC environment (``weimaque.env``, observation arrays and masks built
  at every step) with random masked actions, against RLCard's mahjong environment stepped the
  same way (``env.step`` with a random legal action, its observation built at every step).

Times are CPU seconds of this process (``time.process_time``), so a busy shared machine slows
both sides alike; each figure is the best of ``--repeat`` rounds. The peers need
``pip install -e '.[bench]'`` (RLCard) and the environment ``.[env]``; a missing one is skipped.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from weimaque.game.state import GameState
from weimaque.rules.registry import get_rules


def best_rate(fn: Callable[[], tuple[int, float]], repeat: int) -> float:
    """The best of ``repeat`` rounds of ``fn`` (which returns (units, seconds)), in units/s."""
    rates = []
    for _ in range(repeat):
        units, seconds = fn()
        rates.append(units / seconds)
    return max(rates)


def ours(games: int, seed: int) -> tuple[int, float]:
    """Random legal hands on the engine: (hands, CPU seconds)."""
    rules = get_rules("anxiang")
    rng = random.Random(seed)
    start = time.process_time()
    for k in range(games):
        state = GameState.new(rules, seed + k, dealer=k % 3)
        while not state.is_terminal():
            seat = state.current_player()
            state.apply(seat, rng.choice(state.legal_actions(seat)))
    return games, time.process_time() - start


def ours_env(steps: int, seed: int) -> tuple[int, float]:
    """PettingZoo AEC steps with random masked actions: (steps, CPU seconds)."""
    import weimaque.env

    env = weimaque.env.raw_env()
    rng = np.random.default_rng(seed)
    done = 0
    hand = seed
    start = time.process_time()
    while done < steps:
        env.reset(seed=hand)
        hand += 1
        for _agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            done += 1
    return done, time.process_time() - start


def rlcard_env(seed: int) -> Any:
    """RLCard's mahjong environment, or None if RLCard is not installed."""
    try:
        import rlcard
    except ImportError:
        return None
    return rlcard.make("mahjong", config={"seed": seed})


def rlcard_games(env: Any, games: int) -> tuple[int, float]:
    """RLCard mahjong games with its random agents: (games, CPU seconds)."""
    from rlcard.agents import RandomAgent

    env.set_agents([RandomAgent(num_actions=env.num_actions) for _ in range(env.num_players)])
    start = time.process_time()
    for _ in range(games):
        env.run(is_training=False)
    return games, time.process_time() - start


def rlcard_steps(env: Any, steps: int, seed: int) -> tuple[int, float]:
    """RLCard mahjong env steps with random legal actions: (steps, CPU seconds)."""
    rng = random.Random(seed)
    done = 0
    start = time.process_time()
    while done < steps:
        state, _ = env.reset()
        while not env.is_over():
            action = rng.choice(list(state["legal_actions"]))
            state, _ = env.step(action)
            done += 1
    return done, time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--peer-games", type=int, default=200)
    parser.add_argument("--steps", type=int, default=20000, help="env steps per round")
    parser.add_argument("--peer-steps", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    hands_per_s = best_rate(lambda: ours(args.games, args.seed), args.repeat)
    print(f"weimaque random hands/s      : {hands_per_s:9.1f}")
    peer = rlcard_env(args.seed)
    if peer is None:
        print("rlcard not installed: pip install -e '.[bench]' to measure the peer")
    else:
        games_per_s = best_rate(lambda: rlcard_games(peer, args.peer_games), args.repeat)
        print(f"rlcard mahjong games/s       : {games_per_s:9.1f}")
        print(f"ratio                        : {hands_per_s / games_per_s:9.1f}x")
    try:
        steps_per_s = best_rate(lambda: ours_env(args.steps, args.seed), args.repeat)
    except ImportError:
        print("pettingzoo not installed: pip install -e '.[env]' to measure the environment")
        return
    print(f"weimaque PettingZoo steps/s  : {steps_per_s:9.1f}")
    if peer is not None:
        peer_steps = best_rate(lambda: rlcard_steps(peer, args.peer_steps, args.seed), args.repeat)
        print(f"rlcard mahjong env steps/s   : {peer_steps:9.1f}")
        print(f"ratio                        : {steps_per_s / peer_steps:9.1f}x")


if __name__ == "__main__":
    main()
