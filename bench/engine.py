"""Engine throughput on one core: random legal hands per second, against RLCard's mahjong.

Run: ``.venv/bin/python bench/engine.py [--games N]``. The peer (RLCard's random-play mahjong,
``pip install '.[bench]'``) is measured in the same run; without it only our figure is printed.
"""

from __future__ import annotations

import argparse
import random
import time

from weimaque.game.state import GameState


def ours(games: int, seed: int) -> tuple[float, float]:
    """Hands per second and actions per second with uniformly random legal actions."""
    rng = random.Random(seed)
    actions = 0
    start = time.perf_counter()
    for k in range(games):
        state = GameState.new("anxiang", seed + k, dealer=k % 3)
        while not state.is_terminal():
            seat = state.current_player()
            state.apply(seat, rng.choice(state.legal_actions(seat)))
            actions += 1
    elapsed = time.perf_counter() - start
    return games / elapsed, actions / elapsed


def rlcard_mahjong(games: int, seed: int) -> float | None:
    """RLCard mahjong games per second with its random agents, or None if not installed."""
    try:
        import rlcard
        from rlcard.agents import RandomAgent
    except ImportError:
        return None
    env = rlcard.make("mahjong", config={"seed": seed})
    env.set_agents([RandomAgent(num_actions=env.num_actions) for _ in range(env.num_players)])
    start = time.perf_counter()
    for _ in range(games):
        env.run(is_training=False)
    return games / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--peer-games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    hands_per_s, actions_per_s = ours(args.games, args.seed)
    print(f"weimaque random hands/s   : {hands_per_s:9.1f}  ({actions_per_s:.0f} actions/s)")
    peer = rlcard_mahjong(args.peer_games, args.seed)
    if peer is None:
        print("rlcard not installed: pip install '.[bench]' to measure the peer")
        return
    print(f"rlcard mahjong games/s    : {peer:9.1f}")
    print(f"ratio                     : {hands_per_s / peer:9.1f}x")


if __name__ == "__main__":
    main()
