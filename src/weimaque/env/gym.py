"""The Gymnasium single-seat environment: one learning seat, the other two played by project bots.

An episode is one hand. The agent acts at each of its decisions; between them the other seats'
bots (any ``weimaque.bots.get_bot`` spec, each with its own RNG seeded from the hand seed) play
through the views the engine gives them. The reward is 0 until the hand ends, then the seat's points
(RULES §8.3). Observation and action ids are those of :mod:`weimaque.env.core`.

An action outside the mask changes nothing: the step returns the same observation, reward
``illegal_reward`` and ``info["illegal"]`` with the engine's reason (or, with
``illegal="raise"``, raises ``IllegalAction``). A hand that ends before the seat's first decision
(another seat's 天胡, or a win before its turn) is no episode: ``reset`` deals from the next seed
and lists the skipped ones in ``info["skipped"]``; ``info["seed"]`` is the seed actually dealt.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any, Literal

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from weimaque.bots import Bot, BotView, get_bot
from weimaque.env.aec import observation_space, result_info
from weimaque.env.core import HandTable
from weimaque.errors import IllegalAction, WeimaqueError
from weimaque.game.actions import NUM_ACTIONS
from weimaque.game.state import NUM_SEATS
from weimaque.rules.config import RuleConfig

#: Seeds tried by one reset before giving up (a hand the seat never plays is rare).
MAX_SKIPS = 100


class WeimaqueGym(gym.Env[dict[str, Any], np.int64]):
    """One seat of 安乡偎麻雀 as a Gymnasium environment (see the module docstring)."""

    metadata: dict[str, Any] = {"render_modes": ["ansi"]}  # noqa: RUF012

    def __init__(
        self,
        seat: int = 0,
        opponents: Sequence[str] = ("greedy", "greedy"),
        rules: str | RuleConfig = "anxiang",
        options: Mapping[str, Any] | None = None,
        dealer: int = 0,
        illegal: Literal["refuse", "raise"] = "refuse",
        illegal_reward: float = -1.0,
        render_mode: str | None = None,
    ) -> None:
        if seat not in range(NUM_SEATS):
            raise WeimaqueError(f"seat must be 0, 1 or 2, not {seat!r}")
        if len(opponents) != NUM_SEATS - 1:
            raise WeimaqueError(f"two opponent bots are needed, got {list(opponents)!r}")
        if illegal not in ("refuse", "raise"):
            raise WeimaqueError(f"illegal must be 'refuse' or 'raise', not {illegal!r}")
        if render_mode not in (None, "ansi"):
            raise WeimaqueError(f"render_mode must be None or 'ansi', not {render_mode!r}")
        self.seat = seat
        self.specs = tuple(opponents)
        others = [s for s in range(NUM_SEATS) if s != seat]
        self.bots: dict[int, Bot] = {
            s: get_bot(spec) for s, spec in zip(others, opponents, strict=True)
        }
        self.table = HandTable(rules, options, dealer)
        self.illegal = illegal
        self.illegal_reward = float(illegal_reward)
        self.render_mode = render_mode
        self.observation_space = observation_space()
        self.action_space = spaces.Discrete(NUM_ACTIONS)
        self._rngs: dict[int, random.Random] = {}

    def _play_others(self) -> None:
        """Let the bots act until the seat must decide or the hand is over."""
        state = self.table.state
        while not state.is_terminal():
            seat = state.current_player()
            if seat == self.seat:
                return
            view = BotView.of(state, seat)
            state.apply(seat, self.bots[seat].act(view, self._rngs[seat]))

    def _deal(self, seed: int) -> None:
        self.table.reset(seed)
        self._rngs = {s: random.Random(f"gym:{seed}:{s}") for s in self.bots}
        self._play_others()

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Deal a hand (from ``seed``, else from the environment's generator); see the docstring."""
        super().reset(seed=seed)
        hand_seed = seed if seed is not None else int(self.np_random.integers(0, 2**62))
        skipped: list[dict[str, Any]] = []
        for _ in range(MAX_SKIPS):
            self._deal(hand_seed)
            state = self.table.state
            if not state.is_terminal():
                return self.table.observe(self.seat), {"seed": hand_seed, "skipped": skipped}
            skipped.append({"seed": hand_seed, "reward": float(state.returns()[self.seat])})
            hand_seed = (hand_seed + 1) % 2**62
        raise WeimaqueError(f"seat {self.seat} got no decision in {MAX_SKIPS} hands from {seed!r}")

    def step(self, action: Any) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        state = self.table.state
        if state.is_terminal():
            raise WeimaqueError("the hand is over: call reset()")
        try:
            self.table.step(self.seat, int(action))
        except (IllegalAction, ValueError, TypeError) as exc:
            if self.illegal == "raise":
                raise
            info = {"illegal": f"action {action!r}: {exc}"}
            return self.table.observe(self.seat), self.illegal_reward, False, False, info
        self._play_others()
        obs = self.table.observe(self.seat)
        if state.is_terminal():
            reward = float(state.returns()[self.seat])
            return obs, reward, True, False, {"result": result_info(state)}
        return obs, 0.0, False, False, {}

    def render(self) -> str | None:
        """The table as a spectator sees it, as text (``render_mode="ansi"``)."""
        return None if self.render_mode is None else self.table.render()
