"""The Gymnasium single-seat environment: one learning seat of any hosted game, the others played
by the game's bots.

An episode is one hand. The agent acts at each of its decisions; between them the other seats'
bots (``game.bot(spec, variant, options)``, any spec the game offers, each with its own RNG seeded
from the hand seed) play from their seats' bot views (``hand.bot_view``). The reward is 0 until
the hand ends, then the seat's points (``outcome().net``). Observation and action ids are those
of :mod:`weimaque.env.core`.

An action outside the mask changes nothing: the step returns the same observation, reward
``illegal_reward`` and ``info["illegal"]`` with the game's reason (or, with ``illegal="raise"``,
raises ``IllegalAction``). A hand that ends before the seat's first decision (偎麻雀: another
seat's 天胡, or a win before its turn) is no episode: ``reset`` deals from the next seed and
lists the skipped ones in ``info["skipped"]``; ``info["seed"]`` is the seed actually dealt.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any, Literal

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from weimaque.env.aec import observation_space
from weimaque.env.core import DEFAULT_GAME, HandTable, TableView, count_words
from weimaque.errors import IllegalAction, WeimaqueError, quoted
from weimaque.games import Game, SeatBot

#: Seeds tried by one reset before giving up (a hand the seat never plays is rare).
MAX_SKIPS = 100


class WeimaqueGym(TableView, gym.Env[dict[str, Any], np.int64]):
    """One seat of a hosted game as a Gymnasium environment (see the module docstring)."""

    metadata: dict[str, Any] = {"render_modes": ["ansi"]}  # noqa: RUF012

    def __init__(
        self,
        seat: int = 0,
        opponents: Sequence[str] | None = None,
        rules: object = None,
        options: Mapping[str, Any] | None = None,
        dealer: int = 0,
        illegal: Literal["refuse", "raise"] = "refuse",
        illegal_reward: float = -1.0,
        render_mode: str | None = None,
        *,
        game: str | Game = DEFAULT_GAME,
        variant: str | None = None,
    ) -> None:
        """``game``: id or alias (偎麻雀 by default); ``variant`` (or ``rules``): its preset;
        ``opponents``: one bot spec per other seat, in seat order (the game's first bot each,
        by default: 偎麻雀's ``greedy``)."""
        self.table = table = HandTable(rules, options, dealer, game=game, variant=variant)
        n = table.seats
        if isinstance(seat, bool) or seat not in range(n):
            raise WeimaqueError(f"seat must be a seat 0..{n - 1}, not {quoted(seat)}")
        if opponents is None:
            opponents = (table.game.bots[0].name,) * (n - 1)
        if isinstance(opponents, str) or len(opponents) != n - 1:
            need = "one opponent bot is" if n == 2 else f"{count_words(n - 1)} opponent bots are"
            raise WeimaqueError(f"{need} needed, got {quoted(opponents)}")
        if illegal not in ("refuse", "raise"):
            raise WeimaqueError(f"illegal must be 'refuse' or 'raise', not {illegal!r}")
        if render_mode not in (None, "ansi"):
            raise WeimaqueError(f"render_mode must be None or 'ansi', not {render_mode!r}")
        self.seat = seat
        self.specs = tuple(opponents)
        others = [s for s in range(n) if s != seat]
        self.bots: dict[int, SeatBot] = {
            s: table.game.bot(spec, table.variant, table.options)
            for s, spec in zip(others, opponents, strict=True)
        }
        self.illegal = illegal
        self.illegal_reward = float(illegal_reward)
        self.render_mode = render_mode
        self.observation_space = observation_space(table)
        self.action_space = spaces.Discrete(table.num_actions)
        self._rngs: dict[int, random.Random] = {}

    def _play_others(self) -> None:
        """Let the bots act until the seat must decide or the hand is over."""
        hand = self.table.hand
        while not hand.is_terminal():
            seat = hand.to_act()[0]
            if seat == self.seat:
                return
            hand.apply(seat, self.bots[seat].act(hand.bot_view(seat), self._rngs[seat]))

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
            if not self.table.hand.is_terminal():
                return self.table.observe(self.seat), {"seed": hand_seed, "skipped": skipped}
            skipped.append({"seed": hand_seed, "reward": self.table.returns()[self.seat]})
            hand_seed = (hand_seed + 1) % 2**62
        raise WeimaqueError(f"seat {self.seat} got no decision in {MAX_SKIPS} hands from {seed!r}")

    def step(self, action: Any) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        table = self.table
        if table.hand.is_terminal():
            raise WeimaqueError("the hand is over: call reset()")
        try:
            table.step(self.seat, int(action))
        except (IllegalAction, ValueError, TypeError) as exc:
            if self.illegal == "raise":
                raise
            info = {"illegal": f"action {action!r}: {exc}"}
            return table.observe(self.seat), self.illegal_reward, False, False, info
        self._play_others()
        obs = table.observe(self.seat)
        if table.hand.is_terminal():
            reward = table.returns()[self.seat]
            return obs, reward, True, False, {"result": table.result()}
        return obs, 0.0, False, False, {}

    def render(self) -> str | None:
        """The table as a spectator sees it, as JSON text (``render_mode="ansi"``)."""
        return None if self.render_mode is None else self.table.render()
