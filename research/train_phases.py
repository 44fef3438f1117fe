"""The learned bot's training phases measured and retired: a search teacher, after-state values
and the teacher's rated advantages over greedy's move (bots-log.md, *The learned bot's phases*).

Each trains the package's perceptron (:mod:`weimaque.games.maque.bots.net`) with the package's
imitation helpers (:mod:`weimaque.games.maque.bots.train`); none scored better than greedy, so ``wmq
train`` keeps only the imitation that makes the shipped weights.
"""

from __future__ import annotations

import itertools
import random
import re
import zipfile
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from weimaque.errors import WeimaqueError
from weimaque.games.maque.bots import get_bot
from weimaque.games.maque.bots.features import NAMES, NUM_FEATURES, candidate_features
from weimaque.games.maque.bots.greedy import GreedyBot
from weimaque.games.maque.bots.net import Array, NetParams
from weimaque.games.maque.bots.train import Dataset, _adam, _backward, greedy_decisions
from weimaque.games.maque.game.state import GameState

IntArray = npt.NDArray[np.int64]


def collect_taught(
    hands: int,
    seed: int,
    teacher: str,
    share: float = 1.0,
    progress: Callable[[], None] | None = None,
) -> Dataset:
    """Decisions of greedy self-play, a ``share`` of them labelled by ``teacher`` searching from
    the same view (the hand goes on with greedy's move)."""
    greedy = GreedyBot()
    coach = get_bot(teacher)
    rng = random.Random(f"train:{seed}:{teacher}")
    data = Dataset([], [])
    for k in range(hands):
        state = GameState.new("anxiang", rng.getrandbits(63), dealer=k % 3)
        for view, _ in greedy_decisions(state, greedy, rng):
            if rng.random() < share:
                label = coach.act(view, rng)
                data.rows.append(candidate_features(view, view.legal))
                data.labels.append(view.legal.index(label))
        if progress is not None:
            progress()
    return data


@dataclass
class Advantages:
    """Decisions with the teacher's paired estimate of each candidate against greedy's choice.

    ``gains[g][i]`` is the mean paired return of candidate ``i`` minus greedy's choice
    ``base[g]`` (points), ``ses[g][i]`` its standard error; NaN where the search did not play
    the candidate (discards it pruned).
    """

    rows: list[Array]
    base: list[int]
    gains: list[Array]
    ses: list[Array]

    def extend(self, other: Advantages) -> None:
        """Append another set of decisions."""
        self.rows.extend(other.rows)
        self.base.extend(other.base)
        self.gains.extend(other.gains)
        self.ses.extend(other.ses)

    def __len__(self) -> int:
        return len(self.base)


def collect_advantages(
    hands: int,
    seed: int,
    teacher: str,
    share: float = 1.0,
    progress: Callable[[], None] | None = None,
) -> Advantages:
    """Greedy self-play in which a search teacher rates every candidate against greedy's move.

    At a sampled ``share`` of the decisions with more than one non-胡 action, the teacher (an
    ``mcts`` spec) searches from the deciding seat's view with greedy's move among its
    candidates, and every candidate's paired gain over that move is kept; the hand goes on with
    greedy's move. The teacher sees the view only (its worlds are sampled from it).
    """
    greedy = GreedyBot()
    coach = get_bot(teacher)
    search = getattr(coach, "search", None)
    if search is None:
        raise WeimaqueError(f"teacher {teacher!r} has no search to rate candidates")
    rng = random.Random(f"advantages:{seed}:{teacher}")
    data = Advantages([], [], [], [])
    for k in range(hands):
        state = GameState.new("anxiang", rng.getrandbits(63), dealer=k % 3)
        for view, action in greedy_decisions(state, greedy, rng):
            legal = view.legal
            if rng.random() < share:
                result = search(view, rng, include=(action,))
                gains = np.full(len(legal), np.nan)
                ses = np.full(len(legal), np.nan)
                for i, a in enumerate(legal):
                    if a in result.actions:
                        gains[i], ses[i] = result.gain(a, action)
                data.rows.append(candidate_features(view, legal))
                data.base.append(legal.index(action))
                data.gains.append(gains)
                data.ses.append(ses)
        if progress is not None:
            progress()
    return data


#: Hands per job of :func:`rate_jobs` (job ``j`` deals from seed ``seed * 1000 + 5000 + j``).
ADVANTAGE_JOB_HANDS = 20


def save_advantages(data: Advantages, path: Path) -> None:
    """Write rated decisions as one ``.npz`` file (rows stacked, with their offsets)."""
    starts = np.cumsum([0] + [len(r) for r in data.rows])
    empty = np.zeros((0, NUM_FEATURES))
    np.savez(
        path,
        x=np.concatenate(data.rows) if data.rows else empty,
        starts=starts,
        base=np.array(data.base, dtype=np.int64),
        gains=np.concatenate(data.gains) if data.gains else np.zeros(0),
        ses=np.concatenate(data.ses) if data.ses else np.zeros(0),
    )


def load_advantages(path: Path) -> Advantages:
    """Read a file written by :func:`save_advantages`."""
    try:
        with np.load(path) as z:
            x, st, gains, ses = z["x"], z["starts"], z["gains"], z["ses"]
            data = Advantages([], [int(b) for b in z["base"]], [], [])
    except (OSError, KeyError, ValueError, zipfile.BadZipFile) as exc:
        raise WeimaqueError(f"cannot read rated decisions {str(path)!r}: {exc}") from exc
    for a, b in itertools.pairwise(st):
        data.rows.append(x[a:b])
        data.gains.append(gains[a:b])
        data.ses.append(ses[a:b])
    return data


def _rate_job(args: tuple[str, int, int, int, Path | None]) -> Advantages:
    teacher, seed, job, hands, cache = args
    path = None
    if cache is not None:
        tag = re.sub(r"[^A-Za-z0-9=.]+", "_", teacher)
        path = cache / f"rated-{tag}-seed{seed}-job{job:04d}-hands{hands}.npz"
        if path.exists():
            return load_advantages(path)
    data = collect_advantages(hands, seed * 1000 + 5000 + job, teacher)
    if path is not None:
        part = path.with_name(path.stem + ".part.npz")
        save_advantages(data, part)
        part.replace(path)  # a job cut off while writing leaves no half file under its name
    return data


def rate_jobs(
    teacher: str,
    seed: int,
    hands: int,
    jobs: range,
    workers: int = 1,
    cache: Path | None = None,
    job_hands: int = ADVANTAGE_JOB_HANDS,
) -> Iterator[Advantages]:
    """:func:`collect_advantages` for the given jobs of ``hands`` hands, in job order.

    Job ``j`` plays the hands ``j * job_hands`` onwards (the last one may be short) and
    is seeded by its number alone, so any number of ``workers`` processes gives the same data.
    With a ``cache`` folder each job's decisions are kept there and read back on a later run
    (an interrupted training resumes where it stopped).
    """
    if jobs and not 0 <= jobs[0] <= jobs[-1] < -(-hands // job_hands):
        raise WeimaqueError(f"jobs {jobs} outside the {hands} hands in jobs of {job_hands}")
    args = [(teacher, seed, j, min(job_hands, hands - j * job_hands), cache) for j in jobs]
    if workers <= 1:
        yield from map(_rate_job, args)
        return
    with ProcessPoolExecutor(workers) as pool:
        yield from pool.map(_rate_job, args)


@dataclass
class Outcomes:
    """After-states greedy chose in self-play (feature rows) and the chooser's hand result."""

    x: list[Array]
    y: list[float]

    def extend(self, other: Outcomes) -> None:
        """Append another set of outcomes."""
        self.x.extend(other.x)
        self.y.extend(other.y)

    def __len__(self) -> int:
        return len(self.y)


#: Hand results are divided by this before the regression (a win is worth 20 to a few hundred).
VALUE_SCALE = 20.0


def collect_outcomes(hands: int, seed: int, progress: Callable[[], None] | None = None) -> Outcomes:
    """Greedy self-play: each decision's chosen after-state and the deciding seat's result."""
    greedy = GreedyBot()
    rng = random.Random(f"outcomes:{seed}")
    data = Outcomes([], [])
    for k in range(hands):
        state = GameState.new("anxiang", rng.getrandbits(63), dealer=k % 3)
        chosen: list[tuple[int, Array]] = []
        for view, action in greedy_decisions(state, greedy, rng):
            x = candidate_features(view, view.legal)
            chosen.append((view.seat, x[view.legal.index(action)]))
        returns = state.returns()
        for seat, row in chosen:
            data.x.append(row)
            data.y.append(returns[seat] / VALUE_SCALE)
        if progress is not None:
            progress()
    return data


def fit_value(
    params: NetParams,
    data: Outcomes,
    steps: int,
    lr: float = 0.01,
    l2: float = 1e-4,
) -> tuple[NetParams, float]:
    """Full-batch Adam on the squared error between the score and the scaled hand result."""
    z = (np.array(data.x) - params.mean) / params.std
    y = np.array(data.y)

    def loss_grads(p: NetParams) -> tuple[float, dict[str, Array]]:
        pre = z @ p.w1 + p.b1
        h = np.maximum(pre, 0.0)
        err = z @ p.w0 + h @ p.w2 - y
        return float(np.mean(err**2)), _backward(p, z, pre, h, 2 * err / len(y), l2)

    return _adam(params, loss_grads, steps, lr)


def _pairs(data: Advantages, floor: float) -> tuple[Array, IntArray, IntArray, Array, Array]:
    """Rows, (candidate, base) row pairs, scaled gains and their weights 1/(se² + floor)."""
    x = np.concatenate(data.rows)
    starts = np.cumsum([0] + [len(r) for r in data.rows])
    cand: list[int] = []
    base: list[int] = []
    gain: list[float] = []
    weight: list[float] = []
    for g, (b, gains, ses) in enumerate(zip(data.base, data.gains, data.ses, strict=True)):
        for i, (y, se) in enumerate(zip(gains, ses, strict=True)):
            if i == b or not np.isfinite(y) or not np.isfinite(se):
                continue
            cand.append(int(starts[g] + i))
            base.append(int(starts[g] + b))
            gain.append(float(y) / VALUE_SCALE)
            weight.append(1.0 / ((float(se) / VALUE_SCALE) ** 2 + floor))
    w = np.array(weight)
    return x, np.array(cand), np.array(base), np.array(gain), w / w.sum()


def advantage_loss_and_grads(
    p: NetParams, z: Array, cand: IntArray, base: IntArray, y: Array, wt: Array, l2: float
) -> tuple[float, dict[str, Array]]:
    """Weighted squared error of the score differences ``s[cand] - s[base]`` against ``y``."""
    pre = z @ p.w1 + p.b1
    h = np.maximum(pre, 0.0)
    s = z @ p.w0 + h @ p.w2
    err = s[cand] - s[base] - y
    ds = np.zeros(len(s))
    np.add.at(ds, cand, 2 * wt * err)
    np.add.at(ds, base, -2 * wt * err)
    return float(np.sum(wt * err**2)), _backward(p, z, pre, h, ds, l2)


def fit_advantage(
    params: NetParams,
    data: Advantages,
    steps: int,
    lr: float = 0.01,
    l2: float = 1e-3,
    floor: float = 0.25,
    progress: Callable[[float], None] | None = None,
) -> tuple[NetParams, float]:
    """Full-batch Adam: score differences (candidate − greedy's move) fit the teacher's gains.

    Weighted least squares, each pair weighted by ``1 / (se² + floor)`` (gains scaled by
    :data:`VALUE_SCALE`), so a gain measured on a handful of worlds counts for little.
    """
    x, cand, base, y, wt = _pairs(data, floor)
    z = (x - params.mean) / params.std

    def loss_grads(p: NetParams) -> tuple[float, dict[str, Array]]:
        return advantage_loss_and_grads(p, z, cand, base, y, wt, l2)

    return _adam(params, loss_grads, steps, lr, progress)


def with_margin(params: NetParams, margin: float) -> NetParams:
    """The same net, keeping greedy's move unless another scores ``margin`` points higher."""
    gi = NAMES.index("greedy_choice")
    w0 = params.w0.copy()
    w0[gi] += margin / VALUE_SCALE * params.std[gi]
    return NetParams(params.mean, params.std, w0, params.w1, params.b1, params.w2)


def offline_gain(params: NetParams, data: Advantages) -> tuple[float, float, int]:
    """The teacher's mean gain per decision of the net's choices, its standard error, deviations.

    A candidate the teacher did not play counts as no gain; on held-out decisions this estimates
    what the net's departures from greedy are worth (in the teacher's rollouts).
    """
    picked = []
    deviations = 0
    for rows, b, gains in zip(data.rows, data.base, data.gains, strict=True):
        i = int(np.argmax(params.scores(rows)))
        gain = float(gains[i]) if np.isfinite(gains[i]) else 0.0
        deviations += int(i != b)
        picked.append(0.0 if i == b else gain)
    arr = np.array(picked)
    return float(arr.mean()), float(arr.std(ddof=1) / np.sqrt(len(arr))), deviations
