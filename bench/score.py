"""Scoring throughput on one core: winning hands scored per second, and waits per second.

Run: ``.venv/bin/python bench/score.py [--hands N]``. The peer of each figure is the same work
with the decomposition cache cleared before every hand (the cold path), printed with the ratio.
"""

from __future__ import annotations

import argparse
import random
import time

from weimaque.games.maque.analysis.decompose import _groups, _with_pair, splits
from weimaque.games.maque.analysis.generate import random_hand
from weimaque.games.maque.cards import counts_of
from weimaque.games.maque.notation import HandDescription, Source
from weimaque.games.maque.scoring import score_description, waits


def _clear() -> None:
    for fn in (splits, _groups, _with_pair):
        fn.cache_clear()


def winning_hands(n: int, seed: int) -> list[tuple[HandDescription, Source]]:
    """n random hands that win under the default preset."""
    rng = random.Random(seed)
    out: list[tuple[HandDescription, Source]] = []
    while len(out) < n:
        desc, source = random_hand(rng)
        if score_description(desc, source=source).winning:
            out.append((desc, source))
    return out


def rate(hands: list[tuple[HandDescription, Source]], cold: bool) -> float:
    start = time.perf_counter()
    for desc, source in hands:
        if cold:
            _clear()
        score_description(desc, source=source)
    return len(hands) / (time.perf_counter() - start)


def wait_rate(hands: list[tuple[HandDescription, Source]]) -> float:
    positions = []
    for desc, _ in hands:
        positions.append((desc.melds, counts_of(desc.hand)))
    start = time.perf_counter()
    for melds, hand in positions:
        waits(melds, hand)
    return len(positions) / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hands", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    hands = winning_hands(args.hands, args.seed)
    _clear()
    cold = rate(hands, cold=True)
    _clear()
    warm_first = rate(hands, cold=False)
    warm = rate(hands, cold=False)
    w = wait_rate(hands[: max(1, args.hands // 5)])
    print(f"scored hands/s (cache filling) : {warm_first:10.0f}")
    print(f"scored hands/s (warm cache)    : {warm:10.0f}")
    print(f"scored hands/s (cold, peer)    : {cold:10.0f}")
    print(f"ratio warm/cold                : {warm / cold:10.2f}")
    print(f"waits computed/s (19 cards)    : {w:10.0f}")


if __name__ == "__main__":
    main()
