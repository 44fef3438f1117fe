"""The learned bot's retired training phases (research/train_phases.py): their gradients, fits
and the teacher's rated candidates. Run: ``python -m pytest research/`` from the repository."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from tests.test_net import check_gradients

from train_phases import (
    VALUE_SCALE,
    Advantages,
    advantage_loss_and_grads,
    collect_advantages,
    fit_advantage,
    offline_gain,
    rate_jobs,
    with_margin,
)
from weimaque.errors import WeimaqueError
from weimaque.games.maque.bots.features import NAMES, NUM_FEATURES
from weimaque.games.maque.bots.net import Array, NetParams
from weimaque.games.maque.bots.train import Dataset, init_params


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
