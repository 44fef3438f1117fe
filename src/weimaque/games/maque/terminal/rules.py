"""``wmq rules``: 偎麻雀's presets and their 名堂 tables (docs/rules.md)."""

from __future__ import annotations

import json
import sys
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from weimaque.errors import WeimaqueError
from weimaque.games.maque.rules.config import OPTION_NAMES
from weimaque.games.maque.rules.registry import get_rules, list_rules
from weimaque.games.maque.terminal.render import rules_table

EXIT_BAD_INPUT = 2


def rules_app() -> typer.Typer:
    """The ``rules`` group: ``list`` and ``show``."""
    app = typer.Typer(
        help="The rule presets (each 名堂 and option is explained in docs/rules.md).",
        no_args_is_help=True,
    )
    out = Console()
    err = Console(stderr=True)

    @app.command("list")
    def rules_list(
        as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
        app: Annotated[
            bool, typer.Option("--app", help="List the app tiers (docs/rules.md §7.4) too.")
        ] = False,
    ) -> None:
        """List the presets with their sources."""
        presets = list_rules(app=app)
        if as_json:
            rows = [
                {
                    "id": r.id,
                    "name": r.name,
                    "name_en": r.name_en,
                    "source": r.source,
                    "aliases": list(r.aliases),
                    "description": r.description,
                    "description_zh": r.description_zh,
                }
                for r in presets
            ]
            sys.stdout.write(json.dumps(rows, ensure_ascii=False) + "\n")
            return
        table = Table(title="rule presets")
        for col in ("id", "name", "source"):
            table.add_column(col)
        for r in presets:
            marker = " (default)" if r.id == "anxiang" else ""
            table.add_row(r.id + marker, f"{r.name} / {r.name_en}", r.source)
        out.print(table)

    @app.command("show")
    def rules_show(
        preset: Annotated[str, typer.Argument(help="Preset id or alias.")],
        as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    ) -> None:
        """Print a preset's 名堂 table and options."""
        try:
            rules = get_rules(preset)
        except WeimaqueError as exc:
            err.print(f"[bold red]error:[/] {exc}", highlight=False, markup=True)
            raise typer.Exit(EXIT_BAD_INPUT) from exc
        if as_json:
            data = {
                "id": rules.id,
                "options": rules.options(),
                "patterns": {k: v.to_toml() for k, v in rules.patterns.items()},
                "optional_patterns": {k: v.to_toml() for k, v in rules.optional_patterns.items()},
            }
            if rules.names:
                data["names"] = dict(rules.names)
            sys.stdout.write(json.dumps(data, ensure_ascii=False) + "\n")
            return
        out.print(rules_table(rules))
        # The description in both languages (docs/rules.md §7.3).
        for text in (rules.description_zh, rules.description):
            if text:
                out.print(text, highlight=False)
        options = ", ".join(f"{name}={getattr(rules, name)}" for name in OPTION_NAMES)
        out.print(f"[dim]options: {options}[/]")

    return app


__all__ = ["rules_app"]
