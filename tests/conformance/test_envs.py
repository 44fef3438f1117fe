"""The environments over every registered game (docs/env.md), one preset each, through the seam
alone: PettingZoo's ``api_test``, Gymnasium's ``check_env`` and a seeded episode, OpenSpiel's
random simulation test with GameType/GameInfo read off the seam, and hidden information (what a
seat cannot see, dealt again, leaves its observation and mask unchanged)."""

from __future__ import annotations

import contextlib
import io
import json
import random
from typing import Any

import numpy as np
import pytest

pytest.importorskip("pettingzoo", reason="the env extra is not installed: make test installs it")
pytest.importorskip("pyspiel", reason="the env extra is not installed: make test installs it")

import pyspiel
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test

import weimaque.env
import weimaque.env.openspiel as wos
from weimaque.errors import IllegalAction, WeimaqueError
from weimaque.games import Game, Resampling, legal_mask, list_games


def first_presets() -> list[Any]:
    """One parameter per registered game: the game and its first preset."""
    return [pytest.param(g, g.schema.variants[0].id, id=g.info.id) for g in list_games()]


def _quiet(fn: Any, *args: Any, **kwargs: Any) -> None:
    with contextlib.redirect_stdout(io.StringIO()):
        fn(*args, **kwargs)


def _random_aec(
    env: Any, seed: int
) -> tuple[dict[str, float], list[tuple[int, tuple[int, ...]]], dict[str, Any]]:
    """Play one hand with random masked actions: each agent's total reward, for every decision
    the seat that took it with the seats that had to decide then, and each agent's last info."""
    rng = np.random.default_rng(seed)
    totals = {a: 0.0 for a in env.possible_agents}
    decisions: list[tuple[int, tuple[int, ...]]] = []
    infos: dict[str, Any] = {}
    env.reset(seed=seed)
    for agent in env.agent_iter():
        obs, reward, term, trunc, infos[agent] = env.last()
        totals[agent] += reward
        if term or trunc:
            env.step(None)
            continue
        seat = int(agent.removeprefix("seat_"))
        # the agent asked is one the claim-window rule lets see the position (docs/new-game.md)
        assert env.unwrapped.hand.settled(seat)
        decisions.append((seat, env.unwrapped.hand.to_act()))
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return totals, decisions, infos


@pytest.mark.filterwarnings("ignore:Observation space for each agent probably should be")
@pytest.mark.filterwarnings("ignore:Observation is not a NumPy array")
@pytest.mark.parametrize(("game", "variant"), first_presets())
def test_pettingzoo_api_test(game: Game, variant: str) -> None:
    seats = game.shape(variant).seats
    env = weimaque.env.env(game=game.info.id, variant=variant, render_mode="ansi")
    assert env.possible_agents == [f"seat_{s}" for s in range(seats)]
    _quiet(api_test, env, num_cycles=150)
    _quiet(api_test, weimaque.env.raw_env(game=game.info.id, variant=variant, dealer=seats - 1))


@pytest.mark.parametrize(("game", "variant"), first_presets())
def test_aec_hand_pays_the_outcome_and_names_the_pieces(game: Game, variant: str) -> None:
    seats = game.shape(variant).seats
    windows = 0
    for seed in range(3):
        env = weimaque.env.raw_env(game=game.info.id, variant=variant, dealer=seed % seats)
        space = env.observation_space("seat_0")
        assert space["observation"].shape == (game.layout.size,)
        assert env.action_space("seat_0").n == game.num_actions
        totals, decisions, infos = _random_aec(env, seed)
        outcome = env.hand.outcome()
        assert outcome is not None
        assert [totals[f"seat_{s}"] for s in range(seats)] == [float(x) for x in outcome.net]
        if game.info.zero_sum:
            assert sum(totals.values()) == 0
        info = infos["seat_0"]["result"]
        assert info["net"] == list(outcome.net) and info["winners"] == list(outcome.winners)
        # who acts is the first seat the hand asks; a window's seats answer one by one
        assert all(seat == asked[0] for seat, asked in decisions)
        windows += sum(len(asked) > 1 for _, asked in decisions)
        # the mask is the seam's; the array's named pieces are as the game declares them
        for s in range(seats):
            mask = env.observe(f"seat_{s}")["action_mask"]
            assert np.array_equal(mask.astype(bool), legal_mask(game, env.hand, s))
        obs = env.observe("seat_0")["observation"]
        pieces = env.layout.split(obs)
        assert list(pieces) == [p.name for p in game.layout.pieces]
        assert all(pieces[p.name].shape == p.shape for p in game.layout.pieces)
    if game.info.id in ("maque", "toy"):  # games that open claim windows in random play
        assert windows > 0


@pytest.mark.parametrize(("game", "variant"), first_presets())
def test_gymnasium_check_env_and_a_seeded_episode(game: Game, variant: str) -> None:
    seats = game.shape(variant).seats
    check_env(weimaque.env.gym_env(game=game.info.id, variant=variant), skip_render_check=True)
    others = tuple("random" for _ in range(seats - 1))
    check_env(
        weimaque.env.gym_env(seat=seats - 1, opponents=others, game=game.info.id),
        skip_render_check=True,
    )

    def run(seed: int) -> tuple[list[int], float, dict[str, Any]]:
        env = weimaque.env.gym_env(seat=seats - 1, game=game.info.id, variant=variant)
        assert env.specs == (game.bots[0].name,) * (seats - 1)
        obs, info = env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        taken, done, reward, refused = [], False, 0.0, False
        while not done:
            assert env.hand.settled(seats - 1) and seats - 1 in env.hand.to_act()
            assert np.array_equal(obs["observation"], env.hand.observation(seats - 1))
            bad = np.flatnonzero(obs["action_mask"] == 0)
            if len(bad) and not refused:  # an illegal action changes nothing
                again, r, done, _, info = env.step(int(bad[0]))
                assert "illegal" in info and r == -1.0 and not done
                assert np.array_equal(again["observation"], obs["observation"])
                refused = True
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            taken.append(action)
            obs, reward, done, _, info = env.step(action)
        outcome = env.hand.outcome()
        assert outcome is not None and reward == float(outcome.net[seats - 1])
        return taken, reward, info["result"]

    assert run(5) == run(5)
    with pytest.raises(IllegalAction):
        strict = weimaque.env.gym_env(game=game.info.id, illegal="raise")
        obs, _ = strict.reset(seed=2)
        strict.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
    with pytest.raises(WeimaqueError, match="opponent bot"):
        weimaque.env.gym_env(game=game.info.id, opponents=("random",) * seats)
    with pytest.raises(WeimaqueError, match="'nobody'"):
        weimaque.env.gym_env(game=game.info.id, opponents=("nobody",) * (seats - 1))


@pytest.mark.parametrize(("game", "variant"), first_presets())
def test_openspiel_game_over_the_seam(game: Game, variant: str) -> None:
    name = wos.register(game)
    assert name == f"python_weimaque_{game.info.id}" and wos.register(game.info.id) == name
    seats = game.shape(variant).seats
    spiel = wos.load(game.info.id, variant, {}, dealer=seats - 1)
    assert spiel.num_players() == seats
    assert spiel.num_distinct_actions() == game.num_actions
    assert spiel.observation_tensor_size() == game.layout.size
    assert spiel.information_state_tensor_size() == game.layout.size + game.num_actions
    zero_sum = pyspiel.GameType.Utility.ZERO_SUM
    assert (spiel.get_type().utility == zero_sum) == game.info.zero_sum
    pyspiel.random_sim_test(spiel, num_sims=3, serialize=False, verbose=False)
    observer = spiel.make_py_observer()
    assert list(observer.dict) == [p.name for p in game.layout.pieces]
    # the seeded deal: the seed's bytes, then the hand new_hand deals from that seed
    state = spiel.new_initial_state()
    for byte in (0, 0, 1, 2):
        state.apply_action(byte)
    expected = game.new_hand(variant, {}, 258, seats - 1)
    assert state.hand.deal() == expected.deal()
    seat = state.current_player()
    assert state.observation_tensor(seat) == expected.observation(seat).tolist()
    assert json.loads(state.observation_string(seat)) == expected.view(seat).to_json()
    with pytest.raises(WeimaqueError, match="options is a JSON object"):
        pyspiel.load_game(name, {"options": "[1]"})


@pytest.mark.parametrize(("game", "variant"), first_presets())
def test_a_seat_observes_nothing_another_seat_hides(game: Game, variant: str) -> None:
    if "resample" not in game.info.capabilities:
        pytest.skip(f"{game.info.id} declares no resample capability")
    seats = game.shape(variant).seats
    spiel = wos.load(game.info.id, variant)
    checked = moved = 0
    for seed in range(2):
        env = weimaque.env.raw_env(game=game.info.id, variant=variant)
        env.reset(seed=seed)
        rng = random.Random(seed)
        while not env.hand.is_terminal():
            hand = env.hand
            state = wos.SeamState.from_hand(spiel, hand.clone())
            for seat in range(seats):
                agent = f"seat_{seat}"
                seen = env.observe(agent)
                other = hand.resample(seat, rng) if isinstance(hand, Resampling) else hand
                env.table.hand = other
                again = env.observe(agent)
                env.table.hand = hand
                assert np.array_equal(again["observation"], seen["observation"])
                assert np.array_equal(again["action_mask"], seen["action_mask"])
                world = wos.SeamState.from_hand(spiel, other, [[] for _ in range(seats)])
                assert world.observation_tensor(seat) == state.observation_tensor(seat)
                assert world.observation_string(seat) == state.observation_string(seat)
                moved += any(
                    world.observation_string(s) != state.observation_string(s)
                    for s in range(seats)
                    if s != seat
                )
                checked += 1
            actor = hand.to_act()[0]
            env.step(rng.choice(hand.legal_actions(actor)))
    assert checked > 10 and moved > checked // 4
