"""Record files as the platform reads them, for every game (docs/terminal.md, "Record files").

A record file (a hand or match record of any game: ``wmq replay``, ``wmq review``,
``wmq verify``) is read only up to :data:`MAX_RECORD_BYTES` and checked by :func:`parse_record`
(size, UTF-8, JSON, nesting, string lengths, numbers) before anything looks inside, so a hostile
file is refused with one message quoting what is wrong. The fields of a hand record are each
game's to check (its ``Game.replay``); their bounds here are the file's.
"""

from __future__ import annotations

import json
from typing import Any, Final

from weimaque.errors import RecordError, quoted

#: The largest record file read (a match of the most hands is under a tenth of it).
MAX_RECORD_BYTES: Final = 16 * 2**20
#: How deep a record's JSON may nest (records nest six levels).
MAX_DEPTH: Final = 32
#: The longest string a record may hold (an action, a 名堂 name, a secret: all far shorter).
MAX_STRING: Final = 1000
#: The largest number a record may hold (seeds are 63 bits).
MAX_NUMBER: Final = 2**64


def _not_a_number(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def parse_record(data: bytes) -> Any:
    """The JSON document of a record file, bounded; raise ``RecordError`` saying what is wrong."""
    if len(data) > MAX_RECORD_BYTES:
        raise RecordError(f"over {MAX_RECORD_BYTES // 2**20} MiB: no record is that large")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise RecordError(f"not UTF-8 text: {exc.reason} at byte {exc.start}") from exc
    try:
        doc = json.loads(text, parse_constant=_not_a_number)
    except RecursionError as exc:
        raise RecordError(f"not a record: JSON nested over {MAX_DEPTH} levels") from exc
    except ValueError as exc:  # json.JSONDecodeError, a number of too many digits
        raise RecordError(f"not JSON: {str(exc)[:200]}") from exc
    check_bounds(doc)
    return doc


def check_bounds(doc: Any) -> None:
    """Refuse JSON nested too deep, or holding a too long string or a too large number."""
    stack: list[tuple[Any, str, int]] = [(doc, "", 0)]
    while stack:
        value, where, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise RecordError(f"not a record: JSON nested over {MAX_DEPTH} levels at {where}")
        if isinstance(value, str):
            if len(value) > MAX_STRING:
                raise RecordError(
                    f"a string of {len(value)} characters at {where or 'the top'} "
                    f"(a record's are at most {MAX_STRING}): {quoted(value, 30)}"
                )
        elif isinstance(value, bool) or value is None:
            pass
        elif isinstance(value, int):
            if not -MAX_NUMBER <= value <= MAX_NUMBER:
                raise RecordError(f"{quoted(value)} at {where or 'the top'} is out of range")
        elif isinstance(value, float):
            if value != value or value in (float("inf"), float("-inf")):
                raise RecordError(f"{value} at {where or 'the top'} is not a JSON number")
        elif isinstance(value, list):
            stack.extend((v, f"{where}[{k}]", depth + 1) for k, v in enumerate(value))
        elif isinstance(value, dict):
            for key, v in value.items():
                if len(key) > MAX_STRING:
                    raise RecordError(f"a key of {len(key)} characters at {where or 'the top'}")
                stack.append((v, f"{where}.{key}" if where else key, depth + 1))


__all__ = [
    "MAX_DEPTH",
    "MAX_NUMBER",
    "MAX_RECORD_BYTES",
    "MAX_STRING",
    "check_bounds",
    "parse_record",
]
