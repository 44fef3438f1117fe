"""The opponent model that ``mcts:infer`` reads the table with, fitted to greedy's self-play.

Prints, over greedy self-play, the mean log-likelihood per discard of greedy's actual discards
under the rollout policy's valuation as a softmax with sharpness ``beta`` (``inference.BETA`` is the
best of the grid; ``beta`` 0 is a uniform pick), and how often greedy takes the 碰 and the 吃 it
is offered (``inference._PENG_PASS`` is the log of the 碰 it lets go).

Run: ``.venv/bin/python research/discard_model.py --hands 60`` (about half a minute).
"""

from __future__ import annotations

import argparse
import math
import random

from weimaque.games.maque.analysis.arrange import melds_xi
from weimaque.games.maque.bots import get_bot
from weimaque.games.maque.bots.base import BotView
from weimaque.games.maque.bots.policy import discard_values
from weimaque.games.maque.game.state import GameState


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hands", type=int, default=60)
    parser.add_argument("--seed", type=int, default=5000)
    args = parser.parse_args()
    greedy = get_bot("greedy")
    discards: list[tuple[list[float], int]] = []
    offers = {"peng": [0, 0], "chi": [0, 0]}
    for n in range(args.hands):
        state = GameState.new("anxiang", args.seed + n, dealer=n % 3)
        rng = random.Random(n)
        while not state.is_terminal():
            seat = state.current_player()
            view = BotView.of(state, seat)
            action = greedy.act(view, rng)
            kinds = {a.kind for a in view.legal}
            if state.phase == "discard" and len(view.legal) > 1:
                faces = [a.face for a in view.legal if a.face is not None]
                melds = state.melds[seat]
                values = discard_values(
                    state.hands[seat], faces, len(melds), melds_xi(melds), state.rules.min_xi
                )
                discards.append(([v for v, _ in values], faces.index(action.face or 0)))
            elif "hu" not in kinds:
                for kind in ("peng", "chi"):
                    if kind in kinds and (kind == "peng" or "peng" not in kinds):
                        offers[kind][0] += 1
                        offers[kind][1] += action.kind == kind
            state.apply(seat, action)
    print(f"{len(discards)} discards of greedy in {args.hands} hands of its self-play")
    for beta in (0.0, 2.0, 4.0, 8.0, 12.0, 16.0, 24.0):
        total = 0.0
        for values, chosen in discards:
            top = max(values)
            z = sum(math.exp(beta * (v - top)) for v in values)
            total += beta * (values[chosen] - top) - math.log(z)
        print(f"beta {beta:5.1f}: mean log-likelihood per discard {total / len(discards):+.3f}")
    for kind, (offered, taken) in offers.items():
        print(f"{kind}: taken {taken} of {offered} offers ({taken / max(1, offered):.0%})")


if __name__ == "__main__":
    main()
