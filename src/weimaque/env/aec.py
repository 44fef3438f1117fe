"""The PettingZoo AEC environment: the seats of any hosted game, ``seat_0..seat_{n-1}``, play
one hand.

The agent to act is the first seat of the hand's ``to_act()``; in a claim window every seat that
must decide answers in turn without seeing the others' answers, and the game resolves the window
once all have answered (偎麻雀: RULES §5.1). Each agent observes ``{"observation": flat array,
"action_mask": mask}`` (:mod:`weimaque.env.core`; ``env.layout.split`` names the array's pieces).
When the hand ends every agent is terminated with its points as reward (``outcome().net``; they
sum to zero in a zero-sum game), and ``infos[agent]["result"]`` holds the outcome.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from weimaque.env.core import DEFAULT_GAME, HandTable, TableView
from weimaque.errors import WeimaqueError
from weimaque.games import Game


def observation_space(table: HandTable) -> spaces.Dict:
    """The space of one agent's observation at a table. The seam declares no bounds of the
    array's entries: the box takes every finite float32."""
    high = float(np.finfo(np.float32).max)
    return spaces.Dict(
        {
            "observation": spaces.Box(-high, high, (table.layout.size,), np.float32),
            "action_mask": spaces.Box(0, 1, (table.num_actions,), np.int8),
        }
    )


class WeimaqueAEC(TableView, AECEnv):  # type: ignore[misc]
    """One hand of a hosted game as a PettingZoo AEC environment (see the module docstring)."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "weimaque_v0",
        "render_modes": ["ansi"],
        "is_parallelizable": False,
    }

    def __init__(
        self,
        rules: object = None,
        options: Mapping[str, Any] | None = None,
        dealer: int = 0,
        render_mode: str | None = None,
        *,
        game: str | Game = DEFAULT_GAME,
        variant: str | None = None,
    ) -> None:
        """``game``: id or alias (偎麻雀 by default); ``variant`` (or ``rules``): its preset id or
        alias (the first by default); ``options``: rule options changed."""
        super().__init__()
        if render_mode not in (None, "ansi"):
            raise WeimaqueError(f"render_mode must be None or 'ansi', not {render_mode!r}")
        self.table = HandTable(rules, options, dealer, game=game, variant=variant)
        self.render_mode = render_mode
        names = self.table.agents
        self.possible_agents = list(names)
        self.agents = list(names)
        self.observation_spaces = {a: observation_space(self.table) for a in names}
        self.action_spaces = {a: spaces.Discrete(self.table.num_actions) for a in names}
        self._clear()

    def _clear(self) -> None:
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self.table.agents[max(self.table.to_act(), 0)]

    def observation_space(self, agent: str) -> spaces.Dict:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Discrete:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a new hand; ``seed`` deals exactly ``game.new_hand(variant, options, seed,
        dealer)``."""
        self.table.reset(seed)
        self._clear()

    def observe(self, agent: str) -> dict[str, Any]:
        return self.table.observe(self.table.seat_of(agent))

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise WeimaqueError(f"{agent} must act: None is only for a finished hand")
        self._cumulative_rewards[agent] = 0.0
        table = self.table
        table.step(table.seat_of(agent), int(action))
        self.rewards = {a: 0.0 for a in self.agents}
        if table.hand.is_terminal():
            returns = table.returns()
            info = table.result()
            for seat, a in enumerate(table.agents):
                self.rewards[a] = returns[seat]
                self.terminations[a] = True
                self.infos[a] = {"result": dict(info)}
        else:
            self.agent_selection = table.agents[table.to_act()]
        self._accumulate_rewards()

    def render(self) -> str | None:
        """The table as a spectator sees it, as JSON text (``render_mode="ansi"``)."""
        if self.render_mode is None:
            return None
        return self.table.render()

    def close(self) -> None:
        pass


def env(
    rules: object = None,
    options: Mapping[str, Any] | None = None,
    dealer: int = 0,
    render_mode: str | None = None,
    illegal_reward: float = -1.0,
    *,
    game: str | Game = DEFAULT_GAME,
    variant: str | None = None,
) -> Any:
    """The environment with PettingZoo's standard wrappers.

    An action outside the mask ends the hand for everyone, the acting agent getting
    ``illegal_reward`` (PettingZoo's ``TerminateIllegalWrapper``); the raw environment
    (``raw_env``) raises ``IllegalAction`` instead and changes nothing.
    """
    out: Any = WeimaqueAEC(rules, options, dealer, render_mode, game=game, variant=variant)
    out = wrappers.TerminateIllegalWrapper(out, illegal_reward=illegal_reward)
    out = wrappers.AssertOutOfBoundsWrapper(out)
    return wrappers.OrderEnforcingWrapper(out)
