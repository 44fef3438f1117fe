"""The learned bot: features from the view only, numpy inference, a training step that learns."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from weimaque.bots import get_bot
from weimaque.bots.base import BotView
from weimaque.bots.features import NAMES, NUM_FEATURES, candidate_features
from weimaque.bots.greedy import GreedyBot
from weimaque.bots.mcts import clone
from weimaque.bots.net import Array, NetBot, NetParams
from weimaque.bots.train import (
    VALUE_SCALE,
    Advantages,
    Dataset,
    advantage_loss_and_grads,
    agreement,
    collect,
    collect_advantages,
    fit,
    fit_advantage,
    init_params,
    loss_and_grads,
    offline_gain,
    rate_jobs,
    with_margin,
)
from weimaque.cli.app import app
from weimaque.errors import WeimaqueError
from weimaque.game.state import NUM_SEATS, GameState


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


def test_claims_only_net_discards_as_greedy_values() -> None:
    net = get_bot("net:only=claims")
    assert isinstance(net, NetBot) and net.claims_only
    greedy = GreedyBot()
    state = GameState.new("anxiang", 11, dealer=0)
    rng = random.Random(0)
    discards = 0
    while not state.is_terminal():
        seat = state.current_player()
        view = BotView.of(state, seat)
        action = net.act(view, rng)
        if view.obs["phase"] == "discard" and len(view.legal) > 1:
            assert action == greedy.act(view, rng)
            discards += 1
        state.apply(seat, action)
    assert discards > 5
    with pytest.raises(WeimaqueError, match="only= must be"):
        get_bot("net:only=discards")


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


def test_advantage_gradients_match_finite_differences() -> None:
    gen = np.random.default_rng(1)
    x = gen.normal(size=(20, NUM_FEATURES))
    data = Dataset([x], [0])
    p = init_params(data, 5, 0)
    p = NetParams(p.mean, p.std, gen.normal(size=p.w0.shape), p.w1, p.b1 + 0.1, p.w2 + 0.3)
    z = (x - p.mean) / p.std
    cand = np.array([1, 2, 3, 5, 6, 9, 12], dtype=np.int64)
    base = np.array([0, 0, 4, 4, 4, 8, 8], dtype=np.int64)
    y = gen.normal(size=len(cand))
    wt = gen.uniform(0.1, 1.0, len(cand))
    check_gradients(p, lambda: advantage_loss_and_grads(p, z, cand, base, y, wt, 1e-3))


def synthetic_advantages(seed: int, decisions: int) -> tuple[Advantages, Array]:
    """Decisions whose true gains are a fixed linear function of the features, measured noisily."""
    truth = np.random.default_rng(99).normal(size=NUM_FEATURES)
    gen = np.random.default_rng(seed)
    data = Advantages([], [], [], [])
    for _ in range(decisions):
        rows = gen.normal(size=(int(gen.integers(2, 7)), NUM_FEATURES))
        b = int(gen.integers(0, len(rows)))
        rows[:, NAMES.index("greedy_choice")] = 0.0
        rows[b, NAMES.index("greedy_choice")] = 1.0
        value = rows @ truth * 3.0
        gains = value - value[b]
        ses = gen.uniform(0.5, 4.0, len(rows))
        noisy = gains + gen.normal(size=len(rows)) * ses
        noisy[b], ses[b] = 0.0, 0.0
        noisy[gen.random(len(rows)) < 0.1] = np.nan  # candidates the search did not play
        noisy[b] = 0.0
        data.rows.append(rows)
        data.base.append(b)
        data.gains.append(noisy)
        data.ses.append(ses)
    return data, truth


def test_advantage_fit_recovers_the_gains_and_the_margin_keeps_greedy() -> None:
    data, truth = synthetic_advantages(0, 400)
    p = init_params(Dataset(data.rows, data.base), 8, 0)
    p, loss = fit_advantage(p, data, 400, lr=0.02)
    assert np.isfinite(loss)
    held, _ = synthetic_advantages(2, 300)
    # the fitted scores pick the truly best candidate most of the time
    gen = np.random.default_rng(2)
    hits = 0
    for _ in range(200):
        rows = gen.normal(size=(5, NUM_FEATURES))
        hits += int(np.argmax(p.scores(rows)) == np.argmax(rows @ truth))
    assert hits > 150
    # with_margin shifts the greedy_choice row's score by exactly margin / VALUE_SCALE
    rows = np.zeros((2, NUM_FEATURES))
    rows[0, NAMES.index("greedy_choice")] = 1.0
    q = with_margin(p, 3.0)
    gap = (q.scores(rows)[0] - q.scores(rows)[1]) - (p.scores(rows)[0] - p.scores(rows)[1])
    assert gap == pytest.approx(3.0 / VALUE_SCALE)
    # an enormous margin never departs from greedy's move, so the offline gain is exactly 0
    gain, _, deviations = offline_gain(with_margin(p, 1e9), held)
    assert gain == 0.0 and deviations == 0
    gain, se, deviations = offline_gain(p, held)
    assert deviations > 0 and gain > 2 * se


def test_collected_advantages_rate_candidates_against_greedys_move(tmp_path: Path) -> None:
    data = collect_advantages(1, seed=3, teacher="mcts:iters=24")
    assert len(data) > 10
    rated = 0
    for rows, b, gains, ses in zip(data.rows, data.base, data.gains, data.ses, strict=True):
        assert rows.shape == (len(gains), NUM_FEATURES) == (len(ses), NUM_FEATURES)
        assert gains[b] == 0.0 and ses[b] == 0.0
        rated += int(np.isfinite(np.delete(gains, b)).any())
    assert rated == len(data)
    # jobs are seeded by number: the same data in one process or two
    one = list(rate_jobs("mcts:iters=12", 0, 2, range(2), workers=1, job_hands=1))
    two = list(rate_jobs("mcts:iters=12", 0, 2, range(2), workers=2, job_hands=1))
    for a, b in zip(one, two, strict=True):
        assert a.base == b.base
        assert all(np.array_equal(r, s) for r, s in zip(a.rows, b.rows, strict=True))
        assert all(
            np.array_equal(g, h, equal_nan=True) for g, h in zip(a.gains, b.gains, strict=True)
        )
    # a cache folder keeps each job and gives it back unchanged
    cached = list(rate_jobs("mcts:iters=12", 0, 2, range(2), cache=tmp_path, job_hands=1))
    assert len(list(tmp_path.glob("rated-mcts_iters=12-seed0-job000*-hands1.npz"))) == 2
    again = list(rate_jobs("mcts:iters=12", 0, 2, range(2), cache=tmp_path, job_hands=1))
    for a, b, c in zip(one, cached, again, strict=True):
        assert a.base == b.base == c.base
        assert all(np.array_equal(r, s) for r, s in zip(a.rows, c.rows, strict=True))
        assert all(np.array_equal(g, h, equal_nan=True) for g, h in zip(a.ses, c.ses, strict=True))
    assert not list(tmp_path.glob("*.part.npz"))
    broken = next(tmp_path.glob("*job0001*"))
    broken.write_bytes(b"not a zip")
    with pytest.raises(WeimaqueError, match="cannot read rated decisions"):
        list(rate_jobs("mcts:iters=12", 0, 2, range(2), cache=tmp_path, job_hands=1))
    with pytest.raises(WeimaqueError, match="outside the 2 hands"):
        next(rate_jobs("mcts:iters=12", 0, 2, range(3), job_hands=1))
    with pytest.raises(WeimaqueError, match="no search"):
        collect_advantages(1, seed=3, teacher="greedy")


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
    with pytest.raises(WeimaqueError, match="unknown net parameter"):
        get_bot("net:layers=3")


def test_train_command_prints_a_curve(tmp_path: Path) -> None:
    res = CliRunner().invoke(
        app,
        [
            "train",
            "--out",
            str(tmp_path),
            "--imitate-hands",
            "2",
            "--teacher",
            "mcts:iters=12",
            "--teacher-hands",
            "1",
            "--value-hands",
            "2",
            "--value-steps",
            "20",
            "--advantage-hands",
            "1",
            "--advantage-steps",
            "20",
            "--chunks",
            "1",
            "--steps",
            "20",
            "--eval-hands",
            "6",
        ],
    )
    assert res.exit_code == 0, res.output
    assert "learning curve" in res.stdout and "points/hand" in res.stdout
    curve = json.loads((tmp_path / "curve.json").read_text("utf-8"))
    assert [c["label"] for c in curve] == [
        "start",
        "imitate greedy 1",
        "teacher mcts 1",
        "value 1",
        "advantage 1",
    ]
    assert all(c["hands"] == 6 and c["ci95"][0] <= c["points_per_hand"] for c in curve)
    NetParams.load(tmp_path / "net_weights.npz")


def test_train_with_fewer_rated_jobs_than_checkpoints(tmp_path: Path) -> None:
    args = ["train", "--out", str(tmp_path / "out"), "--imitate-hands", "1", "--chunks", "2"]
    args += ["--steps", "5", "--eval-hands", "6", "--teacher", "mcts:iters=8"]
    args += ["--advantage-hands", "1", "--advantage-steps", "5"]
    res = CliRunner().invoke(app, [*args, "--cache", str(tmp_path / "rated")])
    assert res.exit_code == 0, res.output
    curve = json.loads((tmp_path / "out" / "curve.json").read_text("utf-8"))
    # one job of one hand: a single advantage checkpoint, after the second chunk
    assert [c["label"] for c in curve][-2:] == ["imitate greedy 2", "advantage 2"]
    assert len(list((tmp_path / "rated").glob("rated-*.npz"))) == 1
    # a cache path that cannot be a folder is refused, quoting it
    blocker = tmp_path / "file"
    blocker.write_text("x")
    res = CliRunner().invoke(app, [*args, "--cache", str(blocker / "sub")])
    assert res.exit_code == 2
    assert "cannot create" in res.output and "sub" in res.output
