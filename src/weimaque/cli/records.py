"""Record files for the commands that read them (``wmq verify``, ``review``, ``replay``).

A file is read only up to :data:`~weimaque.games.records.MAX_RECORD_BYTES` and checked by
:func:`~weimaque.games.records.parse_record` before any command looks inside; whatever is wrong
with it is told in one line on stderr, and the command exits 2 (docs/terminal.md). The record's
``game`` decides which game reads the rest (偎麻雀's records name none).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Final

import typer

from weimaque.errors import RecordError, quoted
from weimaque.games.records import MAX_RECORD_BYTES, parse_record

EXIT_BAD_INPUT: Final = 2
#: The longest message line a command prints about a bad record.
LINE: Final = 300

#: What a replay of a malformed record can still raise past its checks (a bug, told in a line).
SLIPPED: Final = (KeyError, IndexError, TypeError, ValueError, RecursionError, OverflowError)


def one_line(text: str, limit: int = LINE) -> str:
    """``text`` on one line of at most ``limit`` characters, control characters shown escaped."""
    flat = "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in text[: limit * 2])
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def say(command: str, message: str) -> None:
    """One line on stderr: ``wmq COMMAND: message``."""
    sys.stderr.write(f"wmq {command}: {one_line(message)}\n")
    sys.stderr.flush()


def refuse(command: str, message: str) -> typer.Exit:
    """Say what is wrong and return the exit (status 2) to raise."""
    say(command, message)
    return typer.Exit(EXIT_BAD_INPUT)


def read_record(path: Path) -> Any:
    """The checked JSON document of a record file; ``RecordError`` naming the file if it is not."""
    name = quoted(str(path), 80)
    try:
        with path.open("rb") as file:
            data = file.read(MAX_RECORD_BYTES + 1)
    except OSError as exc:
        raise RecordError(f"cannot read {name}: {exc.strerror or exc}") from exc
    try:
        return parse_record(data)
    except RecordError as exc:
        raise RecordError(f"{name}: {exc}") from exc


#: The game of a record that names none: 偎麻雀's records carry no ``game`` field.
DEFAULT_GAME: Final = "maque"


def record_game(doc: Any) -> str:
    """The id of the game a record is of (its ``game``, or its hand's in a server's
    ``{"record": …}``); 偎麻雀's records name none. ``RecordError`` quoting an unknown game."""
    from weimaque.games import UnknownGame, get_game

    name: Any = DEFAULT_GAME
    if isinstance(doc, dict):
        inner = doc.get("record")
        name = doc.get("game", inner.get("game") if isinstance(inner, dict) else None)
        name = DEFAULT_GAME if name is None else name
    if not isinstance(name, str):
        raise RecordError(f"a record's game is a game id, not {quoted(name)}")
    try:
        return get_game(name).info.id
    except UnknownGame as exc:
        raise RecordError(f"record of an unknown game: {exc}") from exc


def game_hand_record(doc: Any, game_id: str) -> dict[str, Any]:
    """The hand record of a game other than 偎麻雀's: the document itself, or the ``record``
    of a server's ``{"record": …}``. A match record of such a game is refused: none is written
    (the game's ``MatchPlay`` keeps its ledger, not a record)."""
    if not isinstance(doc, dict):
        raise RecordError(f"not a hand record: expected a JSON object: {quoted(doc)}")
    if isinstance(doc.get("record"), dict):
        return dict(doc["record"])
    if "hands" in doc:
        raise RecordError(f"a {game_id} record holds one hand, not a list of hands")
    if not isinstance(doc.get("actions"), list):
        raise RecordError(f"not a {game_id} hand record: no actions (keys: {quoted(sorted(doc))})")
    return doc


__all__ = [
    "DEFAULT_GAME",
    "EXIT_BAD_INPUT",
    "SLIPPED",
    "game_hand_record",
    "one_line",
    "read_record",
    "record_game",
    "refuse",
    "say",
]
