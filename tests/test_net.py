"""The learned bot: features from the view only, numpy inference, a training step that learns."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from weimaque.cli.app import app
from weimaque.errors import WeimaqueError
from weimaque.games.maque.bots import get_bot
from weimaque.games.maque.bots.base import BotView
from weimaque.games.maque.bots.features import NAMES, NUM_FEATURES, candidate_features
from weimaque.games.maque.bots.greedy import GreedyBot
from weimaque.games.maque.bots.mcts import clone
from weimaque.games.maque.bots.net import Array, NetBot, NetParams
from weimaque.games.maque.bots.train import (
    Dataset,
    agreement,
    collect,
    fit,
    init_params,
    loss_and_grads,
)
from weimaque.games.maque.game.state import NUM_SEATS, GameState


def rehide(state: GameState, rng: random.Random) -> GameState:
    """The same state with the opponents' concealed cards and the stock dealt anew."""
    other = clone(state)
    other.events = list(state.events)
    seat = state.current_player()
    opponents = [s for s in range(NUM_SEATS) if s != seat]
    pool = [f for s in opponents for f in other.hand_faces(s)] + other.stock[other.pos :]
    rng.shuffle(pool)
    for s in opponents:
        size = sum(other.hands[s])
        other.hands[s] = [0] * len(other.hands[s])
        for f in pool[:size]:
            other.hands[s][f] += 1
        pool = pool[size:]
    other.stock = other.stock[: other.pos] + pool
    return other


def test_features_and_choice_depend_only_on_the_view() -> None:
    bot = get_bot("net")
    compared = 0
    for seed in range(4):
        state = GameState.new("anxiang", seed, dealer=seed % 3)
        rng = random.Random(seed)
        while not state.is_terminal():
            seat = state.current_player()
            view = BotView.of(state, seat)
            if len(view.legal) > 1 and all(a.kind != "hu" for a in view.legal):
                other = rehide(state, random.Random(seed))
                assert other.hands != state.hands or other.stock != state.stock
                view2 = BotView.of(other, seat)
                assert view2 == view
                x = candidate_features(view, view.legal)
                assert x.shape == (len(view.legal), NUM_FEATURES)
                assert np.array_equal(x, candidate_features(view2, view2.legal))
                assert bot.act(view, rng) == bot.act(view2, rng)
                compared += 1
            action = bot.act(view, rng)
            assert action in view.legal
            state.apply(seat, action)
    assert compared >= 20


def test_the_value_feature_is_greedys_choice() -> None:
    state = GameState.new("anxiang", 9)
    rng = random.Random(9)
    greedy = GreedyBot()
    checked = 0
    while not state.is_terminal():
        seat = state.current_player()
        view = BotView.of(state, seat)
        action = greedy.act(view, rng)
        if len(view.legal) > 1 and all(a.kind != "hu" for a in view.legal):
            x = candidate_features(view, view.legal)
            col = NAMES.index("greedy_choice")
            assert x[view.legal.index(action), col] == 1.0 and x[:, col].sum() == 1.0
            checked += 1
        state.apply(seat, action)
    assert checked >= 10


def check_gradients(p: NetParams, loss_grads: Callable[[], tuple[float, dict[str, Array]]]) -> None:
    """Each weight's gradient against central finite differences of the loss."""
    _, grads = loss_grads()
    eps = 1e-6
    for name in ("w0", "w1", "b1", "w2"):
        arr = getattr(p, name)
        for idx in [(0,), (3,)] if arr.ndim == 1 else [(0, 0), (2, 4)]:
            old = arr[idx]
            arr[idx] = old + eps
            up, _ = loss_grads()
            arr[idx] = old - eps
            down, _ = loss_grads()
            arr[idx] = old
            assert grads[name][idx] == pytest.approx((up - down) / (2 * eps), rel=1e-4, abs=1e-7)


def test_gradients_match_finite_differences() -> None:
    gen = np.random.default_rng(0)
    rows = [gen.normal(size=(int(gen.integers(2, 6)), NUM_FEATURES)) for _ in range(12)]
    data = Dataset(rows, [int(gen.integers(0, len(r))) for r in rows])
    p = init_params(data, 5, 0)
    p = NetParams(p.mean, p.std, gen.normal(size=p.w0.shape), p.w1, p.b1 + 0.1, p.w2 + 0.3)
    x = np.concatenate(rows)
    z = (x - p.mean) / p.std
    starts = np.array([0, *np.cumsum([len(r) for r in rows])[:-1]], dtype=np.int64)
    chosen = starts + np.array(data.labels, dtype=np.int64)
    check_gradients(p, lambda: loss_and_grads(p, z, starts, chosen, 0.0))


def test_imitation_learns_greedy_and_weights_round_trip(tmp_path: Path) -> None:
    data = collect(3, seed=1)
    assert len(data) > 30
    p = init_params(data, 8, 0)
    before = agreement(p, data)
    p, _ = fit(p, data, 150, lr=0.03)
    assert agreement(p, data) > max(0.9, before)
    path = tmp_path / "w.npz"
    p.save(path)
    q = NetParams.load(path)
    assert np.array_equal(q.w1, p.w1)
    bot = get_bot(f"net:weights={path}")
    assert isinstance(bot, NetBot)
    with pytest.raises(WeimaqueError, match="cannot load net weights"):
        get_bot(f"net:weights={tmp_path / 'missing.npz'}")
    for gone in ("layers=3", "only=claims"):
        with pytest.raises(WeimaqueError, match="unknown net parameter"):
            get_bot(f"net:{gone}")


def test_train_command_prints_a_curve(tmp_path: Path) -> None:
    args = ["train", "--out", str(tmp_path), "--imitate-hands", "2", "--chunks", "1"]
    res = CliRunner(env={"COLUMNS": "250"}).invoke(
        app, [*args, "--steps", "20", "--eval-hands", "6"]
    )
    assert res.exit_code == 0, res.output
    assert "learning curve" in res.stdout and "points/hand" in res.stdout
    curve = json.loads((tmp_path / "curve.json").read_text("utf-8"))
    assert [c["label"] for c in curve] == ["start", "imitate greedy 1"]
    assert all(c["hands"] == 6 and c["ci95"][0] <= c["points_per_hand"] for c in curve)
    NetParams.load(tmp_path / "net_weights.npz")
    # a folder that cannot be made is refused, quoting it
    blocker = tmp_path / "file"
    blocker.write_text("x")
    res = CliRunner(env={"COLUMNS": "250"}).invoke(
        app, ["train", "--out", str(blocker / "sub"), "--imitate-hands", "1"]
    )
    assert res.exit_code == 2
    assert "cannot create" in res.output and "sub" in res.output
