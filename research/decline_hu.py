"""Is a winning 胡 ever worth declining? Rated from the true deal, and as the search sees it.

Every bot here takes a winning 胡 at once (``BotView.obvious``; RULES §4.7). The question is
when a small 胡 is better declined — for a 碰 or 吃 that makes a bigger hand, or a pass. At every
decision of greedy self-play where a 胡 is offered beside other actions, each action is rated by
``--rollouts`` paired rollouts from the **true** state (the stock's order shuffled), as a gain over
taking the 胡; then each search spec (``--bots``, separated by ``|``) decides from the seat's view
alone, with the 胡 among its candidates, and is credited with the true gain of its choice.

The report: how often declining would pay with the deal known (an upper bound nobody at the table
has), and what each search's declines are worth per offered 胡.

    python research/decline_hu.py --hands 150      # about 4 minutes on one core
"""

from __future__ import annotations

import argparse
import random

import numpy as np

from net_labels import rate
from weimaque.games.maque.bots import get_bot
from weimaque.games.maque.bots.base import BotView
from weimaque.games.maque.bots.greedy import GreedyBot
from weimaque.games.maque.bots.mcts import MctsBot
from weimaque.games.maque.game.state import GameState


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=150)
    parser.add_argument("--seed", type=int, default=777_000)
    parser.add_argument("--rollouts", type=int, default=200)
    parser.add_argument(
        "--bots",
        default="mcts:iters=300;keep=2|mcts:iters=300;keep=3;z=3|mcts:iters=1000;keep=3;z=3",
    )
    args = parser.parse_args()
    bots: dict[str, MctsBot] = {}
    for spec in args.bots.split("|"):
        bot = get_bot(spec)
        if not isinstance(bot, MctsBot):
            raise SystemExit(f"{spec!r} is not an mcts spec")
        bots[spec] = bot
    greedy = GreedyBot()
    rng = random.Random(args.seed)
    best: list[float] = []
    gains: dict[str, list[float]] = {spec: [] for spec in bots}
    declined = dict.fromkeys(bots, 0)
    offers = 0
    for n in range(args.hands):
        state = GameState.new("anxiang", args.seed + n, dealer=n % 3)
        while not state.is_terminal():
            seat = state.current_player()
            view = BotView.of(state, seat)
            legal = list(view.legal)
            hu = next((a for a in legal if a.kind == "hu"), None)
            if hu is not None and len(legal) > 1:
                offers += 1
                rated = rate(state, seat, legal, hu, args.rollouts, random.Random(n))
                top = max(rated, key=lambda a: rated[a][0])
                best.append(rated[top][0] if rated[top][0] > 2 * rated[top][1] else 0.0)
                for spec, bot in bots.items():
                    choice = bot.search(view, random.Random(n * 7 + 1)).choice
                    gains[spec].append(rated[choice][0])
                    declined[spec] += int(choice.kind != "hu")
            state.apply(seat, greedy.act(view, rng))
    print(f"{args.hands} hands of greedy self-play, {offers} 胡 offered beside other actions")
    paying = sum(1 for b in best if b > 0)
    print(
        f"  with the deal known: declining pays (by 2 standard errors) at {paying}"
        f" ({paying / max(1, offers):.0%}), worth {np.mean(best):+.2f} per offered 胡"
    )
    for spec, g in gains.items():
        a = np.array(g)
        declines = declined[spec]
        se = a.std(ddof=1) / np.sqrt(len(a)) if len(a) > 1 else float("nan")
        print(
            f"  {spec}: declines {declines} ({declines / max(1, offers):.0%}),"
            f" true gain {a.mean():+.2f} ± {se:.2f} per offered 胡"
        )


if __name__ == "__main__":
    main()
