"""Training the ``net`` bot in numpy: imitation of greedy.

1. *Positions*: hands of greedy self-play from seeded deals; at every decision with more than one
   non-胡 action, the candidates' features are taken from the deciding seat's view
   (:func:`weimaque.games.maque.bots.features.candidate_features`).
2. *Labels*: greedy's choice.
3. *Fit*: the listwise softmax cross-entropy of the chosen candidate within each decision, by
   full-batch Adam on the perceptron of :class:`weimaque.games.maque.bots.net.NetParams`.

Everything is seeded, so the same command gives the same weights: the shipped ones
(``bots/net_weights.npz``) are made by ``wmq train`` this way (docs/bots.md). Other phases tried
on top of it (a search teacher, after-state values, rated advantages) scored no better than
greedy and live in the repository's ``research/``.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from weimaque.games.maque.bots.base import BotView
from weimaque.games.maque.bots.features import NAMES, NUM_FEATURES, candidate_features
from weimaque.games.maque.bots.greedy import GreedyBot
from weimaque.games.maque.bots.net import Array, NetParams
from weimaque.games.maque.game.actions import Action
from weimaque.games.maque.game.state import GameState

IntArray = npt.NDArray[np.int64]


@dataclass
class Dataset:
    """Decisions as contiguous row blocks: ``x[starts[g]:starts[g+1]]`` and the chosen row."""

    rows: list[Array]
    labels: list[int]

    def extend(self, other: Dataset) -> None:
        """Append another dataset's decisions."""
        self.rows.extend(other.rows)
        self.labels.extend(other.labels)

    def __len__(self) -> int:
        return len(self.labels)


def greedy_decisions(
    state: GameState, greedy: GreedyBot, rng: random.Random
) -> Iterator[tuple[BotView, Action]]:
    """Play a hand by greedy self-play; yield each real decision's view and greedy's move.

    A real decision is one that is not obvious (:meth:`BotView.obvious`: a single legal action,
    or a 胡). The move is applied after the caller resumes, so whatever the caller draws from
    ``rng`` comes in between.
    """
    while not state.is_terminal():
        seat = state.current_player()
        view = BotView.of(state, seat)
        action = greedy.act(view, rng)
        if view.obvious() is None:
            yield view, action
        state.apply(seat, action)


def collect(hands: int, seed: int, progress: Callable[[], None] | None = None) -> Dataset:
    """Decisions from ``hands`` greedy self-play hands, each labelled by greedy's move."""
    greedy = GreedyBot()
    # The seed's text is the one the shipped weights were made with.
    rng = random.Random(f"train:{seed}:None")
    data = Dataset([], [])
    for k in range(hands):
        state = GameState.new("anxiang", rng.getrandbits(63), dealer=k % 3)
        for view, action in greedy_decisions(state, greedy, rng):
            data.rows.append(candidate_features(view, view.legal))
            data.labels.append(view.legal.index(action))
        if progress is not None:
            progress()
    return data


def _backward(
    p: NetParams, z: Array, pre: Array, h: Array, ds: Array, l2: float
) -> dict[str, Array]:
    """Gradients of the weights from the loss's gradient ``ds`` with respect to each score."""
    dh = np.outer(ds, p.w2) * (pre > 0)
    return {
        "w0": z.T @ ds + l2 * p.w0,
        "w2": h.T @ ds + l2 * p.w2,
        "w1": z.T @ dh + l2 * p.w1,
        "b1": dh.sum(axis=0),
    }


def _adam(
    params: NetParams,
    loss_grads: Callable[[NetParams], tuple[float, dict[str, Array]]],
    steps: int,
    lr: float,
    progress: Callable[[float], None] | None = None,
) -> tuple[NetParams, float]:
    """Full-batch Adam on the perceptron's weights (the input scaling stays); the final loss."""
    w = {"w0": params.w0.copy(), "w1": params.w1.copy(), "b1": params.b1.copy()}
    w["w2"] = params.w2.copy()
    m = {k: np.zeros_like(v) for k, v in w.items()}
    v2 = {k: np.zeros_like(v) for k, v in w.items()}
    loss = 0.0
    for t in range(1, steps + 1):
        cur = NetParams(params.mean, params.std, w["w0"], w["w1"], w["b1"], w["w2"])
        loss, grads = loss_grads(cur)
        for k, g in grads.items():
            m[k] = 0.9 * m[k] + 0.1 * g
            v2[k] = 0.999 * v2[k] + 0.001 * g * g
            mh = m[k] / (1 - 0.9**t)
            vh = v2[k] / (1 - 0.999**t)
            w[k] = w[k] - lr * mh / (np.sqrt(vh) + 1e-8)
        if progress is not None:
            progress(loss)
    return NetParams(params.mean, params.std, w["w0"], w["w1"], w["b1"], w["w2"]), loss


def init_params(data: Dataset, hidden: int, seed: int) -> NetParams:
    """Small random weights and the features' scaling, from the data."""
    x = np.concatenate(data.rows)
    mean = x.mean(axis=0)
    std = x.std(axis=0)
    std[std < 1e-6] = 1.0
    mean[NAMES.index("bias")] = 0.0
    gen = np.random.default_rng(seed)
    return NetParams(
        mean=mean,
        std=std,
        w0=gen.normal(0, 0.01, NUM_FEATURES),
        w1=gen.normal(0, 1 / np.sqrt(NUM_FEATURES), (NUM_FEATURES, hidden)),
        b1=np.zeros(hidden),
        w2=gen.normal(0, 0.01, hidden),
    )


def loss_and_grads(
    p: NetParams, z: Array, starts: IntArray, chosen: IntArray, l2: float
) -> tuple[float, dict[str, Array]]:
    """Mean listwise cross-entropy of the chosen rows, and its gradients."""
    pre = z @ p.w1 + p.b1
    h = np.maximum(pre, 0.0)
    s = z @ p.w0 + h @ p.w2
    groups = len(starts)
    gmax = np.maximum.reduceat(s, starts)
    sizes = np.diff(np.append(starts, len(s)))
    e = np.exp(s - np.repeat(gmax, sizes))
    denom = np.add.reduceat(e, starts)
    lse = np.log(denom) + gmax
    loss = float(np.mean(lse - s[chosen]))
    ds = e / np.repeat(denom, sizes)
    ds[chosen] -= 1.0
    ds /= groups
    grads = _backward(p, z, pre, h, ds, l2)
    return loss + 0.5 * l2 * float(np.sum(p.w1**2)), grads


def fit(
    params: NetParams,
    data: Dataset,
    steps: int,
    lr: float = 0.01,
    l2: float = 1e-4,
    progress: Callable[[float], None] | None = None,
) -> tuple[NetParams, float]:
    """Full-batch Adam on ``data``; the new parameters and the final loss."""
    x = np.concatenate(data.rows)
    z = (x - params.mean) / params.std
    sizes = np.array([len(r) for r in data.rows])
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    chosen = starts + np.array(data.labels, dtype=np.int64)
    return _adam(params, lambda p: loss_and_grads(p, z, starts, chosen, l2), steps, lr, progress)


def agreement(params: NetParams, data: Dataset) -> float:
    """Share of decisions where the net's top-scored candidate is the label."""
    if not len(data):
        return 0.0
    hits = sum(
        int(np.argmax(params.scores(x))) == y for x, y in zip(data.rows, data.labels, strict=True)
    )
    return hits / len(data)


__all__ = [
    "Dataset",
    "agreement",
    "collect",
    "fit",
    "greedy_decisions",
    "init_params",
    "loss_and_grads",
]
