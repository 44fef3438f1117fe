"""``wmq verify RECORD``: check a hand or match record (docs/fairness.md).

Exit 0 when every commitment matches its revealed secret and seed, every deal is the deal of its
seed (RULES §2.2), every action was legal and the results, settlements and ledger follow; exit 1
quoting the first thing that does not hold; exit 2 when the file cannot be read as JSON.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_BAD_INPUT = 2


def register(app: typer.Typer) -> None:
    """Add ``wmq verify`` to the CLI."""

    @app.command("verify")
    def verify(
        record: Annotated[
            Path,
            typer.Argument(
                help="A record: GET /api/rooms/{id}/record or …/hands/{n} of the server, "
                "or a file from `wmq play --save`."
            ),
        ],
    ) -> None:
        """Check a record's deals, commitments and actions (exit 0 only if all hold)."""
        from weimaque.server.fairness import VerifyError, verify_document

        try:
            doc = json.loads(record.read_text("utf-8"))
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            typer.echo(f"wmq verify: cannot read {record}: {exc}", err=True)
            raise typer.Exit(EXIT_BAD_INPUT) from exc
        try:
            done = verify_document(doc)
        except VerifyError as exc:
            typer.echo(f"NOT VERIFIED: {exc}", err=True)
            raise typer.Exit(EXIT_FAILED) from exc
        typer.echo(
            f"verified: {done.hands} hand(s), {done.actions} actions legal, "
            f"{done.commitments} deal commitment(s) match their reveal"
        )
