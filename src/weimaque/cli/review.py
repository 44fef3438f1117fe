"""``wmq review``: 复盘 of one seat's decisions in a recorded hand or match (see bots.review)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from weimaque.cli.records import SLIPPED, check_record, read_record, refuse
from weimaque.errors import WeimaqueError
from weimaque.games.maque.bots.review import DEFAULT_BOT, Review, review


def review_table(result: Review) -> Table:
    """The graded decisions as a rich table."""
    table = Table(title=f"复盘: seat {result.seat}, bot {result.bot}")
    for col in ("hand", "step", "taken", "best", "cost", "", "reason"):
        table.add_column(col, justify="right" if col in ("hand", "step", "cost") else "left")
    for d in result.decisions:
        table.add_row(
            str(d.hand),
            str(d.step + 1),  # the replay's step, as the summary names it (docs/bots.md)
            d.taken,
            d.best,
            f"{d.cost:+.1f} ± {d.se:.1f}",
            "[bold red]✗[/]" if d.mistake else "",
            d.reason,
        )
    return table


def review_cmd(
    record: Annotated[
        Path,
        typer.Argument(
            help="A hand or match record JSON (wmq play --save, "
            "or a finished hand from the server)."
        ),
    ],
    seat: Annotated[int, typer.Option("--seat", "-s", min=0, max=2, help="The seat to review.")],
    bot: Annotated[
        str, typer.Option("--bot", "-b", help="The search bot grading the decisions.")
    ] = DEFAULT_BOT,
    hand: Annotated[
        int | None, typer.Option("--hand", help="Only this hand of a match record (from 1).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Grade a seat's decisions from its own view: the bot's choice, the cost, the mistakes."""
    out = Console()
    try:
        data = read_record(record)
        check_record(data)
        result = review(data, seat, DEFAULT_BOT if bot == "mcts" else bot, hand)
    except WeimaqueError as exc:
        raise refuse("review", str(exc)) from exc
    except SLIPPED as exc:
        raise refuse("review", f"not a record: {type(exc).__name__}: {exc}") from exc
    if as_json:
        sys.stdout.write(json.dumps(result.to_dict(), ensure_ascii=False) + "\n")
        return
    out.print(review_table(result))
    out.print(result.summary()["text"], highlight=False, markup=False)


def register(app: typer.Typer) -> None:
    """Add ``wmq review`` to the app."""
    app.command("review")(review_cmd)
