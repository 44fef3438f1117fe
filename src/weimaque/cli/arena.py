"""``wmq arena``: a game's bots on duplicate deals, with 95% intervals (:mod:`weimaque.arena`)."""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Callable
from typing import Annotated, Final

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from weimaque.arena import (
    ArenaConfig,
    ArenaResult,
    DealResult,
    deals_for_hands,
    resolved,
    run_arena,
    split_bot_specs,
)
from weimaque.errors import WeimaqueError, quoted
from weimaque.games import get_game

EXIT_BAD_INPUT = 2


def _load_ismcts() -> str:
    try:
        import weimaque.env.openspiel as plugin  # the optional extra env
    except ImportError as exc:
        raise WeimaqueError(
            f"the bot 'ismcts' needs the optional extra 'env': pip install -e '.[env]' ({exc})"
        ) from exc
    return plugin.__name__


#: Plugin bot name → a loader that imports the module registering it
#: (``weimaque.games.maque.bots.PLUGINS``, docs/bots.md) and returns that module's name, for the
#: arena's workers to import too. They are 偎麻雀's bots (``weimaque.games.maque.bots``); the other
#: games build every bot they offer themselves.
PLUGIN_LOADERS: Final[dict[str, Callable[[], str]]] = {"ismcts": _load_ismcts}
#: The game whose bot specs may name a plugin bot.
PLUGIN_GAME: Final = "maque"


def plugin_modules(specs: list[str], game: str = PLUGIN_GAME) -> tuple[str, ...]:
    """The modules registering the plugin bots among ``specs``, imported here, sorted."""
    modules: set[str] = set()
    if game != PLUGIN_GAME:
        return ()
    for spec in specs:
        if spec.strip().startswith("cmd:"):
            continue
        name = spec.split(":", 1)[0].strip()
        if name in PLUGIN_LOADERS:
            modules.add(PLUGIN_LOADERS[name]())
    return tuple(sorted(modules))


def parse_options(text: str | None) -> dict[str, object]:
    """``--options``: a JSON object of rule options (checked against the game's schema later)."""
    if text is None:
        return {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise WeimaqueError(f"--options takes a JSON object, not {quoted(text)}: {exc}") from exc
    if not isinstance(value, dict):
        raise WeimaqueError(f"--options takes a JSON object of option → value, not {quoted(text)}")
    return value


def results_table(result: ArenaResult) -> Table:
    """The per-bot results as a rich table."""
    c = result.config
    options = f" {json.dumps(dict(c.options), ensure_ascii=False)}" if c.options else ""
    table = Table(
        title=f"arena: {c.deals} deals × {c.rotations} seatings = {result.hands} hands, "
        f"game {c.game}, rules {c.rules}{options}, seed {c.seed}"
    )
    cols = ("bot", "hands", "points/hand", "95% CI", "win rate", "total/win", "臭")
    for col in cols:
        table.add_column(col, justify="left" if col == "bot" else "right")
    for b in result.bots:
        table.add_row(
            b.name,
            str(b.hands),
            f"{b.points_per_hand:+.2f}",
            f"[{b.ci95[0]:+.2f}, {b.ci95[1]:+.2f}]",
            f"{b.win_rate:.1%}",
            f"{b.mean_total_per_win:.1f}",
            f"{b.chou_rate:.1%}",
        )
    return table


def times_table(result: ArenaResult) -> Table:
    """Each bot's decision times in ms, median and p90 over every call of its ``act``: wall
    clock, and the CPU time of the deciding thread (what a shared machine measures honestly,
    docs/bots.md "The arena")."""
    table = Table(title="decision times, ms per call (wall clock; CPU: the deciding thread's)")
    cols = ("bot", "decisions", "wall median", "wall p90", "CPU median", "CPU p90")
    for col in cols:
        table.add_column(col, justify="left" if col == "bot" else "right")
    for b in result.bots:
        table.add_row(
            b.name,
            str(b.decisions),
            f"{b.median_decision_ms:.2f}",
            f"{b.p90_decision_ms:.2f}",
            f"{b.median_decision_cpu_ms:.2f}",
            f"{b.p90_decision_cpu_ms:.2f}",
        )
    return table


#: Faults listed one by one; beyond that only counted.
SHOWN_FAULTS = 10


def print_faults(out: Console, result: ArenaResult) -> None:
    """List the decisions external bots did not make themselves (docs/bot-protocol.md)."""
    if not result.faults:
        return
    out.print(
        f"{len(result.faults)} decisions went to the fallback (crash, timeout, garbage, illegal):",
        highlight=False,
    )
    for line in result.faults[:SHOWN_FAULTS]:
        out.print(f"  {line}", highlight=False, markup=False)
    if len(result.faults) > SHOWN_FAULTS:
        out.print(f"  … and {len(result.faults) - SHOWN_FAULTS} more (--json lists all)")


def arena_cmd(
    bots: Annotated[
        str,
        typer.Option(
            "--bots",
            "-b",
            help="One bot spec per seat, separated by commas; parameters after 'name:' separated "
            "by ';' (or commas, as key=value): 'greedy,random,mcts:ms=300;iters=50'.",
        ),
    ],
    game: Annotated[
        str, typer.Option("--game", "-g", help="The game, by id or alias: maque, sandingguai.")
    ] = "maque",
    hands: Annotated[
        int,
        typer.Option(
            "--hands",
            "-n",
            min=1,
            help="Hands to play, rounded up to whole deals; each deal is played in every seating.",
        ),
    ] = 600,
    rules: Annotated[
        str | None,
        typer.Option(
            "--variant", "--rules", "-r", help="Preset id or alias; default: the game's first."
        ),
    ] = None,
    options: Annotated[
        str | None,
        typer.Option(
            "--options", help="Rule options on top of the preset, as JSON: '{\"min_xi\": 10}'."
        ),
    ] = None,
    seed: Annotated[int, typer.Option("--seed", help="Arena seed (deals and bot RNGs).")] = 0,
    workers: Annotated[
        int, typer.Option("--workers", "-w", min=1, help="Processes; results do not depend on it.")
    ] = 1,
    rotations: Annotated[
        int | None,
        typer.Option(
            "--rotations",
            help="Seatings per deal: every permutation of the seats by default (6 for three "
            "seats); the seat count (3) plays the cyclic rotations only.",
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    backend: Annotated[
        str,
        typer.Option(
            "--backend",
            help="'local' (a process pool of --workers) or 'ray' (deals as Ray tasks; a local Ray "
            "with --workers CPUs unless --address is given). See docs/scale.md.",
        ),
    ] = "local",
    address: Annotated[
        str | None,
        typer.Option("--address", help="The Ray cluster to join with --backend ray."),
    ] = None,
) -> None:
    """Pit a game's bots against each other on duplicate deals; points per hand with a 95% CI."""
    out = Console()
    err = Console(stderr=True)
    try:
        specs = split_bot_specs(bots)
        the_game = get_game(game)
        variant = rules or the_game.schema.variants[0].id
        rule_options = parse_options(options)
        seats = the_game.shape(variant, rule_options).seats
        per_deal = rotations or math.factorial(seats)
        config = resolved(
            ArenaConfig(
                tuple(specs),
                deals_for_hands(hands, max(1, per_deal)),
                rules=variant,
                seed=seed,
                rotations=per_deal,
                workers=workers,
                backend=backend,
                address=address,
                plugins=plugin_modules(specs, the_game.info.id),
                game=the_game.info.id,
                options=rule_options,
            )
        )
        if address and backend != "ray":
            raise WeimaqueError(f"--address {address!r} needs --backend ray")
        with Progress(
            TextColumn("arena"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("hands"),
            TimeRemainingColumn(),
            console=err,
            disable=as_json,
            transient=True,
        ) as bar:
            task = bar.add_task("arena", total=config.deals * config.rotations)

            def advance(r: DealResult) -> None:
                bar.advance(task, len(r.winners))

            result = run_arena(config, advance)
    except WeimaqueError as exc:
        err.print(f"[bold red]error:[/] {exc}", highlight=False)
        raise typer.Exit(EXIT_BAD_INPUT) from exc
    if as_json:
        sys.stdout.write(json.dumps(result.to_dict(), ensure_ascii=False) + "\n")
    else:
        out.print(results_table(result))
        out.print(times_table(result))
        print_faults(out, result)


def register(app: typer.Typer) -> None:
    """Add ``wmq arena`` to the app."""
    app.command("arena")(arena_cmd)
