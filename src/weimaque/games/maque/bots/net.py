"""``net``: a small learned scorer over the candidates of a decision, with numpy inference.

Each non-胡 legal action is described by
:func:`weimaque.games.maque.bots.features.candidate_features` (from the seat's view only); a
two-layer perceptron with a linear skip scores every row, and the bot plays the best-scored action.
A winning 胡 is always taken, as by greedy. The weights ship with the package (``net_weights.npz``,
a few kilobytes) and are produced by ``wmq train``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Final

import numpy as np
import numpy.typing as npt

from weimaque.errors import WeimaqueError
from weimaque.games.maque.bots.base import BotView
from weimaque.games.maque.bots.features import NUM_FEATURES, candidate_features
from weimaque.games.maque.game.actions import Action

Array = npt.NDArray[np.float64]

#: The weights shipped with the package.
WEIGHTS_FILE: Final = "net_weights.npz"


@dataclass(frozen=True)
class NetParams:
    """Input scaling and the perceptron: ``score = z·w0 + relu(z·W1 + b1)·w2``, z scaled x."""

    mean: Array
    std: Array
    w0: Array
    w1: Array
    b1: Array
    w2: Array

    def scores(self, x: Array) -> Array:
        """One score per row of features."""
        z = (x - self.mean) / self.std
        h = np.maximum(z @ self.w1 + self.b1, 0.0)
        out: Array = z @ self.w0 + h @ self.w2
        return out

    def save(self, path: Path) -> None:
        """Write the parameters as an ``.npz`` file."""
        np.savez(
            path,
            mean=self.mean,
            std=self.std,
            w0=self.w0,
            w1=self.w1,
            b1=self.b1,
            w2=self.w2,
        )

    @staticmethod
    def load(path: Path | str | None = None) -> NetParams:
        """Read parameters; without a path, the weights shipped with the package."""
        try:
            if path is None:
                ref = resources.files("weimaque.games.maque.bots").joinpath(WEIGHTS_FILE)
                with resources.as_file(ref) as p, np.load(p) as z:
                    data = {k: np.asarray(z[k], dtype=np.float64) for k in z.files}
            else:
                with np.load(path) as z:
                    data = {k: np.asarray(z[k], dtype=np.float64) for k in z.files}
            params = NetParams(**data)
        except (OSError, KeyError, TypeError, ValueError) as exc:
            raise WeimaqueError(f"cannot load net weights {str(path)!r}: {exc}") from exc
        if params.w0.shape != (NUM_FEATURES,) or params.w1.shape[0] != NUM_FEATURES:
            raise WeimaqueError(f"net weights {str(path)!r} do not match the features")
        return params


class NetBot:
    """``net``: plays the candidate the learned scorer rates highest."""

    name = "net"

    def __init__(self, params: NetParams | None = None) -> None:
        """Use ``params``, or the weights shipped with the package."""
        self.params = params if params is not None else _shipped()

    @classmethod
    def from_params(cls, params: dict[str, str]) -> NetBot:
        """Build from ``net`` or ``net:weights=PATH``."""
        unknown = set(params) - {"weights"}
        if unknown:
            raise WeimaqueError(f"unknown net parameter(s) {sorted(unknown)}; known: weights")
        weights = NetParams.load(params["weights"]) if "weights" in params else None
        return cls(weights)

    def act(self, view: BotView, rng: random.Random) -> Action:
        """Take any 胡; else the best-scored candidate (RULES §4.7)."""
        obvious = view.obvious()
        if obvious is not None:
            return obvious
        legal = view.legal
        x = candidate_features(view, legal)
        return legal[int(np.argmax(self.params.scores(x)))]


_SHIPPED: list[NetParams] = []


def _shipped() -> NetParams:
    if not _SHIPPED:
        _SHIPPED.append(NetParams.load())
    return _SHIPPED[0]
