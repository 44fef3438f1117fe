"""The environments at 偎麻雀's table of two (docs/env.md; RULES §2.5): PettingZoo's ``api_test``,
Gymnasium's ``check_env`` and OpenSpiel's random simulations for ``variant="anxiang-2p"``, with
two agents whose rewards are the hand's points."""

from __future__ import annotations

import contextlib
import io

import numpy as np
import pytest

pytest.importorskip("pettingzoo", reason="the env extra is not installed: make test installs it")
pytest.importorskip("pyspiel", reason="the env extra is not installed: make test installs it")

import pyspiel
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test

import weimaque.env
import weimaque.env.openspiel as wos
from weimaque.errors import WeimaqueError
from weimaque.games.maque.game.observation import OBS_SIZE, observation_array
from weimaque.games.maque.game.state import GameState
from weimaque.games.maque.rules.registry import rules_with

TWO = {"game": "maque", "variant": "anxiang-2p"}


@pytest.mark.filterwarnings("ignore:Observation space for each agent probably should be")
@pytest.mark.filterwarnings("ignore:Observation is not a NumPy array")
def test_pettingzoo_api_test_passes_with_two_agents() -> None:
    env = weimaque.env.env(render_mode="ansi", **TWO)
    assert env.possible_agents == ["seat_0", "seat_1"]
    with contextlib.redirect_stdout(io.StringIO()):
        api_test(env, num_cycles=400)
        api_test(weimaque.env.raw_env(game="maque", variant="quanmingtang-2p"), num_cycles=200)


def test_two_agents_play_the_engines_hand_and_share_zero_points() -> None:
    env = weimaque.env.raw_env(dealer=1, **TWO)
    for seed in range(8):
        env.reset(seed=seed)
        expected = GameState.new(rules_with("anxiang", {"players": 2}), seed, dealer=1)
        assert env.hand.state.hands == expected.hands and len(expected.hands) == 2
        for s in range(2):
            obs = env.observe(f"seat_{s}")
            assert np.array_equal(obs["observation"], observation_array(expected, s))
            assert obs["observation"].shape == (OBS_SIZE,)
        rng = np.random.default_rng(seed)
        totals = dict.fromkeys(env.possible_agents, 0.0)
        for agent in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            totals[agent] += reward
            action = None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"])))
            env.step(action)
        returns = env.hand.state.returns()
        assert [totals["seat_0"], totals["seat_1"]] == [float(r) for r in returns]
        assert sum(totals.values()) == 0


def test_gymnasium_check_env_passes_with_one_opponent() -> None:
    check_env(weimaque.env.gym_env(**TWO), skip_render_check=True)
    check_env(weimaque.env.gym_env(seat=1, opponents=("random",), **TWO), skip_render_check=True)
    env = weimaque.env.gym_env(seat=1, opponents=("greedy",), **TWO)
    assert env.specs == ("greedy",)
    with pytest.raises(WeimaqueError, match="greedy"):
        weimaque.env.gym_env(opponents=("greedy", "greedy"), **TWO)
    with pytest.raises(WeimaqueError, match=r"seat 0\.\.1"):
        weimaque.env.gym_env(seat=2, **TWO)


def test_openspiel_random_simulations_pass_with_two_players() -> None:
    game = wos.load("maque", "anxiang-2p")
    assert game.num_players() == 2
    pyspiel.random_sim_test(game, num_sims=4, serialize=False, verbose=False)
    legacy = pyspiel.load_game("python_weimaque", {"rules": "quanmingtang-2p", "dealer": 1})
    assert legacy.num_players() == 2
    pyspiel.random_sim_test(legacy, num_sims=2, serialize=False, verbose=False)
    state = game.new_initial_state()
    rng = np.random.default_rng(2)
    while not state.is_terminal():
        if state.is_chance_node():
            faces, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(faces, p=probs)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    assert len(state.returns()) == 2 and sum(state.returns()) == 0
