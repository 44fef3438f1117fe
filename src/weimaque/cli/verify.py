"""``wmq verify RECORD``: check a hand or match record (docs/fairness.md).

Exit 0 when every commitment matches its revealed secret and seed, every deal is the deal of its
seed (RULES §2.2), every action was legal and the results, settlements and ledger follow; exit 1
quoting the first thing that does not hold, a hand without its deal commitment included; exit 2
when the file is not a record (docs/terminal.md). The record's ``game`` decides how it is
replayed: 偎麻雀's records (which name none) as they always were, another game's hand record
through the seam (``get_game(game).replay(record)``), with the same commitment.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from weimaque.cli.records import (
    DEFAULT_GAME,
    EXIT_BAD_INPUT,
    SLIPPED,
    game_hand_record,
    one_line,
    read_record,
    record_game,
    refuse,
)

if TYPE_CHECKING:
    from weimaque.server.table.fairness import Verified

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
            game = record_game(doc)
            if game == DEFAULT_GAME:
                done = verify_document(doc, require_commitments=not without_commitments)
            else:
                done = verify_game_hand(game, doc, require_commitment=not without_commitments)
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
    """Check a hand record of a game of the seam as docs/fairness.md says: its commitment (a
    hand without one fails unless ``require_commitment`` is off), the deal it shows is the deal
    of its seed, and the game's replay (``get_game(game).replay``: every action legal, the
    result as recorded). ``VerifyError`` with the first thing that does not hold."""
    from weimaque.errors import RecordError
    from weimaque.games import get_game
    from weimaque.server.table.fairness import Verified, VerifyError, check_commitment

    hand = game_hand_record(doc, game_id)
    where = "hand 1"
    seed = hand.get("seed")
    if hand.get("fairness") is None and hand.get("commitment") is not None:
        raise VerifyError(f"{where}: commitment never revealed")
    committed = check_commitment(where, hand, seed)
    if not committed and require_commitment:
        raise VerifyError(
            f"{where}: no deal commitment, so nothing shows its deal was fixed before play "
            "(--without-commitments checks the rest)"
        )
    game = get_game(game_id)
    try:
        replayed = game.replay(hand)
    except RecordError as exc:
        raise VerifyError(f"{where}: {exc}") from exc
    deal = hand.get("deal")
    if deal is not None and deal != replayed.deal():
        raise VerifyError(f"{where}: the deal in the record is not the deal of seed {seed}")
    actions = hand.get("actions")
    return Verified(1, len(actions) if isinstance(actions, list) else 0, int(committed))


__all__ = ["EXIT_BAD_INPUT", "EXIT_FAILED", "EXIT_OK", "register", "verify_game_hand"]
