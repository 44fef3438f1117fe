"""``wmq verify RECORD``: check a hand or match record (docs/fairness.md).

Exit 0 when every commitment matches its revealed secret and seed, every deal is the deal of its
seed (RULES §2.2), every action was legal and the results, settlements and ledger follow; exit 1
quoting the first thing that does not hold, a hand without its deal commitment included; exit 2
when the file is not a record (docs/terminal.md). The record's ``game`` decides how it is
replayed: by the game's own checker where it has one (the seam's ``"verify"`` capability:
偎麻雀's records, which name no game), else each hand record through ``get_game(game).replay``,
with the same commitment.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from weimaque.cli.records import (
    EXIT_BAD_INPUT,
    SLIPPED,
    game_hand_record,
    one_line,
    read_record,
    record_game,
    refuse,
)

if TYPE_CHECKING:
    from weimaque.games.fairness import Verified

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
        from weimaque.games import RecordChecker, get_game
        from weimaque.games.fairness import VerifyError

        try:
            doc = read_record(record)
            name = record_game(doc)
            game = get_game(name)
            if isinstance(game, RecordChecker):
                done = game.verify_record(doc, require_commitments=not without_commitments)
            else:
                done = verify_game_hand(name, doc, require_commitment=not without_commitments)
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


def verify_game_hand(game_id: str, doc: Any, require_commitment: bool = True) -> Verified:
    """Check a hand record of a game of the seam without its own checker (docs/fairness.md):
    :func:`weimaque.games.fairness.verify_hand_record`."""
    from weimaque.games import get_game
    from weimaque.games.fairness import verify_hand_record

    return verify_hand_record(get_game(game_id), game_hand_record(doc, game_id), require_commitment)


__all__ = ["EXIT_BAD_INPUT", "EXIT_FAILED", "EXIT_OK", "register", "verify_game_hand"]
