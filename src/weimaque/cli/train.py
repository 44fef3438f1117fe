"""The arena the CLI lends a game's front end (:class:`weimaque.games.ArenaRun`): ``wmq train``
weighs each checkpoint of 偎麻雀's net bot with it (docs/bots.md), the game's package importing
no platform."""

from __future__ import annotations

import math
from pathlib import Path

from weimaque.arena import ArenaConfig, deals_for_hands, run_arena
from weimaque.games import ArenaRun

#: The game ``wmq train`` trains for (its front end offers the command).
TRAIN_GAME = "maque"


def arena_for(game: str) -> ArenaRun:
    """An :class:`ArenaRun` of ``game``: duplicate deals, every seating of the line-up."""

    def run(
        bots: tuple[str, ...],
        hands: int,
        seed: int,
        workers: int,
        backend: str,
        address: str | None,
    ) -> dict[str, object]:
        config = ArenaConfig(
            bots,
            deals_for_hands(hands, math.factorial(len(bots))),
            seed=seed,
            workers=workers,
            backend=backend,
            address=address,
            game=game,
        )
        first = run_arena(config).bots[0]
        return {
            "hands": first.hands,
            "points_per_hand": round(first.points_per_hand, 3),
            "ci95": [round(first.ci95[0], 3), round(first.ci95[1], 3)],
            "win_rate": round(first.win_rate, 4),
        }

    return run


def evaluate(
    weights: Path,
    hands: int,
    seed: int,
    workers: int,
    backend: str = "local",
    address: str | None = None,
) -> dict[str, object]:
    """Arena of ``net:weights=…`` against two greedy bots (what ``wmq train`` weighs each
    checkpoint with): its points per hand and interval; ``backend="ray"`` the same figures."""
    run = arena_for(TRAIN_GAME)
    return run(
        (f"net:weights={weights}", "greedy", "greedy"), hands, seed, workers, backend, address
    )


__all__ = ["TRAIN_GAME", "arena_for", "evaluate"]
