"""``wmq arena --backend ray``: the same table as the local backend (a local Ray on 2 CPUs)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

pytest.importorskip("ray", reason="the env extra is not installed: make test installs it")

import weimaque.games.maque.bots
from weimaque.cli import app
from weimaque.cli.train import evaluate
from weimaque.scale import LOCAL_OBJECT_STORE


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    """One local Ray on 2 CPUs for the module (the arena reuses a Ray it did not start)."""
    import ray

    ray.init(
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        object_store_memory=LOCAL_OBJECT_STORE,
    )
    try:
        yield
    finally:
        ray.shutdown()


def _table(data: dict[str, Any]) -> list[dict[str, Any]]:
    """The per-bot figures, less every decision time (``*_ms``: they depend on the machine)."""
    return [{k: v for k, v in b.items() if not k.endswith("_ms")} for b in data["bots"]]


def test_ray_backend_gives_the_local_table(local_ray: None) -> None:
    runner = CliRunner()
    base = ["arena", "--bots", "greedy,mcts:iters=8,random", "--hands", "6", "--rotations", "3"]
    base += ["--seed", "5", "--json"]
    local = runner.invoke(app, base)  # one process: the table does not depend on the workers
    assert local.exit_code == 0, local.output
    remote = runner.invoke(app, [*base, "--backend", "ray", "--workers", "2"])
    assert remote.exit_code == 0, remote.output
    a, b = json.loads(local.stdout), json.loads(remote.stdout)
    assert b["backend"] == "ray" and a["backend"] == "local"
    assert _table(a) == _table(b)
    assert sum(x["hands"] for x in _table(b)) == 18


def test_backend_errors_are_clear() -> None:
    runner = CliRunner()
    args = ["arena", "--bots", "random,random,random", "--hands", "3", "--rotations", "3"]
    wrong = runner.invoke(app, [*args, "--backend", "spark"])
    assert wrong.exit_code == 2 and "spark" in wrong.output
    orphan = runner.invoke(app, [*args, "--address", "10.0.0.1:6379"])
    assert orphan.exit_code == 2 and "needs --backend ray" in orphan.output


def test_train_checkpoint_arena_on_ray_gives_the_local_figures(local_ray: None) -> None:
    weights = Path(weimaque.games.maque.bots.__file__).parent / "net_weights.npz"
    local = evaluate(weights, 6, seed=3, workers=1)
    remote = evaluate(weights, 6, seed=3, workers=2, backend="ray")
    assert local == remote and local["hands"] == 6
