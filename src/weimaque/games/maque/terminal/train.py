"""``wmq train``: train 偎麻雀's ``net`` bot (numpy) and print its learning curve against greedy.

Imitation of greedy on self-play positions (:mod:`weimaque.games.maque.bots.train`), in ``--chunks``
steps: the way the shipped weights are made (docs/bots.md). At every checkpoint the current weights
play an arena against two greedy bots (duplicate deals, fixed seed), and the curve (points per hand
with the 95% interval) is printed, written as ``curve.json`` and, with the ``train`` extra
(matplotlib), drawn as ``curve.png``. The arena is the platform's, lent to this front end by the
CLI (:class:`weimaque.games.protocol.ArenaRun`): a game's package imports no platform.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from weimaque.errors import WeimaqueError
from weimaque.games.maque.bots.net import WEIGHTS_FILE, NetParams
from weimaque.games.maque.bots.train import Dataset, agreement, collect, fit, init_params
from weimaque.games.protocol import JSON, ArenaRun

EXIT_BAD_INPUT = 2


def evaluate(
    arena: ArenaRun,
    weights: Path,
    hands: int,
    seed: int,
    workers: int,
    backend: str = "local",
    address: str | None = None,
) -> JSON:
    """Arena of ``net:weights=…`` against two greedy bots: its points per hand and interval.

    ``backend="ray"`` plays the deals as Ray tasks (docs/scale.md): the same figures.
    """
    return arena(
        (f"net:weights={weights}", "greedy", "greedy"), hands, seed, workers, backend, address
    )


def draw_curve(curve: list[dict[str, Any]], path: Path) -> bool:
    """Draw the curve as a PNG (needs matplotlib, the ``train`` extra); False without it."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    xs = list(range(len(curve)))
    ys = [c["points_per_hand"] for c in curve]
    lo = [c["ci95"][0] for c in curve]
    hi = [c["ci95"][1] for c in curve]
    fig, ax = plt.subplots(figsize=(7, 4), dpi=100)
    ax.fill_between(xs, lo, hi, alpha=0.25, label="95% interval")
    ax.plot(xs, ys, marker="o", label="net vs two greedy")
    ax.axhline(0.0, color="grey", linewidth=0.8)
    ax.set_xticks(xs, [c["label"] for c in curve], rotation=30, ha="right", fontsize=8)
    ax.set_ylabel("points per hand")
    ax.set_title(f"net learning curve ({curve[0]['hands']} hands per checkpoint)")
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return True


def train_command(arena: ArenaRun) -> Callable[..., None]:
    """The ``wmq train`` command, its checkpoints weighed with the platform's ``arena``."""

    def train_cmd(
        out: Annotated[Path, typer.Option("--out", "-o", help="Folder for weights and the curve.")],
        imitate_hands: Annotated[
            int, typer.Option(min=1, help="Greedy self-play hands whose decisions are imitated.")
        ] = 200,
        chunks: Annotated[int, typer.Option(min=1, help="Checkpoints (imitation steps).")] = 2,
        steps: Annotated[int, typer.Option(min=1, help="Adam steps per checkpoint.")] = 150,
        hidden: Annotated[int, typer.Option(min=1, help="Hidden units.")] = 32,
        eval_hands: Annotated[
            int, typer.Option(min=6, help="Arena hands per checkpoint (vs two greedy).")
        ] = 120,
        seed: Annotated[int, typer.Option(help="Seed of the positions, weights and arenas.")] = 0,
        workers: Annotated[int, typer.Option(min=1, help="Arena processes.")] = 1,
        backend: Annotated[
            str, typer.Option(help="Checkpoint arenas: 'local' processes or 'ray' (docs/scale.md).")
        ] = "local",
        address: Annotated[
            str | None, typer.Option(help="The Ray cluster to join with --backend ray.")
        ] = None,
        install: Annotated[
            bool, typer.Option(help="Also copy the final weights into the package.")
        ] = False,
    ) -> None:
        """Train the net bot by imitating greedy; print the learning curve."""
        console = Console(stderr=True)
        outc = Console()
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            console.print(f"[bold red]error:[/] cannot create {str(out)!r}: {exc}", highlight=False)
            raise typer.Exit(EXIT_BAD_INPUT) from exc
        curve: list[dict[str, Any]] = []
        per_i = -(-imitate_hands // chunks)
        total = chunks * (per_i + 1) + 1
        data = Dataset([], [])
        params: NetParams | None = None
        try:
            with Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                console=console,
            ) as bar:
                task = bar.add_task("train", total=total)

                def tick() -> None:
                    bar.advance(task)

                def checkpoint(label: str, note: str = "") -> None:
                    assert params is not None
                    path = out / f"ckpt{len(curve)}.npz"
                    params.save(path)
                    bar.update(task, description=f"arena {label}")
                    point: dict[str, Any] = {"label": label, "decisions": len(data), "note": note}
                    point.update(
                        evaluate(arena, path, eval_hands, seed + 1, workers, backend, address)
                    )
                    point["agreement"] = round(agreement(params, data), 4) if len(data) else 0.0
                    curve.append(point)
                    bar.advance(task)
                    lo, hi = point["ci95"]
                    bar.console.print(
                        f"{label:>18s}: {point['points_per_hand']:+7.2f} per hand "
                        f"[{lo:+.2f}, {hi:+.2f}] over {point['hands']} hands, "
                        f"{len(data)} decisions, agreement {point['agreement']:.3f} {note}",
                        highlight=False,
                    )

                for c in range(chunks):
                    bar.update(task, description="imitate greedy: positions")
                    data.extend(collect(per_i, seed * 1000 + c, tick))
                    if params is None:
                        params = init_params(data, hidden, seed)
                        checkpoint("start")
                    bar.update(task, description="imitate greedy: fit")
                    params, _ = fit(params, data, steps)
                    checkpoint(f"imitate greedy {c + 1}")
        except WeimaqueError as exc:
            console.print(f"[bold red]error:[/] {exc}", highlight=False)
            raise typer.Exit(EXIT_BAD_INPUT) from exc
        assert params is not None
        final = out / WEIGHTS_FILE
        params.save(final)
        (out / "curve.json").write_text(json.dumps(curve, indent=1) + "\n", "utf-8")
        drawn = draw_curve(curve, out / "curve.png")
        table = Table(title="net learning curve: points per hand against two greedy bots")
        for col in ("checkpoint", "decisions", "agreement", "points/hand", "95% CI", "hands"):
            table.add_column(col, justify="left" if col == "checkpoint" else "right")
        for p in curve:
            table.add_row(
                p["label"],
                str(p["decisions"]),
                f"{p['agreement']:.3f}",
                f"{p['points_per_hand']:+.2f}",
                f"[{p['ci95'][0]:+.2f}, {p['ci95'][1]:+.2f}]",
                str(p["hands"]),
            )
        outc.print(table)
        outc.print(f"weights: {final}" + (f", curve: {out / 'curve.png'}" if drawn else ""))
        if install:
            # weimaque.games.maque.bots, where the net bot loads its weights from
            target = Path(__file__).resolve().parent.parent / "bots" / WEIGHTS_FILE
            params.save(target)
            outc.print(f"installed: {target}")

    return train_cmd


__all__ = ["draw_curve", "evaluate", "train_command"]
