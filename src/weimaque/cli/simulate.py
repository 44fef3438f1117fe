"""``wmq simulate``: random legal play of any game through the seam, with invariant checks.

Every hand is dealt by ``Game.new_hand`` (seed ``seed + k``, the dealer ``(seed + k) % seats``)
and played with uniformly random legal actions, one seat at a time in the order ``to_act()``
names them. With ``--check`` the seam's own checks run after every action (whoever must act has
a legal action and ``verify`` takes it; a finished hand has an outcome whose points sum to zero
for a zero-sum game) and, for a game with the ``"invariants"`` capability, the game's own.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from weimaque.errors import WeimaqueError
from weimaque.games import Game, Hand, Invariants


@dataclass
class SimulationStats:
    """Counts from a run of random hands."""

    games: int = 0
    actions: int = 0
    wins: int = 0
    #: Hands nobody won (偎麻雀's 臭, 三丁拐's 荒庄).
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


def seam_checks(game: Game, hand: Hand) -> list[str]:
    """The seam's checks of a hand now: who must act has a legal action that ``verify``
    takes; a finished hand has an outcome summing as the game declares."""
    problems: list[str] = []
    if hand.is_terminal():
        outcome = hand.outcome()
        if outcome is None:
            problems.append("a finished hand has no outcome")
        elif game.info.zero_sum and sum(outcome.net) != 0:
            problems.append(f"a zero-sum hand's points sum to {sum(outcome.net)}: {outcome.net}")
        return problems
    to_act = hand.to_act()
    if not to_act:
        problems.append("a hand in progress has nobody to act")
    for seat in to_act:
        legal = hand.legal_actions(seat)
        if not legal:
            problems.append(f"seat {seat} must act and has no legal action")
            continue
        try:
            hand.verify(seat, legal[0])
        except WeimaqueError as exc:
            problems.append(f"seat {seat}: verify refuses its legal action {legal[0]}: {exc}")
    return problems


def checks(game: Game, hand: Hand) -> list[str]:
    """The seam's checks and, with the ``"invariants"`` capability, the game's own."""
    problems = seam_checks(game, hand)
    if isinstance(game, Invariants):
        problems += game.invariants(hand)
    return problems


def play_random_hand(
    game: Game,
    variant: str,
    options: dict[str, object],
    seed: int,
    rng: random.Random,
    check: bool,
    stats: SimulationStats,
) -> list[str]:
    """Play one hand with uniformly random legal actions; return the problems found."""
    seats = game.shape(variant, options).seats
    hand = game.new_hand(variant, options, seed, seed % seats)
    problems = checks(game, hand) if check else []
    while not hand.is_terminal():
        seat = hand.to_act()[0]
        hand.apply(seat, rng.choice(hand.legal_actions(seat)))
        stats.actions += 1
        if check:
            problems += checks(game, hand)
    stats.games += 1
    outcome = hand.outcome()
    if outcome is not None and outcome.winners:
        stats.wins += 1
    else:
        stats.chou += 1
    if problems:
        stats.invariant_failures += 1
    return problems


__all__ = ["SimulationStats", "checks", "play_random_hand", "seam_checks"]
