"""``wmq review``: 复盘 of one seat's decisions in a recorded hand or match, by the game's
reviewer through the seam (``Reviewing.review``, docs/bots.md)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from weimaque.cli.records import SLIPPED, read_record, record_game, refuse
from weimaque.errors import WeimaqueError
from weimaque.games import get_game
from weimaque.games.protocol import Reviewing


def review_table(result: dict[str, Any]) -> Table:
    """The graded decisions of a review's JSON as a rich table."""
    table = Table(title=f"复盘: seat {result['seat']}, bot {result['bot']}")
    for col in ("hand", "step", "taken", "best", "cost", "", "reason"):
        table.add_column(col, justify="right" if col in ("hand", "step", "cost") else "left")
    for d in result["decisions"]:
        table.add_row(
            str(d["hand"]),
            str(d["step"] + 1),  # the replay's step, as the summary names it (docs/bots.md)
            d["taken"],
            d["best"],
            f"{d['cost']:+.1f} ± {d['se']:.1f}",
            "[bold red]✗[/]" if d["mistake"] else "",
            d["reason"],
        )
    return table


def review_record(data: Any, seat: int, bot: str, hand: int | None) -> dict[str, Any]:
    """The review of ``seat`` in a record by the game the record is of (its ``game``; 偎麻雀's
    name none), through the seam: a ``WeimaqueError`` for a game without a reviewer."""
    game_id = record_game(data)
    game = get_game(game_id)
    if not isinstance(game, Reviewing):
        raise WeimaqueError(f"game {game_id!r} has no reviewer (复盘)")
    return game.review(data, seat, bot, hand)


def review_cmd(
    record: Annotated[
        Path,
        typer.Argument(
            help="A hand or match record JSON (wmq play --save, "
            "or a finished hand from the server)."
        ),
    ],
    seat: Annotated[int, typer.Option("--seat", "-s", min=0, help="The seat to review.")],
    bot: Annotated[
        str,
        typer.Option(
            "--bot", "-b", help="The search bot grading the decisions (default: the game's own)."
        ),
    ] = "",
    hand: Annotated[
        int | None, typer.Option("--hand", help="Only this hand of a match record (from 1).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Grade a seat's decisions from its own view: the bot's choice, the cost, the mistakes."""
    out = Console()
    try:
        result = review_record(read_record(record), seat, bot, hand)
    except WeimaqueError as exc:
        raise refuse("review", str(exc)) from exc
    except SLIPPED as exc:
        raise refuse("review", f"not a record: {type(exc).__name__}: {exc}") from exc
    if as_json:
        sys.stdout.write(json.dumps(result, ensure_ascii=False) + "\n")
        return
    out.print(review_table(result))
    out.print(result["summary"]["text"], highlight=False, markup=False)


def register(app: typer.Typer) -> None:
    """Add ``wmq review`` to the app."""
    app.command("review")(review_cmd)
