"""Random 20-card hands shaped as 6 groups + 麻雀, for tests, benchmarks and research."""

from __future__ import annotations

import random

from weimaque.games.maque.cards import COPIES, NUM_FACES
from weimaque.games.maque.notation import HandDescription, Meld, Source


def random_hand(rng: random.Random) -> tuple[HandDescription, Source]:
    """A random hand of 6 groups + a pair (no face over 4 copies), some groups laid as melds.

    The winning card is one of the concealed cards; the source is random. The hand is well
    formed but need not win (硬息 may be short, or a forced 偎 may break it).
    """
    while True:
        left = [COPIES] * NUM_FACES
        groups: list[tuple[str, list[int]]] = []
        ok = True
        for _ in range(6):
            for _attempt in range(20):
                if rng.random() < 0.45:
                    f = rng.randrange(NUM_FACES)
                    if left[f] >= 3:
                        left[f] -= 3
                        groups.append(("triple", [f, f, f]))
                        break
                else:
                    start = rng.randrange(2) * 10 + rng.randrange(8)
                    run = [start, start + 1, start + 2]
                    if all(left[f] for f in run):
                        for f in run:
                            left[f] -= 1
                        groups.append(("run", run))
                        break
            else:
                ok = False
                break
        pairs = [f for f in range(NUM_FACES) if left[f] >= 2]
        if not ok or not pairs:
            continue
        pair = rng.choice(pairs)
        melds: list[Meld] = []
        concealed: list[int] = [pair, pair]
        for kind, faces in groups:
            if rng.random() < 0.5:
                meld_kind = "chi" if kind == "run" else rng.choice(("peng", "wei"))
                melds.append(Meld.make(meld_kind, faces))
            else:
                concealed.extend(faces)
        win_index = rng.randrange(len(concealed))
        win = concealed.pop(win_index)
        source: Source = "self" if rng.random() < 0.5 else "other"
        return HandDescription(tuple(melds), tuple(sorted(concealed)), win), source
