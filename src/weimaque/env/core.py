"""What every environment shares: the hand, the seeds, the observation and the action mask.

Observation: the engine's documented flat array (``observation_array`` of
:mod:`weimaque.game.observation`, ``OBS_SIZE`` entries, seat-relative) and a separate
``action_mask`` of ``NUM_ACTIONS`` int8 entries over the fixed action ids
(:mod:`weimaque.game.actions`). Rewards are the points of the hand when it ends (RULES §8.3: each
loser pays the winner his total), 0 before. A seed deals exactly the hand
``GameState.new(rules, seed, dealer)`` deals (RULES §2.2).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from weimaque.errors import WeimaqueError
from weimaque.game.actions import NUM_ACTIONS, Action
from weimaque.game.observation import OBS_SIZE, observation_array, observation_text
from weimaque.game.state import NUM_SEATS, GameState
from weimaque.rules.config import RuleConfig
from weimaque.rules.registry import get_rules

AGENTS: Final = tuple(f"seat_{s}" for s in range(NUM_SEATS))
#: An upper bound of every entry of the flat array (no count exceeds the 80 cards).
OBS_HIGH: Final = 80.0


def agent_seat(agent: str) -> int:
    """The seat of an agent name ``seat_N``."""
    if agent not in AGENTS:
        raise WeimaqueError(f"no agent {agent!r}; agents are {', '.join(AGENTS)}")
    return AGENTS.index(agent)


def make_rules(rules: str | RuleConfig, options: Mapping[str, Any] | None) -> RuleConfig:
    """A preset (id, alias or config) with rule options changed (``RuleConfig.with_options``)."""
    config = get_rules(rules)
    return config.with_options(**dict(options)) if options else config


def action_mask(state: GameState, seat: int) -> npt.NDArray[np.int8]:
    """1 for every action id ``seat`` may take now, else 0."""
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    for a in state.legal_actions(seat):
        mask[a.id] = 1
    return mask


class HandTable:
    """One hand at a time under fixed rules; seeds for unseeded resets come from the last seed."""

    def __init__(
        self,
        rules: str | RuleConfig = "anxiang",
        options: Mapping[str, Any] | None = None,
        dealer: int = 0,
    ) -> None:
        if dealer not in range(NUM_SEATS):
            raise WeimaqueError(f"dealer must be 0, 1 or 2, not {dealer!r}")
        self.rules = make_rules(rules, options)
        self.dealer = dealer
        self._seeds = random.Random()
        self.seed = 0
        self.state = GameState.new(self.rules, 0, dealer)

    def reset(self, seed: int | None = None) -> GameState:
        """Deal a new hand: ``seed`` fixes it (RULES §2.2); without one the next seed is drawn."""
        if seed is not None:
            if not isinstance(seed, int) or seed < 0:
                raise WeimaqueError(f"seed must be a non-negative int, not {seed!r}")
            self._seeds.seed(seed)
            self.seed = seed
        else:
            self.seed = self._seeds.getrandbits(63)
        self.state = GameState.new(self.rules, self.seed, self.dealer)
        return self.state

    def observe(self, seat: int) -> dict[str, npt.NDArray[Any]]:
        """``{"observation": flat float32 array, "action_mask": int8 mask}`` for one seat."""
        return {
            "observation": observation_array(self.state, seat),
            "action_mask": action_mask(self.state, seat),
        }

    def step(self, seat: int, action_id: int) -> None:
        """Apply an action id for ``seat``; an illegal one raises ``IllegalAction``, unchanged."""
        self.state.apply(seat, Action.from_id(int(action_id)))

    def render(self) -> str:
        """The table as a spectator sees it (no hidden card), as text."""
        return observation_text(self.state, "public")


__all__ = ["AGENTS", "OBS_HIGH", "OBS_SIZE", "HandTable", "action_mask", "agent_seat", "make_rules"]
