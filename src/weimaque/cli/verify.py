"""``wmq verify RECORD``: check a hand or match record (docs/fairness.md).

Exit 0 when every commitment matches its revealed secret and seed, every deal is the deal of its
seed (RULES §2.2), every action was legal and the results, settlements and ledger follow; exit 1
quoting the first thing that does not hold, a hand without its deal commitment included; exit 2
when the file is not a record (docs/terminal.md).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from weimaque.cli.records import EXIT_BAD_INPUT, SLIPPED, one_line, read_record, refuse

EXIT_OK = 0
EXIT_FAILED = 1


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
        without_commitments: Annotated[
            bool,
            typer.Option(
                "--without-commitments",
                help="Check a record whose hands have no deal commitment (`wmq play --save`): "
                "the play, not the fairness of the deal.",
            ),
        ] = False,
    ) -> None:
        """Check a record's deals, commitments and actions (exit 0 only if all hold)."""
        from weimaque.errors import RecordError
        from weimaque.server.table.fairness import VerifyError, verify_document

        try:
            doc = read_record(record)
            done = verify_document(doc, require_commitments=not without_commitments)
        except RecordError as exc:
            raise refuse("verify", str(exc)) from exc
        except VerifyError as exc:
            typer.echo(f"NOT VERIFIED: {one_line(str(exc))}", err=True)
            raise typer.Exit(EXIT_FAILED) from exc
        except SLIPPED as exc:
            raise refuse("verify", f"not a record: {type(exc).__name__}: {exc}") from exc
        seeded = ", every deal follows from the match seed" if done.match_seed else ""
        committed = (
            f"{done.commitments} deal commitment(s) match their reveal"
            if done.commitments
            else "no deal commitments (--without-commitments)"
        )
        typer.echo(
            f"verified: {done.hands} hand(s), {done.actions} actions legal, {committed}{seeded}"
        )


__all__ = ["EXIT_BAD_INPUT", "EXIT_FAILED", "EXIT_OK", "register"]
