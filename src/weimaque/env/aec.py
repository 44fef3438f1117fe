"""The PettingZoo AEC environment: three agents ``seat_0..seat_2`` play one hand.

The agent to act is the engine's ``current_player()``; in a claim window every seat with an option
answers in turn without seeing the others' answers (RULES §5.1). Each agent observes
``{"observation": flat array, "action_mask": mask}`` (:mod:`weimaque.env.core`). When the hand ends
every agent is terminated with its points as reward (RULES §8.3; the rewards sum to zero), and
``infos[agent]["result"]`` holds the winner, the winning total and whether it was 臭.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from weimaque.env.core import AGENTS, OBS_HIGH, HandTable, agent_seat
from weimaque.errors import WeimaqueError
from weimaque.game.actions import NUM_ACTIONS
from weimaque.game.observation import OBS_SIZE
from weimaque.game.state import GameState
from weimaque.rules.config import RuleConfig


def observation_space() -> spaces.Dict:
    """The space of one agent's observation."""
    return spaces.Dict(
        {
            "observation": spaces.Box(0.0, OBS_HIGH, (OBS_SIZE,), np.float32),
            "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), np.int8),
        }
    )


def result_info(state: GameState) -> dict[str, Any]:
    """How the hand ended, for ``infos``: winner seat (or None), total, 臭."""
    r = state.result
    if r is None:
        return {}
    total = 0 if r.breakdown is None else r.breakdown.total
    return {"winner": r.winner, "total": total, "chou": r.chou}


class WeimaqueAEC(AECEnv):  # type: ignore[misc]
    """One hand of 安乡偎麻雀 as a PettingZoo AEC environment (see the module docstring)."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "weimaque_v0",
        "render_modes": ["ansi"],
        "is_parallelizable": False,
    }

    def __init__(
        self,
        rules: str | RuleConfig = "anxiang",
        options: Mapping[str, Any] | None = None,
        dealer: int = 0,
        render_mode: str | None = None,
    ) -> None:
        """``rules``: preset id; ``options``: rule options changed (``RuleConfig.with_options``)."""
        super().__init__()
        if render_mode not in (None, "ansi"):
            raise WeimaqueError(f"render_mode must be None or 'ansi', not {render_mode!r}")
        self.table = HandTable(rules, options, dealer)
        self.render_mode = render_mode
        self.possible_agents = list(AGENTS)
        self.agents = list(AGENTS)
        self.observation_spaces = {a: observation_space() for a in AGENTS}
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in AGENTS}
        self._clear()

    def _clear(self) -> None:
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = AGENTS[max(self.table.state.current_player(), 0)]

    @property
    def state_(self) -> GameState:
        """The engine state of the hand being played (for tests and tools, not for agents)."""
        return self.table.state

    def observation_space(self, agent: str) -> spaces.Dict:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Discrete:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a new hand; ``seed`` deals exactly ``GameState.new(rules, seed, dealer)``."""
        self.table.reset(seed)
        self._clear()

    def observe(self, agent: str) -> dict[str, Any]:
        return self.table.observe(agent_seat(agent))

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise WeimaqueError(f"{agent} must act: None is only for a finished hand")
        self._cumulative_rewards[agent] = 0.0
        self.table.step(agent_seat(agent), int(action))
        state = self.table.state
        self.rewards = {a: 0.0 for a in self.agents}
        if state.is_terminal():
            returns = state.returns()
            info = result_info(state)
            for a in self.agents:
                self.rewards[a] = float(returns[agent_seat(a)])
                self.terminations[a] = True
                self.infos[a] = {"result": dict(info)}
        else:
            self.agent_selection = AGENTS[state.current_player()]
        self._accumulate_rewards()

    def render(self) -> str | None:
        """The table as a spectator sees it, as text (``render_mode="ansi"``)."""
        if self.render_mode is None:
            return None
        return self.table.render()

    def close(self) -> None:
        pass


def env(
    rules: str | RuleConfig = "anxiang",
    options: Mapping[str, Any] | None = None,
    dealer: int = 0,
    render_mode: str | None = None,
    illegal_reward: float = -1.0,
) -> Any:
    """The environment with PettingZoo's standard wrappers.

    An action outside the mask ends the hand for everyone, the acting agent getting
    ``illegal_reward`` (PettingZoo's ``TerminateIllegalWrapper``); the raw environment
    (``raw_env``) raises ``IllegalAction`` instead and changes nothing.
    """
    out: Any = WeimaqueAEC(rules, options, dealer, render_mode)
    out = wrappers.TerminateIllegalWrapper(out, illegal_reward=illegal_reward)
    out = wrappers.AssertOutOfBoundsWrapper(out)
    return wrappers.OrderEnforcingWrapper(out)
