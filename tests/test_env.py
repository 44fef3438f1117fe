"""The PettingZoo, Gymnasium and OpenSpiel environments (optional extra ``env``)."""

from __future__ import annotations

import contextlib
import io
import json
import random
import re
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

pytest.importorskip("pettingzoo", reason="the env extra is not installed: make test installs it")
pytest.importorskip("pyspiel", reason="the env extra is not installed: make test installs it")

import pyspiel
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test

import weimaque.env
import weimaque.env.openspiel as wos
from weimaque.arena import ArenaConfig, run_arena
from weimaque.cli import app
from weimaque.errors import IllegalAction, RuleConfigError, WeimaqueError
from weimaque.games import UnknownGame, get_game
from weimaque.games.maque import MaqueHand
from weimaque.games.maque.bots import PLUGINS, BotView, get_bot, register_plugin
from weimaque.games.maque.game.actions import NUM_ACTIONS, Action
from weimaque.games.maque.game.observation import OBS_SIZE, observation_array
from weimaque.games.maque.game.state import GameState
from weimaque.games.maque.rules.registry import get_rules

DOC = Path(__file__).resolve().parent.parent / "docs" / "env.md"


def _quiet(fn: object, *args: object, **kwargs: object) -> None:
    with contextlib.redirect_stdout(io.StringIO()):
        fn(*args, **kwargs)  # type: ignore[operator]


@pytest.mark.filterwarnings("ignore:Observation space for each agent probably should be")
@pytest.mark.filterwarnings("ignore:Observation is not a NumPy array")
def test_pettingzoo_api_test_passes() -> None:
    """The dict observation (array + mask) is PettingZoo's own convention for masked actions."""
    _quiet(api_test, weimaque.env.env(render_mode="ansi"), num_cycles=400)
    _quiet(api_test, weimaque.env.raw_env(rules="xiaozhuo", dealer=2), num_cycles=400)


def test_seeded_reset_deals_the_seeded_hand() -> None:
    env = weimaque.env.raw_env(rules="dazhuo", dealer=1)
    for seed in (0, 7, 123456):
        env.reset(seed=seed)
        expected = GameState.new("dazhuo", seed, dealer=1)
        assert env.hand.state.hands == expected.hands
        assert env.hand.state.stock == expected.stock
        for s in range(3):
            obs = env.observe(f"seat_{s}")
            assert obs["observation"].shape == (OBS_SIZE,)
            assert np.array_equal(obs["observation"], observation_array(expected, s))
            legal = {a.id for a in expected.legal_actions(s)}
            assert set(np.flatnonzero(obs["action_mask"])) == legal
    # unseeded resets after a seeded one repeat
    env.reset(seed=5)
    env.reset()
    first = [list(h) for h in env.hand.state.hands]
    env.reset(seed=5)
    env.reset()
    assert env.hand.state.hands == first


def _play_aec(env: object, seed: int) -> dict[str, float]:
    rng = np.random.default_rng(seed)
    totals = {a: 0.0 for a in env.possible_agents}  # type: ignore[attr-defined]
    env.reset(seed=seed)  # type: ignore[attr-defined]
    for agent in env.agent_iter():  # type: ignore[attr-defined]
        obs, reward, term, trunc, _ = env.last()  # type: ignore[attr-defined]
        totals[agent] += reward
        action = None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        env.step(action)  # type: ignore[attr-defined]
    return totals


def test_aec_rewards_are_the_hand_points() -> None:
    for seed in range(12):
        env = weimaque.env.raw_env()
        totals = _play_aec(env, seed)
        returns = env.hand.state.returns()
        assert [totals[f"seat_{s}"] for s in range(3)] == [float(r) for r in returns]
        assert sum(totals.values()) == 0


def test_raw_env_refuses_an_illegal_action_unchanged() -> None:
    env = weimaque.env.raw_env()
    env.reset(seed=3)
    seat = int(env.agent_selection[-1])
    mask = env.observe(env.agent_selection)["action_mask"]
    bad = int(np.flatnonzero(mask == 0)[0])
    before = observation_array(env.hand.state, seat)
    with pytest.raises(IllegalAction):
        env.step(bad)
    assert np.array_equal(observation_array(env.hand.state, seat), before)


def test_render_shows_no_hidden_hand() -> None:
    env = weimaque.env.raw_env(render_mode="ansi")
    env.reset(seed=9)
    text = env.render()
    assert text is not None and json.loads(text) == env.hand.view("public").to_json()
    assert json.loads(text)["hand_sizes"] == [20, 19, 19]
    assert '"hand"' not in text and '"hands"' not in text


def test_gymnasium_check_env_passes() -> None:
    check_env(weimaque.env.gym_env(opponents=("random", "greedy")), skip_render_check=True)
    check_env(weimaque.env.gym_env(seat=2, rules="xiaozhuo"), skip_render_check=True)


def test_gym_episode_is_reproducible_and_refuses_illegal_actions() -> None:
    def run(seed: int) -> tuple[list[int], float]:
        env = weimaque.env.gym_env(seat=1, opponents=("greedy", "random"))
        obs, info = env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        taken, done, reward = [], False, 0.0
        refused = 0
        while not done:
            bad = np.flatnonzero(obs["action_mask"] == 0)
            if len(bad) and refused < 2:  # an illegal action changes nothing
                again, r, done, _, info = env.step(int(bad[0]))
                assert "illegal" in info and r == -1.0 and not done
                assert np.array_equal(again["observation"], obs["observation"])
                refused += 1
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            taken.append(action)
            obs, reward, done, _, info = env.step(action)
        return taken, reward

    assert run(11) == run(11)
    strict = weimaque.env.gym_env(illegal="raise")
    obs, _ = strict.reset(seed=4)
    with pytest.raises(IllegalAction):
        strict.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
    with pytest.raises(WeimaqueError, match="two opponent bots"):
        weimaque.env.gym_env(opponents=("greedy",))


def test_docs_training_loop_runs() -> None:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    loop = next(b for b in blocks if "REINFORCE" in b or "weights +=" in b)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(loop, str(DOC), "exec"), {})
    assert re.search(r"mean points per hand over 24 hands: [+-]\d", out.getvalue())
    aec = next(b for b in blocks if "agent_iter" in b)
    spiel = next(b for b in blocks if "load_game" in b)
    for block in (aec, spiel):
        scope: dict[str, object] = {}
        with contextlib.redirect_stdout(io.StringIO()):
            exec(compile(block, str(DOC), "exec"), scope)
    state = scope["state"]
    assert not state.is_chance_node()  # type: ignore[attr-defined]


def test_openspiel_random_simulations_pass() -> None:
    for params in ({}, {"rules": "xiaozhuo", "dealer": 2}):
        game = pyspiel.load_game("python_weimaque", params)
        pyspiel.random_sim_test(game, num_sims=4, serialize=False, verbose=False)


def test_openspiel_chance_deal_and_views() -> None:
    """The deal is the seed's bytes as chance nodes; the hand is the one that seed deals."""
    game = pyspiel.load_game("python_weimaque", {"rules": "dazhuo", "dealer": 1})
    state = game.new_initial_state()
    rng = np.random.default_rng(1)
    drawn = []
    while state.is_chance_node():
        outcomes = state.chance_outcomes()
        assert abs(sum(p for _, p in outcomes) - 1.0) < 1e-9 and len(outcomes) == 256
        assert state.observation_tensor(0) == [0.0] * OBS_SIZE  # nobody sees the seed
        faces, probs = zip(*outcomes, strict=True)
        drawn.append(int(rng.choice(faces, p=probs)))
        state.apply_action(drawn[-1])
    assert len(drawn) == wos.SEED_BYTES
    seed = int.from_bytes(bytes(drawn), "big")
    hand = state.hand
    expected = get_game("maque").new_hand("dazhuo", {}, seed, 1)
    assert isinstance(hand, MaqueHand) and hand.deal() == expected.deal()
    assert sum(map(sum, hand.state.hands)) + len(hand.state.stock) == 80
    seat = state.current_player()
    assert len(state.observation_tensor(seat)) == OBS_SIZE
    assert len(state.information_state_tensor(seat)) == OBS_SIZE + NUM_ACTIONS
    while not state.is_terminal():
        state.apply_action(int(rng.choice(state.legal_actions())))
    assert sum(state.returns()) == 0


def test_openspiel_information_state_hides_other_cards() -> None:
    """Two deals that differ only in cards seat 0 cannot see give seat 0 the same strings."""
    game = pyspiel.load_game("python_weimaque")
    base = GameState.new("anxiang", 17)
    hands = [base.hand_faces(s) for s in range(3)]
    stock = list(base.stock)
    a = next(f for f in hands[1] if f not in hands[2])
    b = next(f for f in stock if f not in hands[1])
    swapped = [list(hands[0]), list(hands[1]), list(hands[2])]
    swapped[1].remove(a)
    swapped[1].append(b)
    stock2 = list(stock)
    stock2[stock2.index(b)] = a
    states = [
        wos.SeamState.from_hand(game, MaqueHand(GameState("anxiang", h, st)))
        for h, st in ((hands, stock), (swapped, stock2))
    ]
    for state in states:
        assert state.current_player() == 0
    assert states[0].information_state_string(0) == states[1].information_state_string(0)
    assert states[0].observation_string(0) == states[1].observation_string(0)
    assert states[0].observation_tensor(0) == states[1].observation_tensor(0)
    assert states[0].information_state_string(1) != states[1].information_state_string(1)


def test_ismcts_plays_in_the_arena() -> None:
    bot = get_bot("ismcts:sims=8")
    state = GameState.new("anxiang", 21)
    rng = random.Random(0)
    while state.current_player() != 0 or len(state.legal_actions(0)) < 2:
        s = state.current_player()
        state.apply(s, rng.choice(state.legal_actions(s)))
    action = bot.act(BotView.of(state, 0), rng)
    assert isinstance(action, Action) and action in state.legal_actions(0)
    policy = get_bot("ismcts:sims=6,rollout=policy")
    assert policy.act(BotView.of(state, 0), rng) in state.legal_actions(0)
    with pytest.raises(WeimaqueError, match="rollout must be"):
        get_bot("ismcts:rollout=greedy")
    result = run_arena(ArenaConfig(("ismcts:sims=4", "random", "random"), 1, seed=2, rotations=3))
    assert result.bots[0].hands == 3 and result.bots[0].decisions > 0
    with pytest.raises(WeimaqueError, match="unknown ismcts"):
        get_bot("ismcts:depth=3")
    assert wos.MAX_DECISIONS["maque"] > 0


def test_ismcts_is_registered_by_its_module_and_reaches_spawned_workers() -> None:
    """``weimaque.env.openspiel`` registers ``ismcts`` (docs/bots.md, Adding a bot); ``wmq arena``
    names that module for its spawned workers, whose figures equal one process's."""
    assert wos.IsmctsBot.from_params == PLUGINS["ismcts"]
    with pytest.raises(WeimaqueError, match="'greedy' is taken"):
        register_plugin("greedy", PLUGINS["ismcts"])
    figures = []
    for workers in ("1", "2"):
        args = ["arena", "--bots", "ismcts:sims=4,random,greedy", "--hands", "6"]
        args += ["--rotations", "3", "--seed", "2", "--workers", workers, "--json"]
        out = CliRunner().invoke(app, args)
        assert out.exit_code == 0, out.output
        found = json.loads(out.stdout)
        figures.append([(b["points_per_hand"], b["decisions"]) for b in found["bots"]])
    assert figures[0] == figures[1] and figures[0][0][1] > 0


def test_docs_blocks_for_both_games_run() -> None:
    """The constructors and the layout's pieces as docs/env.md shows them, for both games."""
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    shown = [b for b in blocks if "sandingguai" in b and "REINFORCE" not in b]
    assert len(shown) >= 3
    for block in shown:
        scope: dict[str, object] = {}
        with contextlib.redirect_stdout(io.StringIO()):
            exec(compile(block, str(DOC), "exec"), scope)
    assert scope["sdg"].num_players() == 3  # type: ignore[attr-defined]


def test_constructors_name_a_game_and_keep_the_older_arguments() -> None:
    """``rules=`` (a preset or a RuleConfig) still works for 偎麻雀; ``game=``/``variant=``
    name any game; bad names and values are refused, quoted."""
    config = get_rules("xiaozhuo").with_options(wei_face_up=True)
    by_config = weimaque.env.raw_env(rules=config, dealer=1)
    by_name = weimaque.env.raw_env(
        game="偎麻雀", variant="xiaozhuo", options={"wei_face_up": True}, dealer=1
    )
    for env in (by_config, by_name):
        env.reset(seed=8)
        assert env.table.options["wei_face_up"] is True
    assert by_config.hand.deal() == by_name.hand.deal()
    assert by_config.hand.state.rules == config  # type: ignore[attr-defined]
    sdg = weimaque.env.gym_env(game="三丁拐")
    assert sdg.game.info.id == "sandingguai" and sdg.specs == ("greedy", "greedy")
    with pytest.raises(UnknownGame, match="'chess'"):
        weimaque.env.raw_env(game="chess")
    with pytest.raises(WeimaqueError, match="disagree"):
        weimaque.env.raw_env(rules="xiaozhuo", variant="dazhuo")
    with pytest.raises(RuleConfigError, match="'colour'"):
        weimaque.env.gym_env(game="sandingguai", options={"colour": 1})
    with pytest.raises(WeimaqueError, match=r"dealer must be a seat 0\.\.2, not 3"):
        weimaque.env.raw_env(game="sandingguai", dealer=3)
    with pytest.raises(WeimaqueError, match=r"seat must be a seat 0\.\.2"):
        weimaque.env.gym_env(seat=5)
