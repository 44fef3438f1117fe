"""What the game protocol costs over the engine: random hands through the seam
(``weimaque.games``) against the same hands on each engine directly.

Run: ``.venv/bin/python bench/seam.py [--hands N] [--repeat R]``. Both sides play the same
seeds with the same random choices (a seat among those to act, then one of its legal actions);
times are CPU seconds of this process (``time.process_time``), the best of ``--repeat`` rounds.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Callable

from weimaque.games import get_game
from weimaque.games.maque.game.state import GameState
from weimaque.games.sandingguai import State, get_rules


def maque_engine(hands: int) -> None:
    """偎麻雀 on ``GameState``."""
    for seed in range(hands):
        st, rng = GameState.new("anxiang", seed), random.Random(seed)
        while not st.is_terminal():
            seat = rng.choice(st.to_act())
            st.apply(seat, rng.choice(st.legal_actions(seat)))


def sdg_engine(hands: int) -> None:
    """三丁拐 on ``State``."""
    rules = get_rules("sandingguai")
    for seed in range(hands):
        st, rng = State(rules, seed), random.Random(seed)
        while not st.is_terminal():
            seat = rng.choice(st.players_to_act())
            st.apply(rng.choice(st.legal_actions(seat)), seat)


def through_seam(game_id: str, variant: str) -> Callable[[int], None]:
    """The same hands through ``get_game(game_id)``."""
    game = get_game(game_id)

    def run(hands: int) -> None:
        for seed in range(hands):
            hand, rng = game.new_hand(variant, {}, seed), random.Random(seed)
            while not hand.is_terminal():
                seat = rng.choice(hand.to_act())
                hand.apply(seat, rng.choice(hand.legal_actions(seat)))

    return run


def best(run: Callable[[int], None], hands: int, repeat: int) -> float:
    """Best CPU seconds per hand over ``repeat`` rounds."""
    times = []
    for _ in range(repeat):
        start = time.process_time()
        run(hands)
        times.append(time.process_time() - start)
    return min(times) / hands


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    out = {}
    for name, engine, seam in (
        ("maque", maque_engine, through_seam("maque", "anxiang")),
        ("sandingguai", sdg_engine, through_seam("sandingguai", "sandingguai")),
    ):
        e, s = best(engine, args.hands, args.repeat), best(seam, args.hands, args.repeat)
        out[name] = {"engine_ms": round(e * 1000, 3), "seam_ms": round(s * 1000, 3)}
        out[name]["ratio"] = round(s / e, 2)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
