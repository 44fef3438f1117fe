"""``wmq simulate``: random legal play, with invariant checks."""

from __future__ import annotations

import random
from dataclasses import dataclass

from weimaque.games.maque.game.invariants import check_end, check_step
from weimaque.games.maque.game.state import GameState
from weimaque.games.maque.rules.config import RuleConfig


@dataclass
class SimulationStats:
    """Counts from a run of random hands."""

    games: int = 0
    actions: int = 0
    wins: int = 0
    chou: int = 0
    invariant_failures: int = 0
    seconds: float = 0.0

    def to_dict(self) -> dict[str, float | int]:
        """The JSON object printed by ``wmq simulate --json``."""
        secs = max(self.seconds, 1e-9)
        return {
            "games": self.games,
            "seconds": round(self.seconds, 3),
            "games_per_s": round(self.games / secs, 1),
            "actions_per_s": round(self.actions / secs, 1),
            "wins": self.wins,
            "chou": self.chou,
            "invariant_failures": self.invariant_failures,
        }


def play_random_hand(
    rules: RuleConfig, seed: int, rng: random.Random, check: bool, stats: SimulationStats
) -> list[str]:
    """Play one hand with uniformly random legal actions; return invariant problems found."""
    state = GameState.new(rules, seed, dealer=seed % 3)
    problems = check_step(state) if check else []
    while not state.is_terminal():
        seat = state.current_player()
        state.apply(seat, rng.choice(state.legal_actions(seat)))
        stats.actions += 1
        if check:
            problems += check_step(state)
    if check:
        problems += check_end(state)
    stats.games += 1
    if state.result is not None and state.result.winner is not None:
        stats.wins += 1
    else:
        stats.chou += 1
    if problems:
        stats.invariant_failures += 1
    return problems
