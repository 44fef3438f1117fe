"""``wmq``: the calculator, the rule presets, play, simulation, arenas, records and the server.

The CLI speaks to a game through the seam alone (``weimaque.games``, docs/architecture.md "The
CLI"): ``wmq score`` asks the game's ``Calculator``, ``wmq simulate`` plays any game at random,
and what is one game's own at the terminal (偎麻雀's board, breakdown table, ``wmq rules`` and
``wmq train``) comes from its ``"terminal"`` capability (:class:`weimaque.games.Terminal`).
"""

from __future__ import annotations

import json
import sys
from enum import StrEnum
from typing import Annotated

import typer
from rich.console import Console

from weimaque.cli.arena import parse_options
from weimaque.errors import WeimaqueError
from weimaque.games import Terminal, TerminalFrontEnd, get_game

app = typer.Typer(
    help=(
        "安乡偎麻雀 (Anxiang Wei Maque): calculator, rules and game. "
        "The rules are in docs/rules.md."
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

out = Console()
err = Console(stderr=True)

EXIT_WIN = 0
EXIT_NO_WIN = 1
EXIT_BAD_INPUT = 2


class FromOption(StrEnum):
    self_ = "self"
    other = "other"
    # 三丁拐's ways (SDG §1.4): 抢杠, 杠上花, 热炮.
    rob = "rob"
    kong = "kong"
    repao = "repao"


class LangOption(StrEnum):
    both = "both"
    zh = "zh"
    en = "en"


#: The game a command plays without ``--game``: 偎麻雀, whose front end also gives ``wmq rules``
#: and ``wmq train``.
MAQUE = "maque"
#: The largest 留子 pool ``wmq score --pool`` and ``POST /api/score`` take.
POOL_MAX = 1_000_000


def _fail(message: str) -> typer.Exit:
    err.print(f"[bold red]error:[/] {message}", highlight=False, markup=True)
    return typer.Exit(EXIT_BAD_INPUT)


@app.command("score")
def score_cmd(
    hand: Annotated[
        list[str],
        typer.Argument(
            help="Hand description, e.g. '碰:七七七 手:… 胡:九' (三丁拐: "
            "'hand:234m678m23p99p gang:7777p@2 win:4p'; with --table a table description, "
            "lines separated by ';'; '-' reads it from stdin)."
        ),
    ],
    rules: Annotated[
        str | None,
        typer.Option("--rules", "-r", help="Preset id (default: the game's first)."),
    ] = None,
    source: Annotated[
        FromOption,
        typer.Option(
            "--from", help="Who drew the winning card (三丁拐 also rob, kong, repao: SDG §1.4)."
        ),
    ] = FromOption.self_,
    last: Annotated[bool, typer.Option("--last", help="Won on the last stock card.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    tianhu: Annotated[
        bool,
        typer.Option("--tianhu", help="Score the dealer's 20 dealt cards (no 胡:) as 天胡."),
    ] = False,
    deal: Annotated[
        bool,
        typer.Option(
            "--deal",
            help="Score a seat's dealt cards (19, or the dealer's 20; no 胡:) for the deal 名堂.",
        ),
    ] = False,
    dealt_kan: Annotated[
        bool,
        typer.Option("--dealt-kan", help="The winner was dealt three of the winning face."),
    ] = False,
    declined: Annotated[
        str,
        typer.Option("--declined", help="Faces on which the winner declined a 胡, e.g. 二五."),
    ] = "",
    game: Annotated[
        str,
        typer.Option(
            "--game", "-g", help="The game: maque (偎麻雀, default) or sandingguai (三丁拐, sdg)."
        ),
    ] = MAQUE,
    table: Annotated[
        bool,
        typer.Option(
            "--table",
            help="三丁拐: settle a table description (SDG §1.5) instead of scoring a hand.",
        ),
    ] = False,
    baoting: Annotated[
        bool, typer.Option("--baoting", help="三丁拐: the winner declared 报听 (SDG §4.6).")
    ] = False,
    lang: Annotated[
        LangOption, typer.Option("--lang", help="三丁拐: names in zh, en or both.")
    ] = LangOption.both,
    pool: Annotated[
        int | None,
        typer.Option(
            "--pool",
            help="The 留子 pool the winner may take: the reading with the largest whole gain "
            "wins (liuzi_choice, RULES §8.5.3); prints the take and the gain.",
        ),
    ] = None,
    players: Annotated[
        int | None,
        typer.Option("--players", help="Players at the table, 2 or 3 (RULES §2.5)."),
    ] = None,
    options_text: Annotated[
        str | None,
        typer.Option(
            "--options", help="Rule options on top of the preset, as JSON: '{\"deng_value\": 80}'."
        ),
    ] = None,
) -> None:
    """Score a winning hand: every group's 息, every 名堂, the total (exit 0 win, 1 no win).

    The rules are in docs/rules.md; `wmq rules show PRESET` lists a preset's 名堂. With
    `--game sandingguai` it scores a 三丁拐 hand (SDG §6) or, with `--table`, settles a whole
    table (SDG §7-§9): docs/sandingguai.md §12.
    """
    text = " ".join(hand)
    try:
        game_id = _game_id(game)
    except WeimaqueError as exc:
        raise _fail(str(exc)) from exc
    if game_id != MAQUE:
        if text.strip() == "-":
            text = sys.stdin.read()
        maque_only = [
            flag
            for flag, on in (
                ("--last", last),
                ("--tianhu", tianhu),
                ("--deal", deal),
                ("--dealt-kan", dealt_kan),
                ("--declined", bool(declined)),
            )
            if on
        ]
        maque_only += [
            flag for flag, given in (("--pool", pool), ("--players", players)) if given is not None
        ]
        if maque_only:
            raise _fail(f"{', '.join(maque_only)} describe a 偎麻雀 hand, not {game_id}")
        _calculate(game_id, text, rules, source.value, baoting, table, as_json, lang.value)
        return
    if table or baoting:
        flag = "--table" if table else "--baoting"
        raise _fail(f"{flag} is for 三丁拐 (--game sandingguai)")
    if source.value not in ("self", "other"):
        raise _fail(f"--from takes 'self' or 'other' for 偎麻雀, not {source.value!r}")
    if tianhu and deal:
        raise _fail("--tianhu and --deal exclude each other")
    if (tianhu or deal) and (dealt_kan or declined):
        flag = "--tianhu" if tianhu else "--deal"
        raise _fail(f"{flag} scores dealt cards: --dealt-kan and --declined describe a win")
    if pool is not None and not 0 <= pool <= POOL_MAX:
        raise _fail(f"--pool takes a pool of 0..{POOL_MAX} units, not {pool!r}")
    if players is not None and players not in (2, 3):
        raise _fail(f"--players takes 2 or 3, not {players!r}")
    if (tianhu or deal) and pool is not None:
        flag = "--tianhu" if tianhu else "--deal"
        raise _fail(f"{flag} scores dealt cards: --pool weighs the readings of a win")
    try:
        options = parse_options(options_text)
    except WeimaqueError as exc:
        raise _fail(str(exc)) from exc
    # The calculator's request (docs/protocol.md §1 POST /api/score), only what was given.
    request: dict[str, object] = {"hand": text, "rules": rules or "anxiang"}
    given: dict[str, object] = {
        "source": source.value if source.value != "self" else None,
        "last": last or None,
        "tianhu": tianhu or None,
        "deal": deal or None,
        "dealt_kan": dealt_kan or None,
        "declined": declined or None,
        "pool": pool,
        "players": players,
        "options": options or None,
    }
    request.update({k: v for k, v in given.items() if v is not None})
    _show_calculation(game_id, request, as_json, lang.value)


def _game_id(name: str) -> str:
    """A game's id by id or alias (``UnknownGame`` quoting an unknown one)."""
    return get_game(name).info.id


def front_end(game_id: str) -> Terminal | None:
    """A game's own terminal front end (its ``"terminal"`` capability), or None."""
    found = get_game(game_id)
    return found.terminal() if isinstance(found, TerminalFrontEnd) else None


def _calculate(
    game_id: str,
    text: str,
    rules: str | None,
    source: str,
    baoting: bool,
    table: bool,
    as_json: bool,
    lang: str,
) -> None:
    """A hand or table of a game other than 偎麻雀 asked of its calculator, printed."""
    request: dict[str, object] = {}
    if table:
        if source != "self" or baoting:
            raise _fail("--from and --baoting describe a hand; a table says them per seat")
        request["table"] = text
    else:
        extra = ([f"--from {source}"] if source != "self" else []) + (
            ["--baoting"] if baoting else []
        )
        request["hand"] = " ".join([text, *extra])
    if rules is not None:
        request["rules"] = rules
    _show_calculation(game_id, request, as_json, lang)


def _show_calculation(game_id: str, request: dict[str, object], as_json: bool, lang: str) -> None:
    """Ask the game's calculator (the seam's ``Calculator``) and print its explained answer:
    through the game's own front end where it has one (偎麻雀's breakdown table), else the
    CLI's renderer of a calculator's JSON (:func:`weimaque.cli.render.calculation_renderable`).
    Exit 0 for a win or a settled table, 1 for a hand that does not win, 2 for bad input."""
    from weimaque.cli.render import calculation_renderable
    from weimaque.games import Calculator

    found = get_game(game_id)
    if not isinstance(found, Calculator):
        raise _fail(f"game {game_id!r} has no calculator")
    try:
        answer = found.calculate(request)
    except WeimaqueError as exc:
        raise _fail(str(exc)) from exc
    front = front_end(game_id)
    if front is not None:
        shown = front.calculation(answer, lang)
        if as_json:
            sys.stdout.write(json.dumps(shown.json, ensure_ascii=False) + "\n")
        else:
            out.print(shown.renderable)
        raise typer.Exit(shown.exit)
    if as_json:
        sys.stdout.write(json.dumps(answer, ensure_ascii=False) + "\n")
    else:
        out.print(calculation_renderable(answer, lang))
    if answer.get("kind") == "hand" and not answer.get("win"):
        raise typer.Exit(EXIT_NO_WIN)
    raise typer.Exit(EXIT_WIN)


@app.command("simulate")
def simulate_cmd(
    games: Annotated[int, typer.Option("--games", "-n", min=1, help="Hands to play.")] = 1000,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the first hand.")] = 0,
    rules: Annotated[
        str | None, typer.Option("--rules", "-r", help="Preset id (default: the game's first).")
    ] = None,
    check: Annotated[bool, typer.Option("--check", help="Check invariants every step.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    game: Annotated[
        str, typer.Option("--game", "-g", help="The game (default maque, 偎麻雀).")
    ] = MAQUE,
    options_text: Annotated[
        str | None,
        typer.Option("--options", help="Rule options on top of the preset, as JSON."),
    ] = None,
) -> None:
    """Play hands of any game with random legal actions; optionally verify every invariant."""
    import random
    import time

    from rich.progress import Progress

    from weimaque.cli.simulate import SimulationStats, play_random_hand

    try:
        found = get_game(game)
        variant = found.schema.variant(rules).id if rules else found.schema.variants[0].id
        options: dict[str, object] = dict(found.schema.validate(parse_options(options_text)))
        found.shape(variant, options)
    except WeimaqueError as exc:
        raise _fail(str(exc)) from exc
    stats = SimulationStats()
    rng = random.Random(seed)
    shown = 0
    start = time.perf_counter()
    with Progress(console=err, disable=as_json or not err.is_terminal, transient=True) as bar:
        task = bar.add_task("simulating", total=games)
        for k in range(games):
            problems = play_random_hand(found, variant, options, seed + k, rng, check, stats)
            if problems and shown < 5:
                shown += 1
                err.print(f"hand seed {seed + k}: {problems[:3]}", highlight=False)
            bar.advance(task)
    stats.seconds = time.perf_counter() - start
    if as_json:
        sys.stdout.write(json.dumps(stats.to_dict()) + "\n")
    else:
        for key, value in stats.to_dict().items():
            out.print(f"{key:>20}: {value}")
    raise typer.Exit(1 if stats.invariant_failures else 0)


# Commands defined in other modules register themselves below, one line each.
from weimaque.cli.arena import register as _register_arena  # noqa: E402
from weimaque.cli.cluster import register as _register_cluster  # noqa: E402
from weimaque.cli.play import register as _register_play  # noqa: E402
from weimaque.cli.review import register as _register_review  # noqa: E402
from weimaque.cli.serve import register as _register_serve  # noqa: E402
from weimaque.cli.train import arena_for  # noqa: E402
from weimaque.cli.verify import register as _register_verify  # noqa: E402

_register_play(app)
_register_arena(app)
_register_review(app)

# The default game's own commands (偎麻雀's ``wmq rules`` and ``wmq train``), from its front end.
_front = front_end(MAQUE)
for _name, _command in _front.commands(arena_for(MAQUE)) if _front is not None else ():
    if isinstance(_command, typer.Typer):
        app.add_typer(_command, name=_name)
    else:
        app.command(_name)(_command)
_register_serve(app)
_register_cluster(app)
_register_verify(app)


def main() -> None:
    """Console-script entry point."""
    app()
